package cusf_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stead-dev/stead/cusf"
	"github.com/stead-dev/stead/session"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// small is a hand-built session with one of everything the export has a
// rule for.
func small() *session.Session {
	base := time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)
	at := func(sec int) time.Time { return base.Add(time.Duration(sec) * time.Second) }
	const model = "claude-opus-4-5-20251101"
	return &session.Session{
		ID:       "abc123-def456",
		Version:  session.Version,
		Source:   session.Source{CLI: session.Claude},
		Project:  session.Project{Path: "/home/dev/project", Name: "project", Git: &session.Git{Branch: "main", Commit: "0123abc"}},
		Model:    session.Model{Provider: "anthropic", Model: model},
		Metadata: session.Metadata{Created: at(0), LastModified: at(100)},
		Timeline: []session.Entry{
			{ID: "u1", Timestamp: at(1), Type: session.User, Content: "Help me fix the bug in auth.py & <b>the</b> tests"},
			{ID: "s1", Timestamp: at(1), Type: session.System, Kind: session.KindContext, Content: "<env>cwd=/home/dev/project</env>", ParentID: "u1"},
			// One response in three entries: thinking, text, a call.
			{ID: "a1", Timestamp: at(2), Type: session.Assistant, Thinking: "Read auth.py first.", Model: model, MessageID: "msg_1",
				Usage: &session.Usage{Input: 1000, Output: 50, CacheRead: 200, CacheWrite: 100, Reasoning: 20}, ParentID: "s1"},
			{ID: "a2", Timestamp: at(2), Type: session.Assistant, Content: "I'll read the file.", Model: model, MessageID: "msg_1", ParentID: "a1"},
			{ID: "toolu_1", Timestamp: at(3), Type: session.ToolCall, Tool: session.ToolRead, OriginalTool: "Read",
				Input: json.RawMessage(`{"file_path":"/home/dev/project/auth.py"}`), Model: model, MessageID: "msg_1", ParentID: "a2"},
			{ID: "r1", Timestamp: at(4), Type: session.ToolResult, CallID: "toolu_1", Success: true, Output: "def login(): pass", ParentID: "toolu_1"},
			// A response made only of two parallel calls, its usage on
			// the first.
			{ID: "toolu_2", Timestamp: at(5), Type: session.ToolCall, Tool: session.ToolBash, OriginalTool: "Bash",
				Input: json.RawMessage(`{"command":"pytest -q"}`), Model: model, MessageID: "msg_2", Usage: &session.Usage{Input: 1200, Output: 30}, ParentID: "r1"},
			{ID: "toolu_3", Timestamp: at(5), Type: session.ToolCall, Tool: session.ToolSearch, OriginalTool: "Grep",
				Input: json.RawMessage(`{"pattern":"login"}`), Model: model, MessageID: "msg_2", ParentID: "toolu_2"},
			// Back in time, and no time at all.
			{ID: "r2", Timestamp: at(4), Type: session.ToolResult, CallID: "toolu_2", Output: "1 failed", Error: "exit status 1", ParentID: "toolu_2"},
			{ID: "r3", Type: session.ToolResult, CallID: "toolu_3", Success: true, Output: "auth.py:1:def login()", ParentID: "toolu_3"},
			// A call with a CLI name and an input that is not an object.
			{ID: "a3", Timestamp: at(7), Type: session.Assistant, Content: "Planning the fix.", Model: model, MessageID: "msg_3",
				Usage: &session.Usage{Input: 1300, Output: 40}, ParentID: "r3"},
			{ID: "call_plan", Timestamp: at(8), Type: session.ToolCall, Tool: session.ToolPlan, OriginalTool: "update_plan",
				Input: json.RawMessage(`"fix login"`), MessageID: "msg_3", ParentID: "a3"},
			{ID: "r4", Timestamp: at(9), Type: session.ToolResult, CallID: "call_plan", Success: true, Output: "ok", ParentID: "call_plan"},
			// A result whose call the session does not hold.
			{ID: "r5", Timestamp: at(9), Type: session.ToolResult, CallID: "gone_1", Success: true, Output: "orphan", ParentID: "r4"},
			{ID: "a4", Timestamp: at(10), Type: session.Assistant, Kind: session.KindError, Content: "API Error: overloaded", ParentID: "r5"},
			{ID: "u2", Timestamp: at(11), Type: session.User, Content: "try again", ParentID: "a4"},
			{ID: "a5", Timestamp: at(12), Type: session.Assistant, Content: "Fixed: login() now checks the password.", Model: model,
				MessageID: "msg_4", Usage: &session.Usage{Input: 1400, Output: 10, CacheRead: 1300}, ParentID: "u2"},
		},
	}
}

// minimal is a session that records no time, model or usage.
func minimal() *session.Session {
	return &session.Session{
		ID:     "min/../1",
		Source: session.Source{CLI: session.OpenCode},
		Timeline: []session.Entry{
			{ID: "L1", Type: session.User, Content: "hi"},
			{ID: "L2", Type: session.Assistant, Content: "hello", ParentID: "L1"},
		},
	}
}

