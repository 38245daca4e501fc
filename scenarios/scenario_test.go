package scenarios

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stead-dev/stead/session"
)

func TestBuiltinScenariosParse(t *testing.T) {
	all, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"demo", "fork", "chain", "ab-failure"} {
		sc, ok := all[want]
		if !ok {
			t.Errorf("stead ships no %s scenario", want)
			continue
		}
		if _, err := sc.Source(); err != nil {
			t.Errorf("%s: %v", want, err)
		}
	}
	kinds := map[string]bool{}
	for _, sc := range all {
		for _, st := range sc.Steps {
			kinds[st.Kind] = true
		}
	}
	for _, k := range []string{Resume, Fork, AB, Chain} {
		if !kinds[k] {
			t.Errorf("no shipped scenario has a %s step", k)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"unknown field", "name: x\nstart: {file: a.jsonl, cli: claude}\nsteps:\n  - resume: codex\n    promt: hi\n", []string{"x.yaml", "line 5", "promt"}},
		{"two kinds", "name: x\nstart: {file: a.jsonl}\nsteps:\n  - resume: codex\n    fork: gemini\n    prompt: hi\n    model: [{text: ok}]\n", []string{"x.yaml:4:", "exactly one of resume, fork, ab or chain"}},
		{"unknown cli", "name: x\nstart: {file: a.jsonl}\nsteps:\n  - resume: cursor\n    prompt: hi\n    model: [{text: ok}]\n", []string{"x.yaml:4:", `unknown CLI "cursor"`}},
		{"no model", "name: x\nstart: {file: a.jsonl}\nsteps:\n  - resume: codex\n    prompt: hi\n", []string{"x.yaml:4:", "no model answer for codex"}},
		{"bad turn", "name: x\nstart: {file: a.jsonl}\nsteps:\n  - resume: codex\n    prompt: hi\n    model: [{txt: ok}]\n", []string{"x.yaml:6:", "txt"}},
		{"no start", "name: x\nsteps:\n  - resume: codex\n    prompt: hi\n    model: [{text: ok}]\n", []string{"exactly one of file, ref or prompt"}},
		{"escaping start", "name: x\nstart: {file: ../../etc/passwd}\nsteps:\n  - resume: codex\n    prompt: hi\n    model: [{text: ok}]\n", []string{"inside its folder"}},
		{"escaping file", "name: x\nstart: {file: a.jsonl}\nsteps:\n  - resume: codex\n    prompt: hi\n    model: [{text: ok}]\n    expect: {files: [../x]}\n", []string{"relative path inside the project"}},
		{"after ab", "name: x\nstart: {file: a.jsonl}\nsteps:\n  - ab: [codex, gemini]\n    prompt: hi\n    model: [{text: ok}]\n  - resume: codex\n    prompt: hi\n    model: [{text: ok}]\n", []string{"x.yaml:7:", "from: start"}},
		{"failed not ab", "name: x\nstart: {file: a.jsonl}\nsteps:\n  - resume: codex\n    prompt: hi\n    model: [{text: ok}]\n    expect: {failed: [codex]}\n", []string{"only the variants of an A/B step"}},
		{"ab twice", "name: x\nstart: {file: a.jsonl}\nsteps:\n  - ab: [codex, codex]\n    prompt: hi\n    model: [{text: ok}]\n", []string{"named twice"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(fstest.MapFS{"x.yaml": {Data: []byte(tc.yaml)}}, "x.yaml")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error %q does not say %q", err, w)
				}
			}
		})
	}
}

// fakeDriver is a Driver whose steps are functions; a nil one fails.
type fakeDriver struct {
	LoadFn   func(ref, cli string) (*session.Session, error)
	ResumeFn func(from *session.Session, to, prompt string) (*Outcome, error)
	ForkFn   func(from *session.Session, at, to, prompt string) (*Outcome, error)
	ABFn     func(from *session.Session, to []string, prompt string) (*Outcome, error)
}

var _ Driver = (*fakeDriver)(nil)

