package modelstub

import (
	"encoding/json"
	"net/http"
	"time"
)

// writeResponses answers in the OpenAI Responses API: response.created,
// then for each output item its added, delta and done events, then
// response.completed with the usage. Codex adds an item to its history on
// response.output_item.done.
func (s *Stub) writeResponses(w http.ResponseWriter, req *Request, a *answer) {
	respID := s.newID("resp_stub_")
	items := []map[string]any{}
	if a.thinking != "" {
		items = append(items, map[string]any{"type": "reasoning", "id": s.newID("rs_stub_"),
			"summary": []any{map[string]any{"type": "summary_text", "text": a.thinking}}, "content": nil,
			"encrypted_content": encryptReasoning(a.thinking)})
	}
	if a.text != "" {
		items = append(items, map[string]any{"type": "message", "id": s.newID("msg_stub_"), "status": "completed",
			"role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": a.text, "annotations": []any{}}}})
	}
	for _, c := range a.calls {
		if c.custom {
			items = append(items, map[string]any{"type": "custom_tool_call", "id": s.newID("ctc_stub_"), "status": "completed",
				"call_id": c.id, "name": c.name, "input": c.input})
			continue
		}
		items = append(items, map[string]any{"type": "function_call", "id": s.newID("fc_stub_"), "status": "completed",
			"call_id": c.id, "name": c.name, "arguments": string(c.args)})
	}
	usage := map[string]any{
		"input_tokens":          a.usage.Input + a.usage.CacheRead,
		"input_tokens_details":  map[string]any{"cached_tokens": a.usage.CacheRead},
		"output_tokens":         a.usage.Output,
		"output_tokens_details": map[string]any{"reasoning_tokens": a.usage.Reasoning},
		"total_tokens":          a.usage.Input + a.usage.CacheRead + a.usage.Output,
	}
	resp := map[string]any{"id": respID, "object": "response", "created_at": time.Now().Unix(), "model": a.model,
		"status": "in_progress", "output": []any{}}
	if !req.Stream {
		resp["status"], resp["output"], resp["usage"] = "completed", items, usage
		writeJSON(w, resp)
		return
	}
	e := newSSE(w, a.delay, s.done)
	e.event("response.created", map[string]any{"type": "response.created", "response": resp})
	e.event("response.in_progress", map[string]any{"type": "response.in_progress", "response": resp})
	for i, it := range items {
		added := map[string]any{}
		for k, v := range it {
			added[k] = v
		}
		switch it["type"] {
		case "message":
			added["status"], added["content"] = "in_progress", []any{}
		case "function_call":
			added["status"], added["arguments"] = "in_progress", ""
		}
		e.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": added})
		switch it["type"] {
		case "reasoning":
			e.event("response.reasoning_summary_part.added", map[string]any{"type": "response.reasoning_summary_part.added",
				"item_id": it["id"], "output_index": i, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}})
			e.event("response.reasoning_summary_text.delta", map[string]any{"type": "response.reasoning_summary_text.delta",
				"item_id": it["id"], "output_index": i, "summary_index": 0, "delta": a.thinking})
			e.event("response.reasoning_summary_text.done", map[string]any{"type": "response.reasoning_summary_text.done",
				"item_id": it["id"], "output_index": i, "summary_index": 0, "text": a.thinking})
			e.event("response.reasoning_summary_part.done", map[string]any{"type": "response.reasoning_summary_part.done",
				"item_id": it["id"], "output_index": i, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": a.thinking}})
		case "message":
			e.event("response.content_part.added", map[string]any{"type": "response.content_part.added", "item_id": it["id"],
				"output_index": i, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			for _, chunk := range chunks(a.text) {
				e.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": it["id"],
					"output_index": i, "content_index": 0, "delta": chunk})
			}
			e.event("response.output_text.done", map[string]any{"type": "response.output_text.done", "item_id": it["id"],
				"output_index": i, "content_index": 0, "text": a.text})
			e.event("response.content_part.done", map[string]any{"type": "response.content_part.done", "item_id": it["id"],
				"output_index": i, "content_index": 0, "part": map[string]any{"type": "output_text", "text": a.text, "annotations": []any{}}})
		case "function_call":
			e.event("response.function_call_arguments.delta", map[string]any{"type": "response.function_call_arguments.delta",
				"item_id": it["id"], "output_index": i, "delta": it["arguments"]})
			e.event("response.function_call_arguments.done", map[string]any{"type": "response.function_call_arguments.done",
				"item_id": it["id"], "output_index": i, "arguments": it["arguments"]})
		case "custom_tool_call":
			e.event("response.custom_tool_call_input.delta", map[string]any{"type": "response.custom_tool_call_input.delta",
				"item_id": it["id"], "output_index": i, "delta": it["input"]})
			e.event("response.custom_tool_call_input.done", map[string]any{"type": "response.custom_tool_call_input.done",
				"item_id": it["id"], "output_index": i, "input": it["input"]})
		}
		e.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	resp["status"], resp["output"], resp["usage"] = "completed", items, usage
	e.event("response.completed", map[string]any{"type": "response.completed", "response": resp})
}

// writeChat answers in the OpenAI Chat Completions API: chunks with a role,
// reasoning_content, content and tool_calls deltas, a finish_reason, a
// usage chunk and [DONE]; or one completion object.
func (s *Stub) writeChat(w http.ResponseWriter, req *Request, a *answer) {
	id := s.newID("chatcmpl-stub-")
	created := time.Now().Unix()
	finish := "stop"
	if len(a.calls) > 0 {
		finish = "tool_calls"
	}
	usage := map[string]any{
		"prompt_tokens":         a.usage.Input + a.usage.CacheRead,
		"completion_tokens":     a.usage.Output,
		"total_tokens":          a.usage.Input + a.usage.CacheRead + a.usage.Output,
		"prompt_tokens_details": map[string]any{"cached_tokens": a.usage.CacheRead},
		"cached_tokens":         a.usage.CacheRead,
	}
	var toolCalls []map[string]any
	for i, c := range a.calls {
		toolCalls = append(toolCalls, map[string]any{"index": i, "id": c.id, "type": "function",
			"function": map[string]any{"name": c.name, "arguments": string(c.args)}})
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": a.text}
		if a.thinking != "" {
			msg["reasoning_content"] = a.thinking
		}
		if len(toolCalls) > 0 {
			msg["tool_calls"] = toolCalls
		}
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": a.model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	e := newSSE(w, a.delay, s.done)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": a.model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	e.event("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if a.thinking != "" {
		e.event("", chunk(map[string]any{"reasoning_content": a.thinking}, nil))
	}
	for _, c := range chunks(a.text) {
		if c != "" {
			e.event("", chunk(map[string]any{"content": c}, nil))
		}
	}
	for i, c := range a.calls {
		e.event("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.id, "type": "function",
			"function": map[string]any{"name": c.name, "arguments": ""}}}}, nil))
		e.event("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i,
			"function": map[string]any{"arguments": string(c.args)}}}}, nil))
	}
	e.event("", chunk(map[string]any{}, finish))
	e.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": a.model,
		"choices": []any{}, "usage": usage})
	e.event("", "[DONE]")
}

