//go:build linux

package notify_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stead-dev/stead/internal/notify"
)

// TestHearsAFileWritten: a file made and appended to in a watched folder
// is heard by name, and Close ends Run.
func TestHearsAFileWritten(t *testing.T) {
	n, err := notify.New()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	wd, err := n.Add(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan []notify.Event, 16)
	done := make(chan error, 1)
	go func() { done <- n.Run(out) }()
	if err := os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var created bool
	for !created {
		select {
		case evs := <-out:
			for _, e := range evs {
				if e.WD != wd || e.Name != "s.jsonl" {
					t.Errorf("heard %+v; want watch %d, name s.jsonl", e, wd)
				}
				created = created || e.Created
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the file made was not heard")
		}
	}
	n.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not end after Close")
	}
}
