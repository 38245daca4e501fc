package daemon_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/hosts"
	"github.com/stead-dev/stead/internal/clitest"
)

// TestDaemonAnswersForWindowsHomes: under WSL a daemon answers for each
// Windows user's home that holds a CLI's store, as a host of its own
// (<host>-win-<user>), beside the user's own; a session's Windows project
// path is given as WSL sees it, and the session is read through the bus.
func TestDaemonAnswersForWindowsHomes(t *testing.T) {
	users := t.TempDir() // what WSL sees at /mnt/c/Users
	src := filepath.Join(clitest.Root(t), "examples", "claude", "projects", "-home-dev-lab-claude-work-alpha", "6cccbe0a-a5b6-4c51-bd4c-d322261e2887.jsonl")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// The Windows build of Claude Code wrote it: its project is a
	// Windows path.
	data = []byte(strings.ReplaceAll(string(data), `"cwd":"/home/dev/lab-claude/work/alpha"`, `"cwd":"C:\\Users\\alice\\work\\alpha"`))
	dst := filepath.Join(users, "alice", ".claude", "projects", "C--Users-alice-work-alpha", "6cccbe0a-a5b6-4c51-bd4c-d322261e2887.jsonl")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(users, "Public", ".claude"), 0o755) // no user's

	env := testEnv(t)
	env.Vars["STEAD_WINDOWS_USERS"] = users
	d := start(t, env)
	host := d.HostName()
	ctx := context.Background()
	var answers []hosts.Sessions
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		answers, err = hosts.List(ctx, d.Bus(), hosts.Query{}, nil, 5*time.Second)
		if err == nil && len(answers) == 2 || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || len(answers) != 2 {
		t.Fatalf("hosts.List: %d answers, %v; want this machine and alice's Windows home", len(answers), err)
	}
	var win *hosts.Sessions
	for i := range answers {
		if answers[i].Host == host+"-win-alice" {
			win = &answers[i]
		}
	}
	if win == nil || win.Err != nil || len(win.Sessions) != 1 {
		t.Fatalf("the answers: %+v; want %s-win-alice with one session", answers, host)
	}
	if s := win.Sessions[0]; s.ID != "6cccbe0a-a5b6-4c51-bd4c-d322261e2887" || s.Project != "/mnt/c/Users/alice/work/alpha" {
		t.Errorf("alice's session: %s in %q; want its project as WSL sees it", s.ID, s.Project)
	}
	s, err := hosts.Fetch(ctx, d.Bus(), host+"-win-alice", "claude:6cccbe0a-a5b6-4c51-bd4c-d322261e2887", 5*time.Second)
	if err != nil || len(s.Timeline) == 0 {
		t.Fatalf("fetching alice's session through the bus: %v", err)
	}
}