func (d *fakeDriver) Load(_ context.Context, ref, cli string) (*session.Session, error) {
	return d.LoadFn(ref, cli)
}
func (d *fakeDriver) New(context.Context, string, string) (*Outcome, error) { panic("not used") }
func (d *fakeDriver) Resume(_ context.Context, from *session.Session, to, prompt string) (*Outcome, error) {
	return d.ResumeFn(from, to, prompt)
}
func (d *fakeDriver) Fork(_ context.Context, from *session.Session, at, to, prompt string) (*Outcome, error) {
	return d.ForkFn(from, at, to, prompt)
}
func (d *fakeDriver) AB(_ context.Context, from *session.Session, to []string, prompt string) (*Outcome, error) {
	return d.ABFn(from, to, prompt)
}
func (d *fakeDriver) Chain(context.Context, *session.Session, []Link) (*Outcome, error) {
	panic("not used")
}

const fakeScenario = `name: checks
start: {file: start.jsonl, cli: claude}
project: {git: false}
steps:
  - resume: codex
    prompt: go on
    model: [{text: "done by {cli}"}]
    expect:
      answer: done by codex
      history: 2
      history_ends: {cli: claude, type: assistant}
      entries:
        - {cli: claude, type: user, text: hello}
        - {cli: codex, type: assistant, text: done}
      files: {out.txt: written}
      tools: {bash: 1}
      tokens: {input: 10}
  - fork: gemini
    at: {type: user, text: hello}
    prompt: again
    model: [{text: x}]
    expect: {answer: nothing like it}
  - ab: [codex, gemini]
    from: start
    prompt: compare
    model: [{text: "I am {cli}"}]
    expect:
      failed: [gemini]
      answer: "I am {cli}"
`

func start() *session.Session {
	return &session.Session{ID: "s1", Source: session.Source{CLI: "claude"}, Timeline: []session.Entry{
		{ID: "u1", Type: session.User, Content: "hello"},
		{ID: "a1", Type: session.Assistant, Content: "hi"},
	}}
}

