package session

import (
	"errors"
	"strings"
	"testing"
)

// TestNotASession: a JSON document that lacks what every session has is
// refused, saying what it lacks; a whole session reads back.
func TestNotASession(t *testing.T) {
	for _, doc := range []string{`{"a":1}`, `{}`, `{"id":"x","version":"1.0","source":{"cli":"claude"}}`, `{"id":"x","version":"1.0","source":{"cli":"claude"},"timeline":null}`} {
		if _, err := Unmarshal([]byte(doc)); !errors.Is(err, ErrNotSession) {
			t.Errorf("Unmarshal(%s) = %v, want ErrNotSession", doc, err)
		}
		if _, err := Decode(strings.NewReader(doc)); !errors.Is(err, ErrNotSession) {
			t.Errorf("Decode(%s) = %v, want ErrNotSession", doc, err)
		}
	}
	s := &Session{ID: "s1", Source: Source{CLI: "codex"}, Title: "t", Timeline: []Entry{{ID: "e1", Type: User, Content: "hi"}}}
	b, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "s1" || got.Source.CLI != "codex" || got.Title != "t" || len(got.Timeline) != 1 || got.Timeline[0].Content != "hi" || got.Version != Version {
		t.Errorf("read back %+v", got)
	}
}
