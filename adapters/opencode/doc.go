// Package opencode knows OpenCode (npm opencode-ai, measured on 1.18.33):
// how to run it offline against a model server, its tool names, how to
// read its sessions into the universal format, and how to write a
// converted session into its store.
//
// # The stores
//
// OpenCode 1.x keeps every session in one SQLite database,
// $XDG_DATA_HOME/opencode/opencode.db (XDG_DATA_HOME defaulting to
// ~/.local/share on every platform; $OPENCODE_DB overrides the path, and
// other release channels write opencode-<channel>.db), in WAL mode. Three
// tables matter: session (one row per session: directory, title, version,
// model, parent_id for a subagent session, times), message (data: the
// message's JSON without its ids) and part (data: the part's JSON). Ids are
// "ses_", "msg_" and "prt_" plus 26 characters; messages are ordered by
// (time_created, id) and parts by id. A tool call and its result are one
// "tool" part whose state goes pending, running, then completed or error.
// Each model response is an assistant message (in 0.x, a step of one) and
// its usage is in the message's tokens and in its step-finish parts.
//
// Two other forms hold the same records with their ids: the JSON document
// of `opencode export` ({"info", "messages": [{"info", "parts"}]}), and the
// storage/ tree OpenCode 0.x kept instead of a database (seed 001's era),
// which 1.x migrates and leaves in place: storage/session/<project>/<id>.json,
// storage/message/<session>/<id>.json and storage/part/<message>/<id>.json.
//
// # Reading without disturbing OpenCode
//
// The database is opened read-only and never written: no -wal or -shm is
// created, none is checkpointed, and reading while OpenCode runs is safe.
// How depends on the files beside it (see openMode): with a -wal and a -shm,
// SQLite maps the -shm read-only (readonly_shm) and reads through
// OpenCode's index, or rebuilds one in its own memory when no process holds
// the database; without a -wal, the database file is read as immutable.
// A -wal without its -shm cannot be read without creating one, so the
// database file is read alone and a warning says the newest changes may be
// missing. One pool of connections per database serves the whole process,
// so the catalog's summaries of ten thousand sessions share it.
//
// # Mapping
//
// A Ref names a session inside the database: {ID: "ses_…", Path: the
// database}. Open also takes an export file or a storage/ session file.
// Each part becomes entries: a text part a user or assistant entry (a
// synthetic one OpenCode added is a user entry of kind meta), a reasoning
// part an assistant entry with Thinking, a tool part a tool_call (its id the
// callID, its tool normalised through Tools, the native name in
// OriginalTool and the input kept) and, once the tool finished, a
// tool_result paired by that id (completed → ok; error → error, or
// interrupted when aborted, or denied when the user refused). File parts
// are attachments, compaction parts compaction entries, retry parts error
// entries; a message with an error becomes a system entry. Step and
// snapshot parts, and messages that make no entry of their own, are kept in
// Session.Records. Model and provider come from each message; a response's
// usage goes on its first entry: Input is OpenCode's input (which already
// excludes cache reads and writes), Output its output plus reasoning (which
// OpenCode keeps apart), CacheRead, CacheWrite and Reasoning as recorded.
// A session with a parent is a subagent session: Session.Parent links it,
// and its parent lists it in Session.Subagents.
//
// Nothing is dropped. Each entry's Native.Record is the row it came from:
// for the database, an object of the row's columns with data embedded as
// JSON (as a string when it is not valid JSON); for an export or storage/
// file, the object as written. A row has no line, so Native.Line,
// Record.Line and Warning.Line count the session's rows in reading order:
// 1 is the session itself, then each message followed by its parts (and,
// last, any part whose message is missing). Warning.Path is the database,
// the export, or the storage/ file at fault.
// Rows that cannot be read (invalid JSON, unknown part types, parts of a
// missing message) give a warning naming the store and the row's id, are
// kept in Records, and the rest is read.
//
// # Writing
//
// A converted session is written in the export format (Encoder): what
// `stead session convert --to opencode` prints, and what `opencode import`
// reads (run it in the session's directory; it replaces the project and
// directory with the cwd's). Installing needs no opencode binary: Commit
// inserts the export's session, messages and parts into the database in
// one transaction (BEGIN IMMEDIATE with a busy timeout, so it waits while
// a running OpenCode holds the write lock, and readers see all of it or
// none), refuses an id the database holds, changes no existing row, and
// leaves the journal mode (WAL) alone. A home OpenCode never ran in has
// no database: Commit creates it as OpenCode 1.18.33 does (its schema,
// its migration record, the global project), beside its place, and links
// it in only if none appeared meanwhile. The session's project is the one
// OpenCode resolves for its directory (resolveProject): global outside
// git, else the origin remote's hash or the root commit, with the
// repository's top level as worktree; the session's path is the
// directory relative to it. Ids are OpenCode's (session ids inverted,
// message and part ids ascending in conversation order).
//
// Every field OpenCode's schemas require is filled, since its prompt loop
// does not validate what it reads (a tool state without its time crashes
// it): each user entry is a user message (agent build, the model to
// continue with); each model response an assistant message (mode and
// agent build, path {cwd, root}, modelID and providerID of the model that
// answered, tokens, cost 0, time created and completed, finish) whose
// steps are framed by step-start and step-finish parts carrying the
// usage; a call and its result are one tool part whose state is completed
// (output, title, metadata; a command's output also in metadata.output,
// which the TUI shows) or error, with its time; a call that never
// finished gets OpenCode's own error, "Tool execution aborted" marked
// interrupted. Thinking becomes reasoning parts, with Anthropic's
// signature (or redacted data) when it has one: OpenCode sends reasoning
// back, as thinking or as reasoning_content on OpenAI-compatible
// providers, only to the model that wrote it, and as plain text to any
// other, which the loss report warns of; OpenAI's encrypted reasoning is
// dropped (OpenCode would send it back by item id, which fails unless
// OpenAI stored the item). OpenCode's own records (a same-CLI copy) keep
// their tool states and provider metadata as they were.
//
// OpenCode continues a session with the model its last user message
// names, so Place makes user messages name the default model of the
// OpenCode configuration the store's environment sees (else the
// source's). Provenance (the source CLI and session, and when stead wrote
// it: the messages created up to then are the source's history, which
// Summarize counts as such) goes in the session's metadata,
// {"steadOrigin": {...}}, a free-form record OpenCode keeps and `opencode
// import` carries over.
//
// # Not supported
//
// NewDecoder: a database is not a stream of records, and an export is one
// JSON document. Read and Summarize decode an export from a stream, a
// message at a time. The event log (event table) and the v2 session_message
// projection are not read: OpenCode builds the history the model sees from
// session, message and part alone.
//
// # Driving the TUI
//
// TUI (tui.go) runs the TUI on a session. Its footer's "esc interrupt"
// says busy; its permission prompt ("△ Permission required", choices
// Allow once, Allow always, Reject, footer "enter confirm") says waiting:
// the store has no record of it (the tool part reads "running"). OpenCode
// asks only where its configuration says "ask" (its default allows bash);
// testdata/tui holds the measured screens.
//
// All knowledge of OpenCode lives in this package.
package opencode
