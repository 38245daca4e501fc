package index_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/session"
)

// writeClaude writes a Claude Code session of one prompt in the store at
// dir, and returns its file.
func writeClaude(t *testing.T, dir, sid, text string) string {
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
	return path
}

func userEntry(id, text string, at time.Time) session.Entry {
	return session.Entry{ID: id, Type: session.User, Content: text, Timestamp: at}
}

// TestRunFeed: a live run's entries, as its bus carries them, are found
// by a search that names the run; a refresh neither drops them nor lists
// them; a feed started again goes on from what the index holds; and once
// the stores hold the run's session, their copy replaces the run's and
// the feed writes no more.
func TestRunFeed(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	claude := filepath.Join(home, "claude")
	env := session.Env{Home: home, Vars: map[string]string{"CLAUDE_CONFIG_DIR": claude}}
	writeClaude(t, claude, "77777777-0000-4000-8000-000000000001", "a session of the store")
	ix := openIndex(t, filepath.Join(home, "index.db"))
	refresh(t, ix, env)

	at := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	elsewhere := index.Run{ID: "r1", CLI: "claude", SessionID: "77777777-0000-4000-8000-000000000002",
		Path: "/elsewhere/claude/projects/-work-d/77777777-0000-4000-8000-000000000002.jsonl",
		Host: "otherhost", Dir: "/work/d", Started: at}
	f := ix.Feed(elsewhere)
	f.Add(session.Event{Entries: []session.Entry{userEntry("u1", "a pangolin crossed", at)}})
	f.Add(session.Event{Entries: []session.Entry{{ID: "c1", Type: session.ToolCall, OriginalTool: "Bash",
		Input: []byte(`{"command":"ls -la /srv/pangolin"}`), Timestamp: at.Add(time.Second)}}})
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	hits := search(t, ix, index.Query{Text: "pangolin"})
	if len(hits) != 2 {
		t.Fatalf("the run's two entries: %d hits, want 2: %+v", len(hits), hits)
	}
	for _, h := range hits {
		if h.Run != "r1" || h.Host != "otherhost" || h.SessionID != elsewhere.SessionID || h.CLI != "claude" {
			t.Errorf("a run's hit names %s:%s run %q host %q; want claude:%s run r1 host otherhost", h.CLI, h.SessionID, h.Run, h.Host, elsewhere.SessionID)
		}
	}

	res := refresh(t, ix, env)
	if res.Removed != 0 || res.Sessions != 1 {
		t.Errorf("a refresh after a run was indexed: %+v; want the store's one session, none removed", res)
	}
	if hits := search(t, ix, index.Query{Text: "pangolin"}); len(hits) != 2 {
		t.Errorf("after a refresh, the run's entries: %d hits, want 2", len(hits))
	}
	st, err := ix.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Sessions != 1 || st.Runs != 1 || st.RunEntries != 2 {
		t.Errorf("status: %d sessions, %d runs of %d entries; want 1, 1 of 2", st.Sessions, st.Runs, st.RunEntries)
	}
	_, cache, err := ix.Cache(ctx, env, session.DetailFull)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cache.Summary(session.Ref{CLI: "claude", ID: elsewhere.SessionID, Path: elsewhere.Path}, session.DetailFull); ok {
		t.Error("list from the index answers for a run's session, which no store holds")
	}

	// A feed started again (the daemon restarted) keeps what the index
	// holds, and an entry delivered again is not indexed twice.
	g := ix.Feed(elsewhere)
	g.Add(session.Event{Entries: []session.Entry{userEntry("u1", "a pangolin crossed", at)}})
	g.Add(session.Event{Entries: []session.Entry{userEntry("u2", "an aardvark followed", at.Add(time.Minute))}})
	if err := g.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if hits := search(t, ix, index.Query{Text: "pangolin"}); len(hits) != 2 {
		t.Errorf("a feed started again: %d hits of the earlier entries, want 2", len(hits))
	}
	if hits := search(t, ix, index.Query{Text: "aardvark"}); len(hits) != 1 || hits[0].Run != "r1" {
		t.Errorf("a feed started again: its new entry gave %+v, want one hit of run r1", hits)
	}

	// A run of a session the stores hold: the store's copy replaces it.
	sid := "77777777-0000-4000-8000-000000000003"
	here := index.Run{ID: "r2", CLI: "claude", SessionID: sid,
		Path: filepath.Join(claude, "projects", "-work-d", sid+".jsonl"), Host: "thishost", Dir: "/work/d", Started: at}
	h := ix.Feed(here)
	h.Add(session.Event{Entries: []session.Entry{userEntry("00000000-0000-4000-8000-000000000001", "an okapi grazed", at)}})
	if err := h.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if hits := search(t, ix, index.Query{Text: "okapi"}); len(hits) != 1 || hits[0].Run != "r2" {
		t.Fatalf("before the store has it: %+v, want one hit of run r2", hits)
	}
	writeClaude(t, claude, sid, "an okapi grazed")
	refresh(t, ix, env)
	hits = search(t, ix, index.Query{Text: "okapi"})
	if len(hits) != 1 || hits[0].Run != "" || hits[0].Path != here.Path {
		t.Fatalf("once the store has it: %+v, want one hit, of the store's file", hits)
	}
	h.Add(session.Event{Entries: []session.Entry{userEntry("u9", "a quokka smiled", at.Add(time.Minute))}})
	if err := h.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if !h.Stored() {
		t.Error("the feed of a session the stores hold did not see it")
	}
	// More of the run, once the feed knows the store holds it: taken,
	// and nothing written (the daemon panicked here at 2fbbcc3).
	h.Add(session.Event{Entries: []session.Entry{userEntry("u10", "a quokka grinned", at.Add(2*time.Minute))}})
	if err := h.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if hits := search(t, ix, index.Query{Text: "quokka"}); len(hits) != 0 {
		t.Errorf("the feed wrote over the store's copy: %+v", hits)
	}
	if hits := search(t, ix, index.Query{Text: "okapi"}); len(hits) != 1 || hits[0].Run != "" {
		t.Errorf("the store's copy after the feed flushed: %+v, want it as it was", hits)
	}

	// Runs the bus no longer holds leave the index.
	n, err := ix.DropRuns(ctx, func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("DropRuns dropped %d runs, want 1 (r1; r2's session is the store's)", n)
	}
	if hits := search(t, ix, index.Query{Text: "pangolin OR aardvark"}); len(hits) != 0 {
		t.Errorf("a dropped run is still found: %+v", hits)
	}
	if hits := search(t, ix, index.Query{Text: "okapi"}); len(hits) != 1 {
		t.Errorf("dropping runs dropped a store's session: %d hits", len(hits))
	}
}

