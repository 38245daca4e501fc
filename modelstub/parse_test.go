package modelstub_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/stead-dev/stead/modelstub"
)

// TestParseRealBodies posts a main-turn request each CLI really sent and
// checks the normalised view the stub recorded: the conversation, with
// tool calls and results paired by id, and the declared tools.
func TestParseRealBodies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, path string
		api              modelstub.API
		model            string
		roles            []string
		tools            []string
		prompt           string // the user's prompt, among the user texts
		call             modelstub.ToolCall
		callArgs         map[string]any
		result           modelstub.ToolResult
		thinking         string // reasoning carried in the history, if any
		system           string // a prefix of the first system text
	}{
		{
			name: "claude", file: "anthropic_main.json", path: anthropicPath, api: modelstub.Anthropic,
			model: "claude-opus-5-5",
			// The top-level system blocks, then Claude Code's messages,
			// which include a system-role message of their own.
			roles:    []string{"system", "user", "system", "assistant", "user"},
			tools:    []string{"Agent", "Bash", "Edit", "Read", "Write"},
			prompt:   "Please run a command for me (stream)",
			call:     modelstub.ToolCall{ID: "toolu_fake_ceb9d3e6fbc94a5f8f36", Name: "Bash"},
			callArgs: map[string]any{"command": "echo hello-from-tool", "description": "Print a greeting"},
			result:   modelstub.ToolResult{CallID: "toolu_fake_ceb9d3e6fbc94a5f8f36", Output: "hello-from-tool"},
			system:   "x-anthropic-billing-header",
		},
		{
			name: "codex", file: "responses_main.json", path: responsesPath, api: modelstub.Responses,
			model: "fake-model",
			// Developer messages count as system.
			roles:    []string{"system", "system", "user", "user", "assistant", "tool", "assistant", "user"},
			tools:    []string{"exec_command", "write_stdin", "view_image", "spawn_agent", "web_search"},
			prompt:   "NO_TOOL second prompt after resume",
			call:     modelstub.ToolCall{ID: "call_1_56ba629fc5", Name: "exec_command"},
			callArgs: map[string]any{"cmd": "echo hello-from-tool", "yield_time_ms": 10000},
			result: modelstub.ToolResult{CallID: "call_1_56ba629fc5",
				Output: "Chunk ID: 7e912e\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 4\nOutput:\nhello-from-tool\n"},
			system: "You are a coding agent running in the Codex CLI",
		},
		{
			name: "gemini", file: "gemini_main.json", path: geminiStream, api: modelstub.Gemini,
			model: "gemini-2.5-flash",
			// A user content holding only a functionResponse is a tool
			// message.
			roles:    []string{"system", "user", "assistant", "tool"},
			tools:    []string{"update_topic", "list_directory", "read_file", "write_file", "replace", "run_shell_command"},
			prompt:   "Please use the shell to greet with model",
			call:     modelstub.ToolCall{ID: "run_shell_command_1795288375134_0", Name: "run_shell_command"},
			callArgs: map[string]any{"command": "echo hello-from-tool", "description": "Print a greeting from the tool"},
			result: modelstub.ToolResult{CallID: "run_shell_command_1795288375134_0", Name: "run_shell_command",
				Output: "<untrusted_context>\nOutput: hello-from-tool\nProcess Group PGID: 13405\n</untrusted_context>"},
			system: "You are a non-interactive CLI agent",
		},
		{
			name: "opencode", file: "chat_opencode_main.json", path: chatPath, api: modelstub.Chat,
			model:    "fake-model",
			roles:    []string{"system", "user", "assistant", "tool"},
			tools:    []string{"bash", "edit", "glob", "grep", "read", "skill", "task", "todowrite", "webfetch", "write"},
			prompt:   `"Please run the greeting command"`,
			call:     modelstub.ToolCall{ID: "call_fake2", Name: "bash"},
			callArgs: map[string]any{"command": "echo hello-from-tool", "description": "Print a greeting"},
			result:   modelstub.ToolResult{CallID: "call_fake2", Output: "hello-from-tool\n"},
			system:   "You are opencode",
		},
		{
			name: "kimi", file: "chat_kimi_main.json", path: chatPath, api: modelstub.Chat,
			model:    "fake-k2",
			roles:    []string{"system", "user", "user", "user", "assistant", "tool"},
			tools:    []string{"Agent", "AgentSwarm", "AskUserQuestion", "Bash", "Read"},
			prompt:   "Run echo hello and tell me the output",
			call:     modelstub.ToolCall{ID: "Bash_0", Name: "Bash"},
			callArgs: map[string]any{"command": "echo hello"},
			result:   modelstub.ToolResult{CallID: "Bash_0", Output: "Wall time: 0.072 seconds\nhello\n"},
			thinking: "User wants me to run a shell command.",
			system:   "[ELIDED: system prompt]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, modelstub.Options{Script: script(modelstub.Turn{Text: "ok"})})
			body := load(t, tt.file)
			postOK(t, s, tt.path, body)

			r := only(t, s)
			if r.API != tt.api {
				t.Errorf("API = %q, want %q", r.API, tt.api)
			}
			if r.Side {
				t.Error("a main request with tools was taken for a side request")
			}
			if r.Turn != 1 || s.Played() != 1 {
				t.Errorf("Turn = %d, Played = %d, want 1 and 1", r.Turn, s.Played())
			}
			if r.Model != tt.model {
				t.Errorf("Model = %q, want %q", r.Model, tt.model)
			}
			if !r.Stream {
				t.Error("Stream = false; the CLI asked for a stream")
			}
			if r.Path != tt.path {
				t.Errorf("Path = %q, want %q", r.Path, tt.path)
			}
			if !bytes.Equal(r.Body, body) {
				t.Error("Body is not the body as sent")
			}
			if got := roles(r.Messages); !reflect.DeepEqual(got, tt.roles) {
				t.Errorf("roles = %q, want %q", got, tt.roles)
			}
			if got := toolNamesOf(r.Tools); !reflect.DeepEqual(got, tt.tools) {
				t.Errorf("tools = %q, want %q", got, tt.tools)
			}
			for _, name := range tt.tools {
				if !r.Declares(name) {
					t.Errorf("Declares(%q) = false", name)
				}
			}
			if r.Declares("NoSuchTool") {
				t.Error(`Declares("NoSuchTool") = true`)
			}
			if sys := r.Texts("system"); len(sys) == 0 || !strings.HasPrefix(sys[0], tt.system) {
				t.Errorf("system texts = %.80q, want the first to start with %q", sys, tt.system)
			}
			if !containsLine(r.Texts("user"), tt.prompt) {
				t.Errorf("user texts %.200q lack the prompt %q", r.Texts("user"), tt.prompt)
			}

			calls := r.AllToolCalls()
			if len(calls) != 1 {
				t.Fatalf("history tool calls = %+v, want one", calls)
			}
			if calls[0].ID != tt.call.ID || calls[0].Name != tt.call.Name {
				t.Errorf("history tool call = %s %s, want %s %s", calls[0].ID, calls[0].Name, tt.call.ID, tt.call.Name)
			}
			sameArgs(t, "history tool call", calls[0].Args, tt.callArgs)
			if got := r.ToolResults(); len(got) != 1 || got[0] != tt.result {
				t.Errorf("tool results = %+v, want [%+v]", got, tt.result)
			}
			// The call sits in an assistant message and its result
			// comes after it.
			callAt, resultAt := -1, -1
			for i, m := range r.Messages {
				if len(m.ToolCalls) > 0 {
					callAt = i
					if m.Role != "assistant" {
						t.Errorf("the tool call is in a %q message", m.Role)
					}
				}
				if len(m.ToolResults) > 0 {
					resultAt = i
				}
			}
			if callAt < 0 || resultAt <= callAt {
				t.Errorf("tool call at message %d, result at %d: want the result after the call", callAt, resultAt)
			}
			var thinking []string
			for _, m := range r.Messages {
				if m.Thinking != "" {
					thinking = append(thinking, m.Thinking)
				}
			}
			if tt.thinking == "" && len(thinking) > 0 || tt.thinking != "" && !reflect.DeepEqual(thinking, []string{tt.thinking}) {
				t.Errorf("thinking = %q, want %q", thinking, tt.thinking)
			}
		})
	}
}

