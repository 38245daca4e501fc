package modelstub_test

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

// TestTurnCursor checks that main requests take the turns in order, side
// requests take none, and a script that has run out says so.
func TestTurnCursor(t *testing.T) {
	t.Parallel()
	s := start(t, modelstub.Options{Script: &modelstub.Script{Title: "T", Turns: []modelstub.Turn{
		{Text: "first"}, {Text: "second"}, {Text: "third"},
	}}})
	main := load(t, "chat_opencode_main.json")
	text := func(path string, body []byte) string {
		t.Helper()
		r := postOK(t, s, path, body)
		switch path {
		case chatPath:
			return readChatStream(t, r.body).text
		case geminiRouter:
			return "json:" + readGeminiResponse(t, r.body).text
		}
		return "count:" + string(bytes.TrimSpace(r.body))
	}

	steps := []struct {
		path   string
		body   []byte
		want   string // the answer's text
		prefix bool   // want is a prefix of it
		played int
	}{
		{chatPath, main, "first", false, 1},
		{chatPath, load(t, "chat_opencode_title.json"), "T", false, 1},
		{chatPath, main, "second", false, 2},
		{countTokensPath, load(t, "anthropic_count_tokens.json"), `count:{"input_tokens":`, true, 2},
		{geminiRouter, load(t, "gemini_router.json"), "json:{", true, 2},
		{chatPath, main, "third", false, 3},
		{chatPath, main, "[stead stub: the script has no turn left]", false, 3},
		{chatPath, main, "[stead stub: the script has no turn left]", false, 3},
	}
	for i, st := range steps {
		got := text(st.path, st.body)
		if got != st.want && !(st.prefix && strings.HasPrefix(got, st.want)) {
			t.Errorf("request %d answered %q, want %q", i+1, got, st.want)
		}
		if p := s.Played(); p != st.played {
			t.Errorf("after request %d Played = %d, want %d", i+1, p, st.played)
		}
	}

	reqs := s.Requests()
	if len(reqs) != len(steps) {
		t.Fatalf("%d requests recorded, want %d", len(reqs), len(steps))
	}
	var turns []int
	for i, r := range reqs {
		if r.Seq != i+1 {
			t.Errorf("request %d has Seq %d", i+1, r.Seq)
		}
		if r.Time.IsZero() {
			t.Errorf("request %d has no Time", i+1)
		}
		turns = append(turns, r.Turn)
	}
	if want := []int{1, 0, 2, 0, 0, 3, 0, 0}; !reflect.DeepEqual(turns, want) {
		t.Errorf("turns = %v, want %v", turns, want)
	}
	mains := s.MainRequests()
	if len(mains) != 5 {
		t.Fatalf("MainRequests = %d, want 5", len(mains))
	}
	for _, r := range mains[:3] {
		if len(r.Warnings) > 0 {
			t.Errorf("request %d warns %q", r.Seq, r.Warnings)
		}
	}
	for _, r := range mains[3:] {
		if len(r.Warnings) != 1 || r.Warnings[0] != "the script has no turn left (it has 3)" {
			t.Errorf("request %d warnings = %q, want the script-exhausted warning", r.Seq, r.Warnings)
		}
	}
}

// TestRequestsIsACopy checks that callers cannot change the record.
func TestRequestsIsACopy(t *testing.T) {
	t.Parallel()
	s := start(t, modelstub.Options{Script: script(modelstub.Turn{Text: "a"})})
	postOK(t, s, chatPath, load(t, "chat_opencode_main.json"))
	reqs := s.Requests()
	reqs[0].Model = "changed"
	if s.Requests()[0].Model != "fake-model" {
		t.Error("changing the slice Requests returned changed the stub's record")
	}
}

