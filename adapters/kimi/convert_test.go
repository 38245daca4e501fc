package kimi_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/adapters/kimi"
	"github.com/stead-dev/stead/inject"
	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

var writer = inject.Writer{CLI: session.Kimi, Place: kimi.Place, ToolCall: kimi.ToolCall,
	NewEncoder: func(w io.Writer, t session.Target, lost func(session.Loss)) inject.Encoder {
		return kimi.NewEncoder(w, t, lost)
	}}

var reader = inject.Reader{CLI: session.Kimi, ToolArgs: kimi.ToolArgs}

// openCase lays out a testdata case's native files and opens its first.
func openCase(t *testing.T, path string) *session.Session {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	first := ""
	for _, f := range ar.Files {
		rel, ok := strings.CutPrefix(f.Name, "native/")
		if !ok {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		if first == "" {
			first = p
		}
	}
	s, err := kimi.Open(session.Env{Home: dir}, session.Ref{CLI: session.Kimi, Path: first})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// transcript is what a resumed model sees of a session, in order: the
// prompts, the assistant's texts, each tool call followed by its result
// (kimi-cli's context puts a response's results after all its calls).
// Prompts that read as slash commands are left out: kimi-cli's wire
// records commands as prompts too, so a reader cannot tell them apart.
func transcript(t *testing.T, s *session.Session) []string {
	t.Helper()
	c := &collector{}
	w := writer
	w.NewEncoder = func(io.Writer, session.Target, func(session.Loss)) inject.Encoder { return c }
	if _, err := inject.Convert(s, reader, w, inject.Options{Dir: "/p", Env: session.Env{Home: t.TempDir()}}, io.Discard); err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, e := range c.entries {
		switch {
		case e.Type == session.User && strings.HasPrefix(e.Content, "/"):
		case e.Type == session.User || e.Type == session.Assistant && e.Content != "":
			out = append(out, fmt.Sprintf("%s: %q", e.Type, e.Content))
		case e.Type == session.ToolCall:
			out = append(out, "call: "+string(e.Tool))
			for _, r := range c.entries[i+1:] {
				if r.Type == session.ToolResult && r.CallID == e.ID {
					out = append(out, result(r))
					break
				}
			}
		}
	}
	return out
}

// result describes a tool result: a call cut short is one whatever its
// text, and kimi-cli's context gives an error its note.
func result(r session.Entry) string {
	if r.Kind == session.KindPlaceholder || r.Status == session.StatusInterrupted {
		return "result: interrupted"
	}
	return fmt.Sprintf("result: %q %q", r.Output, strings.TrimPrefix(r.Error, "<system>ERROR: Tool execution failed.</system>\n"))
}

type collector struct{ entries []session.Entry }

func (c *collector) Encode(e *session.Entry) error { c.entries = append(c.entries, *e); return nil }
func (c *collector) Close() error                  { return nil }

// TestInstallLegacy writes every testdata session, of either CLI, into a
// kimi-cli store and reads it back: the model would see the same
// conversation, with nothing unreadable.
func TestInstallLegacy(t *testing.T) {
	cases, _ := filepath.Glob("testdata/*.txtar")
	for _, path := range cases {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			s := openCase(t, path)
			share := t.TempDir()
			env := session.Env{Home: "/nonexistent", Vars: map[string]string{"KIMI_SHARE_DIR": share}}
			rep, err := inject.Install(s, reader, writer, inject.Options{Env: env, Dir: t.TempDir(), Format: kimi.FormatLegacy, Tool: "stead test"})
			if err == inject.ErrEmpty {
				t.Skip("nothing to resume")
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"kimi.json", filepath.Join(filepath.Dir(rep.Placement.Path), "context.jsonl")} {
				if _, err := os.Stat(filepath.Join(share, strings.TrimPrefix(f, share))); err != nil {
					t.Errorf("missing %s: %v", f, err)
				}
			}
			ref, err := kimi.Locate(env, rep.Target.ID)
			if err != nil {
				t.Fatal(err)
			}
			back, err := kimi.Open(env, ref)
			if err != nil {
				t.Fatal(err)
			}
			usftest.ValidateSession(t, back)
			for _, w := range back.Warnings {
				t.Errorf("reading the written session: %v", w)
			}
			// The context kimi-cli resumes from holds the same messages.
			ctx, err := os.Open(filepath.Join(filepath.Dir(ref.Path), "context.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer ctx.Close()
			fromCtx, err := kimi.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range fromCtx.Warnings {
				t.Errorf("reading the written context: %v", w)
			}
			want := strings.Join(transcript(t, s), "\n")
			for name, got := range map[string]*session.Session{"wire.jsonl": back, "context.jsonl": fromCtx} {
				if g := strings.Join(transcript(t, got), "\n"); g != want {
					t.Errorf("%s carries:\n%s\nwant:\n%s", name, g, want)
				}
			}
		})
	}
}

// TestInstallCode installs a testdata session into a Kimi Code store
// twice: two new sessions, the first left as it was.
func TestInstallCode(t *testing.T) {
	s := openCase(t, "testdata/code-e2e-conversation.txtar")
	home := t.TempDir()
	env := session.Env{Home: "/nonexistent", Vars: map[string]string{"KIMI_CODE_HOME": home}}
	dir := t.TempDir()
	rep1, err := inject.Install(s, reader, writer, inject.Options{Env: env, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(rep1.Placement.Path)
	rep2, err := inject.Install(s, reader, writer, inject.Options{Env: env, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if rep1.Target.ID == rep2.Target.ID || rep1.Placement.Path == rep2.Placement.Path {
		t.Fatalf("the same id twice: %s", rep1.Target.ID)
	}
	if after, _ := os.ReadFile(rep1.Placement.Path); !bytes.Equal(before, after) {
		t.Error("the second install changed the first session")
	}
	if _, err := os.Stat(filepath.Join(home, "session_index.jsonl")); err == nil {
		t.Error("session_index.jsonl written: the v2 engine does not need it")
	}
	for _, rep := range []*inject.Report{rep1, rep2} {
		ref, err := kimi.Locate(env, rep.Target.ID)
		if err != nil {
			t.Fatal(err)
		}
		back, err := kimi.Open(env, ref)
		if err != nil {
			t.Fatal(err)
		}
		if back.Project.Path != rep.Target.Dir || len(back.Warnings) > 0 {
			t.Errorf("project %q warnings %v", back.Project.Path, back.Warnings)
		}
		if g, w := strings.Join(transcript(t, back), "\n"), strings.Join(transcript(t, s), "\n"); g != w {
			t.Errorf("carries:\n%s\nwant:\n%s", g, w)
		}
	}
}
