package modelstub

import (
	"encoding/json"
	"net/http"
)

// writeAnthropic answers in the Anthropic Messages API: an SSE stream
// (message_start, one content block after another, message_delta,
// message_stop) or one message object.
func (s *Stub) writeAnthropic(w http.ResponseWriter, req *Request, a *answer) {
	if a.count {
		writeJSON(w, map[string]any{"input_tokens": a.usage.Input})
		return
	}
	id := s.newID("msg_stub_")
	stop := "end_turn"
	if len(a.calls) > 0 {
		stop = "tool_use"
	}
	usage := map[string]any{
		"input_tokens":                a.usage.Input,
		"output_tokens":               a.usage.Output,
		"cache_read_input_tokens":     a.usage.CacheRead,
		"cache_creation_input_tokens": a.usage.CacheWrite,
	}
	blocks := []map[string]any{}
	if a.thinking != "" {
		blocks = append(blocks, map[string]any{"type": "thinking", "thinking": a.thinking, "signature": signThinking(a.thinking)})
	}
	if a.text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": a.text})
	}
	for _, c := range a.calls {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": json.RawMessage(c.args)})
	}
	if !req.Stream {
		writeJSON(w, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": a.model, "content": blocks,
			"stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}
	e := newSSE(w, a.delay, s.done)
	startUsage := map[string]any{"input_tokens": a.usage.Input, "output_tokens": 1,
		"cache_read_input_tokens": a.usage.CacheRead, "cache_creation_input_tokens": a.usage.CacheWrite}
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": a.model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": startUsage,
	}})
	e.event("ping", map[string]any{"type": "ping"})
	for i, b := range blocks {
		switch b["type"] {
		case "thinking":
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "thinking_delta", "thinking": b["thinking"]}})
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "signature_delta", "signature": b["signature"]}})
		case "text":
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, chunk := range chunks(b["text"].(string)) {
				e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": chunk}})
			}
		case "tool_use":
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(b["input"].(json.RawMessage))}})
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	e.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": usage})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

// chunks splits text into a few stream deltas.
func chunks(s string) []string {
	const n = 3
	if len(s) < 24 {
		return []string{s}
	}
	var out []string
	size := (len(s) + n - 1) / n
	for len(s) > 0 {
		k := size
		if k > len(s) {
			k = len(s)
		}
		// Do not cut a UTF-8 sequence.
		for k < len(s) && s[k]&0xC0 == 0x80 {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	writeJSONBody(w, v)
}

func writeJSONBody(w http.ResponseWriter, v any) {
	json.NewEncoder(w).Encode(v)
}
