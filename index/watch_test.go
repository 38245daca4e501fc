package index_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

// watch runs a watcher of the index at path until the test ends, and
// waits until it is ready.
func watch(t testing.TB, path string, env session.Env) {
	t.Helper()
	wix := openIndex(t, path)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	errc := make(chan error, 1)
	go func() { errc <- wix.Watch(ctx, env, func(index.Refreshed) { close(ready) }) }()
	select {
	case <-ready:
	case err := <-errc:
		cancel()
		if errors.Is(err, errors.ErrUnsupported) {
			t.Skip(err)
		}
		t.Fatalf("watch: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the watcher was not ready after a minute")
	}
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("watch: %v", err)
		}
	})
}

// TestWatchKeepsTheIndexFresh: with a watcher running, Fresh in another
// process is answered by the watcher, and what it answers is the stores
// as they are: a session appended to, a session in a new folder, a store
// made after the watcher started (its folder was not there to watch), a
// session removed. A client pointed at other stores refreshes itself, and
// a second watcher is refused.
func TestWatchKeepsTheIndexFresh(t *testing.T) {
	env := samples.AllCLIs(t)
	codexHome := env.Vars["CODEX_HOME"]
	later := codexHome + ".later"
	if err := os.Rename(codexHome, later); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "index.db")
	watch(t, path, env)
	ix := openIndex(t, path)
	ctx := context.Background()
	check := func(what string, added, updated, removed int) {
		t.Helper()
		res, err := ix.Fresh(ctx, env, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if res.Watcher == 0 {
			t.Fatalf("%s: Fresh refreshed the index itself; want the watcher to", what)
		}
		if res.Added != added || res.Updated != updated || res.Removed != removed {
			t.Errorf("%s: the watcher's refresh added %d, updated %d, removed %d; want %d, %d, %d",
				what, res.Added, res.Updated, res.Removed, added, updated, removed)
		}
		refs, _, err := catalog.Discover(catalog.Options{Env: env})
		if err != nil {
			t.Fatal(err)
		}
		st, err := ix.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Sessions != len(refs) {
			t.Errorf("%s: the index holds %d sessions; the stores %d", what, st.Sessions, len(refs))
		}
		// A listing from the index (the stores as the watcher's last
		// refresh found them, a partial one included) is a scan's.
		want, err := catalog.Scan(ctx, catalog.Options{Env: env, Detail: session.DetailList})
		if err != nil {
			t.Fatal(err)
		}
		listEnv, cache, err := ix.Cache(ctx, env, session.DetailList)
		if err != nil {
			t.Fatal(err)
		}
		if !cache.Watched() {
			t.Errorf("%s: the listing did not ask the watcher", what)
		}
		got, err := catalog.Scan(ctx, catalog.Options{Env: listEnv, Detail: session.DetailList, Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if w, g := shown(t, want, session.DetailList), shown(t, got, session.DetailList); w != g {
			t.Errorf("%s: a listing from the index is not a scan's:\n%s", what, lineDiff(w, g))
		}
	}
	find := func(what, word string, want int) {
		t.Helper()
		hits, err := ix.Search(ctx, index.Query{Text: word})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != want {
			t.Errorf("%s: %q found %d times; want %d", what, word, len(hits), want)
		}
	}

	check("nothing changed", 0, 0, 0)

	claude := env.Vars["CLAUDE_CONFIG_DIR"]
	day := time.Now().Add(-time.Hour)
	sid := "55555555-0000-4000-8000-000000000001"
	prompts(t, claude, sid, []prompt{{uuid(1), day, "an okapi sighting"}})
	check("a session in a new folder", 1, 0, 0)
	find("a session in a new folder", "okapi", 1)

	more, err := promptLines(sid, []prompt{{uuid(2), day, "a second okapi sighting"}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(promptsFile(claude, sid), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(more); err != nil {
		t.Fatal(err)
	}
	f.Close()
	check("a session appended to", 0, 1, 0)
	find("a session appended to", "okapi", 2)

	if err := os.Rename(later, codexHome); err != nil {
		t.Fatal(err)
	}
	before, err := ix.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Fresh(ctx, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Watcher == 0 || res.Added == 0 {
		t.Errorf("a store made after the watcher started: %+v; want the watcher to add its sessions", res)
	}
	check("a store made after the watcher started", 0, 0, 0)

	if err := os.Remove(promptsFile(claude, sid)); err != nil {
		t.Fatal(err)
	}
	check("a session removed", 0, 0, 1)
	find("a session removed", "okapi", 0)
	after, err := ix.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Sessions <= before.Sessions {
		t.Errorf("the index holds %d sessions after Codex's store came; %d before", after.Sessions, before.Sessions)
	}

	// Other stores: this process refreshes the index itself.
	other := session.Env{Home: env.Home, Vars: map[string]string{"CLAUDE_CONFIG_DIR": claude}}
	res, err = ix.Fresh(ctx, other, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Watcher != 0 {
		t.Errorf("Fresh for other stores was answered by the watcher (%+v); want a refresh here", res)
	}

	err = openIndex(t, path).Watch(ctx, env, nil)
	if !errors.Is(err, index.ErrWatched) {
		t.Errorf("a second watcher: %v; want %v", err, index.ErrWatched)
	}
}

// TestWatchedIndexRebuilt: an index made again while a watcher keeps the
// old one (stead index --rebuild) is not answered for by that watcher,
// which stops with ErrReplaced.
func TestWatchedIndexRebuilt(t *testing.T) {
	env := samples.AllCLIs(t)
	path := filepath.Join(t.TempDir(), "index.db")
	wix := openIndex(t, path)
	ctx := context.Background()
	ready := make(chan struct{})
	errc := make(chan error, 1)
	go func() { errc <- wix.Watch(ctx, env, func(index.Refreshed) { close(ready) }) }()
	select {
	case <-ready:
	case err := <-errc:
		if errors.Is(err, errors.ErrUnsupported) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	ix := openIndex(t, path)
	res, err := ix.Fresh(ctx, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Watcher != 0 || res.Added == 0 {
		t.Errorf("Fresh on the new index: %+v; want it refreshed here, every session added", res)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, index.ErrReplaced) {
			t.Errorf("the watcher of the old index stopped with %v; want %v", err, index.ErrReplaced)
		}
	case <-time.After(30 * time.Second):
		t.Error("the watcher of the old index still runs")
	}
}
