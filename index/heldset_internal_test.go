package index

import (
	"testing"

	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/session"
)

// TestHeldSetMatchesInOrder: sessions met in the order the set lists them
// are matched without a map; one met out of order is found by the map,
// and matching goes on in order from it.
func TestHeldSetMatchesInOrder(t *testing.T) {
	ref := func(cli, id string) session.Ref { return session.Ref{CLI: cli, ID: id, Path: "/" + cli + "/" + id} }
	found := []catalog.Found{
		{CLI: "claude", Refs: []session.Ref{ref("claude", "a"), ref("claude", "b"), ref("claude", "c")}},
		{CLI: "codex", Refs: []session.Ref{ref("codex", "x"), ref("codex", "y")}},
	}
	m := map[key]held{}
	for i, f := range found {
		for j, r := range f.Refs {
			m[keyOf(r)] = held{id: int64(10*i + j + 1)}
		}
	}
	m[key{"gemini", "gone", "/g"}] = held{id: 99} // held, not found
	s := heldFrom(m, found)
	if len(s.list) != 6 || s.list[5].k.cli != "gemini" {
		t.Fatalf("list %+v; want the found in order, then the rest", s.list)
	}
	for _, f := range found {
		mt := s.matcher(f.CLI)
		for _, r := range f.Refs {
			i, ok := mt.match(keyOf(r))
			if !ok || s.list[i].k != keyOf(r) || s.list[i].h != m[keyOf(r)] {
				t.Fatalf("match %v: %d %v", keyOf(r), i, ok)
			}
		}
	}
	if s.byKey != nil {
		t.Error("sessions met in order made the map")
	}
	if mt := s.matcher("codex"); mt.missed != 0 {
		t.Errorf("a new matcher missed %d", mt.missed)
	}

	// Out of order: b first, then c follows it in order; a new one is
	// not held.
	mt := s.matcher("claude")
	for _, id := range []string{"b", "c", "a"} {
		if i, ok := mt.match(keyOf(ref("claude", id))); !ok || s.list[i].k.sid != id {
			t.Errorf("match %s out of order: %d %v", id, i, ok)
		}
	}
	if _, ok := mt.match(keyOf(ref("claude", "new"))); ok {
		t.Error("a session the set does not hold matched")
	}
	if mt.missed != 3 { // b and a out of order, and the new one
		t.Errorf("missed %d, want 3", mt.missed)
	}
	if _, ok := s.matcher("kimi").match(keyOf(ref("claude", "a"))); !ok {
		t.Error("a matcher of a CLI with no sessions held does not look in the map")
	}
}
