package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

// TestManifestIsTheTable: after refreshes that add, change and remove
// sessions, the manifest (which a refresh updates with what it wrote,
// rather than reading the sessions table again) holds what the sessions
// table holds, row for row; and a session another process indexed
// meanwhile is written over, not refused.
func TestManifestIsTheTable(t *testing.T) {
	ctx := context.Background()
	env := samples.AllCLIs(t)
	ix, err := Open(ctx, filepath.Join(t.TempDir(), "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	check := func(what string) {
		t.Helper()
		man, ok := ix.loadManifest(ctx)
		if !ok {
			t.Fatalf("%s: no manifest", what)
		}
		table, err := ix.fingerprints(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := man.held.toMap(); !reflect.DeepEqual(got, table) {
			t.Errorf("%s: the manifest holds %d sessions, the table %d, or they differ:\n manifest %+v\n table    %+v",
				what, len(got), len(table), got, table)
		}
	}
	if _, err := ix.Refresh(ctx, env, nil); err != nil {
		t.Fatal(err)
	}
	check("the first refresh")

	claude := env.Vars["CLAUDE_CONFIG_DIR"]
	files, _ := filepath.Glob(filepath.Join(claude, "projects", "*", "*.jsonl"))
	if len(files) < 2 {
		t.Fatalf("the store has %d Claude sessions; want 2 or more", len(files))
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(files[0], []byte(strings.Join(lines[:len(lines)/2], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(files[1]); err != nil {
		t.Fatal(err)
	}
	samples.Write(t, filepath.Join(claude, "projects", "-new", "77777777-0000-4000-8000-000000000001.jsonl"), data)
	res, err := ix.Refresh(ctx, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 1 || res.Updated != 1 || res.Removed != 1 {
		t.Errorf("refresh %+v; want 1 added, 1 updated, 1 removed", res)
	}
	check("a refresh that added, changed and removed")

	// Another process indexes a new session first (its manifest is then
	// the one recorded): this one writes over its row.
	samples.Write(t, filepath.Join(claude, "projects", "-new", "77777777-0000-4000-8000-000000000002.jsonl"), data)
	other, err := Open(ctx, ix.path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	man, _ := ix.loadManifest(ctx)
	if _, err := other.Refresh(ctx, env, nil); err != nil {
		t.Fatal(err)
	}
	// This one still goes from the manifest it read before.
	token, err := ix.writeManifest(man)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.db.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = 'manifest'`, token); err != nil {
		t.Fatal(err)
	}
	if res, err := ix.Refresh(ctx, env, nil); err != nil || res.Added != 1 {
		t.Fatalf("a refresh after another process indexed a session: %+v, %v; want it added again, over the other's row", res, err)
	}
	check("a refresh over another process's row")
}

// TestRefreshKeepsWhatDidNotChange: a session a CLI appended to keeps its
// entries as they were (their rows, so the full-text index is spared them)
// and gains the new ones; a session changed in its middle keeps what is
// before the change. Either way it is found as a new index would find it.
func TestRefreshKeepsWhatDidNotChange(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{"CLAUDE_CONFIG_DIR": dir}}
	path := filepath.Join(dir, "projects", "-work-keep", "88888888-0000-4000-8000-000000000001.jsonl")
	line := func(n int, text string) string {
		return fmt.Sprintf(`{"type":"user","uuid":"00000000-0000-4000-8000-%012d","parentUuid":null,"sessionId":"88888888-0000-4000-8000-000000000001","timestamp":"2026-11-26T10:00:%02dZ","cwd":"/work/keep","message":{"role":"user","content":%q}}`+"\n", n, n, text)
	}
	texts := []string{"an aardvark", "a bonobo", "a caracal"}
	write := func() {
		var b strings.Builder
		for i, text := range texts {
			b.WriteString(line(i+1, text))
		}
		samples.Write(t, path, []byte(b.String()))
	}
	ix, err := Open(ctx, filepath.Join(t.TempDir(), "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	// The entries' rows of the session. (Another session, indexed after
	// it, holds the highest row: a row taken out and put in again would
	// come back with another number.)
	rowids := func() []int64 {
		rows, err := ix.db.QueryContext(ctx, `SELECT e.id FROM entries e JOIN sessions s ON s.id = e.session
			WHERE s.sid = '88888888-0000-4000-8000-000000000001' ORDER BY e.id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var ids []int64
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			ids = append(ids, id)
		}
		return ids
	}
	// found checks that each text is found, in its entry, as by an index
	// made anew, and that the full-text index is sound.
	found := func(what string, gone ...string) {
		t.Helper()
		fresh, err := Open(ctx, filepath.Join(t.TempDir(), "index.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer fresh.Close()
		if _, err := fresh.Refresh(ctx, env, nil); err != nil {
			t.Fatal(err)
		}
		for _, word := range append(slices.Clone(texts), gone...) {
			word = strings.Fields(word)[1]
			got, err := ix.Search(ctx, Query{Text: word})
			if err != nil {
				t.Fatal(err)
			}
			want, err := fresh.Search(ctx, Query{Text: word})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || (len(got) > 0 && got[0].Entry != want[0].Entry) {
				t.Errorf("%s: %q found %+v; an index made anew finds %+v", what, word, got, want)
			}
		}
		if err := checkSegments(ctx, ix); err != nil {
			t.Errorf("%s: the full-text index: %v", what, err)
		}
	}
	write()
	if _, err := ix.Refresh(ctx, env, nil); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "projects", "-work-other", "88888888-0000-4000-8000-000000000002.jsonl")
	samples.Write(t, other, []byte(strings.ReplaceAll(line(9, "a fossa"), "88888888-0000-4000-8000-000000000001", "88888888-0000-4000-8000-000000000002")))
	if _, err := ix.Refresh(ctx, env, nil); err != nil {
		t.Fatal(err)
	}
	before := rowids()

	texts = append(texts, "a dugong", "an echidna")
	write()
	if _, err := ix.Refresh(ctx, env, nil); err != nil {
		t.Fatal(err)
	}
	after := rowids()
	if len(after) != 5 || !slices.Equal(after[:3], before) {
		t.Errorf("after an append, the entries are rows %v; want %v kept and 2 more", after, before)
	}
	found("after an append")

	texts[1] = "a binturong"
	write()
	if _, err := ix.Refresh(ctx, env, nil); err != nil {
		t.Fatal(err)
	}
	changed := rowids()
	if len(changed) != 5 || changed[0] != before[0] || slices.Contains(changed, before[1]) {
		t.Errorf("after a change to the second entry, the entries are rows %v; want %d kept, the others new", changed, before[0])
	}
	found("after a change in the middle", "a bonobo")

	texts = texts[:2]
	write()
	if _, err := ix.Refresh(ctx, env, nil); err != nil {
		t.Fatal(err)
	}
	if cut := rowids(); len(cut) != 2 || !slices.Equal(cut, changed[:2]) {
		t.Errorf("after the session was cut, the entries are rows %v; want %v", cut, changed[:2])
	}
	found("after the session was cut", "a caracal", "a dugong", "an echidna")
}
