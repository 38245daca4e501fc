package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/internal/clitest"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/modelstub"
)

// TestTemplates runs a user's prompt template in real CLIs: one with a
// starting conversation is resumed in Codex under the supervisor (its
// model gets the conversation and the rendered prompt), one without runs
// headless in Claude Code and prints the answer.
func TestTemplates(t *testing.T) {
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	codex := clitest.New(t, "codex", &modelstub.Script{Turns: []modelstub.Turn{{Text: "On it. TPL-REPLY-1"}}}, clitest.In(filepath.Join(root, "codex")))
	claude := clitest.New(t, "claude", &modelstub.Script{Turns: []modelstub.Turn{{Text: "Here it is. TPL-REPLY-2"}}}, clitest.In(filepath.Join(root, "claude")))
	l := &steadCmd{t: t, bin: steadBinary(t), dir: codex.Dir}
	l.env = append(cliEnv(root, claude, codex), "XDG_CONFIG_HOME="+filepath.Join(root, "config"))
	dir := filepath.Join(root, "config", "stead", "templates")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "fix.yaml"), []byte(`name: fix
description: fix something, test first
prompt: Fix {{issue}} in {{file}}. TPL-PROMPT
vars:
  file: main.go
history:
  - user: We keep every change small and tested. TPL-HISTORY-USER
  - assistant: Understood. TPL-HISTORY-ASSISTANT
`), 0o644)
	os.WriteFile(filepath.Join(dir, "ask.yaml"), []byte("name: ask\nprompt: What is {{thing}}? TPL-ASK\n"), 0o644)
	l.startDaemon(root)

	var listed []struct{ Name, Source string }
	json.Unmarshal([]byte(l.stead("template", "list", "--json")), &listed)
	names := map[string]string{}
	for _, tp := range listed {
		names[tp.Name] = tp.Source
	}
	if names["fix"] == "" || names["review"] != "built-in" {
		t.Errorf("template list: %v", listed)
	}

	var rec live.Run
	out := l.stead("template", "run", "fix", "--to", "codex", "--var", "issue=the crash", "--cwd", codex.Dir, "--detach", "--json")
	if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.ID == "" {
		t.Fatalf("template run printed %q (%v)", out, err)
	}
	w := l.watch(rec.ID)
	w.until(t, "the reply", 3*time.Minute, func(msgs []watchMsg) bool {
		for _, e := range entries(msgs) {
			if strings.Contains(e.Content, "TPL-REPLY-1") {
				return true
			}
		}
		return false
	})
	reqs := codex.Stub.MainRequests()
	if len(reqs) == 0 {
		t.Fatal("codex's stub got no request")
	}
	want := []item{{"user", "TPL-HISTORY-USER"}, {"assistant", "TPL-HISTORY-ASSISTANT"}, {"user", "Fix the crash in main.go. TPL-PROMPT"}}
	if miss, ok := inOrder(flatten(reqs[0].Messages), want); !ok {
		t.Errorf("codex's request lacks %v; it carried:\n%s", miss, list(flatten(reqs[0].Messages)))
	}
	l.stead("stop", rec.ID)
	w.until(t, "the end of the run", time.Minute, ended)

	if got := l.stead("template", "run", "ask", "--to", "claude", "--var", "thing=stead", "--cwd", claude.Dir); !strings.Contains(got, "TPL-REPLY-2") {
		t.Errorf("the headless template printed %q", got)
	}
	reqs = claude.Stub.MainRequests()
	if len(reqs) == 0 || func() bool {
		_, ok := inOrder(flatten(reqs[0].Messages), []item{{"user", "What is stead? TPL-ASK"}})
		return !ok
	}() {
		t.Errorf("claude's model did not get the rendered prompt")
	}
}
