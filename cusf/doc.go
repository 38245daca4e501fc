// Package cusf reads, writes and validates the CODITECT Universal Session
// Format (CUSF) 1.0.0 of seed 000 (CODITECT-STD-010): a JSONL file holding
// one LLM session as a _meta line, a session_start line, message, tool_use
// and tool_result lines in order, and a session_end line.
//
// Encoder writes a universal session (package session) as CUSF; Decode
// reads a CUSF file back into a universal session; Validate checks a file
// against the JSON Schema (Schema, shipped as schemas/cusf-v1.0.0.json),
// the structural rules of the standard's §5.2 and the reconstruction test
// of §5.3, and grades it as §9.1 says. The package imports only session:
// it checks the schema with its own evaluator (schema.go).
//
// # Export
//
// User, assistant and system entries become message lines (role user,
// assistant or system), tool calls tool_use lines and tool results
// tool_result lines. llm_source is the session's CLI for claude, codex,
// gemini and kimi and "other" for anything else (OpenCode). Tool names are
// the Claude Code style names the standard uses (Bash, Read, Write, Edit,
// Grep, Glob, LS, WebFetch, WebSearch, TodoWrite, Task) for the universal
// tools that have one, else the CLI's own name.
//
// CUSF hangs every tool_use off an assistant message (its parent_id). A
// call whose response has no assistant entry in the timeline (Codex,
// Kimi, a Claude response made only of tool calls) gets an empty assistant
// message written before it, carrying the response's model and usage and
// stop_reason tool_use; its message_id is the call's tool_id with "-msg"
// appended. Usage set on tool call entries is
// moved to the message that owns them, so every token is counted in a
// message and session_end.total_tokens is their sum. A tool result whose
// call the session does not hold gets an "unknown" tool_use with no input
// and no parent just before it. Decode recognises both kinds of made-up
// line and folds them back, so they survive a round trip unchanged.
//
// stop_reason is derived, not recorded by stead: error for an error entry,
// tool_use for an assistant message followed by tool calls of its
// response, nothing when more of its response follows, else end_turn.
//
// Timestamps must be in chronological order, and the timeline is not
// always: an entry with no time, or one earlier than the last time
// written, is written with the last time written (the session start for
// the first), so no time is ever invented later than a real one.
// started_at is the session's creation time (or its first entry's, if
// earlier); ended_at the last time written or the session's last
// modification, whichever is later.
//
// Encoder.EncodeStream writes the same file from a session's metadata and
// its timeline given an entry at a time (Entries), for sessions too large
// to hold: it keeps the set of tool ids written and a few entries read
// ahead (the tool calls of the response after an assistant message, and
// the entries before the first one with a time, as started_at depends on
// it). Encode is EncodeStream of the session's timeline.
//
// # What is lost going from the universal format to CUSF
//
// CUSF has no place for: entry kinds other than error (injected context,
// instructions, compaction boundaries, summaries, turn markers,
// interrupts: they become plain messages), sidechain flags, reasoning
// signatures and encrypted reasoning (only the thinking text is kept),
// attachments, reasoning token counts, tool statuses other than error
// (denied and interrupted become is_error), the tool call's own parent
// (its parent_id is the message that owns it), a result's id and parent,
// the API message id of a response (message_id is the entry id), the CLI's
// own tool name for tools with a standard name, per-entry CLI and origin,
// subagent and fork links, the title, the git commit and remote, the
// model provider and cost, and the native records behind entries.
//
// # Import
//
// Decode gives a session whose Source.CLI is the llm_source for claude,
// codex, gemini and kimi, and session.Universal for gpt and other (nothing
// says which CLI wrote those), and whose Source.Format is "cusf". Tool
// names map back to universal tools where known (OriginalTool keeps the
// name); the assistant messages of one response (all but the last with no
// stop_reason) share a message id, which the response's tool calls get
// too. Every line is kept: an entry's line in its Native record, the
// _meta, session_start and session_end lines and the lines that made no
// entry in Session.Records, unknown fields included. Readers must accept
// unknown fields (§7.2) and this one does; writers should not add fields
// (§7.2), so the Encoder writes only the schema's fields, but for a
// session decoded from CUSF it takes the fields the universal model cannot
// hold from those kept lines: llm_source gpt, cwd, machine_id, tenant_id,
// user_id, stop_reason, truncated and end_reason, and whether optional
// fields were there at all. That is what makes export, import and
// re-export give the same lines (§5.3).
//
// Decode holds the session it reads. For a file too large to hold,
// DecodeOutline reads it for an Outline (about 50 bytes an entry, as
// session.Outline) and hands its records on, and Outline.Entries reads it
// again, giving each entry as Decode gives it, one line at a time: memory
// holds a few times the largest line.
//
// # Validation and grade
//
// Validate reads the file a line at a time. Each line is checked against
// the schema (with date-time formats asserted) and the structural rules:
// the first line, and only it, is _meta; exactly one session_start, before
// any message or tool line; every tool_result names an earlier tool_use;
// the file ends with one session_end whose session_id matches; timestamps
// never go back. Every issue names its line and rule. With Reconstruct,
// the file is also imported and re-exported and the first differing line
// reported (compared as JSON values, _meta.exported_at, _meta.exporter
// and unknown fields aside, null and absent alike, is_error and truncated
// false and absent alike, timestamps as instants).
//
// The standard's grades are turned into a number this way. F (under 60%):
// a required field is missing or invalid, a line is not JSON, or a
// structural rule other than timestamp order is broken; the score is 59%
// times the share of lines with no such error. D (60–69%): only minor
// errors (timestamps out of order, schema errors in optional fields, empty
// lines, a failed reconstruction). Otherwise 70% + 30% × the share of
// applicable optional fields that are populated: A from 90%, B from 80%,
// C from 70%. Applicable optional fields are llm_model, project_path and
// cwd of session_start, and git_branch when present; model, usage and
// stop_reason of each assistant message; parent_id of every message but
// the first; tool_input and parent_id of each tool_use; result of each
// tool_result; total_messages, total_tokens and end_reason of session_end.
// machine_id, tenant_id and user_id are CODITECT-internal (its machine,
// tenant and user registry) and not counted: stead has no such thing.
//
// # Non-goals
//
// The package does not read the CLIs' native files (the adapters do; a
// caller opens a session and hands it to the Encoder), does not implement
// CODITECT's database reconstruction (ADR-118) or context extraction
// (ADR-080), and does not write more than one session per file.
package cusf
