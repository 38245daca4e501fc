package modelstub_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

// strictCase is a request a real API refuses, and how it refuses it.
type strictCase struct {
	name   string
	path   string
	body   string
	status int
	// want is the error body the API answers with.
	want map[string]any
	// rule is the start of what the request log records.
	rule string
}

func anthropicError(typ, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

func openAIError(msg string, param, code any) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": param, "code": code}}
}

func geminiError(code int, status, msg string) map[string]any {
	return map[string]any{"error": map[string]any{"code": float64(code), "message": msg, "status": status}}
}

// strictCases are what each API refuses, with the real API's status and
// error body, worded as its clients report them.
var strictCases = []strictCase{
	// Anthropic Messages.
	{name: "anthropic/openai model", path: anthropicPath, status: http.StatusNotFound, rule: "a model of another provider",
		body: `{"model":"gpt-5.5","messages":[{"role":"user","content":"hi"}]}`,
		want: anthropicError("not_found_error", "model: gpt-5.5")},
	{name: "anthropic/gemini model", path: anthropicPath, status: http.StatusNotFound, rule: "a model of another provider",
		body: `{"model":"gemini-2.5-flash","messages":[{"role":"user","content":"hi"}]}`,
		want: anthropicError("not_found_error", "model: gemini-2.5-flash")},
	{name: "anthropic/result without its call", path: anthropicPath, status: http.StatusBadRequest, rule: "a tool result without its call",
		body: `{"model":"claude-opus-5-5","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"ok"}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"out"}]}]}`,
		want: anthropicError("invalid_request_error", "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. "+
			"Each `tool_result` block must have a corresponding `tool_use` block in the previous message.")},
	{name: "anthropic/call without its result", path: anthropicPath, status: http.StatusBadRequest, rule: "a tool call without its result",
		body: `{"model":"claude-opus-5-5","messages":[{"role":"user","content":"hi"},
			{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}},{"type":"tool_use","id":"toolu_2","name":"Bash","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"out"}]},{"role":"assistant","content":"done"},{"role":"user","content":"more"}]}`,
		want: anthropicError("invalid_request_error", "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2. "+
			"Each `tool_use` block must have a corresponding `tool_result` block in the next message.")},
	{name: "anthropic/thinking another provider signed", path: anthropicPath, status: http.StatusBadRequest, rule: "thinking the API did not sign",
		body: `{"model":"claude-opus-5-5","messages":[{"role":"user","content":"hi"},
			{"role":"assistant","content":[{"type":"thinking","thinking":"plan","signature":"EqQBCkYIBxgCKkB-not-ours"},{"type":"text","text":"ok"}]},{"role":"user","content":"more"}]}`,
		want: anthropicError("invalid_request_error", "messages.1.content.0: Invalid `signature` in `thinking` block")},
	{name: "anthropic/thinking with no signature", path: anthropicPath, status: http.StatusBadRequest, rule: "thinking the API did not sign",
		body: `{"model":"claude-opus-5-5","messages":[{"role":"user","content":"hi"},
			{"role":"assistant","content":[{"type":"thinking","thinking":"plan"},{"type":"text","text":"ok"}]},{"role":"user","content":"more"}]}`,
		want: anthropicError("invalid_request_error", "messages.1.content.0.thinking.signature: Field required")},

	// OpenAI Responses.
	{name: "responses/anthropic model", path: responsesPath, status: http.StatusBadRequest, rule: "a model of another provider",
		body: `{"model":"claude-opus-5-5","input":"hi"}`,
		want: openAIError("The requested model 'claude-opus-5-5' does not exist.", "model", "model_not_found")},
	{name: "responses/kimi model", path: responsesPath, status: http.StatusBadRequest, rule: "a model of another provider",
		body: `{"model":"kimi-k2","input":"hi"}`,
		want: openAIError("The requested model 'kimi-k2' does not exist.", "model", "model_not_found")},
	{name: "responses/output without its call", path: responsesPath, status: http.StatusBadRequest, rule: "a tool result without its call",
		body: `{"model":"gpt-5.5","input":[{"type":"message","role":"user","content":"hi"},{"type":"function_call_output","call_id":"call_9","output":"out"}]}`,
		want: openAIError("No tool call found for function call output with call_id call_9.", "input", nil)},
	{name: "responses/call without its output", path: responsesPath, status: http.StatusBadRequest, rule: "a tool call without its result",
		body: `{"model":"gpt-5.5","input":[{"type":"message","role":"user","content":"hi"},{"type":"function_call","call_id":"call_1","name":"shell","arguments":"{}"},
			{"type":"message","role":"user","content":"more"}]}`,
		want: openAIError("No tool output found for function call call_1.", "input", nil)},
	{name: "responses/custom call without its output", path: responsesPath, status: http.StatusBadRequest, rule: "a tool call without its result",
		body: `{"model":"gpt-5.5","input":[{"type":"custom_tool_call","call_id":"c1","name":"apply_patch","input":"*** Begin Patch"}]}`,
		want: openAIError("No tool output found for custom tool call c1.", "input", nil)},
	{name: "responses/reasoning another provider encrypted", path: responsesPath, status: http.StatusBadRequest, rule: "thinking the API did not sign",
		body: `{"model":"gpt-5.5","input":[{"type":"reasoning","summary":[],"encrypted_content":"gAAAAABpFakeFakeFakeDQ=="},{"type":"message","role":"user","content":"hi"}]}`,
		want: openAIError("The encrypted content gAAA...DQ== could not be verified. Reason: Encrypted content could not be decrypted or parsed.", nil, "invalid_encrypted_content")},

	// OpenAI Chat Completions (OpenCode, Kimi Code).
	{name: "chat/anthropic model", path: chatPath, status: http.StatusNotFound, rule: "a model of another provider",
		body: `{"model":"claude-opus-5-5","messages":[{"role":"user","content":"hi"}]}`,
		want: openAIError("The model `claude-opus-5-5` does not exist or you do not have access to it.", nil, "model_not_found")},
	{name: "chat/gemini model", path: chatPath, status: http.StatusNotFound, rule: "a model of another provider",
		body: `{"model":"gemini-2.5-pro","messages":[{"role":"user","content":"hi"}]}`,
		want: openAIError("The model `gemini-2.5-pro` does not exist or you do not have access to it.", nil, "model_not_found")},
	{name: "chat/tool message without a call", path: chatPath, status: http.StatusBadRequest, rule: "a tool result without its call",
		body: `{"model":"stub-model","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_9","content":"out"}]}`,
		want: openAIError("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", "messages.[1].role", nil)},
	{name: "chat/tool message for another call", path: chatPath, status: http.StatusBadRequest, rule: "a tool result without its call",
		body: `{"model":"stub-model","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"","tool_calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"call_9","content":"out"}]}`,
		want: openAIError("Invalid parameter: 'tool_call_id' of 'call_9' not found in 'tool_calls' of previous message.", "messages.[2].tool_call_id", nil)},
	{name: "chat/call without its tool message", path: chatPath, status: http.StatusBadRequest, rule: "a tool call without its result",
		body: `{"model":"stub-model","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"","tool_calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{}"}}]},
			{"role":"user","content":"more"}]}`,
		want: openAIError("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. "+
			"The following tool_call_ids did not have response messages: call_1", "messages.[1].role", nil)},

	// Gemini.
	{name: "gemini/anthropic model", path: "/v1beta/models/claude-opus-5-5:streamGenerateContent?alt=sse", status: http.StatusNotFound, rule: "a model of another provider",
		body: `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
		want: geminiError(404, "NOT_FOUND", "models/claude-opus-5-5 is not found for API version v1beta, or is not supported for generateContent. "+
			"Call ListModels to see the list of available models and their supported methods.")},
	{name: "gemini/response without its call", path: geminiStream, status: http.StatusBadRequest, rule: "a tool result without its call",
		body: `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"text":"ok"}]},
			{"role":"user","parts":[{"functionResponse":{"id":"c9","name":"run_shell_command","response":{"output":"out"}}}]}]}`,
		want: geminiError(400, "INVALID_ARGUMENT", "Please ensure that function response turn comes immediately after a function call turn.")},
	{name: "gemini/call without its response", path: geminiStream, status: http.StatusBadRequest, rule: "a tool call without its result",
		body: `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"id":"c1","name":"run_shell_command","args":{}}}]},
			{"role":"user","parts":[{"text":"more"}]}]}`,
		want: geminiError(400, "INVALID_ARGUMENT", "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.")},
	{name: "gemini/thought signature another provider made", path: geminiStream, status: http.StatusBadRequest, rule: "thinking the API did not sign",
		body: `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"id":"c1","name":"run_shell_command","args":{}},"thoughtSignature":"CiQBvj72+not+ours"}]},
			{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"out"}}}]}]}`,
		want: geminiError(400, "INVALID_ARGUMENT", "Corrupted thought signature.")},
	{name: "gemini/gemini 3 call with no thought signature", path: "/v1beta/models/gemini-3-pro:streamGenerateContent?alt=sse", status: http.StatusBadRequest, rule: "thinking the API did not sign",
		body: `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"id":"c1","name":"run_shell_command","args":{}}}]},
			{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"out"}}}]}]}`,
		want: geminiError(400, "INVALID_ARGUMENT", "Function call is missing a thought_signature in functionCall parts. "+
			"This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. "+
			"Additional data, function call `default_api:run_shell_command` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.")},
}

// TestStrict checks a strict stub refuses each case as the real API does
// (status, error body), records why in its log and plays no turn; a
// permissive stub answers each.
func TestStrict(t *testing.T) {
	t.Parallel()
	for _, tc := range strictCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, modelstub.Options{Script: script(modelstub.Turn{Text: "ok"})})
			r := post(t, s, tc.path, []byte(tc.body))
			if r.status != tc.status {
				t.Errorf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			var got map[string]any
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatalf("the error is not JSON: %s", r.body)
			}
			if !reflect.DeepEqual(got, tc.want) {
				w, _ := json.Marshal(tc.want)
				t.Errorf("error body\n%s\nwant\n%s", r.body, w)
			}
			req := only(t, s)
			if !strings.HasPrefix(req.Refused, tc.rule+": ") {
				t.Errorf("the log records refused %q, want it to start %q", req.Refused, tc.rule)
			}
			if req.Turn != 0 || s.Played() != 0 {
				t.Errorf("a refused request took turn %d (%d played)", req.Turn, s.Played())
			}

			p := start(t, modelstub.Options{Script: script(modelstub.Turn{Text: "ok"}), Permissive: true})
			if r := post(t, p, tc.path, []byte(tc.body)); r.status != http.StatusOK || only(t, p).Refused != "" {
				t.Errorf("a permissive stub answered %d: %s", r.status, r.body)
			}
		})
	}
}

// TestStrictAccepts checks what the real APIs take passes: models of no
// known family, the API's own, Moonshot's on Chat Completions, Gemini's
// documented stand-in signature, and the duplicated results Gemini CLI
// sends for its own sessions.
func TestStrictAccepts(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, path, body string }{
		{"anthropic/no family", anthropicPath, `{"model":"fake-model","messages":[{"role":"user","content":"hi"}]}`},
		{"anthropic/system turn between call and result", anthropicPath, `{"model":"claude-opus-5-5","messages":[{"role":"user","content":"hi"},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]},{"role":"system","content":[]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"out"}]}]}`},
		{"responses/own model", responsesPath, `{"model":"gpt-5.5","input":"hi"}`},
		{"chat/openai and moonshot models", chatPath, `{"model":"kimi-k2","messages":[{"role":"user","content":"hi"}]}`},
		{"chat/calls answered", chatPath, `{"model":"gpt-5.5","messages":[{"role":"user","content":"hi"},
			{"role":"assistant","content":"","tool_calls":[{"id":"a","type":"function","function":{"name":"bash","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"bash","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"b","content":"1"},{"role":"tool","tool_call_id":"a","content":"2"},{"role":"user","content":"more"}]}`},
		{"gemini/skip signature", "/v1beta/models/gemini-3-pro:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"hi"}]},
			{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{}},"thoughtSignature":"skip_thought_signature_validator"}]},
			{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"out"}}}]}]}`},
		{"gemini/result sent twice", geminiStream, `{"contents":[{"role":"user","parts":[{"text":"hi"}]},
			{"role":"model","parts":[{"functionCall":{"id":"c1","name":"run_shell_command","args":{}}}]},
			{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"out"}}},{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"out"}}}]},
			{"role":"model","parts":[{"text":"done"}]},{"role":"user","parts":[{"text":"more"}]}]}`},
		{"gemini/earlier turn's call unsigned on gemini 3", "/v1beta/models/gemini-3-pro:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"hi"}]},
			{"role":"model","parts":[{"functionCall":{"id":"c1","name":"run_shell_command","args":{}}}]},
			{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"out"}}}]},
			{"role":"model","parts":[{"text":"done"}]},{"role":"user","parts":[{"text":"more"}]}]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, modelstub.Options{Script: script(modelstub.Turn{Text: "ok"})})
			postOK(t, s, tc.path, []byte(tc.body))
			if r := only(t, s).Refused; r != "" {
				t.Errorf("refused: %s", r)
			}
		})
	}
}