// containsLine reports whether one of texts is want or has want as a line.
func containsLine(texts []string, want string) bool {
	for _, t := range texts {
		for _, line := range strings.Split(t, "\n") {
			if line == want {
				return true
			}
		}
	}
	return false
}

// TestParseSideBodies posts the side requests the CLIs really sent: they
// are recorded as side requests, with their model, and take no turn.
func TestParseSideBodies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, path string
		api              modelstub.API
		model            string
		stream           bool
		prompt           string
	}{
		{"claude count_tokens", "anthropic_count_tokens.json", countTokensPath, modelstub.Anthropic, "claude-opus-5-5", false,
			"Please run a command for me (stream)"},
		{"codex title", "responses_title.json", responsesPath, modelstub.Responses, "fake-model", true, ""},
		{"gemini router", "gemini_router.json", geminiRouter, modelstub.Gemini, "gemini-3.5-flash-lite", false,
			"Please use the shell to greet"},
		{"opencode title", "chat_opencode_title.json", chatPath, modelstub.Chat, "fake-model", true,
			`"Please run the greeting command"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, modelstub.Options{Script: script(modelstub.Turn{Text: "ok"})})
			postOK(t, s, tt.path, load(t, tt.file))
			r := only(t, s)
			if !r.Side || r.Turn != 0 || s.Played() != 0 {
				t.Errorf("Side = %v, Turn = %d, Played = %d; want a side request that took no turn", r.Side, r.Turn, s.Played())
			}
			if r.API != tt.api || r.Model != tt.model || r.Stream != tt.stream {
				t.Errorf("API, Model, Stream = %q, %q, %v; want %q, %q, %v", r.API, r.Model, r.Stream, tt.api, tt.model, tt.stream)
			}
			if tt.prompt != "" && !containsLine(r.Texts("user"), tt.prompt) {
				t.Errorf("user texts %.200q lack %q", r.Texts("user"), tt.prompt)
			}
			if got := s.MainRequests(); len(got) != 0 {
				t.Errorf("MainRequests = %d requests, want none", len(got))
			}
		})
	}
}

// TestParseShapes covers message shapes the captured bodies do not have:
// thinking blocks, reasoning items, freeform tool calls, content as parts,
// instructions and a plain string input.
func TestParseShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path string
		body       string
		want       []modelstub.Message
		tools      []modelstub.Tool
	}{
		{
			name: "anthropic thinking and block results",
			path: anthropicPath,
			body: `{"model":"m","system":"Be brief.","tools":[{"name":"Bash","input_schema":{"type":"object"}}],"messages":[
				{"role":"user","content":"hi"},
				{"role":"assistant","content":[{"type":"thinking","thinking":"plan","signature":"sig"},{"type":"text","text":"a"},{"type":"text","text":"b"},
					{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"x"},{"type":"text","text":"y"}]},{"type":"text","text":"next"}]}]}`,
			want: []modelstub.Message{
				{Role: "system", Text: "Be brief."},
				{Role: "user", Text: "hi"},
				{Role: "assistant", Text: "a\nb", Thinking: "plan", ToolCalls: []modelstub.ToolCall{{ID: "t1", Name: "Bash", Args: json.RawMessage(`{"command":"ls"}`)}}},
				{Role: "user", Text: "next", ToolResults: []modelstub.ToolResult{{CallID: "t1", Output: "x\ny"}}},
			},
			tools: []modelstub.Tool{{Name: "Bash", Params: json.RawMessage(`{"type":"object"}`)}},
		},
		{
			name: "responses reasoning and freeform tools",
			path: responsesPath,
			body: `{"model":"m","instructions":"Be brief.","tools":[{"type":"custom","name":"apply_patch","format":{"type":"grammar"}},{"type":"function","name":"shell","parameters":{"type":"object"}}],"input":[
				{"role":"user","content":"hi"},
				{"type":"reasoning","summary":[{"type":"summary_text","text":"plan"}],"encrypted_content":"x"},
				{"type":"custom_tool_call","call_id":"c1","name":"apply_patch","input":"*** Begin Patch"},
				{"type":"custom_tool_call_output","call_id":"c1","output":"Done"},
				{"type":"function_call","call_id":"c2","name":"shell","arguments":"not json"},
				{"type":"function_call_output","call_id":"c2","output":[{"type":"input_text","text":"out"}]}]}`,
			want: []modelstub.Message{
				{Role: "system", Text: "Be brief."},
				{Role: "user", Text: "hi"},
				{Role: "assistant", Thinking: "plan"},
				{Role: "assistant", ToolCalls: []modelstub.ToolCall{{ID: "c1", Name: "apply_patch", Args: json.RawMessage(`{"input":"*** Begin Patch"}`)}}},
				{Role: "tool", ToolResults: []modelstub.ToolResult{{CallID: "c1", Output: "Done"}}},
				// Arguments that are not JSON are kept, wrapped.
				{Role: "assistant", ToolCalls: []modelstub.ToolCall{{ID: "c2", Name: "shell", Args: json.RawMessage(`{"arguments":"not json"}`)}}},
				{Role: "tool", ToolResults: []modelstub.ToolResult{{CallID: "c2", Output: "out"}}},
			},
			tools: []modelstub.Tool{{Name: "apply_patch", Custom: true}, {Name: "shell", Params: json.RawMessage(`{"type":"object"}`)}},
		},
		{
			name:  "responses string input",
			path:  responsesPath,
			body:  `{"model":"m","input":"hello there","tools":[{"type":"function","name":"shell"}]}`,
			want:  []modelstub.Message{{Role: "user", Text: "hello there"}},
			tools: []modelstub.Tool{{Name: "shell"}},
		},
		{
			name: "chat content parts",
			path: chatPath,
			body: `{"model":"m","tools":[{"type":"function","function":{"name":"bash"}}],"messages":[
				{"role":"user","content":[{"type":"text","text":"one"},{"type":"image_url","image_url":{"url":"data:"}},{"type":"text","text":"two"}]},
				{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},
				{"role":"tool","tool_call_id":"c1","name":"bash","content":[{"type":"text","text":"out"}]}]}`,
			want: []modelstub.Message{
				{Role: "user", Text: "one\ntwo"},
				{Role: "assistant", ToolCalls: []modelstub.ToolCall{{ID: "c1", Name: "bash", Args: json.RawMessage(`{}`)}}},
				{Role: "tool", ToolResults: []modelstub.ToolResult{{CallID: "c1", Name: "bash", Output: "out"}}},
			},
			tools: []modelstub.Tool{{Name: "bash"}},
		},
		{
			name: "gemini thoughts and plain responses",
			path: geminiStream,
			body: `{"tools":[{"functionDeclarations":[{"name":"a","parameters":{"type":"OBJECT"}},{"name":"b","parametersJsonSchema":{"type":"object"}}]}],"contents":[
				{"role":"user","parts":[{"text":"hi"}]},
				{"role":"model","parts":[{"text":"plan","thought":true},{"text":"ok"},{"functionCall":{"name":"a","args":{"x":1}}}]},
				{"role":"user","parts":[{"functionResponse":{"name":"a","response":{"result":42}}}]}]}`,
			want: []modelstub.Message{
				{Role: "user", Text: "hi"},
				{Role: "assistant", Text: "ok", Thinking: "plan", ToolCalls: []modelstub.ToolCall{{Name: "a", Args: json.RawMessage(`{"x":1}`)}}},
				// Without an "output" key the whole response is the output.
				{Role: "tool", ToolResults: []modelstub.ToolResult{{Name: "a", Output: `{"result":42}`}}},
			},
			tools: []modelstub.Tool{{Name: "a", Params: json.RawMessage(`{"type":"OBJECT"}`)}, {Name: "b", Params: json.RawMessage(`{"type":"object"}`)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Permissive: the shapes carry made-up signatures a strict
			// stub refuses (TestStrict); here only their reading counts.
			s := start(t, modelstub.Options{Script: script(modelstub.Turn{Text: "ok"}), Permissive: true})
			postOK(t, s, tt.path, []byte(tt.body))
			r := only(t, s)
			if !reflect.DeepEqual(normalise(t, r.Messages), normalise(t, tt.want)) {
				got, _ := json.MarshalIndent(r.Messages, "", " ")
				want, _ := json.MarshalIndent(tt.want, "", " ")
				t.Errorf("messages =\n%s\nwant\n%s", got, want)
			}
			if !reflect.DeepEqual(normalise(t, r.Tools), normalise(t, tt.tools)) {
				t.Errorf("tools = %+v, want %+v", r.Tools, tt.tools)
			}
		})
	}
}

// normalise round-trips v through JSON so raw arguments compare by value,
// not by spacing.
func normalise(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBadBody checks that a body that is not JSON gets a 400 in the API's
// error shape, is recorded with a warning, and takes no turn.
func TestBadBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path  string
		check func(t *testing.T, m map[string]any)
	}{
		{anthropicPath, func(t *testing.T, m map[string]any) {
			if str(m, "type") != "error" || str(m, "error", "type") != "invalid_request_error" {
				t.Errorf("Anthropic error = %v", m)
			}
		}},
		{responsesPath, func(t *testing.T, m map[string]any) {
			if str(m, "error", "type") != "invalid_request_error" || str(m, "error", "message") == "" {
				t.Errorf("OpenAI error = %v", m)
			}
		}},
		{chatPath, func(t *testing.T, m map[string]any) {
			if str(m, "error", "type") != "invalid_request_error" {
				t.Errorf("OpenAI error = %v", m)
			}
		}},
		{geminiStream, func(t *testing.T, m map[string]any) {
			if num(m, "error", "code") != 400 || str(m, "error", "status") != "INVALID_ARGUMENT" {
				t.Errorf("Gemini error = %v", m)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			s := start(t, modelstub.Options{Script: script(modelstub.Turn{Text: "ok"})})
			r := post(t, s, tt.path, []byte(`{"model": "m", "messages": [`))
			if r.status != http.StatusBadRequest {
				t.Fatalf("status = %d, want 400", r.status)
			}
			tt.check(t, obj(t, string(r.body)))
			req := only(t, s)
			if !req.Side || len(req.Warnings) == 0 || s.Played() != 0 {
				t.Errorf("recorded %+v, Played %d; want a side request with a warning and no turn taken", req, s.Played())
			}
			if string(req.Body) != `"{\"model\": \"m\", \"messages\": ["` {
				t.Errorf("Body = %s, want the bad body as a JSON string", req.Body)
			}
		})
	}
}

// TestRecordsIdentifyingHeadersOnly checks that the headers that tell
// clients apart are recorded, and credentials are not.
func TestRecordsIdentifyingHeadersOnly(t *testing.T) {
	t.Parallel()
	s := start(t, modelstub.Options{Script: script(modelstub.Turn{Text: "ok"})})
	req, err := http.NewRequest(http.MethodPost, s.URL()+anthropicPath, bytes.NewReader(load(t, "anthropic_main.json")))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", "claude-cli/2.1.330 (external, sdk-cli)")
	req.Header.Set("X-Claude-Code-Session-Id", "e7342842-4779-4bb3-ad67-7121f4ba427b")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("X-Api-Key", "sk-ant-api03-fakefakefake")
	req.Header.Set("Authorization", "Bearer sk-fake")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := map[string]string{
		"user-agent":               "claude-cli/2.1.330 (external, sdk-cli)",
		"x-claude-code-session-id": "e7342842-4779-4bb3-ad67-7121f4ba427b",
		"anthropic-version":        "2023-06-01",
	}
	if got := only(t, s).Headers; !reflect.DeepEqual(got, want) {
		t.Errorf("Headers = %v, want %v", got, want)
	}
}
