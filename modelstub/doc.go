// Package modelstub is a model server for offline runs of real AI coding
// CLIs. It listens on 127.0.0.1 and speaks the four model APIs the CLIs use:
// Anthropic Messages (Claude Code), OpenAI Responses (Codex), OpenAI Chat
// Completions (OpenCode, Kimi Code) and Gemini (Gemini CLI), streaming and
// not.
//
// It plays a Script: an ordered list of model turns, each some thinking,
// some text and tool calls. Every main request a CLI sends takes the next
// turn; side requests (titles, summaries, routing, token counts) are
// answered sensibly without taking one. Tool calls name a universal tool
// (bash, read, ...) and universal arguments; the stub maps them to the
// tool the CLI declared in that request, in that tool's argument schema. A
// turn can instead be a fault: an HTTP 429 or 500, a stream that stalls, a
// connection dropped mid-stream.
//
// Every request is recorded, to a JSONL log when one is set and in memory,
// both raw and as a normalised view (the messages the CLI sent, in order,
// with tool calls and results), so tests can check what history reached
// the model. A Script can also be derived from a recorded universal
// session, to replay any session against a real CLI.
//
// Non-goals: it is not a model and not a proxy; it never makes outbound
// connections, and it checks nothing about authentication.
package modelstub