var thoughtSig = regexp.MustCompile(`"thoughtSignature":"([^"]+)"`)

// TestStrictTakesBackItsOwn checks that what one stub signed (Anthropic's
// thinking signature, OpenAI's encrypted reasoning, Gemini's thought
// signature) another stub of the same API takes back, as the real API
// takes back what it signed in an earlier process; and that it is tied to
// its API and, for Anthropic, to its thinking.
func TestStrictTakesBackItsOwn(t *testing.T) {
	t.Parallel()
	turn := modelstub.Turn{Thinking: "Plan the listing.", Text: "Listing.", Tools: []modelstub.ToolUse{{Tool: session.ToolBash, Args: map[string]any{"command": "ls"}}}}
	fresh := func() *modelstub.Stub {
		return start(t, modelstub.Options{Script: script(modelstub.Turn{Text: "ok"}), ToolNames: toolNames})
	}

	t.Run("anthropic", func(t *testing.T) {
		s := start(t, modelstub.Options{Script: script(turn), ToolNames: toolNames})
		a := readAnthropicStream(t, postOK(t, s, anthropicPath, load(t, "anthropic_main.json")).body)
		next := func(thinking, sig string) []byte {
			b, _ := json.Marshal(map[string]any{"model": "claude-opus-5-5", "messages": []any{
				map[string]any{"role": "user", "content": "hi"},
				map[string]any{"role": "assistant", "content": []any{
					map[string]any{"type": "thinking", "thinking": thinking, "signature": sig},
					map[string]any{"type": "tool_use", "id": a.calls[0].id, "name": a.calls[0].name, "input": a.calls[0].args}}},
				map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": a.calls[0].id, "content": "out"}}},
			}})
			return b
		}
		postOK(t, fresh(), anthropicPath, next(a.thinking, a.signature))
		postOK(t, fresh(), anthropicPath, next("", a.signature)) // Claude Code's display "omitted"
		if r := post(t, fresh(), anthropicPath, next("Another plan.", a.signature)); r.status != http.StatusBadRequest {
			t.Errorf("thinking changed under its signature: status %d", r.status)
		}
	})
	t.Run("responses", func(t *testing.T) {
		s := start(t, modelstub.Options{Script: script(turn), ToolNames: toolNames})
		a := readResponsesStream(t, postOK(t, s, responsesPath, load(t, "responses_main.json")).body)
		next := func(enc string) []byte {
			b, _ := json.Marshal(map[string]any{"model": "gpt-5.5", "input": []any{
				map[string]any{"type": "message", "role": "user", "content": "hi"},
				map[string]any{"type": "reasoning", "summary": []any{}, "encrypted_content": enc},
				map[string]any{"type": "function_call", "call_id": "c1", "name": "shell", "arguments": "{}"},
				map[string]any{"type": "function_call_output", "call_id": "c1", "output": "out"},
			}})
			return b
		}
		postOK(t, fresh(), responsesPath, next(a.signature))
		other := start(t, modelstub.Options{Script: script(turn), ToolNames: toolNames})
		sig := readAnthropicStream(t, postOK(t, other, anthropicPath, load(t, "anthropic_main.json")).body).signature
		if r := post(t, fresh(), responsesPath, next(sig)); r.status != http.StatusBadRequest {
			t.Errorf("an Anthropic signature taken as OpenAI's encrypted reasoning: status %d", r.status)
		}
	})
	t.Run("gemini", func(t *testing.T) {
		s := start(t, modelstub.Options{Script: script(turn), ToolNames: toolNames})
		body := postOK(t, s, geminiStream, load(t, "gemini_main.json")).body
		m := thoughtSig.FindSubmatch(body)
		if m == nil {
			t.Fatalf("the call carries no thought signature:\n%s", body)
		}
		next := func(sig string) []byte {
			b, _ := json.Marshal(map[string]any{"contents": []any{
				map[string]any{"role": "user", "parts": []any{map[string]any{"text": "hi"}}},
				map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"id": "c1", "name": "run_shell_command", "args": map[string]any{}}, "thoughtSignature": sig}}},
				map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"id": "c1", "name": "run_shell_command", "response": map[string]any{"output": "out"}}}}},
			}})
			return b
		}
		postOK(t, fresh(), "/v1beta/models/gemini-3-pro:streamGenerateContent?alt=sse", next(string(m[1])))
		if r := post(t, fresh(), geminiStream, next(string(m[1][:len(m[1])-4])+"AAAA")); r.status != http.StatusBadRequest {
			t.Errorf("a changed thought signature: status %d", r.status)
		}
	})
}
