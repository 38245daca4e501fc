package session_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/stead-dev/stead/session"
)

// randomEvents makes a stream of events with everything a Builder
// settles: repeated and missing ids, results before and after their
// calls, updates of every kind to earlier (and unknown) entries, copied
// entries, entries with and without times.
func randomEvents(r *rand.Rand, n int, statuses int) []session.Event {
	types := []session.EntryType{session.User, session.Assistant, session.ToolCall, session.ToolResult, session.System}
	id := func() string {
		if r.IntN(10) == 0 {
			return ""
		}
		return fmt.Sprintf("e%d", r.IntN(2*n+1))
	}
	status := func() session.ToolStatus {
		if r.IntN(3) > 0 {
			return ""
		}
		return session.ToolStatus(fmt.Sprintf("s%d", r.IntN(statuses)))
	}
	base := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	var evs []session.Event
	last := ""
	for line := 1; line <= n; line++ {
		ev := session.Event{Line: line}
		for range r.IntN(3) {
			e := session.Entry{ID: id(), Type: types[r.IntN(len(types))], Content: fmt.Sprint("said ", line), Status: status()}
			if r.IntN(5) > 0 {
				e.Timestamp = base.Add(time.Duration(r.IntN(1e6)) * time.Millisecond)
			}
			switch e.Type {
			case session.ToolCall:
				if r.IntN(2) == 0 {
					e.Input = json.RawMessage(`{"n":1}`)
				}
			case session.ToolResult:
				e.CallID, e.Success, e.Output = id(), r.IntN(2) == 0, "out"
			}
			if r.IntN(3) == 0 {
				e.Usage = &session.Usage{Input: int64(r.IntN(100)), Output: int64(r.IntN(100))}
			}
			if r.IntN(3) == 0 {
				e.Model = fmt.Sprintf("m%d", r.IntN(3))
			}
			if r.IntN(8) == 0 {
				e.Origin = "parent"
			}
			if r.IntN(8) == 0 {
				e.Subagent = &session.Link{Kind: session.LinkSubagent, ID: fmt.Sprintf("agent-%d", r.IntN(4)), CallID: e.ID}
			}
			ev.Entries = append(ev.Entries, e)
			last = e.ID
		}
		if r.IntN(4) == 0 {
			u := session.Update{EntryID: id(), Status: status()}
			if r.IntN(3) == 0 {
				u.EntryID = last // the entry just read, as most updates do
			}
			if r.IntN(2) == 0 {
				u.Usage = &session.Usage{Input: int64(r.IntN(100)), Reasoning: 1}
			}
			if r.IntN(3) == 0 {
				u.Model = fmt.Sprintf("m%d", r.IntN(4))
			}
			if r.IntN(6) == 0 {
				u.Subagent = &session.Link{Kind: session.LinkSubagent, ID: fmt.Sprintf("agent-%d", r.IntN(4))}
			}
			ev.Updates = append(ev.Updates, u)
		}
		if r.IntN(20) == 0 {
			ev.Info = &session.Info{ID: "s", Created: base.Add(time.Duration(r.IntN(1e6)) * time.Millisecond)}
			if n%2 == 0 {
				// A session model hides the model of its last entry.
				ev.Info.Model = fmt.Sprintf("m%d", r.IntN(2))
			}
		}
		if len(ev.Entries) == 0 {
			ev.Record = &session.Record{Line: line, Record: json.RawMessage(`{}`)}
		}
		evs = append(evs, ev)
	}
	return evs
}

// twoPass folds evs for an outline, then completes their entries, as an
// export of a large file does.
func twoPass(t *testing.T, evs []session.Event) *session.Session {
	t.Helper()
	o := session.NewOutline()
	b := session.NewBuilder(session.Codex, "/x.jsonl").With(session.ReadOptions{Outline: o})
	for _, ev := range evs {
		b.Add(ev)
	}
	s := b.Session()
	if len(s.Timeline) != 0 {
		t.Fatalf("%d entries kept beside the outline", len(s.Timeline))
	}
	for _, ev := range evs {
		for _, e := range ev.Entries {
			i := len(s.Timeline)
			if !o.Complete(&e) {
				t.Fatalf("entry %d (%s %q) is not the one outlined", i, e.Type, e.ID)
			}
			s.Timeline = append(s.Timeline, e)
		}
	}
	if len(s.Timeline) != o.Len() {
		t.Fatalf("%d entries read again, %d outlined", len(s.Timeline), o.Len())
	}
	return s
}

func whole(evs []session.Event) *session.Session {
	b := session.NewBuilder(session.Codex, "/x.jsonl")
	for _, ev := range evs {
		b.Add(ev)
	}
	return b.Session()
}

// TestOutlineSameAsWhole reads random event streams whole and in two
// passes: the sessions are the same, field for field.
func TestOutlineSameAsWhole(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 7))
		// A few streams have more statuses than an entry's byte codes.
		statuses, n := 4, 1+r.IntN(120)
		if seed%50 == 0 {
			statuses, n = 1000, 3000
		}
		sameSession(t, fmt.Sprint("seed ", seed), randomEvents(r, n, statuses))
	}
	// The session's model is its last entry's, as an update left it.
	at := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	sameSession(t, "model updated", []session.Event{
		{Line: 1, Entries: []session.Entry{{ID: "a1", Type: session.Assistant, Timestamp: at, Model: "m1"}}},
		{Line: 2, Updates: []session.Update{{EntryID: "a1", Model: "m2"}}},
	})
}

