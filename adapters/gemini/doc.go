// Package gemini knows Google's Gemini CLI (measured on 0.61.0): how to run
// it offline against a model server, its tool names, how to read its
// sessions into the universal format, and how to write one it resumes.
//
// Gemini CLI keeps its state under $GEMINI_CLI_HOME/.gemini (default
// ~/.gemini) and talks to the Gemini API at $GOOGLE_GEMINI_BASE_URL.
//
// # Store
//
// Sessions live in tmp/<slug>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl,
// where the slug is the project's short name (not a hash, despite older
// docs): projects.json maps each project directory to it, and
// tmp/<slug>/.project_root holds the directory. Subagent sessions are
// chats/<parent session id>/<agent id>.jsonl. A file name carries only the
// first 8 characters of the session id, so Discover reads the id from the
// file. Older versions wrote one indented JSON document per session
// (session-*.json; the CLI still loads one and continues it in a .jsonl
// twin), and tmp/<slug>/logs.json keeps the project's prompt history.
//
// # Records
//
// A session file is append-only JSON Lines, replayed in order by the CLI:
//
//   - a metadata record {sessionId, projectHash, startTime, ...} (first,
//     and again after a resume);
//   - message records {id, timestamp, type, content, ...} of type user,
//     gemini, info, error or warning; a gemini message has thoughts,
//     tokens, model and toolCalls (each with its result and status). A
//     later record with the same id replaces the message: the CLI writes a
//     model turn when its stream ends, then again with its tool calls once
//     they ran;
//   - {"$set": {...}} updates to the metadata (lastUpdated, summary, ...);
//     $set.messages replaces the whole list of messages (on resume, with
//     the history rebuilt from the model's view, often without tokens; on
//     an error, rolled back);
//   - {"$rewindTo": id} drops a message and everything after it.
//
// The CLI stores each tool result twice (in toolCalls[].result and as a
// user functionResponse message), and a rebuilt list adds a third copy as
// an "<id>_response" message.
//
// # Representation
//
// The universal timeline keeps everything the session ever showed, each
// message once, in the order it first appeared, rather than only the list
// the CLI would load at the end (which can have lost tokens, or whole
// turns that failed). Messages are merged by id: the first version of a
// message makes its entries, and a later version (a rewritten line, or the
// same message restated in a $set.messages) adds only what is new: tool
// calls and results not yet seen, an assistant entry if there was none,
// and, as session.Update events, new usage, model or call status. Text
// and thinking already shown are not replaced. A tool result is paired
// once, from whichever copy comes first. Parent links follow the CLI's
// list: a message's parent is the last entry of the message before it, so
// messages a $rewindTo or a shorter $set.messages dropped stay in the
// timeline as a side branch.
//
// Every line is kept exactly once: on the first entry it made
// (Native.Part 0; the line's other entries point at it with Part 1, 2,
// ...), or, when it made none (bookkeeping, a rewrite or restatement that
// added nothing, a duplicate result), in Session.Records. A line that
// added entries to an existing message carries those entries and keeps
// the line; the earlier entries keep the earlier line. Lines that are not
// JSON objects are skipped with a warning; unknown records and message
// types are kept with one.
//
// Usage is the API's usageMetadata as the CLI records it (tokens): input
// includes cached tokens and output excludes thoughts, so stead's Input is
// input minus cached (plus tool-use prompt tokens), Output is output plus
// thoughts, and Reasoning is thoughts. It sits on a message's first entry.
//
// A failed shell command is recorded with status "success"; the reader
// reads its "Exit Code:" line and marks the result an error. A cancelled
// call is denied when its result says so, and interrupted otherwise.
//
// # Writing
//
// Place and Encoder write a new session Gemini CLI lists and resumes
// (gemini.md §5.2, §5.3): a metadata line with a non-empty sessionId and
// projectHash (plus a steadOrigin field naming the source and when stead
// wrote the session, which the CLI ignores; Summarize counts the messages
// timed up to then as the source's history), then one line per message, each with an id. A model turn is
// one gemini message, its tool calls each with a result in
// toolCalls[].result and a status; the result is not repeated as a user
// functionResponse message, as the CLI's own files do, which a resume
// would send twice. The file goes in the folder the CLI resolves for the
// project directory; projects.json is left alone and missing
// .project_root markers are created. Thinking becomes thoughts, which the
// CLI shows and, as with its own, does not send back to the model.
//
// Session retention (on by default) deletes, at every start, the files of
// sessions it cannot load, with every file whose name ends in the same
// 8 characters; each resume in a later minute than the file's name leaves
// an unloadable file named with the resumed id's first 8 characters. A
// written file is therefore named with 8 other characters (see Place),
// and its lastUpdated is the time of writing, so that the 30-day limit
// counts from the conversion, not from the source's last message. (Once
// resumed, the file is the CLI's: from the second resume on, 0.61.0 sends
// each older tool result twice, from the history it rewrote on the first.)
//
// # API
//
// Decoder turns records into universal events (and reads the two
// whole-document formats up front), Read builds a whole session, Open adds
// what the store knows outside the file (project, parent, subagents), and
// Summarize scans a file for listing and statistics with the same merge
// rules, in memory independent of record size. Discover and Locate find
// files; Sniff recognises records. ToolArgs and ToolCall translate tool
// calls to and from universal arguments; Place and NewEncoder write.
//
// # Driving the TUI
//
// TUI (tui.go) runs the TUI on a session: its terminal title says ready,
// working and waiting for an approval. A model request that fails for
// good (after general.maxAttempts) is retried again in silence for ever
// with ui.errorVerbosity "low", its default, or asked about ("Keep
// trying / Stop") with "full" and for a model that does not exist: the
// debug log a supervised run has the CLI write (GEMINI_DEBUG_LOG_FILE)
// and the question on the screen make the run wait, and a supervisor
// nobody watches gives the request up (Esc, or Stop), so that the turn
// ends in the error. testdata/tui holds the measured screens and log.
//
// All knowledge of Gemini CLI lives in this package.
package gemini