func TestGolden(t *testing.T) {
	cases := []struct {
		name  string
		s     *session.Session
		grade string
		file  string
	}{
		{"small", small(), "A", "2026-01-28T13-06-48Z-session-claude-abc123-def456--export.jsonl"},
		// No model or usage: the assistant message lacks both.
		{"minimal", minimal(), "B", "2026-01-28T13-06-48Z-session-other-min___1--export.jsonl"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := export(t, c.s)
			path := filepath.Join("testdata", "golden", c.name+".cusf.jsonl")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("export differs from %s (go test -update rewrites it):\ngot:\n%s", path, got)
			}
			res := validate(t, got, path)
			if !res.Pass() || res.Grade != c.grade {
				t.Errorf("want every check to pass and grade %s, got:\n%s", c.grade, resultText(res))
			}
			back, warns, err := cusf.Decode(bytes.NewReader(got), path)
			if err != nil || len(warns) > 0 {
				t.Fatalf("decode: %v %v", err, warns)
			}
			if again := export(t, back); !bytes.Equal(again, got) {
				t.Errorf("re-export differs:\n%s", again)
			}
			if name := cusf.FileName(c.s, "", fixedNow); name != c.file {
				t.Errorf("file name %q, want %q", name, c.file)
			}
		})
	}
}

// TestDecodeSmall checks what the import makes of the small session.
func TestDecodeSmall(t *testing.T) {
	s := small()
	back, _, err := cusf.Decode(bytes.NewReader(export(t, s)), "small")
	if err != nil {
		t.Fatal(err)
	}
	if back.Source.CLI != session.Claude || back.Source.Format != "cusf" || back.Model.Model != s.Model.Model ||
		back.Project.Git == nil || back.Project.Git.Branch != "main" || !back.Metadata.Created.Equal(s.Metadata.Created) ||
		!back.Metadata.LastModified.Equal(s.Metadata.LastModified) {
		t.Errorf("session facts: %+v %+v %+v %+v", back.Source, back.Model, back.Project, back.Metadata)
	}
	if len(back.Timeline) != len(s.Timeline) {
		t.Fatalf("%d entries, want %d", len(back.Timeline), len(s.Timeline))
	}
	byID := map[string]session.Entry{}
	for _, e := range back.Timeline {
		byID[e.ID] = e
	}
	tests := []struct {
		id    string
		check func(e session.Entry) bool
	}{
		{"a1", func(e session.Entry) bool {
			return e.Thinking == "Read auth.py first." && e.Usage != nil && e.Usage.CacheWrite == 100 && e.MessageID == "a1"
		}},
		{"a2", func(e session.Entry) bool { return e.MessageID == "a1" && e.ParentID == "a1" }},
		{"toolu_1", func(e session.Entry) bool {
			return e.Tool == session.ToolRead && e.OriginalTool == "Read" && e.ParentID == "a2" && e.MessageID == "a1"
		}},
		// The response with no message: the made-up message is folded
		// back into its first call.
		{"toolu_2", func(e session.Entry) bool {
			return e.Usage != nil && e.Usage.Input == 1200 && e.ParentID == "r1" && e.Model == s.Model.Model
		}},
		{"toolu_3", func(e session.Entry) bool { return e.Tool == session.ToolSearch && e.ParentID == "toolu_2" }},
		{"call_plan", func(e session.Entry) bool {
			return e.Tool == session.ToolUnknown && e.OriginalTool == "update_plan" && string(e.Input) == `{"input":"fix login"}`
		}},
		{"a4", func(e session.Entry) bool { return e.Kind == session.KindError }},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			e, ok := byID[tt.id]
			if !ok {
				t.Fatal("missing")
			}
			e.Native = nil
			if !tt.check(e) {
				t.Errorf("%+v", e)
			}
		})
	}
	for _, e := range back.Timeline {
		if e.Type == session.ToolResult && e.CallID == "gone_1" && (e.Output != "orphan" || e.Status != session.StatusOK) {
			t.Errorf("orphan result: %+v", e)
		}
		if e.Type == session.ToolResult && e.CallID == "toolu_2" && (e.Success || e.Error != "exit status 1" || e.Status != session.StatusError) {
			t.Errorf("failed result: %+v", e)
		}
		if e.Native == nil || len(e.Native.Record) == 0 {
			t.Errorf("entry %s keeps no native line", e.ID)
		}
	}
	if n := len(back.Records); n != 5 { // _meta, session_start, the made-up message and tool_use, session_end
		t.Errorf("%d records, want 5", n)
	}
}

func TestFileName(t *testing.T) {
	tests := []struct {
		id, cli, exportType, want string
	}{
		{"abc123", session.Claude, "context-export", "2026-01-28T13-06-48Z-session-claude-abc123--context-export.jsonl"},
		{"../../etc/passwd", session.Codex, "", "2026-01-28T13-06-48Z-session-codex-____etc_passwd--export.jsonl"},
		{"a/b\\c", session.Kimi, "x/y", "2026-01-28T13-06-48Z-session-kimi-a_b_c--x_y.jsonl"},
		{"", session.Gemini, "..", "2026-01-28T13-06-48Z-session-gemini-unknown--export.jsonl"},
		{"ses_1", session.OpenCode, "export", "2026-01-28T13-06-48Z-session-other-ses_1--export.jsonl"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			s := &session.Session{ID: tt.id, Source: session.Source{CLI: tt.cli}}
			if got := cusf.FileName(s, tt.exportType, fixedNow.In(time.FixedZone("X", 3600))); got != tt.want {
				t.Errorf("got %q", got)
			}
		})
	}
}
