// Package claude reads Claude Code's native session store.
//
// Claude Code (measured on 2.1.330) keeps one JSON Lines file per session at
// $CLAUDE_CONFIG_DIR/projects/<encoded cwd>/<session id>.jsonl, where the
// config dir defaults to ~/.claude and the folder name is the physical cwd
// with every character other than A-Z, a-z and 0-9 replaced by '-' (cut at
// 200 characters and suffixed with a hash when longer). Subagents write
// <session id>/subagents/agent-<id>.jsonl beside it. Conversation records
// (user, assistant, attachment, system) form a tree through uuid and
// parentUuid; an assistant API response is split into one record per content
// block sharing message.id; everything else is bookkeeping keyed by
// sessionId. Older forms from the seeds are read too: a plain-string
// message, top-level tool_use, tool_result and summary records, base64url
// project folders, flat projects/<id>.jsonl and sessions/<id>.jsonl files.
//
// Claude Code 1.0 wrote a Task subagent's run into the main file
// (isSidechain records): its prompt is not a turn and never the title. A
// subagent's own file (every record isSidechain, with its agentId) is a
// conversation of its own. A slash command with arguments before any
// prompt names the session ("/review auth module"). A tool result record
// read again under the same uuid (a --continue's copy) is one result.
//
// Decoder turns records into universal timeline entries (keeping each
// native record), Read builds a whole session, and Summarize scans a file for
// listing and statistics in memory independent of its size. Discover and
// Locate find files; EncodeProjectDir is Claude's folder-name encoding.
//
// All knowledge of Claude Code's formats lives in this package.
package claude
