package runs

import (
	"errors"
	"testing"

	"github.com/stead-dev/stead/session"
)

func TestCut(t *testing.T) {
	mk := func() *session.Session {
		return &session.Session{Source: session.Source{CLI: "claude"}, Timeline: []session.Entry{
			{ID: "9f1c2a00"}, {ID: "9f1c2a"}, {ID: "9f33", CLI: "codex"}, {ID: "b2"},
		}}
	}
	for _, tc := range []struct {
		at, want string
		left     int
		err      error
	}{
		{"", "", 4, nil},
		{"9f1c2a", "9f1c2a", 2, nil}, // an exact id wins over the longer one it starts
		{"9f33", "9f33", 3, nil},
		{"b", "b2", 4, nil},
		{"9f", "", 4, ErrAmbiguous},
		{"zz", "", 4, ErrNoEntry},
	} {
		s := mk()
		got, err := Cut(s, tc.at)
		if got != tc.want || !errors.Is(err, tc.err) || len(s.Timeline) != tc.left {
			t.Errorf("Cut(%q) = %q, %v, %d entries left; want %q, %v, %d", tc.at, got, err, len(s.Timeline), tc.want, tc.err, tc.left)
		}
	}
	s := mk()
	Cut(s, "9f33")
	if got := LastCLI(s); got != "codex" {
		t.Errorf("LastCLI of a session cut at a Codex entry = %q", got)
	}
	if got := LastCLI(&session.Session{Source: session.Source{CLI: "gemini"}}); got != "gemini" {
		t.Errorf("LastCLI of an empty session = %q; want its source's CLI", got)
	}
}
