package index_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/internal/samples"
)

// TestSearchOfSomeCLIsLooksAtTheirStores: without a watcher, a search of
// some CLIs' sessions brings the index up to date with those CLIs' stores
// and does not wait for the others' (nor records itself as the index's
// last refresh); the next search of every CLI finds what changed in them.
func TestSearchOfSomeCLIsLooksAtTheirStores(t *testing.T) {
	env := samples.ClaudeCodex(t)
	age(t, env.Vars["CLAUDE_CONFIG_DIR"], env.Vars["CODEX_HOME"])
	ix := openIndex(t, filepath.Join(t.TempDir(), "index.db"))
	ctx := context.Background()
	first := refresh(t, ix, env)
	before, err := ix.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}

	claude := search(t, ix, index.Query{Text: "the", CLIs: []string{"claude"}, Limit: 1})
	codex := search(t, ix, index.Query{Text: "the", CLIs: []string{"codex"}, Limit: 1})
	if len(claude) == 0 || len(codex) == 0 {
		t.Fatalf("%d Claude and %d Codex hits; want both", len(claude), len(codex))
	}
	appendPrompt(t, claude[0].Path, claude[0].SessionID, "zanzibarian appended prompt")
	if err := os.Remove(codex[0].Path); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // a last refresh recorded now would be later

	fresh := func(q index.Query) ([]index.Hit, index.Refreshed) {
		t.Helper()
		hits, res, err := ix.SearchFresh(ctx, env, q, nil)
		if err != nil {
			t.Fatalf("search %+v: %v", q, err)
		}
		return hits, res
	}
	hits, res := fresh(index.Query{Text: "the", CLIs: []string{"codex"}, Limit: 100})
	if res.Removed != 1 || res.Updated != 0 || res.Sessions != first.Sessions-1 {
		t.Errorf("a search of Codex's sessions: %+v; want the Codex session removed, the Claude one not read", res)
	}
	for _, h := range hits {
		if h.Path == codex[0].Path {
			t.Errorf("a removed Codex session is found: %+v", h)
		}
	}
	after, err := ix.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !after.Refresh.Equal(before.Refresh) {
		t.Errorf("last refresh %s, then %s after a search of one CLI's sessions", before.Refresh, after.Refresh)
	}
	if after.Sessions != first.Sessions-1 {
		t.Errorf("the index holds %d sessions; want %d", after.Sessions, first.Sessions-1)
	}

	// A search of the Claude session looks at Claude's store.
	hits, res = fresh(index.Query{Text: "zanzibarian", SessionCLI: "claude", SessionID: claude[0].SessionID})
	if res.Updated != 1 || res.Removed != 0 || len(hits) != 1 {
		t.Errorf("a search of the Claude session: %d hits, %+v; want it read again and found", len(hits), res)
	}
	hits, res = fresh(index.Query{Text: "zanzibarian"})
	if res.Added+res.Updated+res.Removed != 0 || len(hits) != 1 {
		t.Errorf("a search of every CLI: %d hits, %+v; want the index fresh already", len(hits), res)
	}
	last, err := ix.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !last.Refresh.After(before.Refresh) {
		t.Errorf("last refresh %s after a search of every CLI; want after %s", last.Refresh, before.Refresh)
	}
}

// appendPrompt appends a user prompt of text to the Claude session file
// at path.
func appendPrompt(t *testing.T, path, sid, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line := `{"type":"user","uuid":"9b0e6a1c-0000-4000-8000-00000000abcd","parentUuid":null,"sessionId":"` + sid +
		`","timestamp":"2026-11-26T10:00:00.000Z","cwd":"/tmp","message":{"role":"user","content":"` + text + `"}}` + "\n"
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
}
