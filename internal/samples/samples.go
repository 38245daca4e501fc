package samples

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/session"
)

// Open lays out the native files of the txtar case at path and opens its
// session (the first native file) with a. A case with no session file, or
// whose session is a database dump, skips the test.
func Open(tb testing.TB, a adapters.Adapter, path string) *session.Session {
	tb.Helper()
	env, ref := Layout(tb, a, path)
	s, err := a.Open(env, ref)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// Layout lays out the native files of the txtar case at path in a new
// home and returns it with the Ref of its session (the first native file),
// as Open does.
func Layout(tb testing.TB, a adapters.Adapter, path string) (session.Env, session.Ref) {
	tb.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	main := ""
	for _, f := range ar.Files {
		rel, ok := strings.CutPrefix(f.Name, "native/")
		if !ok {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			tb.Fatal(err)
		}
		if main == "" {
			main = p
		}
	}
	if main == "" || strings.HasSuffix(main, ".sql") {
		tb.Skip("not a session file")
	}
	return session.Env{Home: dir}, session.Ref{CLI: a.Name, Path: main}
}
