package inject_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/inject"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// collector is an encoder that keeps the normalised entries.
type collector struct{ entries []session.Entry }

func (c *collector) Encode(e *session.Entry) error { c.entries = append(c.entries, *e); return nil }
func (c *collector) Close() error                  { return nil }

func writerFor(a adapters.Adapter) inject.Writer {
	return inject.Writer{CLI: a.Name, Place: a.Place, ToolCall: a.ToolCall, Commit: a.Commit,
		NewEncoder: func(w io.Writer, t session.Target, lost func(session.Loss)) inject.Encoder {
			return a.NewEncoder(w, t, lost)
		}}
}

// normalised returns what a conversion of s to its own CLI carries.
func normalised(t *testing.T, a adapters.Adapter, s *session.Session) []session.Entry {
	t.Helper()
	c := &collector{}
	w := writerFor(a)
	w.NewEncoder = func(io.Writer, session.Target, func(session.Loss)) inject.Encoder { return c }
	_, err := inject.Convert(s, inject.Reader{CLI: a.Name, ToolArgs: a.ToolArgs}, w, inject.Options{Dir: "/p", Env: session.Env{Home: t.TempDir()}}, io.Discard)
	if err == inject.ErrEmpty {
		t.Skip("nothing to resume in this case")
	}
	if err != nil {
		t.Fatal(err)
	}
	return c.entries
}

// canon is what a same-CLI round trip must keep of an entry: everything
// but ids (and the model of an entry that had none, which a writer may
// fill in).
func canon(e session.Entry, model bool) string {
	if !model {
		e.Model = ""
	}
	if e.Type == session.ToolCall {
		e.Status = "" // derived from the result, which writers carry
	}
	var in any
	json.Unmarshal(e.Input, &in)
	input, _ := json.Marshal(in)
	u := ""
	if e.Usage != nil {
		u = fmt.Sprintf("%+v", *e.Usage)
	}
	out, errText := e.Output, e.Error
	return fmt.Sprintf("%s|%s|content=%q|thinking=%q|tool=%s %s %s|out=%q err=%q ok=%v status=%s|model=%s|usage=%s|atts=%d",
		e.Type, e.Kind, e.Content, e.Thinking, e.Tool, e.OriginalTool, input, out, errText, e.Success, e.Status, e.Model, u, len(e.Attachments))
}

// TestSameCLIRoundTrip reads each testdata session of every CLI stead
// both reads and writes, writes it back as a new session of the same CLI,
// reads that, and checks both carry the same conversation, ids aside.
func TestSameCLIRoundTrip(t *testing.T) {
	for _, a := range adapters.All {
		if !a.Reads() || !a.Writes() || a.Read == nil {
			continue
		}
		cases, _ := filepath.Glob(filepath.Join("..", "adapters", a.Name, "testdata", "*.txtar"))
		for _, path := range cases {
			name := a.Name + "/" + strings.TrimSuffix(filepath.Base(path), ".txtar")
			t.Run(name, func(t *testing.T) {
				s := samples.Open(t, a, path)
				if s == nil {
					return
				}
				var buf bytes.Buffer
				rep, err := inject.Convert(s, inject.Reader{CLI: a.Name, ToolArgs: a.ToolArgs}, writerFor(a),
					inject.Options{Dir: "/p", Env: session.Env{Home: t.TempDir()}}, &buf)
				if err == inject.ErrEmpty {
					t.Skip("nothing to resume in this case")
				}
				if err != nil {
					t.Fatal(err)
				}
				back, err := a.Read(&buf)
				if err != nil {
					t.Fatal(err)
				}
				usftest.ValidateSession(t, back)
				for _, w := range back.Warnings {
					t.Errorf("reading the written session: %v", w)
				}
				want, got := normalised(t, a, s), normalised(t, a, back)
				for i := 0; i < len(want) || i < len(got); i++ {
					var w, g string
					// Codex keeps no model per message: its rollout's
					// turn_context names the model it resumes with, the
					// target's (here none is configured), not the
					// entries'.
					model := i < len(want) && want[i].Model != "" && a.Name != session.Codex
					if i < len(want) && i < len(got) && want[i].Kind == session.KindPlaceholder &&
						got[i].Type == session.ToolResult && got[i].Status == session.StatusInterrupted {
						continue // the source's unfinished call now has the CLI's own "aborted" result
					}
					if i < len(want) {
						w = canon(want[i], model)
					}
					if i < len(got) {
						g = canon(got[i], model)
					}
					if w != g {
						t.Errorf("entry %d differs after the round trip:\nwant %s\ngot  %s", i, w, g)
					}
				}
				for _, l := range rep.Losses {
					if l.What != session.LostBranch && l.What != session.LostEntry && l.What != session.LostResult {
						t.Errorf("a same-CLI conversion lost %s (%s): %s", l.What, l.How, l.Detail)
					}
				}
			})
		}
	}
}

