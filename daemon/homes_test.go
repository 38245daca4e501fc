package daemon_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/hosts"
	"github.com/stead-dev/stead/index"
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
	// The user has a search index of their own: the daemon indexes
	// the Windows homes too, in its own cache.
	own, err := index.Open(context.Background(), index.DefaultPath(env), nil)
	if err != nil {
		t.Fatal(err)
	}
	own.Close()
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

	// Searched, with the project as WSL sees it, once its index is made.
	q := index.Query{Text: "command", Project: "/mnt/c/Users/alice/work", Roles: []string{"user"}}
	var hits []hosts.Hits
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		hits, err = hosts.Search(ctx, d.Bus(), q, []string{host + "-win-alice"}, 5*time.Second)
		if err == nil && len(hits) == 1 && hits[0].Err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || len(hits) != 1 || hits[0].Err != nil || len(hits[0].Hits) == 0 {
		t.Fatalf("searching alice's home: %+v, %v; want its session's prompt", hits, err)
	}
	if h := hits[0].Hits[0]; h.SessionID != "6cccbe0a-a5b6-4c51-bd4c-d322261e2887" || h.Project != "/mnt/c/Users/alice/work/alpha" || h.Host != host+"-win-alice" {
		t.Errorf("the hit: %+v; want alice's session, its project as WSL sees it, its host the home's", h)
	}
	if _, err := os.Stat(filepath.Join(users, "alice", ".cache")); err == nil {
		t.Errorf("the daemon wrote in alice's home")
	}
	// The user's own index holds none of alice's sessions.
	mine, err := index.OpenMade(ctx, index.DefaultPath(env), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	if own, err := mine.Search(ctx, index.Query{Text: "command"}); err != nil || len(own) != 0 {
		t.Errorf("the user's own index: %d hits, %v; want none of alice's", len(own), err)
	}
}
