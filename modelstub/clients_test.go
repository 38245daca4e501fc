package modelstub_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The readers below play the client: each folds an API's answer, streamed
// or not, into one message the way that API's SDK does, and fails the test
// on anything a client would reject or misread.

// answer is a model answer, whatever the API.
type answer struct {
	thinking  string
	signature string // Anthropic's thinking signature, Responses' encrypted reasoning
	text      string
	calls     []answerCall
	stop      string // the API's stop or finish reason
	usage     map[string]any
}

type answerCall struct {
	id, name string
	args     map[string]any
	custom   bool   // a Responses freeform call
	input    string // its input
}

// readAnthropicStream folds an Anthropic Messages event stream.
func readAnthropicStream(t *testing.T, body []byte) answer {
	t.Helper()
	evs := parseSSE(t, body)
	if len(evs) < 3 {
		t.Fatalf("%d events, want at least message_start, message_delta and message_stop", len(evs))
	}
	var a answer
	type block struct {
		typ     string
		text    strings.Builder
		partial strings.Builder
		id      string
		name    string
		sig     string
		stopped bool
	}
	var blocks []*block
	started, deltaSeen := false, false
	for i, e := range evs {
		d := obj(t, e.data)
		if str(d, "type") != e.name {
			t.Fatalf("event %d: event name %q but data type %q", i, e.name, str(d, "type"))
		}
		if !started && e.name != "message_start" {
			t.Fatalf("event %d is %q before message_start", i, e.name)
		}
		switch e.name {
		case "message_start":
			if started {
				t.Fatal("two message_start events")
			}
			started = true
			if str(d, "message", "role") != "assistant" || str(d, "message", "id") == "" {
				t.Errorf("message_start message = %v", d["message"])
			}
		case "ping":
		case "content_block_start":
			idx := int(num(d, "index"))
			if idx != len(blocks) {
				t.Fatalf("content_block_start index %d, want %d", idx, len(blocks))
			}
			if len(blocks) > 0 && !blocks[len(blocks)-1].stopped {
				t.Fatalf("block %d starts before block %d stopped", idx, idx-1)
			}
			cb := get(d, "content_block")
			b := &block{typ: str(cb, "type"), id: str(cb, "id"), name: str(cb, "name")}
			blocks = append(blocks, b)
		case "content_block_delta":
			idx := int(num(d, "index"))
			if idx >= len(blocks) || blocks[idx].stopped {
				t.Fatalf("delta for block %d, which is not open", idx)
			}
			b := blocks[idx]
			switch dt := str(d, "delta", "type"); dt {
			case "thinking_delta":
				b.text.WriteString(str(d, "delta", "thinking"))
			case "signature_delta":
				b.sig += str(d, "delta", "signature")
			case "text_delta":
				b.text.WriteString(str(d, "delta", "text"))
			case "input_json_delta":
				b.partial.WriteString(str(d, "delta", "partial_json"))
			default:
				t.Fatalf("unknown delta type %q", dt)
			}
			want := map[string]string{"thinking_delta": "thinking", "signature_delta": "thinking",
				"text_delta": "text", "input_json_delta": "tool_use"}[str(d, "delta", "type")]
			if want != b.typ {
				t.Errorf("a %s in a %s block", str(d, "delta", "type"), b.typ)
			}
		case "content_block_stop":
			idx := int(num(d, "index"))
			if idx >= len(blocks) || blocks[idx].stopped {
				t.Fatalf("stop for block %d, which is not open", idx)
			}
			blocks[idx].stopped = true
		case "message_delta":
			deltaSeen = true
			a.stop = str(d, "delta", "stop_reason")
			a.usage, _ = get(d, "usage").(map[string]any)
		case "message_stop":
			if i != len(evs)-1 {
				t.Fatalf("message_stop is event %d of %d", i, len(evs))
			}
			if !deltaSeen {
				t.Fatal("message_stop without a message_delta")
			}
		default:
			t.Fatalf("unknown event %q", e.name)
		}
	}
	if evs[len(evs)-1].name != "message_stop" {
		t.Fatalf("the stream ends with %q, want message_stop", evs[len(evs)-1].name)
	}
	for i, b := range blocks {
		if !b.stopped {
			t.Errorf("block %d never stopped", i)
		}
		switch b.typ {
		case "thinking":
			a.thinking += b.text.String()
			a.signature = b.sig
		case "text":
			a.text += b.text.String()
		case "tool_use":
			var args map[string]any
			if err := json.Unmarshal([]byte(b.partial.String()), &args); err != nil {
				t.Errorf("tool_use %s input %q: %v", b.name, b.partial.String(), err)
			}
			a.calls = append(a.calls, answerCall{id: b.id, name: b.name, args: args})
		default:
			t.Errorf("block %d has type %q", i, b.typ)
		}
	}
	return a
}

