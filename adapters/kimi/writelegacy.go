package kimi

import (
	"bytes"

	"github.com/stead-dev/stead/session"
)

// legacyOut is what the encoder keeps of a kimi-cli session besides its
// wire.jsonl: the folder Place chose and the context.jsonl.
type legacyOut struct {
	dir        string
	ctx        bytes.Buffer
	checkpoint int
	total      int64 // the step's context size after its response, -1 for none
}

// The legacy kimi-cli's files (kimi.md §2.3, §2.4, §2.10): wire.jsonl
// lines are {"timestamp": <seconds>, "message": {"type", "payload"}} with
// every payload field present, as Python's json.dumps writes them;
// context.jsonl holds the LLM context kimi-cli resumes from: a
// _checkpoint row before each turn and step, the messages (compact, as
// pydantic writes them) and _usage rows with the context's size. It has
// no _system_prompt row: kimi-cli then puts its own current one first.

func (e *Encoder) legacyStart() {
	meta := obj{{"type", "metadata"}, {"protocol_version", "1.10"}, {"stead_origin", provenance(e.t.Origin)}}
	e.pyLine(meta)
}

// wire writes a legacy wire record.
func (e *Encoder) wire(typ string, payload obj) {
	e.pyLine(obj{{"timestamp", floatSeconds(e.last)}, {"message", obj{{"type", typ}, {"payload", payload}}}})
}

func (e *Encoder) pyLine(v any) {
	if e.err != nil {
		return
	}
	b, err := session.MarshalCompact(v)
	if err != nil {
		e.err = err
		return
	}
	e.buf = append(append(e.buf[:0], pythonJSON(b)...), '\n')
	_, e.err = e.w.Write(e.buf)
}

// row appends a context.jsonl row: a message compact, a marker row as
// Python writes it.
func (e *Encoder) row(v obj, marker bool) {
	if e.err != nil {
		return
	}
	b, err := session.MarshalCompact(v)
	if err != nil {
		e.err = err
		return
	}
	if marker {
		b = pythonJSON(b)
	}
	e.legacy.ctx.Write(b)
	e.legacy.ctx.WriteByte('\n')
}

func (e *Encoder) checkpoint() {
	e.row(obj{{"role", "_checkpoint"}, {"id", e.legacy.checkpoint}}, true)
	e.legacy.checkpoint++
}

// legacyContent is a message's content as kimi-cli writes it: a string
// when it is one text part, else the parts.
func legacyContent(parts []any) any {
	if len(parts) == 1 {
		if p, ok := parts[0].(obj); ok && len(p) == 2 && p[0].v == "text" {
			return p[1].v
		}
	}
	return parts
}

// legacyTurn opens a turn with the user's prompt.
func (e *Encoder) legacyTurn(en *session.Entry) {
	e.inTurn, e.turns, e.steps, e.cancelled = true, e.turns+1, 0, false
	input := e.userParts(en)
	e.wire("TurnBegin", obj{{"user_input", input}})
	e.checkpoint()
	e.row(obj{{"role", "user"}, {"content", legacyContent(input)}}, false)
}

// legacyStep writes a response as a kimi-cli step: StepBegin, its content
// parts, tool calls and results in the order they came, the usage before
// the first result; and in the context the assistant message, then a tool
// message per result, as kimi-cli grows its context.
func (e *Encoder) legacyStep(resp []session.Entry) {
	e.touch(resp[0].Timestamp)
	e.wire("StepBegin", obj{{"n", e.steps}})
	e.checkpoint()
	_, u := e.respInfo(resp)
	status := func() { // once, before the first result or at the end
		if u == nil {
			return
		}
		e.wire("StatusUpdate", obj{{"context_usage", nil}, {"context_tokens", u.Context()}, {"max_context_tokens", nil},
			{"token_usage", obj{{"input_other", u.Input}, {"output", u.Output}, {"input_cache_read", u.CacheRead}, {"input_cache_creation", u.CacheWrite}}},
			{"message_id", nil}, {"plan_mode", nil}, {"mcp_status", nil}})
		e.row(obj{{"role", "_usage"}, {"token_count", u.Context()}}, true)
		e.legacy.total = u.Context() + u.Output
		u = nil
	}
	var content, toolCalls []any
	var tools []obj // the tool messages, after the assistant's
	e.legacy.total = -1
	for i := range resp {
		en := &resp[i]
		if en.Type == session.ToolResult {
			status()
		}
		e.touch(en.Timestamp)
		switch en.Type {
		case session.Assistant:
			for _, p := range e.parts(en) {
				content = append(content, p)
				e.wire("ContentPart", p.(obj))
			}
		case session.ToolCall:
			id := e.call(en)
			name, input := legacyToolCall(en.OriginalTool, args(en.Input))
			fn := obj{{"name", name}, {"arguments", string(input)}}
			toolCalls = append(toolCalls, obj{{"type", "function"}, {"id", id}, {"function", fn}})
			e.wire("ToolCall", obj{{"type", "function"}, {"id", id}, {"function", fn}, {"extras", nil}})
			e.denied(en, id, name)
		case session.ToolResult:
			id, _ := e.result(en)
			tools = append(tools, e.legacyResult(en, id))
		}
	}
	status()
	msg := obj{{"role", "assistant"}, {"content", legacyContent(nonNil(content))}}
	if len(toolCalls) > 0 {
		msg = append(msg, kv{"tool_calls", toolCalls})
	}
	e.row(msg, false)
	if e.legacy.total >= 0 {
		e.row(obj{{"role", "_usage"}, {"token_count", e.legacy.total}}, true)
	}
	for _, m := range tools {
		e.row(m, false)
	}
}

// legacyResult writes a tool result as kimi-cli's ToolResult, and returns
// the tool message kimi-cli derives from it (a "<system>…</system>" note
// first).
func (e *Encoder) legacyResult(en *session.Entry, id string) obj {
	isErr, message := failed(en), ""
	output := e.resultOutput(en)
	parts := []any{}
	if en.Kind == session.KindPlaceholder {
		isErr, message, output = true, interruptedResult, ""
		parts = append(parts, obj{{"type", "text"}, {"text", "<system>ERROR: " + interruptedResult + "</system>"}})
	} else {
		if isErr && !isErrorText(resultText(en)) {
			parts = append(parts, obj{{"type", "text"}, {"text", "<system>ERROR: Tool execution failed.</system>"}})
		}
		res := e.resultParts(en)
		if len(res) == 0 && !isErr {
			res = append(res, obj{{"type", "text"}, {"text", "<system>Tool output is empty.</system>"}})
		}
		parts = append(parts, res...)
	}
	e.wire("ToolResult", obj{{"tool_call_id", id}, {"return_value", obj{{"is_error", isErr}, {"output", output},
		{"message", message}, {"display", []any{}}, {"extras", nil}}}})
	return obj{{"role", "tool"}, {"content", legacyContent(parts)}, {"tool_call_id", id}}
}

func nonNil(parts []any) []any {
	if parts == nil {
		return []any{}
	}
	return parts
}