// TestStreamMatchesWhole converts each testdata session twice, read whole
// and streamed from its decoder, and checks the target gets the same
// entries.
func TestStreamMatchesWhole(t *testing.T) {
	for _, a := range adapters.All {
		if !a.Reads() || !a.Writes() || a.NewDecoder == nil {
			continue
		}
		cases, _ := filepath.Glob(filepath.Join("..", "adapters", a.Name, "testdata", "*.txtar"))
		for _, path := range cases {
			t.Run(a.Name+"/"+strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
				s := samples.Open(t, a, path)
				for _, e := range s.Timeline {
					if e.Native != nil && e.Native.Path != "" {
						t.Skip("the session reads history from another file, which streaming does not follow")
					}
				}
				whole := normalised(t, a, s)
				f, err := os.Open(s.Source.Path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				c := &collector{}
				w := writerFor(a)
				w.NewEncoder = func(io.Writer, session.Target, func(session.Loss)) inject.Encoder { return c }
				_, err = inject.ConvertStream(s, a.NewDecoder(f), inject.Reader{CLI: a.Name, ToolArgs: a.ToolArgs}, w,
					inject.Options{Dir: "/p", Env: session.Env{Home: t.TempDir()}}, io.Discard)
				if err == inject.ErrEmpty {
					t.Skip("nothing to resume in this case")
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(c.entries) != len(whole) {
					t.Fatalf("streamed %d entries, whole %d", len(c.entries), len(whole))
				}
				for i := range whole {
					if w, g := canon(whole[i], true), canon(c.entries[i], true); w != g {
						t.Errorf("entry %d:\nwhole    %s\nstreamed %s", i, w, g)
					}
				}
			})
		}
	}
}

// TestNothingLost converts, between every pair of CLIs stead reads and
// writes, a session made only of parts every CLI can hold (prompts,
// replies, and shell, read, write, edit, search, glob, list and todo
// calls with their results, each in the source CLI's own terms), and
// checks the loss report is empty and every call stays a call.
func TestNothingLost(t *testing.T) {
	calls := []struct {
		tool session.Tool
		args map[string]any
	}{
		{session.ToolBash, map[string]any{session.ArgCommand: "ls -la"}},
		{session.ToolRead, map[string]any{session.ArgPath: "/p/notes.txt"}},
		{session.ToolWrite, map[string]any{session.ArgPath: "/p/new.txt", session.ArgContent: "hello\n"}},
		{session.ToolEdit, map[string]any{session.ArgPath: "/p/notes.txt", session.ArgOld: "marmelade", session.ArgNew: "marmalade"}},
		{session.ToolSearch, map[string]any{session.ArgPattern: "TODO", session.ArgPath: "/p"}},
		{session.ToolGlob, map[string]any{session.ArgPattern: "**/*.go", session.ArgPath: "/p"}},
		{session.ToolList, map[string]any{session.ArgPath: "/p"}},
		{session.ToolTodo, map[string]any{session.ArgTodos: []any{map[string]any{"content": "fix it", "status": "in_progress"}}}},
	}
	for _, src := range adapters.All {
		if !src.Reads() || src.ToolCall == nil {
			continue
		}
		s := &session.Session{ID: "s1", Source: session.Source{CLI: src.Name}, Project: session.Project{Path: "/p"},
			Model: session.Model{Provider: "test", Model: "test-model"}}
		s.Timeline = append(s.Timeline, session.Entry{ID: "u1", Type: session.User, Content: "Tidy up the project."},
			session.Entry{ID: "a1", Type: session.Assistant, Content: "On it.", MessageID: "m1"})
		for i, c := range calls {
			name, input, ok := src.ToolCall(c.tool, c.args)
			if !ok {
				t.Fatalf("%s has no %s tool", src.Name, c.tool)
			}
			id := fmt.Sprintf("call_%d", i)
			s.Timeline = append(s.Timeline,
				session.Entry{ID: id, Type: session.ToolCall, Tool: c.tool, OriginalTool: name, Input: input, MessageID: fmt.Sprintf("m%d", i+2)},
				session.Entry{ID: id + ":out", Type: session.ToolResult, CallID: id, Output: "done", Success: true, Status: session.StatusOK})
		}
		s.Timeline = append(s.Timeline, session.Entry{ID: "a2", Type: session.Assistant, Content: "All tidy.", MessageID: "m99"})
		for _, dst := range adapters.All {
			if !dst.Writes() {
				continue
			}
			t.Run(src.Name+"->"+dst.Name, func(t *testing.T) {
				rep, err := inject.Convert(s, inject.Reader{CLI: src.Name, ToolArgs: src.ToolArgs}, writerFor(dst),
					inject.Options{Env: session.Env{Home: t.TempDir(), Vars: map[string]string{}}, Model: "test-model"}, io.Discard)
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range rep.Losses {
					t.Errorf("lost %s (%s) %s: %s", l.What, l.How, l.Entry, l.Detail)
				}
				if rep.ToolCalls != len(calls) {
					t.Errorf("%d of %d calls stayed calls", rep.ToolCalls, len(calls))
				}
			})
		}
	}
}