func sameSession(t *testing.T, name string, evs []session.Event) {
	t.Helper()
	got, want := twoPass(t, evs), whole(evs)
	for i := range min(len(got.Timeline), len(want.Timeline)) {
		if g, w := jsonString(t, got.Timeline[i]), jsonString(t, want.Timeline[i]); g != w {
			t.Fatalf("%s: entry %d in two passes:\n%s\nwhole:\n%s", name, i, g, w)
		}
	}
	got.Timeline, want.Timeline = nil, nil
	if g, w := jsonString(t, got), jsonString(t, want); g != w {
		t.Fatalf("%s: two passes:\n%.3000s\nwhole:\n%.3000s", name, g, w)
	}
}

// TestOutlineCompleteRefuses: an entry that is not the one outlined at
// its place (the file changed between reads) is refused and left as it
// was.
func TestOutlineCompleteRefuses(t *testing.T) {
	at := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	o := session.NewOutline()
	b := session.NewBuilder(session.Claude, "/x.jsonl").With(session.ReadOptions{Outline: o})
	b.Add(session.Event{Line: 1, Entries: []session.Entry{{ID: "u1", Type: session.User, Timestamp: at}}})
	b.Session()
	for name, e := range map[string]session.Entry{
		"type": {ID: "u1", Type: session.Assistant, Timestamp: at},
		"time": {ID: "u1", Type: session.User, Timestamp: at.Add(time.Nanosecond)},
		"id":   {ID: "u2", Type: session.User, Timestamp: at},
	} {
		before := e
		if o.Complete(&e) {
			t.Errorf("a different %s passes", name)
		}
		if jsonString(t, e) != jsonString(t, before) {
			t.Errorf("a refused entry (other %s) was changed", name)
		}
	}
	e := session.Entry{ID: "u1", Type: session.User, Timestamp: at}
	if !o.Complete(&e) {
		t.Error("the same entry is refused")
	}
	e = session.Entry{ID: "u1", Type: session.User, Timestamp: at}
	if o.Complete(&e) {
		t.Error("an entry passes past the outline")
	}
}

func jsonString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// BenchmarkOutline folds a session of 200,000 entries shaped like a
// Claude Code session (UUID ids, a model response in three entries with
// its usage on the first, a tool call and its result) into an Outline,
// and reports what the Outline holds per entry.
func BenchmarkOutline(b *testing.B) {
	const n = 200_000
	evs := make([]session.Event, 0, n)
	at := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	for i := range n {
		e := session.Entry{ID: fmt.Sprintf("%08x-1b2c-4d5e-8f90-%012x", i, i), Timestamp: at.Add(time.Duration(i) * time.Second)}
		switch i % 3 {
		case 0:
			e.Type, e.Model, e.Usage = session.Assistant, "claude-opus-4-5", &session.Usage{Input: 3, Output: int64(i), CacheRead: 40_000}
		case 1:
			e.Type = session.ToolCall
		case 2:
			e.Type, e.CallID, e.Success = session.ToolResult, evs[i-1].Entries[0].ID, true
		}
		evs = append(evs, session.Event{Line: i + 1, Entries: []session.Entry{e}})
	}
	b.ReportAllocs()
	var held uint64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		o := session.NewOutline()
		bl := session.NewBuilder(session.Claude, "/x.jsonl").With(session.ReadOptions{Outline: o})
		for _, ev := range evs {
			bl.Add(ev)
		}
		bl.Session()
		runtime.GC()
		runtime.ReadMemStats(&after)
		held = after.HeapAlloc - before.HeapAlloc
		runtime.KeepAlive(o)
	}
	b.ReportMetric(float64(held)/n, "B/entry")
}

// TestOutlineKeepIDs: an Outline asked to keep ids hands over the final
// id of each entry, in order, as a whole read names them (repeated ids
// renamed, missing ones made up), once.
func TestOutlineKeepIDs(t *testing.T) {
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 11))
		evs := randomEvents(r, 1+r.IntN(120), 4)
		o := session.NewOutline()
		o.KeepIDs()
		b := session.NewBuilder(session.Codex, "/x.jsonl").With(session.ReadOptions{Outline: o})
		for _, ev := range evs {
			b.Add(ev)
		}
		b.Session()
		got, want := o.IDs(), whole(evs).Timeline
		if len(got) != len(want) {
			t.Fatalf("seed %d: %d ids kept, %d entries", seed, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i].ID {
				t.Fatalf("seed %d: id %d kept as %q, %q read whole", seed, i, got[i], want[i].ID)
			}
		}
		if o.IDs() != nil {
			t.Fatalf("seed %d: the ids are handed over twice", seed)
		}
	}
	o := session.NewOutline()
	b := session.NewBuilder(session.Codex, "/x.jsonl").With(session.ReadOptions{Outline: o})
	b.Add(session.Event{Line: 1, Entries: []session.Entry{{ID: "u1", Type: session.User}}})
	b.Session()
	if o.IDs() != nil {
		t.Error("an Outline not asked to keep ids kept them")
	}
}