// TestRunChecks plays a scenario with a fake driver in a sandbox whose
// CLIs are stand-ins, and checks that each expectation is judged on what
// the driver reports: the ones that hold pass, the others fail, naming
// what was found.
func TestRunChecks(t *testing.T) {
	sc, err := Parse(fstest.MapFS{"s.yaml": {Data: []byte(fakeScenario)}, "start.jsonl": {Data: []byte("{}\n")}}, "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// Stand-in executables: Prepare only needs to find them.
	bin := t.TempDir()
	for _, c := range []string{"codex", "gemini"} {
		os.WriteFile(filepath.Join(bin, c), []byte("#!/bin/sh\n"), 0o755)
	}
	user := session.Env{Home: t.TempDir(), Vars: map[string]string{"PATH": bin, "STEAD_CLI_CACHE": t.TempDir(), "SECRET_TOKEN": "x"}}
	sb, err := Prepare(sc, SandboxOptions{Root: t.TempDir(), User: user})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if sb.Env.Get("SECRET_TOKEN") != "" {
		t.Error("the sandbox passed on a variable of the user's it should not")
	}
	if !strings.HasPrefix(sb.Env.Get("HOME"), sb.Root) || !strings.HasPrefix(sb.Env.Get("XDG_STATE_HOME"), sb.Root) {
		t.Errorf("the sandbox's home or state is outside it: %v", sb.Env.Vars)
	}
	os.WriteFile(filepath.Join(sb.Dir, "out.txt"), []byte("written by codex\n"), 0o644)

	var loaded, forkedAt string
	d := &fakeDriver{
		LoadFn: func(ref, cli string) (*session.Session, error) {
			loaded = ref
			return start(), nil
		},
		ResumeFn: func(from *session.Session, to, prompt string) (*Outcome, error) {
			s := *from
			s.Timeline = append(append([]session.Entry(nil), from.Timeline...),
				session.Entry{ID: "u2", Type: session.User, Content: prompt, CLI: to},
				session.Entry{ID: "c1", Type: session.ToolCall, Tool: session.ToolBash, CLI: to},
				session.Entry{ID: "a2", Type: session.Assistant, Content: "done by " + to, CLI: to, Usage: &session.Usage{Input: 10}})
			return &Outcome{Run: "r1", Session: &s, History: len(from.Timeline), Tokens: session.Usage{Input: 10}}, nil
		},
		ForkFn: func(from *session.Session, at, to, prompt string) (*Outcome, error) {
			forkedAt = at
			return &Outcome{Run: "r2", Session: from, History: 1}, nil
		},
		ABFn: func(from *session.Session, to []string, prompt string) (*Outcome, error) {
			return &Outcome{Run: "ab-1", Variants: []Variant{
				{Name: "codex", CLI: "codex", State: "exited", Answer: "I am codex"},
				{Name: "gemini", CLI: "gemini", State: "failed", Error: "HTTP 500"},
			}}, nil
		},
	}
	var out strings.Builder
	rep := Run(context.Background(), sc, sb, d, &out)
	if !strings.HasPrefix(loaded, sb.Root) {
		t.Errorf("the start file was read from %q, not from the sandbox's copy", loaded)
	}
	if forkedAt != "u1" {
		t.Errorf("the fork was cut at %q, want the entry at: matches (u1)", forkedAt)
	}
	if rep.Pass {
		t.Error("the scenario passed, though the fork's answer expectation cannot hold")
	}
	if len(rep.Steps) != 3 {
		t.Fatalf("%d steps reported, want 3:\n%s", len(rep.Steps), out.String())
	}
	if s := rep.Steps[0]; !s.Pass {
		t.Errorf("step 1 failed:\n%s", out.String())
	}
	if n := len(rep.Steps[0].Checks); n != 9 {
		t.Errorf("step 1 has %d checks, want 9 (finishes, answer, 2 entries, history, history_ends, file, tools, tokens)", n)
	}
	fork := rep.Steps[1]
	if fork.Pass || len(fork.Checks) != 2 || fork.Checks[1].Pass || !strings.Contains(fork.Checks[1].Got, `the answer: "done by codex"`) {
		t.Errorf("the fork's answer check: %+v", fork.Checks)
	}
	if ab := rep.Steps[2]; !ab.Pass {
		t.Errorf("the A/B step (gemini expected to fail, codex answering) failed: %+v", ab.Checks)
	}
	if !strings.Contains(out.String(), "FAIL the answer says \"nothing like it\"") {
		t.Errorf("the progress does not show the failed check:\n%s", out.String())
	}
	if rep.Took <= 0 || rep.Took > time.Minute {
		t.Errorf("took %s", rep.Took)
	}
}

// TestNamed checks {cli} is filled in a copy of a step's turns.
func TestNamed(t *testing.T) {
	sc, err := Parse(fstest.MapFS{"s.yaml": {Data: []byte(fakeScenario)}}, "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := named(sc.Steps[0].Model, "codex")
	if got[0].Text != "done by codex" || sc.Steps[0].Model[0].Text != "done by {cli}" {
		t.Errorf("named: %q (the scenario's own turn now %q)", got[0].Text, sc.Steps[0].Model[0].Text)
	}
}

func TestMissingCLI(t *testing.T) {
	sc, err := Parse(fstest.MapFS{"s.yaml": {Data: []byte(fakeScenario)}}, "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	user := session.Env{Home: t.TempDir(), Vars: map[string]string{"PATH": t.TempDir(), "STEAD_CLI_CACHE": t.TempDir()}}
	_, err = Prepare(sc, SandboxOptions{Root: t.TempDir(), User: user})
	if err == nil || !strings.Contains(err.Error(), "scripts/install-clis.sh codex") || !strings.Contains(err.Error(), "STEAD_GEMINI_BIN") {
		t.Errorf("a missing CLI: %v", err)
	}
}
