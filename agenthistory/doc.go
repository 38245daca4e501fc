// Package agenthistory reads and writes the unified NDJSON export of agent
// history (seed 003, "Unified NDJSON Schema for Agent History", schema
// version 1.0): one header line, then one line per session holding the
// session, its messages and, when it branches, its conversation graph.
// Universal sessions (package session) go in and come out; the package
// knows no CLI's native format.
//
// # Writing
//
// NewWriter writes the header, which the caller fills (session_count and
// the lists come first in the file, and a Writer streams); Header.Add
// counts a session in. Each Write encodes one session's line, a message at
// a time, and keeps nothing of it, so memory follows the largest message
// (and, a little, the longest session), not the export; a message's long
// texts and raw values (tool outputs, native records over 64 KB) are
// written as they are encoded, so it is never held encoded. WriteStream
// writes a line the same way from a session without its timeline and an
// Entries giving the timeline one entry at a time, so a session larger
// than memory can be exported: it holds the current message, and, for the
// graph, a hash of each entry id, each message's uuid and its parent
// message (about 40 bytes a message for a Claude Code session). Write is
// WriteStream over the timeline, and writes the same bytes. Create writes
// a file atomically and gzips it when its name ends in ".gz".
//
// A line is written in order, so what comes first in it is made from the
// session without its timeline: the session object (started_at and
// ended_at are the session's Created and LastModified, not read off the
// timeline), and a tool result's tool_name, which is that of the first
// call with its id in the result's message or before it.
//
// The mapping:
//
//   - agent: the CLI's agent name, as the caller's Names says (stead's
//     adapters: "claude-code" for Claude Code; "codex", "gemini", and, for
//     the CLIs the seed does not name, "opencode" and "kimi"; "codex-cli"
//     and the like are read too). The package knows no CLI itself.
//   - workspace is the project path; workspace_encoded is Claude Code's
//     name for it (every character but an ASCII letter or digit becomes
//     '-'); source is {type "local", host null, path of the native file}.
//   - is_agent_session is true for a subagent's session (linked to its
//     parent as a subagent); parent_session_id and agent_id come from the
//     parent link, for a fork too.
//   - The entries of one model response (consecutive assistant and
//     tool_call entries sharing a MessageID) make one assistant message of
//     text and tool_use blocks; every other entry is a message of its own.
//     A tool result is a user message with a tool_result block carrying the
//     call's tool_name (see above), as in the Claude API (the seed's review
//     question 1).
//     tool_name is the CLI's tool name.
//   - A message's uuid is its first entry's id (a tool_use block's tool_id
//     is its entry's id) and its parent_uuid that entry's parent. The
//     graph, written only when the session branches, has as fork points
//     the messages with more than one child (a message's parent being the
//     message holding its parent_uuid) and as active path the line from
//     the root to the last message. Ids are told apart by a 64-bit hash
//     there: two ids of one session with the same hash, a chance of about
//     n²/2⁶⁵ for n ids, would be taken for one.
//   - Metadata: model name and token_usage (cache creation = USF cache
//     writes) from the first entry; is_meta for a meta entry; cwd,
//     git_branch and agent_version, which USF keeps per session, on the
//     first message.
//
// Everything else of a universal session travels in "stead" objects, which
// other readers ignore: session.stead (version, title, model, git, totals,
// cost, links, native records, warnings) and messages[].metadata.stead,
// which describes the message's first entry (thinking, reasoning blocks,
// kind, status, error, reasoning tokens, the universal tool name,
// attachments, sidechain, subagent link, origin, entry CLI, native record,
// and the message id) and, in its "rest" array, each later entry of the
// message (with its own id, time, parent, model and usage when they differ
// from what the message gives). A raw JSON value that is not compact JSON
// (an indented native record, a tool input that is not JSON) is kept as a
// string, verbatim.
//
// # Reading
//
// NewReader checks the header and Next returns one session per line, with
// no limit on a line's length; a gzip stream is recognised by its magic
// bytes. A line that cannot be read is skipped with a warning (a
// *LineError naming file:line, see Warnings) and reading goes on; a
// message that cannot be read is kept as a session record. What a line
// holds that its session does not give back is kept too: the line without
// its messages (for a session object, graph or field of the line that the
// session does not give back) as a record, a message as the native record
// of its entries (Native.Path is the export's name, Native.Line its
// line). This is how an export written by another tool keeps, say, its
// stop reasons and request ids.
//
// A line is read whole (it is one session), its messages where they are in
// it, each decoded in turn and compared with its encoding as that is
// written: memory holds the line, read in, and the session it makes, a
// few times the line (a 300 MB line peaks at 1 GB resident).
//
// # What a round trip loses
//
// Export then import gives back the session (its canonical USF encoding,
// raw inputs and native records byte for byte), and export, import, export
// gives the same bytes; the tests check both for every CLI's testdata.
// What does not come back: bytes that are not UTF-8 (the format is UTF-8;
// they become U+FFFD); fields an entry has that USF does not define for its
// type (content on a tool call, say); the difference between an absent and
// an empty value (a nil and an empty list, an empty version, which reads
// as "1.0"); timestamps' zones (USF times are UTC).
//
// A reader that knows only the seed's fields sees less: thinking, entry
// kinds (compaction, interrupts, injected context), tool statuses and
// errors, attachments, subagent links and native records are all in the
// stead objects.
//
// # Non-goals
//
// The package does not find or open native sessions (callers use the
// adapters), does not sort, filter or deduplicate sessions, does not
// render markdown, and does not carry the seed's source types other than
// "local" (a WSL or remote source read from another tool's export is kept
// as a record, not understood).
package agenthistory
