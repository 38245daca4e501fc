package modelstub_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

const (
	thinks  = "The user wants the greeting first."
	says    = "Running the greeting command, then reading the file."
	command = "echo hello-from-stub"
)

// toolTurns is a turn with thinking, text long enough to be streamed in
// pieces, a shell command and a file read, then a final text turn.
func toolTurns() *modelstub.Script {
	return &modelstub.Script{Turns: []modelstub.Turn{
		{
			Thinking: thinks, Text: says,
			Tools: []modelstub.ToolUse{
				{Tool: session.ToolBash, Args: map[string]any{"command": command}},
				{Tool: session.ToolRead, Args: map[string]any{"path": "x.txt"}},
			},
			Usage: &session.Usage{Input: 120, Output: 30, CacheRead: 10, Reasoning: 5},
		},
		{Text: "Done."},
	}}
}

// call is an expected tool call.
type call struct {
	name string
	args map[string]any
}

// apis holds, for each CLI, its captured main request and what the stub's
// answer to toolTurns must be.
var apis = []struct {
	name, file, path  string
	read              func(*testing.T, []byte) answer
	bash, readFile    call
	toolStop, endStop string
	usage             map[string]float64 // dotted paths into the usage object
}{
	{
		name: "claude", file: "anthropic_main.json", path: anthropicPath, read: readAnthropicStream,
		bash:     call{"Bash", map[string]any{"command": command}},
		readFile: call{"Read", map[string]any{"file_path": workDir + "/x.txt"}},
		toolStop: "tool_use", endStop: "end_turn",
		usage: map[string]float64{"input_tokens": 120, "output_tokens": 30, "cache_read_input_tokens": 10},
	},
	{
		name: "codex", file: "responses_main.json", path: responsesPath, read: readResponsesStream,
		bash: call{"exec_command", map[string]any{"cmd": command}},
		// Codex has no file-read tool: the stub reads through the shell.
		readFile: call{"exec_command", map[string]any{"cmd": "cat " + workDir + "/x.txt"}},
		toolStop: "completed", endStop: "completed",
		usage: map[string]float64{"input_tokens": 130, "output_tokens": 30, "total_tokens": 160,
			"input_tokens_details.cached_tokens": 10, "output_tokens_details.reasoning_tokens": 5},
	},
	{
		name: "gemini", file: "gemini_main.json", path: geminiStream, read: readGeminiStream,
		bash:     call{"run_shell_command", map[string]any{"command": command}},
		readFile: call{"read_file", map[string]any{"file_path": workDir + "/x.txt"}},
		toolStop: "STOP", endStop: "STOP",
		usage: map[string]float64{"promptTokenCount": 130, "candidatesTokenCount": 30, "totalTokenCount": 160,
			"cachedContentTokenCount": 10, "thoughtsTokenCount": 5},
	},
	{
		name: "opencode", file: "chat_opencode_main.json", path: chatPath, read: readChatStream,
		bash:     call{"bash", map[string]any{"command": command}},
		readFile: call{"read", map[string]any{"filePath": workDir + "/x.txt"}},
		toolStop: "tool_calls", endStop: "stop",
		usage: map[string]float64{"prompt_tokens": 130, "completion_tokens": 30, "total_tokens": 160,
			"prompt_tokens_details.cached_tokens": 10},
	},
	{
		name: "kimi", file: "chat_kimi_main.json", path: chatPath, read: readChatStream,
		bash:     call{"Bash", map[string]any{"command": command}},
		readFile: call{"Read", map[string]any{"path": workDir + "/x.txt"}},
		toolStop: "tool_calls", endStop: "stop",
		// Kimi Code reads cached tokens from the top of the usage.
		usage: map[string]float64{"prompt_tokens": 130, "completion_tokens": 30, "cached_tokens": 10},
	},
}

