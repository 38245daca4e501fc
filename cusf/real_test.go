package cusf_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stead-dev/stead/cusf"
	"github.com/stead-dev/stead/session"
)

// complete reports whether a session has what the optional fields of CUSF
// ask for: a time on every entry, and a model and usage for every model
// response.
func complete(s *session.Session) bool {
	if s.Metadata.Tokens == nil || len(s.Timeline) == 0 {
		return false
	}
	for _, e := range s.Timeline {
		if e.Timestamp.IsZero() {
			return false
		}
	}
	return true
}

// TestRealSessions exports the testdata sessions of every CLI and checks
// each file passes schema, structural and reconstruction validation.
// Sessions with timestamps and usage grade A; the others (injected or
// legacy sessions that record no usage, no model or no times) cannot fill
// in usage and model, and grade B or better.
func TestRealSessions(t *testing.T) {
	// One sample per CLI with times and usage, which grade A, and the
	// grade of the samples that cannot reach A and why.
	samples := map[string]string{
		"claude/tui-session":         "A",
		"codex/tui-daemon-paginated": "A",
		"gemini/e2e-conversation":    "A",
		"opencode/export-run1":       "A",
		"kimi/code-e2e-conversation": "A",
		// Injected or legacy sessions that record no times, models or
		// usage: every assistant message lacks model and usage.
		"claude/injected-minimal":       "B",
		"codex/oldest-format":           "B",
		"gemini/injected-ultra-minimal": "B",
		"kimi/legacy-flat":              "B",
		// The store's project file, opened as a session with no
		// entries: only llm_model of session_start and total_tokens of
		// session_end can be missing, and both are.
		"opencode/storage-tree": "B",
	}
	for _, c := range testCases(t) {
		name := c.cli + "/" + c.name
		t.Run(name, func(t *testing.T) {
			s := openCase(t, c)
			data := export(t, s)
			res := validate(t, data, c.name)
			t.Logf("grade %s (%d%%), %d/%d optional fields, complete=%v", res.Grade, res.Score,
				res.Optional.Populated, res.Optional.Applicable, complete(s))
			if !res.Pass() {
				t.Fatalf("validation failed:\n%s\n%s", resultText(res), data)
			}
			if want, ok := samples[name]; ok && res.Grade != want {
				t.Errorf("grade %s, want %s", res.Grade, want)
			}
			if complete(s) && res.Grade != "A" {
				t.Errorf("a session with times and usage grades %s, want A", res.Grade)
			}
			if res.Grade > "B" {
				t.Errorf("grade %s, want A or B", res.Grade)
			}
		})
	}
}

// conversation is what CUSF carries of an entry.
func conversation(e session.Entry) string {
	switch e.Type {
	case session.ToolCall:
		in := string(e.Input)
		var v any
		if json.Unmarshal(e.Input, &v) == nil {
			b, _ := json.Marshal(v)
			in = string(b)
		}
		if _, ok := v.(map[string]any); !ok {
			in = "(not an object)"
		}
		return fmt.Sprintf("call %s %s", cusf.ToolName(&e), in)
	case session.ToolResult:
		return fmt.Sprintf("result %q %q ok=%v", e.Output, e.Error, e.Success)
	}
	u := ""
	if e.Usage != nil {
		u = fmt.Sprint(*e.Usage)
	}
	return fmt.Sprintf("%s %q thinking=%q usage=%s", e.Type, e.Content, e.Thinking, u)
}

// TestDecodeKeepsConversation exports each testdata session, decodes the
// file, and checks the messages, calls and results come back (the usage
// of a response may move from a tool call to its message, so usage is
// compared in total).
func TestDecodeKeepsConversation(t *testing.T) {
	for _, c := range testCases(t) {
		t.Run(c.cli+"/"+c.name, func(t *testing.T) {
			s := openCase(t, c)
			back, warns, err := cusf.Decode(bytes.NewReader(export(t, s)), c.name)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range warns {
				t.Errorf("warning: %v", w)
			}
			id := s.ID
			if id == "" {
				id = "unknown"
			}
			if back.ID != id || back.Source.CLI != wantCLI(s.Source.CLI) || back.Project.Path != s.Project.Path {
				t.Errorf("session %s %s %s, want %s %s %s", back.ID, back.Source.CLI, back.Project.Path, id, wantCLI(s.Source.CLI), s.Project.Path)
			}
			if len(back.Timeline) != len(s.Timeline) {
				t.Fatalf("%d entries back, want %d", len(back.Timeline), len(s.Timeline))
			}
			var want, got session.Usage
			for i := range s.Timeline {
				w, g := s.Timeline[i], back.Timeline[i]
				if w.Usage != nil {
					want.Add(*w.Usage)
				}
				if g.Usage != nil {
					got.Add(*g.Usage)
				}
				w.Usage, g.Usage = nil, nil
				if conversation(w) != conversation(g) {
					t.Errorf("entry %d:\nwant %s\ngot  %s", i, conversation(w), conversation(g))
				}
				if w.Type == session.ToolCall && w.Tool != g.Tool && cusf.Tool(cusf.ToolName(&w)) != session.ToolUnknown {
					t.Errorf("entry %d: tool %s, want %s", i, g.Tool, w.Tool)
				}
			}
			want.Reasoning = 0
			if want != got {
				t.Errorf("usage %+v, want %+v", got, want)
			}
		})
	}
}

func wantCLI(cli string) string {
	if cli == session.OpenCode {
		return session.Universal
	}
	return cli
}
