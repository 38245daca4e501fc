// Package corpusgen writes a deterministic, synthetic corpus of AI coding CLI
// session stores for benchmarks and tests.
//
// Generate fills a directory with the stores of the CLIs Options.Mix names
// (by default Claude Code and Codex only):
//
//	DIR/claude/projects/<encoded cwd>/<session id>.jsonl       (CLAUDE_CONFIG_DIR=DIR/claude)
//	DIR/codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl,
//	    session_index.jsonl                                    (CODEX_HOME=DIR/codex)
//	DIR/gemini/.gemini/tmp/<slug>/chats/session-<time>-<id8>.jsonl, projects.json,
//	    tmp/<slug>/.project_root and history/<slug>/.project_root   (GEMINI_CLI_HOME=DIR/gemini)
//	DIR/opencode/opencode.db                                   (XDG_DATA_HOME=DIR)
//	DIR/kimi/sessions/wd_<slug>_<hash>/session_<uuid>/{state.json,agents/main/wire.jsonl},
//	    session_index.jsonl, workspaces.json                   (KIMI_CODE_HOME=DIR/kimi)
//	DIR/manifest.json                                          (what was written, with the totals)
//
// Env returns those variables. The records copy the shapes the CLIs write
// (compact JSON, the CLIs' key order), as measured on Claude Code 2.1.330,
// Codex CLI 0.169.0, Gemini CLI 0.61.0, OpenCode 1.18.33 and Kimi Code
// 2.1.0:
//
//   - Claude: assistant responses split into one record per content block
//     that repeat the response's usage, tool results duplicated into
//     toolUseResult, forked sessions that copy an earlier session's records.
//   - Codex: envelopes with reasoning, function calls and running
//     token_count totals that sometimes repeat or carry no info; the
//     TUI's titles of three threads in four in session_index.jsonl.
//   - Gemini: a metadata line, the <session_context> message, each model
//     turn written when it ends and again with its tool calls and results,
//     the results once more as a user message, {"$set":{"lastUpdated"}}
//     after almost every record, and now and then a resume that restates
//     the whole conversation in one {"$set":{"messages"}} line.
//   - OpenCode: a database with OpenCode's schema, its migrations and
//     projects, and per session a session row, a user message per prompt
//     and an assistant message per model response, whose parts are
//     step-start, reasoning, text, tool (call and result in one state) and
//     step-finish with the usage; ids as OpenCode makes them. The event
//     log, which neither OpenCode's history nor stead reads, is not
//     written.
//   - Kimi Code: a journal per session with the profile binding (a system
//     prompt of several KB), the tool table, per turn the prompt, its
//     reminders, and per model response step.begin, llm.request,
//     usage.record, content parts, tool calls and results and step.end,
//     and 2.1.0's derived agent.message.appended records, which restate
//     each turn; state.json, the session index and the workspaces.
//
// Every session has prompts, replies, thinking, tool calls with commands
// and paths, tool outputs, failed calls and usage with models. Session sizes
// follow a heavy-tailed distribution (by default a median near 51 KB, a
// 99th percentile near 5 MB and a largest session near 47 MB); Claude and
// Codex files of several megabytes hold single lines of several megabytes,
// while Gemini, OpenCode and Kimi, which cap a tool's output, grow long
// instead. A few lines of the JSON Lines files are deliberately truncated,
// and the manifest lists them: a Claude bookkeeping line, a Codex
// task_started or turn_context, a Gemini {"$set"}, and a Kimi journal's
// last line (a process that died while it wrote).
//
// The same Options (seed included) always produce byte-identical files,
// the OpenCode database included: every session draws from its own random
// source derived from the seed and its index, so files can be written
// concurrently, and OpenCode's sessions go into the database one after the
// other in a fixed order. Text is sliced from fixed pools of code, logs
// and prose rather than drawn byte by byte, and every file is streamed
// through a buffered writer, so no file is held in memory.
//
// The manifest's totals are what a correct reader reports: per CLI the
// sessions, prompts, messages, tool calls, failed results and the tokens
// overall and per model, counted as stead counts them, which for Claude
// Code and Codex are ccusage 20's rules (a Claude (message.id, requestId)
// pair counts once in the whole corpus, and a Codex token_count event
// counts its last_token_usage unless its total_token_usage repeats the
// previous event's).
//
// What it is not: a faithful replay of real sessions. The text is
// plausible-looking filler, the ids are random, usage numbers are drawn from
// simple ranges, and only the record types and fields that readers such as
// stead's adapters and ccusage look at are modelled; less common records
// (compaction, sidechains and subagents, rewinds, world_state, the legacy
// kimi-cli store) are not written. It uses the standard library and, for
// OpenCode's database, modernc.org/sqlite.
package corpusgen
