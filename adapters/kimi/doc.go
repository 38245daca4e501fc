// Package kimi knows Moonshot's two Kimi CLIs: Kimi Code (npm
// @moonshot-ai/kimi-code, measured on 2.1.0; it needs Node 22.19 or later)
// and the legacy Python kimi-cli it replaces (read from its source at 1.49
// and the shared samples; it cannot be installed here). It reads both
// CLIs' session stores, writes new sessions into them, runs Kimi Code
// offline against a model server, and maps both CLIs' tools.
//
// # Stores
//
// Kimi Code keeps its state under $KIMI_CODE_HOME (default ~/.kimi-code):
// session_index.jsonl, and per session
// sessions/wd_<slug>_<hash>/<session id>/ with state.json (id, cwd, title,
// times, agents, forkedFrom) and one journal per agent,
// agents/<agent>/wire.jsonl: "main", and "agent-0", "agent-1"… for
// subagents. A journal starts with a metadata line and holds flat records
// {"type", …payload, "agentId", "time"}: the prompt and injected messages
// (context.append_message), the model's steps (context.append_loop_event:
// step.begin, content.part, tool.call, tool.result, step.end with the
// response's usage), the model (llm.request, profile.bind), compaction,
// undo and bookkeeping. 2.1.0 also interleaves a derived event journal
// (records with "kind":"event") that repeats the rest; it is kept but makes
// no entries.
//
// The legacy kimi-cli keeps its state under $KIMI_SHARE_DIR (default
// ~/.kimi): kimi.json maps work dirs to sessions/<md5(workdir)>/, and each
// session folder holds context.jsonl (the LLM context: messages and marker
// rows), wire.jsonl (the event log: {"timestamp", "message": {"type",
// "payload"}}), state.json (title) and subagents/<agent id>/ with the same
// files and a meta.json.
//
// # Which file is the session
//
// A session's Ref.Path is the file Decoder reads. For Kimi Code that is
// the agent's wire.jsonl, the only journal. For kimi-cli it is wire.jsonl
// too: seed 000 §4.4 calls it the full-fidelity, lossless file, and
// kimi.md §2.3 says why: context.jsonl holds only the context since the
// last /clear or compaction (older context is rotated into context_<n>.jsonl
// and summarised), has no timestamps and no per-response usage, while the
// wire keeps every turn, raw tool output and token counts. Only a session
// whose wire.jsonl is missing, or holds nothing but its metadata line, is
// read from context.jsonl (and the oldest flat sessions/<bucket>/<id>.jsonl
// files, which are contexts). Open adds the system prompt, which only
// context.jsonl keeps, from its first row.
//
// # Ids
//
// A session is listed under its folder's name (session_<uuid>, ses_<uuid>
// when migrated, a UUID for kimi-cli) and a subagent under
// <session>/<agent>, with Ref.Parent and Session.Parent naming the session;
// the main session lists its subagents in Session.Subagents, each tool call
// that started one carrying the link. Locate accepts only ids made of the
// characters Kimi uses, so no id reaches outside the stores.
//
// # Reading
//
// Decoder reads all three formats, telling them apart line by line, and
// yields one event per record: entries keeping their native record, or the
// record itself in Session.Records. Bad lines (not JSON, cut short, not an
// object) and unknown record types are warnings naming file and line; the
// rest is read. Usage is counted once per model response: a Kimi Code
// step's step.end (its usage.record repeats it and counts only when step.end
// has none; a usage.record outside any step, such as a compaction request,
// counts on its own), a kimi-cli StatusUpdate. Input excludes cache reads
// and writes, as both CLIs record it. An error result saying Kimi Code's
// "Tool execution was interrupted…" is an interrupted call. The model is llm.request's provider
// model, else the profile's alias; kimi-cli stores none but a subagent's
// meta.json. A fork's journal copies its source's records up to a "forked"
// record; those entries carry the source as Origin and their usage is not
// the fork's.
//
// Read builds a whole session from a stream, Open also reads the
// sidecars (state.json, session_index.jsonl, kimi.json, meta.json,
// context.jsonl) and the subagent files, and Summarize scans a file for
// listing and statistics in memory independent of its size.
//
// # Writing
//
// Place and NewEncoder write a converted session as a new one (a new id
// every time; nothing existing is changed). For Kimi Code the journal is
// what Kimi Code writes for a print-mode run (kimi.md §3.10): a profile
// binding, then per turn turn.prompt, the prompt as a context message,
// one step per model response (step.begin, llm.request naming the model
// when it changes, usage.record, content.part per thinking, text or media
// part, tool.call and tool.result, step.end with the usage) and
// turn.ended. A response holding an entry of several parts (thinking and
// text in one message) is written as whole context messages instead, as
// Kimi Code's importer does, the usage on the message. Thinking goes as
// Kimi's think parts, which Kimi sends back as reasoning_content, plain
// text: a signature or encrypted reasoning of another provider is dropped
// and reported. A call that never finished gets no result: Kimi Code
// answers it itself, when it sends the history, with its "interrupted"
// error, and a call the source marked interrupted ends its turn as
// cancelled; a rejected call gets its permission record.
//
// The profile binding names the alias __kimi_env_model__ and no profile.
// Kimi Code resumes a session only with a model bound (print mode fails
// with "Model not set" otherwise) and sends a bound profile's system
// prompt verbatim; with no profile named, `kimi -r ID` in the TUI and any
// resume with -m ALIAS bind Kimi Code's own default profile, rendering
// its system prompt for the directory, with the configured or given model
// (measured on 2.1.0). Only print mode without -m keeps the binding: it
// works where the KIMI_MODEL_* variables define the model that alias
// names (the stub and e2e setups), with a short stand-in system prompt.
// The encoder cannot look for the user's configured model: it sees the
// target, not the store.
//
// kimi-cli sessions (Target.Format "legacy") get a wire.jsonl as kimi-cli
// records it and, as the encoder's File, the context.jsonl kimi-cli
// resumes from, with no system prompt row, so that kimi-cli puts its own
// first. Kimi Code tool calls become kimi-cli's (Bash is Shell, Edit is
// StrReplaceFile…); kimi-cli records no model. The provenance (the source
// and when stead wrote the session: the records timed up to then are the
// source's history, which Summarize counts as such) goes in the wire's
// metadata line, which kimi-cli never rewrites; for Kimi Code in
// state.json's custom object, which it keeps.
//
// # Driving the TUI
//
// TUI (tui.go) runs Kimi Code's TUI on a session. Busy and idle come from
// the wire's turn records; the spinner line says busy on the screen, and
// the approval panel ("▶ Run this command?" above "↑/↓ select · 1/2/3/4
// choose · ↵ confirm"), which Kimi shows before a command in its default
// mode, says waiting. The wire has it too (interaction.request of kind
// approval, then interaction.resolved and the tool call), as records no
// universal entry stands for; testdata/tui holds the measured screens.
//
// All knowledge of Kimi lives in this package.
package kimi
