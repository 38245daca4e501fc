package daemon_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/daemon"
	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
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

// TestDaemonIndexesRuns: the daemon feeds the search index each run's
// entries as the bus carries them: a run whose CLI's store the index
// does not read (another machine's, with a NATS cluster) is found, named
// by its run, within a second of its entry reaching the bus; and after
// the daemon restarts it goes on where it left off, keeping what it had
// indexed.
func TestDaemonIndexesRuns(t *testing.T) {
	env := testEnv(t)
	env.Vars["XDG_CACHE_HOME"] = filepath.Join(env.Home, "cache")
	claude := filepath.Join(env.Home, "claude")
	env.Vars["CLAUDE_CONFIG_DIR"] = claude
	claudeSession(t, claude, "66666666-0000-4000-8000-000000000001", "an okapi sighting")
	ctx := context.Background()
	ix, err := index.Open(ctx, index.DefaultPath(env), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Refresh(ctx, env, nil); err != nil {
		t.Fatal(err)
	}

	d := run(t, &daemon.Daemon{Env: env})
	b := d.Bus()
	sid := "66666666-0000-4000-8000-000000000002"
	rec := live.Run{ID: "r1", CLI: "claude", SessionID: sid, Host: "otherhost", Dir: "/work/d",
		Path: "/elsewhere/projects/-work-d/" + sid + ".jsonl", State: live.RunBusy, Started: time.Now().UTC()}
	if err := b.PutRun(ctx, rec); err != nil {
		t.Fatal(err)
	}
	publish := func(id, text string) time.Time {
		t.Helper()
		ev, _ := json.Marshal(session.Event{Entries: []session.Entry{{ID: id, Type: session.User, Content: text, Timestamp: time.Now().UTC()}}})
		if err := b.Publish(ctx, rec.ID, bus.Entry, ev, rec.ID+":e:"+id); err != nil {
			t.Fatal(err)
		}
		return time.Now()
	}
	found := func(word string, sent time.Time) index.Hit {
		t.Helper()
		for {
			hits, err := ix.Search(ctx, index.Query{Text: word})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) > 0 {
				t.Logf("%q found %v after it reached the bus", word, time.Since(sent).Round(time.Millisecond))
				return hits[0]
			}
			if time.Since(sent) > 10*time.Second {
				t.Fatalf("%q: not found 10 s after it reached the bus", word)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	sent := publish("u1", "a pangolin crossed")
	h := found("pangolin", sent)
	if took := time.Since(sent); took > 2*time.Second {
		t.Errorf("a run's entry was found %v after it reached the bus; the goal is a second", took)
	}
	if h.Run != "r1" || h.Host != "otherhost" || h.Ref() != "claude:"+sid {
		t.Errorf("the hit names %s run %q on %q; want claude:%s, run r1 on otherhost", h.Ref(), h.Run, h.Host, sid)
	}
	st, _ := json.Marshal(live.Status{Run: "r1", State: live.RunExited, Time: time.Now().UTC()})
	if err := b.Publish(ctx, rec.ID, bus.Status, st, ""); err != nil {
		t.Fatal(err)
	}

	// Restarted, the daemon goes on from its mark (the last message it
	// indexed): what it had indexed stays, and what comes is indexed.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		m, err := ix.Mark(ctx, "bus")
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(m, " 2") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon's mark in the index: %q 10 s after the run's second message; want that message", m)
		}
	}
	d.Close()
	d = run(t, &daemon.Daemon{Env: env})
	b = d.Bus()
	sent = publish("u2", "an aardvark followed")
	found("aardvark", sent)
	if hits, _ := ix.Search(ctx, index.Query{Text: "pangolin"}); len(hits) != 1 {
		t.Errorf("after a restart, the run's first entry: %d hits, want 1", len(hits))
	}
	if hits, _ := ix.Search(ctx, index.Query{Text: "okapi"}); len(hits) != 1 || hits[0].Run != "" {
		t.Errorf("the store's session: %+v, want one hit, of no run", hits)
	}
}
