package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/inject"
	"github.com/stead-dev/stead/internal/clitest"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

// TestForkResumes forks a session Claude Code recorded at an entry in its
// middle (the tool's result, before the final answer) into Codex with
// stead session fork, and the real Codex resumes the fork: its model gets
// the history up to that entry, and nothing after it.
func TestForkResumes(t *testing.T) {
	root := t.TempDir()
	src := clitest.New(t, "claude", sourceScript(), clitest.In(filepath.Join(root, "src")))
	r := src.Run(sourceScript().Prompts[0], "")
	succeeded(t, r, "LIVE-SOURCE-FINAL")
	dst := clitest.New(t, "codex", &modelstub.Script{Turns: []modelstub.Turn{{Text: "From the fork. FORK-REPLY"}}},
		clitest.In(filepath.Join(root, "dst")))
	l := &steadCmd{t: t, bin: steadBinary(t), dir: dst.Dir, env: cliEnv(root, src, dst)}

	ref := "claude:" + r.SessionID
	s, err := session.Unmarshal([]byte(l.stead("session", "show", ref, "--json", "--no-native")))
	if err != nil {
		t.Fatal(err)
	}
	at := ""
	for _, e := range s.Timeline {
		if e.Type == session.ToolResult {
			at = e.ID
		}
	}
	if at == "" {
		t.Fatalf("the recorded session has no tool result: %d entries", len(s.Timeline))
	}
	var rep inject.Report
	out := l.stead("session", "fork", ref, "--at", at, "--to", "codex", "--install", "--json", "--cwd", dst.Dir)
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Target.ID == "" {
		t.Fatalf("fork printed %q (%v)", out, err)
	}
	if rep.Source.At != at {
		t.Errorf("the fork says it was cut at %q, want %q", rep.Source.At, at)
	}

	rr := dst.Run("Go on from there. FORK-PROMPT", rep.Target.ID)
	succeeded(t, rr, "FORK-REPLY")
	reqs := dst.Stub.MainRequests()
	if len(reqs) == 0 {
		t.Fatal("the stub got no request")
	}
	got := flatten(reqs[0].Messages)
	want := []item{{"user", "Run the greeting command."}, {"assistant", "Running it."}, {"result", "hello-live"}, {"user", "FORK-PROMPT"}}
	if miss, ok := inOrder(got, want); !ok {
		t.Errorf("the resumed fork's request lacks %v, in order; it carried:\n%s", miss, list(got))
	}
	for _, it := range got {
		if strings.Contains(it.text, "LIVE-SOURCE-FINAL") {
			t.Errorf("the fork carries an entry after the fork point: %s", it)
		}
	}

	// The fork's figures are what Codex did since stead wrote it: the
	// turn it ran, not the copied history.
	var stats struct {
		Sessions []struct {
			CLI   string `json:"cli"`
			ID    string `json:"id"`
			Turns int    `json:"turns"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(l.stead("session", "stats", "--json")), &stats); err != nil {
		t.Fatal(err)
	}
	turns := map[string]int{}
	for _, s := range stats.Sessions {
		turns[s.CLI+":"+s.ID] = s.Turns
	}
	if fork, src := turns["codex:"+rep.Target.ID], turns[ref]; fork != 1 || src != 1 {
		t.Errorf("stats counts %d turns in the resumed fork and %d in its source, want 1 each: %v", fork, src, turns)
	}
}