// writeGemini answers in the Gemini API: SSE chunks of candidates for
// streamGenerateContent (thought, text pieces, then function calls with the
// finish reason and usage), one response for generateContent, a token count
// for countTokens.
func (s *Stub) writeGemini(w http.ResponseWriter, req *Request, a *answer) {
	if a.count {
		writeJSON(w, map[string]any{"totalTokens": a.usage.Input})
		return
	}
	var thought, calls []map[string]any
	if a.thinking != "" {
		thought = []map[string]any{{"text": a.thinking, "thought": true}}
	}
	for i, c := range a.calls {
		var args map[string]any
		_ = json.Unmarshal(c.args, &args)
		part := map[string]any{"functionCall": map[string]any{"id": c.id, "name": c.name, "args": args}}
		if i == 0 {
			// Gemini signs the first call of a response, which its
			// clients send back with it.
			part["thoughtSignature"] = signThought(c.name + string(c.args))
		}
		calls = append(calls, part)
	}
	usage := map[string]any{
		"promptTokenCount":        a.usage.Input + a.usage.CacheRead,
		"candidatesTokenCount":    a.usage.Output,
		"totalTokenCount":         a.usage.Input + a.usage.CacheRead + a.usage.Output,
		"cachedContentTokenCount": a.usage.CacheRead,
		"thoughtsTokenCount":      a.usage.Reasoning,
	}
	respID := s.newID("stub-")
	response := func(ps []map[string]any, final bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": ps}, "index": 0}
		r := map[string]any{"candidates": []any{cand}, "modelVersion": a.model, "responseId": respID}
		if final {
			cand["finishReason"] = "STOP"
			r["usageMetadata"] = usage
		}
		return r
	}
	if !req.Stream {
		all := append([]map[string]any{}, thought...)
		if a.text != "" {
			all = append(all, map[string]any{"text": a.text})
		}
		writeJSON(w, response(append(all, calls...), true))
		return
	}
	// The pieces to stream, the last one carrying the finish reason.
	var pieces [][]map[string]any
	if thought != nil {
		pieces = append(pieces, thought)
	}
	for _, t := range chunks(a.text) {
		if t != "" {
			pieces = append(pieces, []map[string]any{{"text": t}})
		}
	}
	if len(calls) > 0 {
		pieces = append(pieces, calls)
	}
	if len(pieces) == 0 {
		pieces = append(pieces, []map[string]any{{"text": ""}})
	}
	e := newSSE(w, a.delay, s.done)
	for i, p := range pieces {
		e.event("", response(p, i == len(pieces)-1))
	}
}