// TestReadScript checks what ReadScript accepts and how it words what it
// refuses.
func TestReadScript(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		err      string // a substring of the error; empty for success
	}{
		{"unknown field", `{"turns":[{"text":"hi","txet":"x"}]}`, `script: json: unknown field "txet"`},
		{"unknown top-level field", `{"turn":[{"text":"hi"}]}`, `unknown field "turn"`},
		{"no turns", `{"turns":[]}`, "script: no turns"},
		{"turns missing", `{"prompts":["hi"]}`, "script: no turns"},
		{"empty turn", `{"turns":[{"text":"a"},{}]}`, "script: turn 2 is empty"},
		{"unknown fault", `{"turns":[{"fault":"503"}]}`, `script: turn 1: unknown fault "503" (want 429, 500, stall or drop)`},
		{"unnamed tool", `{"turns":[{"tools":[{"args":{"command":"ls"}}]}]}`, "script: turn 1, tool 1: name a tool"},
		{"not JSON", `turns: []`, "script: "},
		{"wrong type", `{"turns":[{"text":1}]}`, "script: "},
		{"fault only", `{"turns":[{"fault":"stall"}]}`, ""},
		{"native name only", `{"turns":[{"tools":[{"name":"Bash","args":{"command":"ls"}}]}]}`, ""},
		{"every field", `{"model":"m","prompts":["p"],"title":"t","turns":[{"thinking":"a","text":"b",
			"tools":[{"tool":"bash","args":{"command":"ls"},"name":"Bash"}],"usage":{"input":1,"output":2},
			"fault":"429","faultTimes":2,"retryAfterMs":0,"delayMs":5}]}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc, err := modelstub.ReadScript(strings.NewReader(tt.in))
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("ReadScript: %v", err)
			case tt.err != "" && err == nil:
				t.Errorf("ReadScript accepted it: %+v", sc)
			case tt.err != "" && !strings.Contains(err.Error(), tt.err):
				t.Errorf("error %q, want it to contain %q", err, tt.err)
			case tt.err != "" && sc != nil:
				t.Errorf("a script came with the error: %+v", sc)
			}
		})
	}
}

// TestReadScriptExample reads the example script shipped in the
// repository.
func TestReadScriptExample(t *testing.T) {
	t.Parallel()
	f, err := os.Open("../examples/stub/two-turns.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc, err := modelstub.ReadScript(f)
	if err != nil {
		t.Fatalf("ReadScript: %v", err)
	}
	if sc.Title != "Greeting demo" || len(sc.Prompts) != 2 || len(sc.Turns) != 4 {
		t.Fatalf("script = %+v", sc)
	}
	first := sc.Turns[0]
	if first.Thinking == "" || len(first.Tools) != 1 || first.Tools[0].Tool != session.ToolBash ||
		first.Tools[0].Args["command"] != "echo hello-from-tool" {
		t.Errorf("turn 1 = %+v", first)
	}
	if u := sc.Turns[1].Tools; len(u) != 1 || u[0].Tool != session.ToolRead || u[0].Args["path"] != "greeting.txt" {
		t.Errorf("turn 2 tools = %+v", u)
	}
	if !strings.Contains(sc.Turns[3].Text, "STUB-FINAL-2") {
		t.Errorf("turn 4 = %+v", sc.Turns[3])
	}
	// The example plays: its first turn becomes a Bash call in Claude.
	s := start(t, modelstub.Options{Script: sc, ToolNames: toolNames})
	a := readAnthropicStream(t, postOK(t, s, anthropicPath, load(t, "anthropic_main.json")).body)
	if len(a.calls) != 1 || a.calls[0].name != "Bash" {
		t.Errorf("answer = %v, want a Bash call", a)
	}
}

// TestScriptJSONRoundTrip checks that a script written as JSON reads back
// the same, so derived scripts can be saved and replayed.
func TestScriptJSONRoundTrip(t *testing.T) {
	t.Parallel()
	zero := 0
	sc := &modelstub.Script{Model: "m", Prompts: []string{"p"}, Title: "t", Turns: []modelstub.Turn{
		{Thinking: "a", Text: "b", Tools: []modelstub.ToolUse{{Tool: session.ToolBash, Name: "Bash", Args: map[string]any{"command": "ls"}}},
			Usage: &session.Usage{Input: 1, Output: 2, CacheRead: 3}},
		{Fault: modelstub.Fault429, FaultTimes: 2, RetryAfterMs: &zero, Text: "after"},
	}}
	b, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := modelstub.ReadScript(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("ReadScript(%s): %v", b, err)
	}
	if !reflect.DeepEqual(got, sc) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, sc)
	}
}

// TestFromSession derives a script from a hand-built universal session.
func TestFromSession(t *testing.T) {
	t.Parallel()
	usage := &session.Usage{Input: 10, Output: 5, CacheRead: 100}
	sess := &session.Session{
		Model:   session.Model{Provider: "anthropic", Model: "claude-opus-5-5"},
		Title:   "Greeting",
		Project: session.Project{Path: "/home/dev/proj"},
		Timeline: []session.Entry{
			{Type: session.System, Kind: session.KindInstructions, Content: "You are a helpful agent."},
			{Type: session.User, Content: "Run the greeting command."},
			{Type: session.User, Kind: session.KindMeta, Content: "<system-reminder>x</system-reminder>"},
			// One API message, written as three entries.
			{Type: session.Assistant, MessageID: "msg_1", Thinking: "Run it first."},
			{Type: session.Assistant, MessageID: "msg_1", Content: "Running it.", Usage: usage},
			{Type: session.ToolCall, MessageID: "msg_1", Tool: session.ToolBash, OriginalTool: "Bash",
				Input: json.RawMessage(`{"command":"echo hi","description":"greet"}`)},
			{Type: session.ToolResult, CallID: "toolu_1", Success: true, Output: "hi\n"},
			{Type: session.Assistant, MessageID: "msg_2", Content: "It printed hi."},
			// A new API message is a new turn.
			{Type: session.Assistant, MessageID: "msg_3", Content: "Anything else?"},
			{Type: session.Assistant, Kind: session.KindError, Content: "API Error: 500"},
			{Type: session.User, Content: "   "},
			{Type: session.User, Kind: session.KindCommand, Content: "/model"},
			{Type: session.User, Content: "Read the notes."},
			{Type: session.ToolCall, MessageID: "msg_4", Tool: session.ToolRead, OriginalTool: "Read",
				Input: json.RawMessage(`{"file_path":"/home/dev/proj/notes.txt"}`)},
			{Type: session.ToolCall, MessageID: "msg_4", Tool: session.ToolRead, OriginalTool: "Read",
				Input: json.RawMessage(`{"file_path":"/etc/hosts"}`)},
			{Type: session.ToolResult, CallID: "toolu_2", Success: true, Output: "notes"},
			{Type: session.ToolResult, CallID: "toolu_3", Success: true, Output: "hosts"},
			// Entries without message ids between results join.
			{Type: session.Assistant, Thinking: "Both read.", Content: "Done."},
			{Type: session.Assistant, Content: "Bye."},
		},
	}
	got := modelstub.FromSession(sess)

	want := &modelstub.Script{
		Model:   "claude-opus-5-5",
		Title:   "Greeting",
		Prompts: []string{"Run the greeting command.", "Read the notes."},
		Turns: []modelstub.Turn{
			{Thinking: "Run it first.", Text: "Running it.", Usage: &session.Usage{Input: 10, Output: 5, CacheRead: 100},
				Tools: []modelstub.ToolUse{{Tool: session.ToolBash, Name: "Bash", Args: map[string]any{"command": "echo hi", "description": "greet"}}}},
			{Text: "It printed hi."},
			{Text: "Anything else?"},
			// Paths inside the project become relative; others stay.
			{Tools: []modelstub.ToolUse{
				{Tool: session.ToolRead, Name: "Read", Args: map[string]any{"file_path": "notes.txt"}},
				{Tool: session.ToolRead, Name: "Read", Args: map[string]any{"file_path": "/etc/hosts"}},
			}},
			{Thinking: "Both read.", Text: "Done.\n\nBye."},
		},
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("FromSession =\n%s\nwant\n%s", g, w)
	}
	if err := got.Check(); err != nil {
		t.Errorf("the derived script fails Check: %v", err)
	}
	usage.Input = 999
	if got.Turns[0].Usage.Input != 10 {
		t.Error("the script shares its Usage with the session")
	}

	// Replayed in another directory, the read is of the copy there, and
	// the native Bash call goes to Claude as it was.
	s := start(t, modelstub.Options{Script: got, ToolNames: toolNames, Dir: "/tmp/replay"})
	body := load(t, "anthropic_main.json")
	a := readAnthropicStream(t, postOK(t, s, anthropicPath, body).body)
	if len(a.calls) != 1 || a.calls[0].name != "Bash" {
		t.Fatalf("turn 1 = %v", a)
	}
	sameArgs(t, "Bash", a.calls[0].args, map[string]any{"command": "echo hi", "description": "greet"})
	if a.usage["cache_read_input_tokens"] != 100.0 {
		t.Errorf("turn 1 usage = %v, want the session's", a.usage)
	}
	postOK(t, s, anthropicPath, body)
	postOK(t, s, anthropicPath, body)
	a = readAnthropicStream(t, postOK(t, s, anthropicPath, body).body)
	if len(a.calls) != 2 {
		t.Fatalf("turn 4 = %v", a)
	}
	sameArgs(t, "Read", a.calls[0].args, map[string]any{"file_path": "/tmp/replay/notes.txt"})
	sameArgs(t, "Read", a.calls[1].args, map[string]any{"file_path": "/etc/hosts"})
}

// TestFromSessionProjectRoot checks a tool call on the project directory
// itself (listing it, say): FromSession says paths inside the project
// become relative, so the replay lists the copy, not the original.
func TestFromSessionProjectRoot(t *testing.T) {
	t.Parallel()
	sess := &session.Session{
		Project: session.Project{Path: "/home/dev/proj"},
		Timeline: []session.Entry{
			{Type: session.User, Content: "List the files."},
			{Type: session.ToolCall, Tool: session.ToolList, OriginalTool: "list_directory",
				Input: json.RawMessage(`{"dir_path":"/home/dev/proj"}`)},
		},
	}
	got := modelstub.FromSession(sess)
	if len(got.Turns) != 1 || len(got.Turns[0].Tools) != 1 {
		t.Fatalf("script = %+v", got)
	}
	if p := got.Turns[0].Tools[0].Args["dir_path"]; p != "." {
		t.Errorf("dir_path = %v, want \".\"", p)
	}
}

// TestFromSessionEmpty checks that a session with nothing to replay gives
// a script that Start refuses, rather than one that plays nothing.
func TestFromSessionEmpty(t *testing.T) {
	t.Parallel()
	sc := modelstub.FromSession(&session.Session{Timeline: []session.Entry{
		{Type: session.User, Content: "hello"},
		{Type: session.Assistant, Kind: session.KindError, Content: "API Error"},
	}})
	if len(sc.Prompts) != 1 || len(sc.Turns) != 0 {
		t.Errorf("script = %+v, want one prompt and no turns", sc)
	}
	if _, err := modelstub.Start(modelstub.Options{Script: sc}); err == nil || !strings.Contains(err.Error(), "no turns") {
		t.Errorf("Start = %v, want a no-turns error", err)
	}
}
