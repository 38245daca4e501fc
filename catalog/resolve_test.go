package catalog_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/session"
)

func TestAmbiguousListsNewestFirst(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	var cands []catalog.Candidate
	for i := range 12 {
		cands = append(cands, catalog.Candidate{ID: "claude:ab" + string(rune('a'+i)), CLI: "claude", When: t0.Add(time.Duration(i) * time.Hour)})
	}
	err := catalog.NewAmbiguous("ab", "sessions", 15, cands)
	if !errors.Is(err, session.ErrAmbiguous) {
		t.Errorf("%v does not wrap session.ErrAmbiguous", err)
	}
	if len(err.Candidates) != catalog.MaxCandidates || err.Candidates[0].ID != "claude:abl" || err.More != 5 {
		t.Errorf("candidates %d, first %s, %d more; want the %d newest (claude:abl first) and 5 more",
			len(err.Candidates), err.Candidates[0].ID, err.More, catalog.MaxCandidates)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, `"ab" names 15 sessions`) || !strings.Contains(msg, "and 5 more") {
		t.Errorf("message %q", msg)
	}
}

func TestDetectUnknownFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.jsonl")
	if err := os.WriteFile(path, []byte("{\"hello\":1}\nplain text\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := catalog.Detect(path); !errors.Is(err, catalog.ErrUndetected) || !strings.Contains(err.Error(), path) {
		t.Errorf("Detect of a file no CLI wrote: %v; want ErrUndetected naming it", err)
	}
	if _, _, err := catalog.Resolve(session.Env{Home: t.TempDir()}, path, ""); !errors.Is(err, catalog.ErrUndetected) {
		t.Errorf("Resolve of a file no CLI wrote: %v", err)
	}
	if _, _, err := catalog.Resolve(session.Env{Home: t.TempDir()}, "0123456789abcdef", ""); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Resolve of an id in no store: %v; want session.ErrNotFound", err)
	}
}