// checkUsage compares the usage object with dotted paths.
func checkUsage(t *testing.T, usage map[string]any, want map[string]float64) {
	t.Helper()
	for path, w := range want {
		var keys []any
		for _, k := range strings.Split(path, ".") {
			keys = append(keys, k)
		}
		if got := num(usage, keys...); got != w {
			t.Errorf("usage %s = %v, want %v (usage %v)", path, got, w, usage)
		}
	}
}

// TestStreamedAnswers plays a tool turn and a final turn against each
// CLI's real request and reads the streams back as that CLI's SDK would.
func TestStreamedAnswers(t *testing.T) {
	t.Parallel()
	for _, c := range apis {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, modelstub.Options{Script: toolTurns(), ToolNames: toolNames, Dir: workDir})
			body := load(t, c.file)

			r := postOK(t, s, c.path, body)
			if ct := r.header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("Content-Type = %q", ct)
			}
			a := c.read(t, r.body)
			if a.thinking != thinks {
				t.Errorf("thinking = %q, want %q", a.thinking, thinks)
			}
			if a.text != says {
				t.Errorf("text = %q, want %q", a.text, says)
			}
			if len(a.calls) != 2 {
				t.Fatalf("calls = %+v, want 2", a.calls)
			}
			for i, want := range []call{c.bash, c.readFile} {
				if a.calls[i].name != want.name {
					t.Errorf("call %d is %q, want %q", i, a.calls[i].name, want.name)
				}
				sameArgs(t, want.name, a.calls[i].args, want.args)
			}
			if a.calls[0].id == "" || a.calls[0].id == a.calls[1].id {
				t.Errorf("call ids %q and %q: want two distinct ids", a.calls[0].id, a.calls[1].id)
			}
			if a.stop != c.toolStop {
				t.Errorf("stop = %q, want %q", a.stop, c.toolStop)
			}
			checkUsage(t, a.usage, c.usage)

			// The recorded request lists the calls the stub made.
			rec := last(t, s)
			if len(rec.Calls) != 2 || rec.Calls[0].ID != a.calls[0].id || rec.Calls[1].ID != a.calls[1].id ||
				rec.Calls[0].Name != c.bash.name || rec.Calls[1].Name != c.readFile.name {
				t.Errorf("recorded Calls = %+v, want the streamed calls %+v", rec.Calls, a.calls)
			}
			if len(rec.Warnings) > 0 {
				t.Errorf("warnings: %q", rec.Warnings)
			}

			a = c.read(t, postOK(t, s, c.path, body).body)
			if a.text != "Done." || a.thinking != "" || len(a.calls) != 0 {
				t.Errorf("final answer = %v, want the text Done.", a)
			}
			if a.stop != c.endStop {
				t.Errorf("final stop = %q, want %q", a.stop, c.endStop)
			}
			if s.Played() != 2 {
				t.Errorf("Played = %d, want 2", s.Played())
			}
		})
	}
}

// TestEstimatedUsage checks that a turn without usage still reports
// non-zero token counts, which clients show and sum.
func TestEstimatedUsage(t *testing.T) {
	t.Parallel()
	keys := map[string][2]string{
		"claude":   {"input_tokens", "output_tokens"},
		"codex":    {"input_tokens", "output_tokens"},
		"gemini":   {"promptTokenCount", "candidatesTokenCount"},
		"opencode": {"prompt_tokens", "completion_tokens"},
	}
	for _, c := range apis {
		k, ok := keys[c.name]
		if !ok {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, modelstub.Options{Script: script(modelstub.Turn{Text: "Done."})})
			a := c.read(t, postOK(t, s, c.path, load(t, c.file)).body)
			if num(a.usage, k[0]) < 1 || num(a.usage, k[1]) < 1 {
				t.Errorf("usage = %v, want estimated input and output counts", a.usage)
			}
		})
	}
}

