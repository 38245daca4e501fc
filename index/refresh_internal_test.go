package index

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stead-dev/stead/internal/samples"
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
		if !reflect.DeepEqual(man.held, table) {
			t.Errorf("%s: the manifest holds %d sessions, the table %d, or they differ:\n manifest %+v\n table    %+v",
				what, len(man.held), len(table), man.held, table)
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