// readAnthropicMessage reads a non-streamed Anthropic message.
func readAnthropicMessage(t *testing.T, body []byte) answer {
	t.Helper()
	m := obj(t, string(body))
	if str(m, "type") != "message" || str(m, "role") != "assistant" || str(m, "id") == "" {
		t.Errorf("message = %s", body)
	}
	content, ok := m["content"].([]any)
	if !ok {
		t.Fatalf("content is %T, want an array: %s", m["content"], body)
	}
	a := answer{stop: str(m, "stop_reason")}
	a.usage, _ = m["usage"].(map[string]any)
	for _, c := range content {
		switch str(c, "type") {
		case "thinking":
			a.thinking += str(c, "thinking")
			a.signature = str(c, "signature")
		case "text":
			a.text += str(c, "text")
		case "tool_use":
			a.calls = append(a.calls, answerCall{id: str(c, "id"), name: str(c, "name"), args: args(t, get(c, "input"))})
		default:
			t.Errorf("content block of type %q", str(c, "type"))
		}
	}
	return a
}

// readResponsesStream folds an OpenAI Responses event stream the way Codex
// does: items count when response.output_item.done arrives.
func readResponsesStream(t *testing.T, body []byte) answer {
	t.Helper()
	evs := parseSSE(t, body)
	if len(evs) < 2 {
		t.Fatalf("%d events", len(evs))
	}
	if evs[0].name != "response.created" {
		t.Fatalf("first event %q, want response.created", evs[0].name)
	}
	if evs[len(evs)-1].name != "response.completed" {
		t.Fatalf("last event %q, want response.completed", evs[len(evs)-1].name)
	}
	var done []any
	open := map[int]string{} // output index -> item type
	texts := map[int]string{}
	argsDelta := map[int]string{}
	for i, e := range evs {
		d := obj(t, e.data)
		if str(d, "type") != e.name {
			t.Fatalf("event %d: name %q, data type %q", i, e.name, str(d, "type"))
		}
		idx := int(num(d, "output_index"))
		switch e.name {
		case "response.created", "response.in_progress":
			if str(d, "response", "id") == "" || str(d, "response", "status") != "in_progress" {
				t.Errorf("%s response = %v", e.name, d["response"])
			}
		case "response.output_item.added":
			if idx != len(done) {
				t.Fatalf("item added at output_index %d, want %d", idx, len(done))
			}
			open[idx] = str(d, "item", "type")
		case "response.output_item.done":
			if _, ok := open[idx]; !ok {
				t.Fatalf("item %d done but never added", idx)
			}
			if str(d, "item", "type") != open[idx] {
				t.Errorf("item %d added as %q, done as %q", idx, open[idx], str(d, "item", "type"))
			}
			delete(open, idx)
			done = append(done, d["item"])
		case "response.output_text.delta":
			texts[idx] += str(d, "delta")
		case "response.output_text.done":
			if texts[idx] != str(d, "text") {
				t.Errorf("text deltas %q, done text %q", texts[idx], str(d, "text"))
			}
		case "response.function_call_arguments.delta":
			argsDelta[idx] += str(d, "delta")
		case "response.function_call_arguments.done":
			if argsDelta[idx] != str(d, "arguments") {
				t.Errorf("argument deltas %q, done %q", argsDelta[idx], str(d, "arguments"))
			}
		case "response.completed":
			if len(open) > 0 {
				t.Errorf("items %v still open at response.completed", open)
			}
			resp := d["response"]
			if str(resp, "status") != "completed" {
				t.Errorf("completed status = %q", str(resp, "status"))
			}
			out, ok := get(resp, "output").([]any)
			if !ok {
				t.Errorf("completed output is %T, want an array", get(resp, "output"))
			}
			if len(out) != len(done) {
				t.Errorf("completed output has %d items, %d were done", len(out), len(done))
			}
			for i := range out {
				if i < len(done) && str(out[i], "id") != str(done[i], "id") {
					t.Errorf("completed output item %d is %q, done item is %q", i, str(out[i], "id"), str(done[i], "id"))
				}
			}
			a := responsesItems(t, done)
			a.usage, _ = get(resp, "usage").(map[string]any)
			a.stop = "completed"
			return a
		case "response.content_part.added", "response.content_part.done",
			"response.reasoning_summary_part.added", "response.reasoning_summary_part.done",
			"response.reasoning_summary_text.delta", "response.reasoning_summary_text.done",
			"response.custom_tool_call_input.delta", "response.custom_tool_call_input.done":
		default:
			t.Fatalf("unknown event %q", e.name)
		}
	}
	panic("unreachable")
}