// TestUnaryAnswers checks the non-streamed forms of the answers.
func TestUnaryAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, path string
		read             func(*testing.T, []byte) answer
		bash             call
		stop             string
	}{
		{"anthropic", "anthropic_main.json", anthropicPath, readAnthropicMessage,
			call{"Bash", map[string]any{"command": command}}, "tool_use"},
		{"responses", "responses_main.json", responsesPath, readResponsesObject,
			call{"exec_command", map[string]any{"cmd": command}}, "completed"},
		{"chat", "chat_opencode_main.json", chatPath, readChatCompletion,
			call{"bash", map[string]any{"command": command}}, "tool_calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, modelstub.Options{Script: toolTurns(), ToolNames: toolNames, Dir: workDir})
			r := postOK(t, s, tt.path, with(t, load(t, tt.file), "stream", false))
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			if last(t, s).Stream {
				t.Error("recorded Stream = true for a stream:false request")
			}
			a := tt.read(t, r.body)
			if a.thinking != thinks || a.text != says || a.stop != tt.stop {
				t.Errorf("answer = %v", a)
			}
			if len(a.calls) != 2 || a.calls[0].name != tt.bash.name || a.calls[0].id == "" {
				t.Fatalf("calls = %+v", a.calls)
			}
			sameArgs(t, tt.bash.name, a.calls[0].args, tt.bash.args)
		})
	}
}

// TestAnthropicThinkingSignature checks the thinking block carries a
// signature, which Claude Code sends back and the API requires.
func TestAnthropicThinkingSignature(t *testing.T) {
	t.Parallel()
	s := start(t, modelstub.Options{Script: toolTurns(), ToolNames: toolNames})
	a := readAnthropicStream(t, postOK(t, s, anthropicPath, load(t, "anthropic_main.json")).body)
	if a.signature == "" {
		t.Error("the thinking block has no signature")
	}
	s2 := start(t, modelstub.Options{Script: toolTurns(), ToolNames: toolNames})
	a = readResponsesStream(t, postOK(t, s2, responsesPath, load(t, "responses_main.json")).body)
	if a.signature == "" {
		t.Error("the reasoning item has no encrypted_content")
	}
}

// TestSideAnswers checks the answers to side requests: token counts,
// titles and structured output that satisfies the asked schema.
func TestSideAnswers(t *testing.T) {
	t.Parallel()
	const title = "Greeting demo"
	newStub := func(t *testing.T) *modelstub.Stub {
		return start(t, modelstub.Options{Script: &modelstub.Script{Title: title, Turns: toolTurns().Turns}})
	}

	t.Run("anthropic count_tokens", func(t *testing.T) {
		t.Parallel()
		s := newStub(t)
		m := obj(t, string(postOK(t, s, countTokensPath, load(t, "anthropic_count_tokens.json")).body))
		if num(m, "input_tokens") < 1 {
			t.Errorf("count = %v, want input_tokens > 0", m)
		}
	})
	t.Run("gemini countTokens", func(t *testing.T) {
		t.Parallel()
		s := newStub(t)
		m := obj(t, string(postOK(t, s, geminiCount, load(t, "gemini_main.json")).body))
		if num(m, "totalTokens") < 1 {
			t.Errorf("count = %v, want totalTokens > 0", m)
		}
		if !only(t, s).Side {
			t.Error("countTokens took a turn")
		}
	})
	t.Run("codex title", func(t *testing.T) {
		t.Parallel()
		s := newStub(t)
		a := readResponsesStream(t, postOK(t, s, responsesPath, load(t, "responses_title.json")).body)
		var got struct {
			Title string `json:"title"`
		}
		if err := json.Unmarshal([]byte(a.text), &got); err != nil || got.Title != title {
			t.Errorf("title answer %q: want {\"title\": %q} (%v)", a.text, title, err)
		}
		if len(a.calls) != 0 {
			t.Errorf("calls in a title answer: %+v", a.calls)
		}
	})
	t.Run("opencode title", func(t *testing.T) {
		t.Parallel()
		s := newStub(t)
		a := readChatStream(t, postOK(t, s, chatPath, load(t, "chat_opencode_title.json")).body)
		if a.text != title || a.stop != "stop" {
			t.Errorf("title answer = %v, want %q", a, title)
		}
	})
	t.Run("claude without tools", func(t *testing.T) {
		t.Parallel()
		s := newStub(t)
		body := with(t, load(t, "anthropic_main.json"), "tools", []any{})
		a := readAnthropicStream(t, postOK(t, s, anthropicPath, body).body)
		if a.text != title || a.stop != "end_turn" {
			t.Errorf("answer = %v, want %q", a, title)
		}
		if s.Played() != 0 {
			t.Error("a request without tools took a turn")
		}
	})
	t.Run("gemini router json", func(t *testing.T) {
		t.Parallel()
		s := newStub(t)
		r := postOK(t, s, geminiRouter, load(t, "gemini_router.json"))
		a := readGeminiResponse(t, r.body)
		var got map[string]any
		if err := json.Unmarshal([]byte(a.text), &got); err != nil {
			t.Fatalf("router answer %q is not JSON: %v", a.text, err)
		}
		// The schema (Gemini's upper-case types) asks for a string and an
		// integer, both required.
		if _, ok := got["complexity_reasoning"].(string); !ok {
			t.Errorf("complexity_reasoning = %v, want a string", got["complexity_reasoning"])
		}
		if n, ok := got["complexity_score"].(float64); !ok || n != float64(int(n)) || n < 1 {
			t.Errorf("complexity_score = %v, want a positive integer", got["complexity_score"])
		}
		if a.stop != "STOP" {
			t.Errorf("finishReason = %q", a.stop)
		}
	})
	t.Run("default title", func(t *testing.T) {
		t.Parallel()
		s := start(t, modelstub.Options{Script: script(modelstub.Turn{Text: "x"})})
		a := readChatStream(t, postOK(t, s, chatPath, load(t, "chat_opencode_title.json")).body)
		if a.text == "" {
			t.Error("an empty title")
		}
	})
}

