package kimi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

var t0 = time.UnixMilli(1795290344000).UTC()

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// conversation is a small session as inject hands it to an encoder:
// normalised, each call followed by its result, calls already Kimi Code's.
func conversation() []session.Entry {
	u := func(in, out, cache int64) *session.Usage {
		return &session.Usage{Input: in, Output: out, CacheRead: cache}
	}
	return []session.Entry{
		{ID: "u1", Timestamp: at(0), Type: session.User, Content: "Run the greeting command, then read notes.txt."},
		{ID: "a1", Timestamp: at(100), Type: session.Assistant, Thinking: "The user wants the greeting first.", MessageID: "m1", Model: "stub-model", Usage: u(1007, 13, 100)},
		{ID: "a2", Timestamp: at(110), Type: session.Assistant, Content: "Running the greeting command.", MessageID: "m1", Model: "stub-model"},
		{ID: "c1", Timestamp: at(120), Type: session.ToolCall, Tool: session.ToolBash, OriginalTool: "Bash", Input: json.RawMessage(`{"command":"printf 'hello-from-%d\\n' 42"}`), MessageID: "m1", Model: "stub-model", Status: session.StatusOK},
		{ID: "c1:r", Timestamp: at(200), Type: session.ToolResult, CallID: "c1", Success: true, Status: session.StatusOK, Output: "hello-from-42\n"},
		{ID: "a3", Timestamp: at(300), Type: session.Assistant, Content: "Now reading the file.", MessageID: "m2", Model: "stub-model", Usage: u(2007, 23, 200)},
		{ID: "c2", Timestamp: at(310), Type: session.ToolCall, Tool: session.ToolRead, OriginalTool: "Read", Input: json.RawMessage(`{"path":"/home/dev/demo-project/notes.txt"}`), MessageID: "m2", Model: "stub-model", Status: session.StatusError},
		{ID: "c2:r", Timestamp: at(400), Type: session.ToolResult, CallID: "c2", Status: session.StatusError, Error: "notes.txt: no such file"},
		{ID: "a4", Timestamp: at(500), Type: session.Assistant, Content: "The file is missing. <FINAL-1>", MessageID: "m3", Model: "stub-model", Usage: u(3007, 33, 300)},
		{ID: "u2", Timestamp: at(1000), Type: session.User, Content: "Fix it & try again"},
		{ID: "a5", Timestamp: at(1100), Type: session.Assistant, Thinking: "Create it.", Content: "Creating it.", MessageID: "m4", Model: "claude-opus-4",
			Reasoning: []session.Reasoning{{Format: "anthropic", Text: "Create it.", Signature: "sig"}}, Usage: u(4007, 43, 0)},
		{ID: "c3", Timestamp: at(1110), Type: session.ToolCall, Tool: session.ToolWrite, OriginalTool: "Write", Input: json.RawMessage(`{"path":"/home/dev/demo-project/notes.txt","content":"hi\n"}`), MessageID: "m4", Model: "claude-opus-4", Status: session.StatusDenied},
		{ID: "c3:r", Timestamp: at(1200), Type: session.ToolResult, CallID: "c3", Status: session.StatusError, Error: "The user rejected this tool call."},
		{ID: "c1", Timestamp: at(1300), Type: session.ToolCall, Tool: session.ToolBash, OriginalTool: "Bash", Input: json.RawMessage(`{"command":"sleep 100"}`), MessageID: "m5", Model: "claude-opus-4", Status: session.StatusInterrupted},
		{ID: "c1:placeholder", Type: session.ToolResult, Kind: session.KindPlaceholder, CallID: "c1", Status: session.StatusInterrupted, Error: "[no result]"},
	}
}

