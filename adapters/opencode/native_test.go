package opencode

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stead-dev/stead/adapters/internal/jsonread"
	"github.com/stead-dev/stead/session"
)

func TestToolStatus(t *testing.T) {
	for _, tt := range []struct {
		state string
		want  session.ToolStatus
		done  bool
	}{
		{`{"status":"completed","output":"x"}`, session.StatusOK, true},
		{`{"status":"error","error":"Error: exit status 1"}`, session.StatusError, true},
		{`{"status":"error","error":"Tool execution aborted"}`, session.StatusInterrupted, true},
		{`{"status":"error","error":"boom","metadata":{"interrupted":true}}`, session.StatusInterrupted, true},
		{`{"status":"error","error":"The user rejected permission to use this specific tool call."}`, session.StatusDenied, true},
		{`{"status":"error","error":"The user has specified a rule which prevents you from using this specific tool call."}`, session.StatusDenied, true},
		{`{"status":"error","error":"QuestionRejectedError: dismissed"}`, session.StatusDenied, true},
		{`{"status":"running"}`, session.StatusPending, false},
		{`{"status":"pending"}`, session.StatusPending, false},
	} {
		var s toolState
		if err := json.Unmarshal([]byte(tt.state), &s); err != nil {
			t.Fatal(err)
		}
		if got, done := toolStatus(&s); got != tt.want || done != tt.done {
			t.Errorf("%s: %q %v, want %q %v", tt.state, got, done, tt.want, tt.done)
		}
	}
}

// TestPartStatus: a completed bash call is judged by the exit code
// OpenCode keeps in state.metadata.exit, a null one (a killed command) by
// why it was killed; the same with the fast reader and without it.
func TestPartStatus(t *testing.T) {
	for _, tt := range []struct {
		state string
		want  session.ToolStatus
	}{
		{`{"status":"completed","output":"ok\n","metadata":{"output":"ok\n","exit":0}}`, session.StatusOK},
		{`{"status":"completed","output":"2 failed\n","metadata":{"output":"2 failed\n","exit":3}}`, session.StatusError},
		{`{"status":"completed","output":"x\n\n(Command was aborted)","metadata":{"exit":null}}`, session.StatusInterrupted},
		{`{"status":"completed","output":"x\n\n(Command timed out after 120000 ms)","metadata":{"exit":null}}`, session.StatusError},
		{`{"status":"completed","output":"x","metadata":{"exit":null}}`, session.StatusOK},
		{`{"status":"completed","output":"x","metadata":{"truncated":false}}`, session.StatusOK},
		{`{"status":"completed","output":"x","metadata":null}`, session.StatusOK},
		{`{"status":"completed","output":"x","metadata":{"exit":1,"exit":0}}`, session.StatusOK}, // encoding/json: the last wins
		{`{"status":"error","error":"boom","metadata":{"exit":0}}`, session.StatusError},
	} {
		for _, slow := range []bool{false, true} {
			jsonread.Disabled = slow
			var s toolState
			if err := json.Unmarshal([]byte(tt.state), &s); err != nil {
				t.Fatal(err)
			}
			if got, done := partStatus(&s); got != tt.want || !done {
				t.Errorf("%s (encoding/json only: %v): %q %v, want %q", tt.state, slow, got, done, tt.want)
			}
		}
	}
	jsonread.Disabled = false
}

// TestUsage checks OpenCode's token counts against USF's: input already
// excludes the cache, output excludes reasoning, which USF counts in it.
func TestUsage(t *testing.T) {
	var tk tokens
	json.Unmarshal([]byte(`{"total":1450,"input":1000,"output":40,"reasoning":10,"cache":{"read":300,"write":100}}`), &tk)
	want := session.Usage{Input: 1000, Output: 50, Reasoning: 10, CacheRead: 300, CacheWrite: 100}
	if got := tk.usage(); got != want {
		t.Errorf("usage %+v, want %+v", got, want)
	}
	var odd tokens
	json.Unmarshal([]byte(`{"input":-5,"output":"x","reasoning":1.5e3,"cache":{"read":null}}`), &odd)
	if got := odd.usage(); got != (session.Usage{Output: 1500, Reasoning: 1500}) {
		t.Errorf("odd counts read as %+v", got)
	}
}

func TestRealTitle(t *testing.T) {
	for title, want := range map[string]string{
		"New session - 2026-11-21T19:28:41.556Z":   "",
		"Child session - 2026-11-21T19:28:41.556Z": "",
		"Greeting and notes":                       "Greeting and notes",
		"New session - tomorrow":                   "New session - tomorrow",
		"New session - 2026-11-21T19:28:41.556":    "New session - 2026-11-21T19:28:41.556",
		"New session - 2026-11-21T19:28:41.556Zz":  "New session - 2026-11-21T19:28:41.556Zz",
		"New session - 2026-11-21 19:28:41.556Z":   "New session - 2026-11-21 19:28:41.556Z",
		"New session - 2026-11-21T19:28:4x.556Z":   "New session - 2026-11-21T19:28:4x.556Z",
		"Child session 2026-11-21T19:28:41.556Z":   "Child session 2026-11-21T19:28:41.556Z",
		"new session - 2026-11-21T19:28:41.556Z":   "new session - 2026-11-21T19:28:41.556Z",
		"":                                         "",
	} {
		if got := realTitle(title); got != want {
			t.Errorf("realTitle(%q) = %q, want %q", title, got, want)
		}
	}
}

func TestToolFiles(t *testing.T) {
	for _, tt := range []struct {
		tool, input string
		want        []string
	}{
		{"edit", `{"filePath":"/p/a.go","oldString":"x","newString":"y"}`, []string{"/p/a.go"}},
		{"write", `{"filePath":"/p/b.go","content":""}`, []string{"/p/b.go"}},
		{"read", `{"filePath":"/p/c.go"}`, nil},
		{"apply_patch", `{"patchText":"*** Begin Patch\n*** Add File: x.go\n+a\n*** Update File: y.go\n*** Move to: z.go\n*** Delete File: w.go\n*** End Patch"}`, []string{"x.go", "y.go", "z.go", "w.go"}},
	} {
		if got := toolFiles(tt.tool, json.RawMessage(tt.input)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.tool, got, tt.want)
		}
	}
}
