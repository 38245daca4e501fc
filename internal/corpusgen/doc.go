// Package corpusgen writes a deterministic, synthetic corpus of AI coding CLI
// session files for benchmarks and tests.
//
// Generate fills a directory with two session stores:
//
//	DIR/claude/projects/<encoded cwd>/<session id>.jsonl       (point CLAUDE_CONFIG_DIR at DIR/claude)
//	DIR/codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl    (point CODEX_HOME at DIR/codex)
//	DIR/manifest.json                                          (what was written, with token totals)
//
// The records copy the shapes that Claude Code 2.1.330 and Codex CLI 0.169.0
// write (compact JSON, the CLIs' key order): Claude assistant responses split
// into one record per content block that repeat the response's usage, tool
// results duplicated into toolUseResult, forked sessions that copy an earlier
// session's records; Codex envelopes with reasoning, function calls and
// running token_count totals that sometimes repeat or carry no info. File
// sizes follow a heavy-tailed distribution (by default a median near 51 KB, a
// 99th percentile near 5 MB and a largest file near 47 MB) and the largest
// files hold single lines of several megabytes. A few lines are deliberately
// truncated, and the manifest lists them.
//
// The same Options (seed included) always produce byte-identical files:
// every file draws from its own random source derived from the seed and its
// index, so files can be written concurrently. Text is sliced from fixed
// pools of code, logs and prose rather than drawn byte by byte, and every
// file is streamed through a buffered writer, so no file is ever held in
// memory and a 1.5 GB corpus takes seconds.
//
// The manifest's token totals follow the counting rules of ccusage 20:
// a Claude (message.id, requestId) pair counts once in the whole corpus,
// and a Codex token_count event counts its last_token_usage unless its
// total_token_usage repeats the previous event's.
//
// What it is not: a faithful replay of real sessions. The text is
// plausible-looking filler, the ids are random, usage numbers are drawn from
// simple ranges, and only the record types and fields that readers such as
// stead's adapters and ccusage look at are modelled; less common records
// (compaction summaries, sidechains, subagent files, world_state, sqlite
// indexes) are not written. It uses only the standard library.
package corpusgen
