package inject_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/inject"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// claudeSession is a short session Claude Code recorded with its model.
func claudeSession(dir string) *session.Session {
	const model = "claude-opus-5-5"
	return &session.Session{ID: "c1", Source: session.Source{CLI: session.Claude}, Project: session.Project{Path: dir},
		Model: session.Model{Provider: "anthropic", Model: model},
		Timeline: []session.Entry{
			{ID: "u1", Type: session.User, Content: "Say hello."},
			{ID: "a1", Type: session.Assistant, Content: "Hello.", MessageID: "m1", Model: model},
		}}
}

// configured seeds a home for cli as its Setup does, configured with
// model, and returns the environment its store is found from.
func configured(t *testing.T, a adapters.Adapter, dir, model string) session.Env {
	t.Helper()
	home := t.TempDir()
	st := a.Setup(live.Launch{Home: home, Dir: dir, BaseURL: "http://127.0.0.1:9", Model: model})
	env := session.Env{Home: home, Vars: map[string]string{}}
	for _, kv := range st.Env {
		k, v, _ := strings.Cut(kv, "=")
		env.Vars[k] = v
	}
	for name, data := range st.Files {
		p := filepath.Join(home, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

// TestTargetModel converts a Claude session into every CLI stead writes,
// configured with a model of its own: the session continues with the
// target's configured model (the one the adapter says the CLI uses), or
// with the one asked for, never with Claude's; where the CLI reads a
// model back from its session (Codex's turn_context, OpenCode's user
// messages), that is the target's.
func TestTargetModel(t *testing.T) {
	readBack := map[string]string{
		session.Codex:    `"type":"turn_context","payload":{`,
		session.OpenCode: `"role":"user"`,
	}
	for _, a := range adapters.All {
		if !a.Writes() || a.Driver == nil || a.Setup == nil || a.Model == nil {
			continue
		}
		t.Run(a.Name, func(t *testing.T) {
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			want := "configured-" + a.Name
			env := configured(t, a, dir, want)
			if got, from := a.Model(env, dir); got != want || from == "default" {
				t.Errorf("the adapter says %s uses %q (from %q), want %q", a.Name, got, from, want)
			}
			for _, asked := range []string{"", "asked-model"} {
				var buf bytes.Buffer
				rep, err := inject.Convert(claudeSession(dir), inject.Reader{CLI: session.Claude}, writerFor(a),
					inject.Options{Env: env, Model: asked}, &buf)
				if err != nil {
					t.Fatal(err)
				}
				w := want
				if asked != "" {
					w = asked
				}
				if rep.Target.Model != w || rep.Target.SourceModel != "claude-opus-5-5" {
					t.Errorf("asked %q: the session continues with %q (source %q), want %q", asked, rep.Target.Model, rep.Target.SourceModel, w)
				}
				if line := rep.ModelLine(); !strings.Contains(line, w) || !strings.Contains(line, "claude-opus-5-5") {
					t.Errorf("asked %q: the report says %q", asked, line)
				}
				marker, ok := readBack[a.Name]
				if !ok {
					continue
				}
				out := buf.String()
				for _, line := range strings.Split(out, "\n") {
					if i := strings.Index(line, marker); i >= 0 && !strings.Contains(line, w) {
						t.Errorf("asked %q: %s reads back a model from a record that names another: %s", asked, a.Name, line)
					}
				}
				if !strings.Contains(out, marker) {
					t.Errorf("asked %q: no record %s reads its model from:\n%s", asked, marker, out)
				}
			}
		})
	}
}

// TestTargetModelDefault: a CLI with nothing configured continues with
// its own default, never the source's model.
func TestTargetModelDefault(t *testing.T) {
	for _, a := range adapters.All {
		if !a.Writes() {
			continue
		}
		t.Run(a.Name, func(t *testing.T) {
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			env := session.Env{Home: t.TempDir(), Vars: map[string]string{}}
			var buf bytes.Buffer
			rep, err := inject.Convert(claudeSession(dir), inject.Reader{CLI: session.Claude}, writerFor(a), inject.Options{Env: env}, &buf)
			if err != nil {
				t.Fatal(err)
			}
			if a.Name != session.Claude && rep.Target.Model == "claude-opus-5-5" {
				t.Errorf("%s continues with the source's model", a.Name)
			}
			if rep.Target.ModelFrom != "default" {
				t.Errorf("the model comes from %q, want default", rep.Target.ModelFrom)
			}
			if a.Name == session.Codex && strings.Contains(buf.String(), `"turn_context"`) {
				t.Errorf("Codex with no model configured gets a turn_context, which it would resume with:\n%s", buf.String())
			}
		})
	}
}