// TestGeminiJSONModeWithoutSchema checks a Gemini call that asks for JSON
// by MIME type alone, as sent by a client that puts spaces in its JSON
// (Python's json.dumps does): the answer must still be JSON.
func TestGeminiJSONModeWithoutSchema(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"contents":[{"role":"user","parts":[{"text":"Reply in JSON."}]}],"generationConfig":{"responseMimeType":"application/json"}}`,
		`{"contents": [{"role": "user", "parts": [{"text": "Reply in JSON."}]}], "generationConfig": {"responseMimeType": "application/json"}}`,
	} {
		spaced := strings.Contains(body, ": ")
		t.Run(map[bool]string{false: "compact", true: "spaced"}[spaced], func(t *testing.T) {
			t.Parallel()
			s := start(t, modelstub.Options{Script: &modelstub.Script{Title: "Not JSON", Turns: []modelstub.Turn{{Text: "x"}}}})
			a := readGeminiResponse(t, postOK(t, s, geminiGenerate, []byte(body)).body)
			if !json.Valid([]byte(a.text)) {
				t.Errorf("answer %q is not JSON", a.text)
			}
		})
	}
}

// TestGeminiGenerateContentIsSide documents that the stub answers every
// Gemini :generateContent call (the CLI's utility endpoint) as a side
// request, even one declaring tools: only :streamGenerateContent plays
// turns.
func TestGeminiGenerateContentIsSide(t *testing.T) {
	t.Parallel()
	s := start(t, modelstub.Options{Script: &modelstub.Script{Title: "T", Turns: toolTurns().Turns}, ToolNames: toolNames})
	r := postOK(t, s, geminiGenerate, load(t, "gemini_main.json"))
	a := readGeminiResponse(t, r.body)
	if a.text != "T" || len(a.calls) != 0 {
		t.Errorf("answer = %v, want the title", a)
	}
	if rec := only(t, s); !rec.Side || rec.Stream || s.Played() != 0 {
		t.Errorf("Side %v, Stream %v, Played %d: want a side request, not streamed, no turn", rec.Side, rec.Stream, s.Played())
	}
}

// TestReportedModel checks the model an answer names: the script's, or
// else the one the request asked for.
func TestReportedModel(t *testing.T) {
	t.Parallel()
	modelOf := func(t *testing.T, sc *modelstub.Script) (anthropic, gemini string) {
		s := start(t, modelstub.Options{Script: sc})
		r := postOK(t, s, anthropicPath, with(t, load(t, "anthropic_main.json"), "stream", false))
		anthropic = str(obj(t, string(r.body)), "model")
		evs := parseSSE(t, postOK(t, s, geminiStream, load(t, "gemini_main.json")).body)
		gemini = str(obj(t, evs[0].data), "modelVersion")
		return
	}
	turns := []modelstub.Turn{{Text: "a"}, {Text: "b"}}
	a, g := modelOf(t, &modelstub.Script{Turns: turns})
	if a != "claude-opus-5-5" || g != "gemini-2.5-flash" {
		t.Errorf("without a script model: %q, %q; want the requested models", a, g)
	}
	a, g = modelOf(t, &modelstub.Script{Model: "stub-9", Turns: turns})
	if a != "stub-9" || g != "stub-9" {
		t.Errorf("with script model stub-9: %q, %q", a, g)
	}
}

// TestMultibyteTextStreamsWhole checks that text cut into stream deltas
// joins back into the same UTF-8 text.
func TestMultibyteTextStreamsWhole(t *testing.T) {
	t.Parallel()
	text := "Ça marche : 日本語のテキストを三つに分けても壊れない 🎉🎉🎉 fin."
	s := start(t, modelstub.Options{Script: script(modelstub.Turn{Text: text}, modelstub.Turn{Text: text}, modelstub.Turn{Text: text})})
	if a := readAnthropicStream(t, postOK(t, s, anthropicPath, load(t, "anthropic_main.json")).body); a.text != text {
		t.Errorf("anthropic text = %q", a.text)
	}
	if a := readChatStream(t, postOK(t, s, chatPath, load(t, "chat_opencode_main.json")).body); a.text != text {
		t.Errorf("chat text = %q", a.text)
	}
	if a := readGeminiStream(t, postOK(t, s, geminiStream, load(t, "gemini_main.json")).body); a.text != text {
		t.Errorf("gemini text = %q", a.text)
	}
}

// TestEndpoints checks the routes that are not model calls.
func TestEndpoints(t *testing.T) {
	t.Parallel()
	s := start(t, modelstub.Options{Script: &modelstub.Script{Model: "stub-9", Turns: []modelstub.Turn{{Text: "a"}}}})
	fetch := func(method, path string) (int, []byte) {
		t.Helper()
		r := send(t, method, s.URL()+path, nil)
		return r.status, r.body
	}
	if code, _ := fetch("HEAD", "/"); code != 200 {
		t.Errorf("HEAD / = %d", code)
	}
	if code, _ := fetch("GET", "/api/hello"); code != 200 {
		t.Errorf("GET /api/hello = %d", code)
	}
	code, body := fetch("GET", "/v1/models")
	var models struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := json.Unmarshal(body, &models); code != 200 || err != nil {
		t.Fatalf("GET /v1/models = %d %s", code, body)
	}
	if len(models.Data) != 1 || models.Data[0].ID != "stub-9" || len(models.Models) != 1 || models.Models[0].Name != "models/stub-9" {
		t.Errorf("models = %+v", models)
	}
	code, body = fetch("POST", "/v1/nothing")
	if m := obj(t, string(body)); code != 404 || str(m, "type") != "error" || str(m, "error", "type") != "not_found_error" {
		t.Errorf("POST /v1/nothing = %d %s", code, body)
	}
	if code, _ := fetch("GET", "/v1/messages"); code != 404 {
		t.Errorf("GET /v1/messages = %d, want 404", code)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests recorded, want none: only model calls are", n)
	}
	if n := len(s.MainRequests()); n != 0 {
		t.Errorf("MainRequests has %d requests, want none", n)
	}
}
