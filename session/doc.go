// Package session is stead's universal session model: the Universal Session
// Format (USF) of seed 001, extended so that nothing a user cares about is
// lost when a session moves between AI coding CLIs.
//
// The package holds data types and pure functions over them only: the
// session and its timeline entries, the events an adapter decoder emits while
// it reads a native store, the fast per-file summaries used by listing and
// statistics, and the canonical JSON encoding. It imports nothing but the
// standard library and performs no I/O; every other stead package imports it.
//
// # Shape
//
// A Session keeps seed 001's field names and JSON shape (id, version,
// source{cli, originalId}, project{path, name, git}, model{provider, model},
// timeline[], metadata{created, lastModified, tokens, cost}). Timeline entries
// are one of user, assistant, tool_call, tool_result and system, with the
// seed's fields. Everything stead adds is optional and additive, so a reader
// of plain USF 1.0 still understands a stead document:
//
//   - parentId and sidechain on entries give the conversation tree (forks,
//     rewinds, subagent sidechains);
//   - reasoning keeps thinking signatures and encrypted reasoning as opaque
//     blobs, attachments keep images and files;
//   - model and usage (with cache read and write) per entry;
//   - status on tool calls and results: ok, error, denied, interrupted;
//   - kind marks special entries (compaction boundaries, summaries, injected
//     context, interrupts);
//   - parent and subagents link sessions to each other;
//   - native holds the untouched native record behind each entry, and
//     records the native records that produced no entry, so a same-CLI round
//     trip can be exact.
//
// The JSON Schema for the format is embedded as Schema and shipped in the
// repository as session/usf.schema.json.
//
// # Sessions too large to hold
//
// A Builder folds an adapter's events into a Session. Given an Outline
// (ReadOptions), it keeps only what it decides about each entry (a final
// id, a tool status, usage, a model) in a few dozen bytes, and hands the
// native records on instead of keeping them; a second read of the same
// file then yields each entry again, which the Outline completes. So a
// session of any size is written out holding one record at a time.
//
// # Non-goals
//
// The package does not know any CLI's native format (that is the adapters'
// job), does not read files, and does not decide prices or exit codes.
package session
