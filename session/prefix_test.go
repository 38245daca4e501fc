package session

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	ids := []string{"742233ee-1b2c", "7422ab00-0000", "9f00aa11", "ses_01", "ses_01x", "L1", "L19"}
	id := func(s string) string { return s }
	for _, tt := range []struct {
		ref  string
		want []string
	}{
		{"742233", []string{"742233ee-1b2c"}},
		{"7422", []string{"742233ee-1b2c", "7422ab00-0000"}},
		{"742", nil}, // shorter than MinPrefix
		{"9f00aa11", []string{"9f00aa11"}},
		{"ses_01", []string{"ses_01"}}, // a full id wins over the ids it starts
		{"L1", []string{"L1"}},
		{"L", nil},
		{"nothing", nil},
	} {
		if got := Match(tt.ref, ids, id); !slices.Equal(got, tt.want) {
			t.Errorf("Match(%q) = %q, want %q", tt.ref, got, tt.want)
		}
	}
}

func TestAbbrev(t *testing.T) {
	ids := []string{
		"742233ee-1b2c-4d00-8000-000000000001",
		"742233ef-0000-4000-8000-000000000002",
		"call_stub_0001", "call_stub_0001:result",
		"L1", "L19",
		"same", "same",
		"élan-vital-1", "élan-vital-2",
		"ffff0000-aaaa",
	}
	want := []string{
		"742233ee", "742233ef",
		"call_stub_0001", "call_stub_0001:",
		"L1", "L19",
		"same", "same",
		"élan-vital-1", "élan-vital-2",
		"ffff0000",
	}
	if got := Abbrev(ids, 8); !slices.Equal(got, want) {
		t.Errorf("Abbrev:\n got %q\nwant %q", got, want)
	}
	// A prefix never ends inside a character.
	if got := Abbrev([]string{"aé-x", "aé-y", "b"}, 2); got[0] != "aé-x" || got[2] != "b" {
		t.Errorf("Abbrev cut a character: %q", got)
	}
	if got := Abbrev([]string{"aaaaaé", "aaaaab"}, 1); got[0] != "aaaaaé" || got[1] != "aaaaab" {
		t.Errorf("Abbrev cut a character: %q", got)
	}
}

// TestAbbrevMatches: whatever the ids, each one's abbreviation is matched
// back to it and to nothing else.
func TestAbbrevMatches(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var ids []string
		for range 1 + r.IntN(40) {
			var b strings.Builder
			for range 1 + r.IntN(10) {
				b.WriteByte("ab#:"[r.IntN(4)])
			}
			ids = append(ids, b.String())
		}
		abbr := Abbrev(ids, 1+r.IntN(6))
		for i, a := range abbr {
			got := Match(a, ids, func(s string) string { return s })
			if len(got) == 0 || slices.ContainsFunc(got, func(s string) bool { return s != ids[i] }) {
				t.Fatalf("ids %q: %q abbreviates %q but matches %q", ids, a, ids[i], got)
			}
		}
	}
}
