package index

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stead-dev/stead/internal/corpusgen"
	"github.com/stead-dev/stead/session"
)

// TestDictionary: a refresh that reads enough trains a dictionary, packs
// with it, and the index reads back the same text and finds the same hits
// as one without (smaller); another process's handle, opened before the
// dictionary was made, reads what was packed with it.
func TestDictionary(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mix := map[string]float64{}
	for _, cli := range corpusgen.CLIs {
		mix[cli] = 1
	}
	if _, err := corpusgen.Generate(dir, corpusgen.Options{Seed: 3, Files: 25, TotalBytes: 6 << 20, Mix: mix}); err != nil {
		t.Fatal(err)
	}
	env := session.Env{Home: filepath.Join(dir, "home"), Vars: map[string]string{}}
	for _, kv := range corpusgen.Env(dir) {
		k, v, _ := strings.Cut(kv, "=")
		env.Vars[k] = v
	}
	open := func(path string) *Index {
		ix, err := Open(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		return ix
	}
	textBytes := func(ix *Index, tag string) (n, bytes int64) {
		if err := ix.db.QueryRow(`SELECT count(*), coalesce(sum(length(text)), 0) FROM entries WHERE substr(text, 1, 1) = ?`, []byte(tag)).Scan(&n, &bytes); err != nil {
			t.Fatal(err)
		}
		return n, bytes
	}

	plain := open(filepath.Join(t.TempDir(), "plain.db"))
	if _, err := plain.Refresh(ctx, env, nil); err != nil {
		t.Fatal(err)
	}
	if plain.dicts.packer() != nil {
		t.Fatal("a refresh of less than trainAbove trained a dictionary")
	}

	old := trainAbove
	trainAbove = 0
	t.Cleanup(func() { trainAbove = old })
	path := filepath.Join(t.TempDir(), "dict.db")
	early := open(path) // opened before the dictionary is made
	ix := open(path)
	if _, err := ix.Refresh(ctx, env, nil); err != nil {
		t.Fatal(err)
	}
	if ix.dicts.packer() == nil {
		t.Fatal("no dictionary trained")
	}
	packed, withDict := textBytes(ix, "y")
	_, zPlain := textBytes(plain, "z")
	_, zDict := textBytes(ix, "z")
	if packed == 0 {
		t.Fatal("no entry packed with the dictionary")
	}
	t.Logf("%d entries packed with the dictionary; zstd text %d bytes without one, %d with", packed, zPlain, withDict+zDict)
	if withDict+zDict >= zPlain {
		t.Errorf("packed with a dictionary: %d bytes, not less than the %d without", withDict+zDict, zPlain)
	}
	// (Sessions are written in the order their reading ends: the rows'
	// order differs from one build to the next.)
	sorted := func(ix *Index) string {
		lines := strings.Split(indexRows(t, ix), "\n")
		slices.Sort(lines)
		return strings.Join(lines, "\n")
	}
	want := sorted(plain)
	if got := sorted(ix); got != want {
		t.Errorf("the text packed with a dictionary reads back differently: %s", lineDiff(got, want))
	}
	if got := sorted(early); got != want {
		t.Error("a handle opened before the dictionary was made reads the text differently")
	}
	again := open(path)
	if again.dicts.packer() == nil || again.dicts.packer().id != ix.dicts.packer().id {
		t.Error("the index opened again does not pack with its dictionary")
	}
	for _, q := range []string{"error", "the", "test*", `"the file"`} {
		a, err := plain.Search(ctx, Query{Text: q, Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		b, err := again.Search(ctx, Query{Text: q, Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != len(b) {
			t.Errorf("%s: %d hits without a dictionary, %d with", q, len(a), len(b))
			continue
		}
		for i := range a {
			if a[i].Entry != b[i].Entry || a[i].Snippet != b[i].Snippet {
				t.Errorf("%s: hit %d: %s %q without a dictionary, %s %q with", q, i, a[i].Entry, a[i].Snippet, b[i].Entry, b[i].Snippet)
				break
			}
		}
	}
}

// lineDiff says where two texts' lines first differ.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < min(len(g), len(w)); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: got %.200s, want %.200s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}
