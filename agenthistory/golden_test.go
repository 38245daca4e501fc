package agenthistory_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// TestGolden exports a hand-built pair of sessions and compares the export
// with testdata/golden/pair.ndjson (go test -update rewrites it); then
// imports the golden file and checks both sessions come back as built and
// export to the same bytes.
func TestGolden(t *testing.T) {
	built := []*session.Session{forkedSession(), linearSession()}
	got := export(t, built)
	path := filepath.Join("testdata", "golden", "pair.ndjson")
	if *usftest.Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("export differs from %s (check, then go test -update):\n%s", path, firstDiff(want, got))
	}
	back, warns := importAll(t, want, path)
	for _, w := range warns {
		t.Errorf("warning: %v", w)
	}
	if len(back) != len(built) {
		t.Fatalf("read %d sessions, want %d", len(back), len(built))
	}
	for i := range built {
		if err := sameSession(built[i], back[i]); err != nil {
			t.Errorf("session %d: %v", i, err)
		}
	}
	if again := export(t, back); !bytes.Equal(again, want) {
		t.Errorf("export → import → export differs:\n%s", firstDiff(want, again))
	}
}
