package agenthistory_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/session"
)

// loaded is one testdata session of a CLI, read through its adapter.
type loaded struct {
	name string // cli/case[/id]
	s    *session.Session
}

// loadAll opens every testdata session of every CLI stead reads, as
// inject's round-trip test does: each case's native files are laid out in
// a temporary home and opened through the adapter.
func loadAll(t testing.TB) []loaded {
	t.Helper()
	var all []loaded
	for _, a := range adapters.All {
		if !a.Reads() {
			continue
		}
		cases, _ := filepath.Glob(filepath.Join("..", "adapters", a.Name, "testdata", "*.txtar"))
		for _, path := range cases {
			name := a.Name + "/" + strings.TrimSuffix(filepath.Base(path), ".txtar")
			all = append(all, loadCase(t, a, path, name)...)
		}
	}
	return all
}

func loadCase(t testing.TB, a adapters.Adapter, path, name string) []loaded {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	env := session.Env{Home: dir, Vars: map[string]string{"XDG_DATA_HOME": data}}
	var main string
	var discover bool
	for _, f := range ar.Files {
		rel, ok := strings.CutPrefix(f.Name, "native/")
		if !ok {
			continue
		}
		switch {
		case rel == "opencode.db.sql":
			buildDB(t, filepath.Join(data, "opencode", "opencode.db"), string(f.Data))
			discover = true
			continue
		case strings.HasPrefix(rel, "storage/"):
			write(t, filepath.Join(data, "opencode", filepath.FromSlash(rel)), f.Data)
			discover = true
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		write(t, p, f.Data)
		if main == "" {
			main = p
		}
	}
	var refs []session.Ref
	if discover {
		refs, _ = a.Discover(env)
	} else if main != "" {
		refs = []session.Ref{{CLI: a.Name, Path: main}}
	}
	var out []loaded
	for _, ref := range refs {
		s, err := a.Open(env, ref)
		if err != nil {
			continue // not a session file (a fixture of another kind)
		}
		n := name
		if discover {
			n += "/" + s.ID
		}
		out = append(out, loaded{n, s})
	}
	return out
}

func write(t testing.TB, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// buildDB creates an OpenCode database at p from the real schema the
// opencode adapter's testdata holds and the rows of a case. The sqlite
// driver is registered by the opencode adapter, which adapters imports.
func buildDB(t testing.TB, p, rows string) {
	t.Helper()
	schema, err := os.ReadFile(filepath.Join("..", "adapters", "opencode", "testdata", "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(schema)); err != nil {
		t.Fatalf("schema: %v", err)
	}
	if _, err := db.Exec("BEGIN;\n" + rows + "\nCOMMIT;"); err != nil {
		t.Fatalf("rows: %v", err)
	}
}
