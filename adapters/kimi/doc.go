// Package kimi knows Moonshot's two Kimi CLIs: Kimi Code (npm
// @moonshot-ai/kimi-code, measured on 2.1.0; it needs Node 22.19 or later)
// and the legacy Python kimi-cli it replaces (read from its source at 1.49
// and the shared samples; it cannot be installed here). It reads both
// CLIs' session stores, runs Kimi Code offline against a model server, and
// maps both CLIs' tool names.
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
// and writes, as both CLIs record it. The model is llm.request's provider
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
// All knowledge of Kimi lives in this package.
package kimi
