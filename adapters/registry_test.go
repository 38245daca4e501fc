package adapters

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stead-dev/stead/adapters/claude"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// TestPartialAdapter: an adapter without some parts (here one stead only
// reads, and one it only launches) says so, and the registry's lookups and
// the model stub's questions pass over what it lacks instead of reading a
// field of a nil part.
func TestPartialAdapter(t *testing.T) {
	reader := Adapter{Name: "reader", Title: "Reader",
		Toolset: Toolset{Tools: map[string]session.Tool{"Peek": session.ToolRead}},
		Reader:  claude.Adapter.Reader}
	launched := Adapter{Name: "launched", Driver: &Driver{Setup: func(live.Launch) live.Setup { return live.Setup{} }}}
	var zero Adapter

	for _, tt := range []struct {
		a                   Adapter
		reads, writes, runs bool
	}{
		{reader, true, false, false},
		{launched, false, false, false},
		{zero, false, false, false},
		{claude.Adapter, true, true, true},
	} {
		if tt.a.Reads() != tt.reads || tt.a.Writes() != tt.writes || tt.a.Runs() != tt.runs {
			t.Errorf("%q: reads %v, writes %v, runs %v; want %v, %v, %v", tt.a.Name,
				tt.a.Reads(), tt.a.Writes(), tt.a.Runs(), tt.reads, tt.writes, tt.runs)
		}
	}
	// The toolset is no part: the zero adapter's (a session's source
	// that stead does not know) is there, and empty.
	if zero.ToolArgs != nil || zero.ToolCall != nil || zero.Tools != nil {
		t.Error("the zero adapter has tools")
	}

	all := []Adapter{reader, launched, claude.Adapter}
	r := newRegistry(all)
	if a, ok := r.lookup("reader"); !ok || !a.Reads() || a.Writes() {
		t.Errorf("lookup(reader) = %q, %v", a.Name, ok)
	}
	if a, ok := r.lookup("launched"); !ok || a.Driver == nil || a.Runs() {
		t.Errorf("lookup(launched) = %q, %v", a.Name, ok)
	}
	if a, ok := r.lookup("nope"); ok || a.Reads() || a.Writes() || a.Runs() {
		t.Errorf("lookup(nope) = %q, %v", a.Name, ok)
	}

	accept := func(string, json.RawMessage) bool { return true }
	if name, _, ok := nativeCall(all, session.ToolBash, map[string]any{session.ArgCommand: "ls"}, accept); !ok || name != "Bash" {
		t.Errorf("nativeCall(bash) = %q, %v; want Claude Code's Bash", name, ok)
	}
	if got := nativeTools(all, session.ToolRead); !slices.Contains(got, "Peek") || got[0] != claude.Calls[session.ToolRead] {
		t.Errorf("nativeTools(read) = %q: want Claude Code's call first, and the reader's Peek", got)
	}

	defer func() {
		if recover() == nil {
			t.Error("a name registered twice did not panic")
		}
	}()
	newRegistry([]Adapter{reader, reader})
}

// TestParts checks that every registered CLI fills in what each of its
// parts must have: the fields call sites use without checking them.
func TestParts(t *testing.T) {
	for _, a := range All {
		if a.Name == "" || a.Title == "" {
			t.Errorf("%q: no name or title", a.Name)
		}
		if r := a.Reader; r != nil && (r.Discover == nil || r.Roots == nil || r.Locate == nil || r.Open == nil || r.SummarizeFile == nil) {
			t.Errorf("%s: its Reader lacks Discover, Roots, Locate, Open or SummarizeFile", a.Name)
		}
		if w := a.Writer; w != nil && (w.Place == nil || w.NewEncoder == nil) {
			t.Errorf("%s: its Writer lacks Place or NewEncoder", a.Name)
		}
		if d := a.Driver; d != nil && d.Setup == nil {
			t.Errorf("%s: its Driver lacks Setup", a.Name)
		}
	}
}
