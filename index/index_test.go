package index_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

func openIndex(t testing.TB, path string) *index.Index {
	t.Helper()
	ix, err := index.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func refresh(t *testing.T, ix *index.Index, env session.Env) index.Refreshed {
	t.Helper()
	res, err := ix.Refresh(context.Background(), env, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func search(t *testing.T, ix *index.Index, q index.Query) []index.Hit {
	t.Helper()
	hits, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	return hits
}

// TestIndexEveryCLI indexes the testdata stores of all five CLIs: every
// session list finds is in the index, each CLI's sessions can be found
// by their text, and a hit names a session and entry that exist.
func TestIndexEveryCLI(t *testing.T) {
	env := samples.AllCLIs(t)
	ix := openIndex(t, filepath.Join(t.TempDir(), "index.db"))
	res := refresh(t, ix, env)
	listed, err := catalog.Scan(context.Background(), catalog.Options{Env: env, Detail: session.DetailList})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions != len(listed.Summaries) || res.Added != res.Sessions-countWarned(res) {
		t.Errorf("refresh saw %d sessions, added %d (%d warnings); list shows %d", res.Sessions, res.Added, len(res.Warnings), len(listed.Summaries))
	}
	st, err := ix.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Entries == 0 || st.Refresh.IsZero() {
		t.Errorf("status %+v", st)
	}
	for _, cli := range adapters.Names() {
		// A word every CLI's sessions hold somewhere.
		hits := search(t, ix, index.Query{Text: "the", CLIs: []string{cli}, Limit: 5})
		if len(hits) == 0 {
			t.Errorf("%s: nothing found", cli)
			continue
		}
		h := hits[0]
		a, _ := adapters.Lookup(h.CLI)
		ref, err := a.Locate(env, h.SessionID)
		if err != nil {
			t.Errorf("%s: the hit's session %s: %v", cli, h.Ref(), err)
			continue
		}
		s, err := a.Open(env, ref)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range s.Timeline {
			found = found || e.ID == h.Entry
		}
		if !found {
			t.Errorf("%s: the hit's entry %s is not in %s", cli, h.Entry, h.Ref())
		}
		if !strings.Contains(strings.ToLower(h.Snippet), index.Mark+"the"+index.EndMark) {
			t.Errorf("%s: snippet %q does not mark the match", cli, h.Snippet)
		}
	}
}

func countWarned(res index.Refreshed) int {
	n := 0
	for _, w := range res.Warnings {
		if strings.Contains(w.Message, "not indexed") {
			n++
		}
	}
	return n
}

// TestRefreshReadsOnlyWhatChanged: a refresh with nothing changed reads
// nothing; a session appended to is read again and its new text found; a
// removed session leaves the index; a store the environment no longer
// points at leaves it too.
func TestRefreshReadsOnlyWhatChanged(t *testing.T) {
	env := samples.ClaudeCodex(t)
	ix := openIndex(t, filepath.Join(t.TempDir(), "index.db"))
	first := refresh(t, ix, env)
	again := refresh(t, ix, env)
	if again.Added+again.Updated+again.Removed != 0 || again.Unchanged != first.Sessions {
		t.Fatalf("a second refresh with nothing changed: %+v", again)
	}

	hits := search(t, ix, index.Query{Text: "the", CLIs: []string{"claude"}, Limit: 1})
	if len(hits) == 0 {
		t.Fatal("no Claude session found")
	}
	path := hits[0].Path
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	last := lines[len(lines)-1]
	added := strings.Replace(last, `"type":"user"`, `"type":"user"`, 1)
	// A new prompt, as the last user record with a new uuid and text.
	added = `{"type":"user","uuid":"9b0e6a1c-0000-4000-8000-00000000abcd","parentUuid":null,"sessionId":"` + hits[0].SessionID +
		`","timestamp":"2026-11-26T10:00:00.000Z","cwd":"/tmp","message":{"role":"user","content":"zanzibarian appended prompt"}}`
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(added + "\n")
	f.Close()
	changed := refresh(t, ix, env)
	if changed.Updated != 1 || changed.Added+changed.Removed != 0 {
		t.Errorf("after appending to one session: %+v", changed)
	}
	if hits := search(t, ix, index.Query{Text: "zanzibarian"}); len(hits) != 1 || hits[0].Entry != "9b0e6a1c-0000-4000-8000-00000000abcd" {
		t.Errorf("the appended prompt: %+v", hits)
	}

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	gone := refresh(t, ix, env)
	if gone.Removed != 1 {
		t.Errorf("after removing a session: %+v", gone)
	}
	if hits := search(t, ix, index.Query{Text: "zanzibarian"}); len(hits) != 0 {
		t.Errorf("a removed session is still found: %+v", hits)
	}

	delete(env.Vars, "CODEX_HOME")
	env.Vars["CODEX_HOME"] = t.TempDir()
	if res := refresh(t, ix, env); res.Removed == 0 {
		t.Errorf("a store no longer pointed at stays: %+v", res)
	}
	if hits := search(t, ix, index.Query{Text: "the", CLIs: []string{"codex"}}); len(hits) != 0 {
		t.Errorf("found %d hits of a store no longer pointed at", len(hits))
	}
}

// TestUnchangedRefreshWritesNothing: a refresh that finds nothing changed
// (what every search without a watcher begins with) writes nothing to the
// database, where a write costs syncs now and at close; the index's
// status still tells when it last looked.
func TestUnchangedRefreshWritesNothing(t *testing.T) {
	env := samples.ClaudeCodex(t)
	// Folders changed as they were listed are listed again (see the
	// index's racy): these were made just now.
	old := time.Now().Add(-time.Hour)
	for _, root := range env.Vars {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil {
				os.Chtimes(p, old, old)
			}
			return nil
		})
	}
	path := filepath.Join(t.TempDir(), "index.db")
	ix := openIndex(t, path)
	refresh(t, ix, env)
	before, err := ix.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wal := func() int64 {
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	if n := wal(); n != 0 {
		t.Fatalf("after a refresh that wrote, the write-ahead log holds %d bytes (it is emptied)", n)
	}
	time.Sleep(20 * time.Millisecond)
	if res := refresh(t, ix, env); res.Added+res.Updated+res.Removed != 0 {
		t.Fatalf("a second refresh with nothing changed: %+v", res)
	}
	if n := wal(); n != 0 {
		t.Errorf("a refresh that changed nothing wrote %d bytes to the write-ahead log", n)
	}
	after, err := ix.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !after.Refresh.After(before.Refresh) {
		t.Errorf("last refresh %s, then %s after a second refresh", before.Refresh, after.Refresh)
	}
	if after.Sessions != before.Sessions || after.Entries != before.Entries {
		t.Errorf("status %+v, then %+v", before, after)
	}
}

// TestRefreshInterrupted: a refresh whose context ends partway says so
// (not what the statement it cut short met), and leaves an index the next
// refresh completes.
func TestRefreshInterrupted(t *testing.T) {
	env := samples.ClaudeCodex(t)
	ix := openIndex(t, filepath.Join(t.TempDir(), "index.db"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := ix.Refresh(ctx, env, func(done, total int, _ int64) {
		if done == 1 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("an interrupted refresh: %v, want %v", err, context.Canceled)
	}
	res := refresh(t, ix, env)
	full := refresh(t, openIndex(t, filepath.Join(t.TempDir(), "index.db")), env)
	st, err := ix.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions != full.Sessions || st.Sessions != full.Sessions {
		t.Errorf("after the interrupted refresh, a refresh left %d sessions (it saw %d), want %d", st.Sessions, res.Sessions, full.Sessions)
	}
}

// TestCorruptIndexRebuilt: an index file SQLite cannot read is moved
// aside and made again; an index of another schema version is rebuilt.
func TestCorruptIndexRebuilt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "index.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, path)
	if _, err := ix.Status(context.Background()); err != nil {
		t.Fatalf("the rebuilt index: %v", err)
	}
	aside, _ := filepath.Glob(path + ".corrupt-*")
	if len(aside) != 1 {
		t.Errorf("the unreadable file was not moved aside: %v", aside)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the index file: %v, mode %v; want 0600", err, fi.Mode())
	}
}

func TestParseQuery(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "migrate database", want: `("migrate" "database")`},
		{in: `"rm -rf" build*`, want: `("rm -rf" "build"*)`},
		{in: "alpha OR beta gamma", want: `("alpha") OR ("beta" "gamma")`},
		{in: "deploy -staging", want: `("deploy") NOT "staging"`},
		{in: `a OR b -"c d"`, want: `(("a") OR ("b")) NOT "c d"`},
		{in: `NEAR text:x`, want: `("NEAR" "text:x")`},
		{in: `say "hello`, err: "at character 5: this quote is not closed"},
		{in: "OR x", err: "at character 1: OR needs words on both sides"},
		{in: "x OR", err: "at character 3: OR needs words on both sides"},
		{in: "-x", err: "not only words to exclude"},
		{in: "   ", err: "the query is empty"},
		{in: "a - b", err: "at character 3: a - must be followed"},
		{in: "a ***", err: "has no letter or digit"},
	} {
		got, err := index.ParseQuery(tc.in)
		var se *index.SyntaxError
		switch {
		case tc.err != "" && (err == nil || !errors.As(err, &se) || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseQuery(%q) = %q, %v; want an error with %q", tc.in, got, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseQuery(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestFilters: a search with filters finds what the search without them
// finds and the filters pass (FTS5 is handed the filters' tags, SQL checks
// them again), over the testdata stores of all five CLIs.
func TestFilters(t *testing.T) {
	env := samples.AllCLIs(t)
	ix := openIndex(t, filepath.Join(t.TempDir(), "index.db"))
	refresh(t, ix, env)
	const all = 100000
	for _, text := range []string{"the", "file OR error", `"the file"`, "a* -the"} {
		every := search(t, ix, index.Query{Text: text, Limit: all})
		if len(every) == 0 {
			t.Fatalf("%s: nothing found", text)
		}
		tools := map[string]bool{}
		for _, h := range every {
			tools[h.Tool] = true
		}
		var filters []index.Query
		for _, cli := range adapters.Names() {
			filters = append(filters, index.Query{CLIs: []string{cli}}, index.Query{CLIs: []string{cli, "claude"}, Roles: []string{"tool_call", "user"}})
		}
		for _, role := range []string{"user", "assistant", "thinking", "tool_call", "tool_result", "system"} {
			filters = append(filters, index.Query{Roles: []string{role}})
		}
		for tool := range tools {
			if tool != "" {
				filters = append(filters, index.Query{Tool: strings.ToUpper(tool)}, index.Query{Tool: tool, CLIs: []string{"codex"}})
			}
		}
		// Times from the matches' own: the sessions are indexed in no
		// order of their entries' times, so a window's matches lie
		// among older and newer ones.
		var times []time.Time
		for _, h := range every {
			if !h.Time.IsZero() {
				times = append(times, h.Time)
			}
		}
		slices.SortFunc(times, time.Time.Compare)
		if len(times) > 0 {
			filters = append(filters, index.Query{Since: times[len(times)-1].Add(time.Hour)}) // after every entry
		}
		for _, k := range []int{0, len(times) / 4, len(times) / 2, len(times) * 3 / 4, len(times) - 1} {
			if k >= 0 && k < len(times) {
				at := times[k]
				filters = append(filters, index.Query{Since: at}, index.Query{Until: at}, index.Query{Since: at, CLIs: []string{"codex"}},
					index.Query{Since: at.Add(-time.Nanosecond), Until: at.Add(time.Hour)})
			}
		}
		for _, f := range filters {
			pass := func(h index.Hit) bool {
				return (len(f.CLIs) == 0 || slices.Contains(f.CLIs, h.CLI)) && (len(f.Roles) == 0 || slices.Contains(f.Roles, h.Role)) &&
					(f.Tool == "" || strings.EqualFold(f.Tool, h.Tool)) &&
					(f.Since.IsZero() || !h.Time.IsZero() && !h.Time.Before(f.Since)) &&
					(f.Until.IsZero() || h.Time.Before(f.Until)) // an entry without a time is before any
			}
			var want []string
			for _, h := range every {
				if pass(h) {
					want = append(want, h.Ref()+"/"+h.Entry)
				}
			}
			q := f
			q.Text, q.Limit = text, all
			var got []string
			for _, h := range search(t, ix, q) {
				got = append(got, h.Ref()+"/"+h.Entry)
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s with %+v: %d hits; %d of the unfiltered pass", text, f, len(got), len(want))
			}
		}
	}
}

// TestRemove: Remove leaves nothing of an index, its segments included,
// and an index opened at the path after it is a new, empty one.
func TestRemove(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	claude := filepath.Join(home, "claude")
	env := session.Env{Home: home, Vars: map[string]string{"CLAUDE_CONFIG_DIR": claude}}
	writeClaude(t, claude, "77777777-0000-4000-8000-000000000001", "a capybara rested")
	dir := t.TempDir()
	path := filepath.Join(dir, "index.db")
	ix := openIndex(t, path)
	refresh(t, ix, env)
	if hits := search(t, ix, index.Query{Text: "capybara"}); len(hits) != 1 {
		t.Fatalf("before: %d hits, want 1", len(hits))
	}
	ix.Close()
	// Its segment files are the user's alone, as the database is.
	segs, _ := filepath.Glob(filepath.Join(path+"-segments", "*"))
	if len(segs) == 0 {
		t.Errorf("no segment file in %s", path+"-segments")
	}
	for _, p := range append(segs, path+"-segments") {
		fi, err := os.Stat(p)
		want := os.FileMode(0o600)
		if fi != nil && fi.IsDir() {
			want = 0o700
		}
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, mode %v; want %v", p, err, fi.Mode().Perm(), want)
		}
	}
	if err := index.Remove(path); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("left after Remove: %v", names)
	}
	if err := index.Remove(path); err != nil {
		t.Errorf("removing it again: %v", err)
	}
	ix = openIndex(t, path)
	if st, err := ix.Status(ctx); err != nil || st.Sessions != 0 {
		t.Errorf("an index opened after Remove: %+v, %v; want an empty one", st, err)
	}
}