// readResponsesObject reads a non-streamed Responses object.
func readResponsesObject(t *testing.T, body []byte) answer {
	t.Helper()
	m := obj(t, string(body))
	if str(m, "object") != "response" || str(m, "status") != "completed" {
		t.Errorf("response = %s", body)
	}
	out, ok := m["output"].([]any)
	if !ok {
		t.Fatalf("output is %T, want an array: %s", m["output"], body)
	}
	a := responsesItems(t, out)
	a.usage, _ = m["usage"].(map[string]any)
	a.stop = str(m, "status")
	return a
}

func responsesItems(t *testing.T, items []any) answer {
	t.Helper()
	var a answer
	for _, it := range items {
		if str(it, "id") == "" {
			t.Errorf("item without an id: %v", it)
		}
		switch str(it, "type") {
		case "reasoning":
			for _, s := range get(it, "summary").([]any) {
				a.thinking += str(s, "text")
			}
			a.signature = str(it, "encrypted_content")
		case "message":
			if str(it, "role") != "assistant" {
				t.Errorf("message role %q", str(it, "role"))
			}
			for _, c := range get(it, "content").([]any) {
				if str(c, "type") != "output_text" {
					t.Errorf("message content of type %q", str(c, "type"))
				}
				a.text += str(c, "text")
			}
		case "function_call":
			a.calls = append(a.calls, answerCall{id: str(it, "call_id"), name: str(it, "name"), args: args(t, str(it, "arguments"))})
		case "custom_tool_call":
			a.calls = append(a.calls, answerCall{id: str(it, "call_id"), name: str(it, "name"), custom: true, input: str(it, "input")})
		default:
			t.Errorf("item of type %q", str(it, "type"))
		}
	}
	return a
}

// readChatStream folds Chat Completions chunks the way the OpenAI SDKs
// and OpenCode do.
func readChatStream(t *testing.T, body []byte) answer {
	t.Helper()
	evs := parseSSE(t, body)
	if len(evs) == 0 || evs[len(evs)-1].data != "[DONE]" {
		t.Fatalf("the stream does not end with data: [DONE]: %s", body)
	}
	var a answer
	type acc struct {
		id, name, args string
	}
	var calls []*acc
	role := ""
	for i, e := range evs[:len(evs)-1] {
		if e.name != "" {
			t.Errorf("chunk %d has an event name %q", i, e.name)
		}
		d := obj(t, e.data)
		if str(d, "object") != "chat.completion.chunk" || str(d, "id") == "" {
			t.Errorf("chunk %d = %s", i, e.data)
		}
		choices, _ := d["choices"].([]any)
		if u, ok := d["usage"].(map[string]any); ok && u != nil {
			a.usage = u
			if len(choices) != 0 {
				t.Errorf("the usage chunk has choices: %s", e.data)
			}
		}
		for _, c := range choices {
			if a.stop != "" {
				t.Errorf("chunk %d after the finish_reason: %s", i, e.data)
			}
			delta := get(c, "delta")
			if r := str(delta, "role"); r != "" {
				role = r
			}
			a.thinking += str(delta, "reasoning_content")
			a.text += str(delta, "content")
			tcs, _ := get(delta, "tool_calls").([]any)
			for _, tc := range tcs {
				idx := int(num(tc, "index"))
				switch {
				case idx == len(calls):
					if str(tc, "id") == "" || str(tc, "function", "name") == "" {
						t.Errorf("the first chunk of tool call %d lacks an id or name: %v", idx, tc)
					}
					calls = append(calls, &acc{id: str(tc, "id"), name: str(tc, "function", "name")})
				case idx > len(calls):
					t.Fatalf("tool call index %d skips %d", idx, len(calls))
				}
				calls[idx].args += str(tc, "function", "arguments")
			}
			if f := str(c, "finish_reason"); f != "" {
				a.stop = f
			}
		}
	}
	if role != "assistant" {
		t.Errorf("role = %q, want assistant", role)
	}
	for _, c := range calls {
		a.calls = append(a.calls, answerCall{id: c.id, name: c.name, args: args(t, c.args)})
	}
	return a
}

