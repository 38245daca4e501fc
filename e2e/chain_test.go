package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/internal/clitest"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

// TestChain runs stead chain across three CLIs: Claude Code plans
// (headless: nothing to resume yet), Codex continues Claude's session
// and Gemini CLI continues that, each under stead's supervisor. Each
// CLI's model gets the steps before it, and the final session holds
// every step's entries in order, each marked with its CLI.
func TestChain(t *testing.T) {
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	steps := []struct{ cli, prompt, answer string }{
		{"claude", "Plan the change. CHAIN-P1", "The plan: add a greeting. CHAIN-A1"},
		{"codex", "Implement it. CHAIN-P2", "Implemented the greeting. CHAIN-A2"},
		{"gemini", "Review it. CHAIN-P3", "Reviewed: it looks right. CHAIN-A3"},
	}
	l := &steadCmd{t: t, bin: steadBinary(t)}
	envs := map[string]*clitest.Env{}
	var all []*clitest.Env
	for _, st := range steps {
		e := clitest.New(t, st.cli, &modelstub.Script{Turns: []modelstub.Turn{{Text: st.answer}}}, clitest.In(filepath.Join(root, st.cli)))
		envs[st.cli] = e
		all = append(all, e)
	}
	l.dir = envs["gemini"].Dir
	// Each CLI keeps its own home; where two set one variable (HOME),
	// the later step's wins.
	l.env = cliEnv(root, all...)
	l.startDaemon(root)

	args := []string{"chain", "--json", "--auto-approve", "--cwd", l.dir}
	for _, st := range steps {
		args = append(args, st.cli+":"+st.prompt)
	}
	var res struct {
		Steps []struct {
			CLI, Run, State, Answer, Error string
		}
		Session string
	}
	out := l.stead(args...)
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stead chain printed %q: %v", out, err)
	}
	if len(res.Steps) != 3 {
		t.Fatalf("%d steps ran: %+v", len(res.Steps), res.Steps)
	}
	for i, st := range steps {
		r := res.Steps[i]
		if r.CLI != st.cli || r.Error != "" || !strings.Contains(r.Answer, st.answer) {
			t.Errorf("step %d: %+v, want %s answering %q", i+1, r, st.cli, st.answer)
		}
	}
	// Each CLI's model got the steps before it.
	for i, st := range steps[1:] {
		reqs := envs[st.cli].Stub.MainRequests()
		if len(reqs) == 0 {
			t.Fatalf("%s's stub got no request", st.cli)
		}
		var want []item
		for _, before := range steps[:i+1] {
			want = append(want, item{"user", before.prompt}, item{"assistant", before.answer})
		}
		want = append(want, item{"user", st.prompt})
		if miss, ok := inOrder(flatten(reqs[0].Messages), want); !ok {
			t.Errorf("%s's request lacks %v; it carried:\n%s", st.cli, miss, list(flatten(reqs[0].Messages)))
		}
	}
	// One session across the three CLIs, in order, each entry marked.
	whole, err := session.Unmarshal([]byte(l.stead("session", "show", res.Session, "--json", "--no-native")))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range whole.Timeline {
		if (e.Type == session.User || e.Type == session.Assistant) && strings.Contains(e.Content, "CHAIN-") {
			got = append(got, e.CLI+" "+e.Content[strings.Index(e.Content, "CHAIN-"):])
		}
	}
	want := "claude CHAIN-P1|claude CHAIN-A1|codex CHAIN-P2|codex CHAIN-A2|gemini CHAIN-P3|gemini CHAIN-A3"
	if strings.Join(got, "|") != want {
		t.Errorf("the chain's session:\n%s\nwant:\n%s", strings.Join(got, "|"), want)
	}
}
