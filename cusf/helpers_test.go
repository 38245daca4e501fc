package cusf_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/cusf"
	"github.com/stead-dev/stead/session"
)

// fixedNow is the export time of every test.
var fixedNow = time.Date(2026, 1, 28, 13, 6, 48, 0, time.UTC)

var testOptions = cusf.Options{Exporter: "stead/test", Now: func() time.Time { return fixedNow }}

// testCase is one session an adapter ships as testdata.
type testCase struct {
	cli, name, path string
}

// testCases lists the testdata sessions of every CLI, as
// inject/roundtrip_test.go finds them.
func testCases(t *testing.T) []testCase {
	t.Helper()
	var cases []testCase
	for _, a := range adapters.All {
		if a.Open == nil {
			continue
		}
		paths, _ := filepath.Glob(filepath.Join("..", "adapters", a.Name, "testdata", "*.txtar"))
		for _, p := range paths {
			cases = append(cases, testCase{cli: a.Name, name: strings.TrimSuffix(filepath.Base(p), ".txtar"), path: p})
		}
	}
	if len(cases) == 0 {
		t.Fatal("no adapter testdata found")
	}
	return cases
}

// openCase lays out a testdata case's native files and opens its session
// with the CLI's adapter, or skips the test when the case holds no session
// file (a database dump).
func openCase(t testing.TB, c testCase) *session.Session {
	t.Helper()
	a, ok := adapters.Lookup(c.cli)
	if !ok {
		t.Fatalf("no adapter %q", c.cli)
	}
	ar, err := txtar.ParseFile(c.path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	main := ""
	for _, f := range ar.Files {
		rel, ok := strings.CutPrefix(f.Name, "native/")
		if !ok {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		if main == "" {
			main = p
		}
	}
	if main == "" || strings.HasSuffix(main, ".sql") {
		t.Skip("not a session file")
	}
	s, err := a.Open(session.Env{Home: dir}, session.Ref{CLI: a.Name, Path: main})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func export(t testing.TB, s *session.Session) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := cusf.NewEncoder(&buf, testOptions).Encode(s); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func validate(t testing.TB, data []byte, name string) *cusf.Result {
	t.Helper()
	res, err := cusf.Validate(bytes.NewReader(data), name, cusf.ValidateOptions{Reconstruct: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func resultText(r *cusf.Result) string {
	var b strings.Builder
	r.WriteText(&b)
	return b.String()
}