// readChatCompletion reads a non-streamed chat completion.
func readChatCompletion(t *testing.T, body []byte) answer {
	t.Helper()
	m := obj(t, string(body))
	if str(m, "object") != "chat.completion" {
		t.Errorf("completion = %s", body)
	}
	msg := get(m, "choices", 0, "message")
	if str(msg, "role") != "assistant" {
		t.Errorf("message = %v", msg)
	}
	a := answer{thinking: str(msg, "reasoning_content"), text: str(msg, "content"), stop: str(m, "choices", 0, "finish_reason")}
	a.usage, _ = m["usage"].(map[string]any)
	tcs, _ := get(msg, "tool_calls").([]any)
	for _, tc := range tcs {
		a.calls = append(a.calls, answerCall{id: str(tc, "id"), name: str(tc, "function", "name"), args: args(t, str(tc, "function", "arguments"))})
	}
	return a
}

// readGeminiStream folds Gemini SSE chunks: each is a
// GenerateContentResponse; the last carries the finish reason and usage.
func readGeminiStream(t *testing.T, body []byte) answer {
	t.Helper()
	evs := parseSSE(t, body)
	if len(evs) == 0 {
		t.Fatal("no chunks")
	}
	var a answer
	for i, e := range evs {
		d := obj(t, e.data)
		lastChunk := i == len(evs)-1
		geminiParts(t, d, &a)
		finish := str(d, "candidates", 0, "finishReason")
		if lastChunk != (finish != "") {
			t.Errorf("chunk %d of %d has finishReason %q", i+1, len(evs), finish)
		}
		_, hasUsage := d["usageMetadata"]
		if lastChunk != hasUsage {
			t.Errorf("chunk %d of %d: usageMetadata present = %v", i+1, len(evs), hasUsage)
		}
	}
	return a
}

// readGeminiResponse reads one GenerateContentResponse.
func readGeminiResponse(t *testing.T, body []byte) answer {
	t.Helper()
	var a answer
	geminiParts(t, obj(t, string(body)), &a)
	return a
}

func geminiParts(t *testing.T, d map[string]any, a *answer) {
	t.Helper()
	cand := get(d, "candidates", 0)
	if cand == nil {
		t.Fatalf("no candidate: %v", d)
	}
	if str(cand, "content", "role") != "model" {
		t.Errorf("candidate role %q, want model", str(cand, "content", "role"))
	}
	parts, ok := get(cand, "content", "parts").([]any)
	if !ok || len(parts) == 0 {
		t.Errorf("a candidate with no parts: %v", cand)
	}
	for _, p := range parts {
		switch {
		case get(p, "functionCall") != nil:
			fc := get(p, "functionCall")
			a.calls = append(a.calls, answerCall{id: str(fc, "id"), name: str(fc, "name"), args: args(t, get(fc, "args"))})
		case get(p, "thought") == true:
			a.thinking += str(p, "text")
		default:
			a.text += str(p, "text")
		}
	}
	if f := str(cand, "finishReason"); f != "" {
		a.stop = f
	}
	if u, ok := d["usageMetadata"].(map[string]any); ok {
		a.usage = u
	}
}

// String shows an answer in failure messages.
func (a answer) String() string {
	return fmt.Sprintf("{thinking %q, text %q, calls %+v, stop %q, usage %v}", a.thinking, a.text, a.calls, a.stop, a.usage)
}
