package daemon_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stead-dev/stead/daemon"
	"github.com/stead-dev/stead/index"
)

// claudeSession writes a Claude Code session of one prompt.
func claudeSession(t *testing.T, dir, sid, text string) {
	t.Helper()
	line := `{"type":"user","uuid":"00000000-0000-4000-8000-000000000001","parentUuid":null,"sessionId":"` + sid +
		`","timestamp":"2026-11-26T10:00:00Z","cwd":"/work/d","message":{"role":"user","content":"` + text + `"}}` + "\n"
	path := filepath.Join(dir, "projects", "-work-d", sid+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDaemonKeepsTheIndexFresh: a daemon makes no search index, and
// keeps fresh one there is: a search elsewhere is answered by its
// watcher, and finds a session written since.
func TestDaemonKeepsTheIndexFresh(t *testing.T) {
	env := testEnv(t)
	env.Vars["XDG_CACHE_HOME"] = filepath.Join(env.Home, "cache")
	claude := filepath.Join(env.Home, "claude")
	env.Vars["CLAUDE_CONFIG_DIR"] = claude
	claudeSession(t, claude, "66666666-0000-4000-8000-000000000001", "an okapi sighting")

	t.Run("no index", func(t *testing.T) {
		d := start(t, env)
		if _, err := os.Stat(index.DefaultPath(env)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("with no index, the daemon made one (%v)", err)
		}
		d.Close()
	})

	ctx := context.Background()
	ix, err := index.Open(ctx, index.DefaultPath(env), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Refresh(ctx, env, nil); err != nil {
		t.Fatal(err)
	}

	run(t, &daemon.Daemon{Env: env})
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := ix.Fresh(ctx, env, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Watcher != 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("after 30 s, the daemon does not keep the index fresh")
		}
		time.Sleep(50 * time.Millisecond)
	}
	claudeSession(t, claude, "66666666-0000-4000-8000-000000000002", "another okapi sighting")
	hits, res, err := ix.SearchFresh(ctx, env, index.Query{Text: "okapi"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Watcher == 0 || res.Added != 1 || len(hits) != 2 {
		t.Errorf("a session written while the daemon watches: %d hits, %+v; want 2 hits, 1 added by the daemon's watcher", len(hits), res)
	}
}
