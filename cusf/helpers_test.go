package cusf_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/cusf"
	"github.com/stead-dev/stead/internal/samples"
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
		if !a.Reads() {
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

// openCase opens a testdata session.
func openCase(t testing.TB, c testCase) *session.Session {
	t.Helper()
	a, ok := adapters.Lookup(c.cli)
	if !ok {
		t.Fatalf("no adapter %q", c.cli)
	}
	return samples.Open(t, a, c.path)
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
