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
// It answers like the real APIs where a lenient stub would hide a bug in
// what a CLI was given to resume: by default (strict) it refuses, with the
// API's own status and error body, a model of another provider (a
// Claude model asked of the Responses API, a GPT model of the Messages
// API...; names of no known family pass), a tool result without its call
// and a call left without its result, and thinking or reasoning the API
// could not have signed. It signs what it returns as each API does
// (Anthropic's thinking signature, OpenAI's encrypted reasoning, Gemini's
// thought signature; with a fixed key per API, so any stub takes back what
// another signed) and refuses another's. Options.Permissive turns the
// checks off, for the few tests that need such a request answered.
//
// Every request is recorded, to a JSONL log when one is set and in memory,
// both raw and as a normalised view (the messages the CLI sent, in order,
// with tool calls and results), so tests can check what history reached
// the model, and why a request was refused. A Script can also be derived from a recorded universal
// session, to replay any session against a real CLI.
//
// Non-goals: it is not a model and not a proxy; it never makes outbound
// connections, and it checks nothing about authentication.
package modelstub