// TestRunFeedUpdates: an update's model reaches the index, and an entry
// delivered again with a thinking text it lacked replaces it.
func TestRunFeedUpdates(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	ix := openIndex(t, filepath.Join(home, "index.db"))
	at := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	f := ix.Feed(index.Run{ID: "r1", CLI: "codex", SessionID: "s1", Host: "h", Started: at})
	f.Add(session.Event{Entries: []session.Entry{{ID: "a1", Type: session.Assistant, Content: "the walrus answered", Timestamp: at}}})
	f.Add(session.Event{Updates: []session.Update{{EntryID: "a1", Model: "gpt-5-codex"}}})
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	hits := search(t, ix, index.Query{Text: "walrus"})
	if len(hits) != 1 || hits[0].Model != "gpt-5-codex" || hits[0].Path != "run:r1" {
		t.Fatalf("%+v; want one hit of model gpt-5-codex, path run:r1", hits)
	}
	f.Add(session.Event{Entries: []session.Entry{{ID: "a1", Type: session.Assistant, Content: "the walrus answered",
		Thinking: "a narwhal pondered", Timestamp: at}}})
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if hits := search(t, ix, index.Query{Text: "walrus OR narwhal"}); len(hits) != 2 {
		t.Errorf("an entry given again with its thinking: %d hits, want 2 (its text and thinking)", len(hits))
	}
}

// TestOlderIndexRebuilt: an index of an earlier schema (10: words in
// FTS5, not in segments of stead's own) is rebuilt, never misread: its
// sessions are read again, and found as before, --since too.
func TestOlderIndexRebuilt(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	claude := filepath.Join(home, "claude")
	env := session.Env{Home: home, Vars: map[string]string{"CLAUDE_CONFIG_DIR": claude}}
	writeClaude(t, claude, "77777777-0000-4000-8000-000000000001", "a capybara rested")
	path := filepath.Join(home, "index.db")
	ix, err := index.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	refresh(t, ix, env)
	hits := search(t, ix, index.Query{Text: "capybara"})
	if len(hits) != 1 || hits[0].Time.IsZero() {
		t.Fatalf("before: %+v, want one hit with a time", hits)
	}
	at := hits[0].Time
	ix.Close()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`DROP TABLE segments`,
		`CREATE VIRTUAL TABLE entry_fts USING fts5 (text, content = '', contentless_delete = 1)`,
		`UPDATE meta SET value = '10' WHERE key = 'schema'`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	db.Close()

	ix = openIndex(t, path)
	st, err := ix.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Schema != index.SchemaVersion || st.Sessions != 0 {
		t.Errorf("status after opening the older index: %+v, want schema %d and no session", st, index.SchemaVersion)
	}
	if segs, _ := filepath.Glob(filepath.Join(path+"-segments", "*")); len(segs) != 0 {
		t.Errorf("the older index's segment files are left: %v", segs)
	}
	if res := refresh(t, ix, env); res.Added != 1 {
		t.Errorf("the first refresh after the rebuild: %+v; want the session added", res)
	}
	if hits := search(t, ix, index.Query{Text: "capybara"}); len(hits) != 1 {
		t.Errorf("after the rebuild: %d hits, want the one", len(hits))
	}
	if hits := search(t, ix, index.Query{Text: "capybara", Since: at}); len(hits) != 1 {
		t.Errorf("after the rebuild, since its time: %d hits, want the one", len(hits))
	}
	if hits := search(t, ix, index.Query{Text: "capybara", Since: at.Add(time.Nanosecond)}); len(hits) != 0 {
		t.Errorf("after the rebuild, since after its time: %d hits, want none", len(hits))
	}
}