// encode writes entries with deterministic ids.
func encode(t *testing.T, tg session.Target, entries []session.Entry) (string, []session.Loss, *Encoder) {
	t.Helper()
	var buf bytes.Buffer
	var losses []session.Loss
	e := NewEncoder(&buf, tg, func(l session.Loss) { losses = append(losses, l) })
	n := 0
	e.newID = func() string { n++; return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }
	for i := range entries {
		if err := e.Encode(&entries[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String(), losses, e
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "write", name)
	if *usftest.Update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

var goldenTarget = session.Target{
	CLI: session.Kimi, ID: "session_0b7e2f4a-5c1d-4e8f-9a2b-3c4d5e6f7a8b", Dir: "/home/dev/demo-project", Created: t0,
	Model: "stub-model", Title: "Greeting", Origin: session.Origin{CLI: "claude", ID: "9f0c", Tool: "stead test"},
}

// TestEncodeCode writes the small session as a Kimi Code journal.
func TestEncodeCode(t *testing.T) {
	out, losses, e := encode(t, goldenTarget, conversation())
	golden(t, "code.wire.jsonl", out)
	if len(e.Files()) != 0 {
		t.Errorf("files %v", e.Files())
	}
	if len(losses) != 1 || losses[0].What != session.LostReasoning || losses[0].How != session.HandledChanged || losses[0].Entry != "a5" {
		t.Errorf("losses %+v", losses)
	}
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !json.Valid([]byte(line)) || (i > 0 && !Sniff([]byte(line))) {
			t.Errorf("line %d is not a Kimi Code record: %s", i+1, line)
		}
	}
}

// TestEncodeLegacy writes the small session as a kimi-cli wire.jsonl and
// context.jsonl.
func TestEncodeLegacy(t *testing.T) {
	tg := goldenTarget
	tg.ID, tg.Format = "3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f", FormatLegacy
	tg.Path = "/share/sessions/05489f3258091050cc7f8d3f25ada307/" + tg.ID + "/wire.jsonl"
	out, _, e := encode(t, tg, conversation())
	golden(t, "legacy.wire.jsonl", out)
	files := e.Files()
	if len(files) != 1 || files[0].Path != "/share/sessions/05489f3258091050cc7f8d3f25ada307/"+tg.ID+"/context.jsonl" {
		t.Fatalf("files %v", files)
	}
	golden(t, "legacy.context.jsonl", string(files[0].Data))
	for _, line := range strings.Split(strings.TrimSuffix(out+string(files[0].Data), "\n"), "\n") {
		if !Sniff([]byte(line)) && !strings.HasPrefix(line, `{"role":`) {
			t.Errorf("not a kimi-cli line: %s", line)
		}
	}
}

// TestEncodeLegacyUnplaced fails rather than write a kimi-cli session
// without its context.
func TestEncodeLegacyUnplaced(t *testing.T) {
	e := NewEncoder(&bytes.Buffer{}, session.Target{ID: "nowhere", Format: FormatLegacy}, nil)
	if err := e.Close(); err == nil {
		t.Error("Close succeeded")
	}
}

// canonical is what a write must keep of an entry.
func canonical(e session.Entry) string {
	var in any
	json.Unmarshal(e.Input, &in)
	input, _ := json.Marshal(in)
	u := ""
	if e.Usage != nil {
		u = fmt.Sprintf("%+v", *e.Usage)
	}
	return fmt.Sprintf("%s|content=%q|thinking=%q|tool=%s %s %s|out=%q err=%q status=%s|model=%s|usage=%s|atts=%d",
		e.Type, e.Content, e.Thinking, e.Tool, e.OriginalTool, input, e.Output, e.Error, e.Status, e.Model, u, len(e.Attachments))
}

// conversational drops what a reader adds around the conversation: turn
// ends, cancellations, the instructions.
func conversational(entries []session.Entry) []string {
	var out []string
	for _, e := range entries {
		if e.Type == session.System {
			continue
		}
		out = append(out, canonical(e))
	}
	return out
}

// install writes a placed session's files as inject would.
func install(t *testing.T, p session.Placement, wire string, e *Encoder) {
	t.Helper()
	for _, f := range append(p.Files, e.Files()...) {
		os.MkdirAll(filepath.Dir(f.Path), 0o700)
		if err := os.WriteFile(f.Path, f.Data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Dir(p.Path), 0o700)
	if err := os.WriteFile(p.Path, []byte(wire), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestWriteReadBack places, writes and reads back the small session in
// both formats: the conversation is what was written, the placeholder
// result aside (Kimi Code answers an unfinished call itself; kimi-cli's
// context gets its "interrupted" result).
func TestWriteReadBack(t *testing.T) {
	for _, format := range []string{"", FormatLegacy} {
		t.Run("format="+format, func(t *testing.T) {
			proj := t.TempDir()
			env := session.Env{Home: "/nonexistent", Vars: map[string]string{"KIMI_CODE_HOME": t.TempDir(), "KIMI_SHARE_DIR": t.TempDir()}}
			tg := goldenTarget
			tg.ID, tg.Dir, tg.Format = "", proj, format
			p, err := Place(env, &tg)
			if err != nil {
				t.Fatal(err)
			}
			tg.Path = p.Path // as inject does
			in := conversation()
			for i := range in {
				if in[i].Type == session.ToolCall {
					var m map[string]any
					json.Unmarshal(in[i].Input, &m)
					if p, ok := m["path"].(string); ok {
						m["path"] = strings.Replace(p, "/home/dev/demo-project", proj, 1)
						in[i].Input, _ = json.Marshal(m)
					}
				}
			}
			wire, _, e := encode(t, tg, in)
			install(t, p, wire, e)
			ref, err := Locate(env, tg.ID)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Open(env, ref)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range s.Warnings {
				t.Errorf("warning: %v", w)
			}
			usftest.ValidateSession(t, s)
			if s.Project.Path != proj || s.Title != "Greeting" || s.ID != tg.ID {
				t.Errorf("project %q title %q id %q", s.Project.Path, s.Title, s.ID)
			}
			var want []string
			for _, en := range in {
				switch {
				case en.Kind == session.KindPlaceholder && format == "":
					continue // Kimi Code answers it when it sends the history
				case en.Kind == session.KindPlaceholder:
					en.Kind, en.Error = "", interruptedResult
				}
				if format == FormatLegacy && en.Type != session.User && en.Type != session.ToolResult {
					en.Model = "" // kimi-cli records no model
				}
				if format == FormatLegacy && en.Type == session.ToolCall {
					en.OriginalTool, en.Input = legacyToolCall(en.OriginalTool, en.Input)
					en.Tool = UniversalTool(en.OriginalTool)
				}
				if en.Type == session.Assistant && en.Thinking != "" && en.Content != "" && format == FormatLegacy {
					// A wire ContentPart holds one part.
					th := en
					th.Content, th.Reasoning = "", nil
					want = append(want, canonical(th))
					en.Thinking, en.Usage = "", nil
				}
				if en.Type == session.ToolCall && en.Status == session.StatusInterrupted && format == "" {
					en.Status = session.StatusInterrupted // the cancelled turn says so
				}
				want = append(want, canonical(en))
			}
			got := conversational(s.Timeline)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("read back:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
