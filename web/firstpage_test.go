package web

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

// TestFirstPage: a large session's first page, read from the file's
// first records alone, holds the entries a full read gives first, as a
// full read makes them (ids, statuses, usage, models).
func TestFirstPage(t *testing.T) {
	defer func(v int64) { catalog.TwoPassAbove = v }(catalog.TwoPassAbove)
	catalog.TwoPassAbove = 0 // every file counts as large
	a, _ := adapters.Lookup(session.Claude)
	env := samples.ClaudeCodex(t)
	refs, _ := a.Discover(env)
	genEnv, genPath := samples.GeneratedStore(t, session.Claude, 4<<20)
	gen, _ := a.Discover(genEnv)
	if len(refs) == 0 || len(gen) == 0 {
		t.Fatalf("no sessions: %d, %d (%s)", len(refs), len(gen), genPath)
	}
	type tc struct {
		env session.Env
		ref session.Ref
	}
	var cases []tc
	for _, r := range refs {
		cases = append(cases, tc{env, r})
	}
	for _, r := range gen {
		cases = append(cases, tc{genEnv, r})
	}
	checked := 0
	for _, c := range cases {
		for _, n := range []int{1, 4, 20, 200} {
			body, ok, err := firstPage(a, c.ref, n, false)
			if err != nil {
				t.Fatalf("%s: %v", c.ref.Path, err)
			}
			if !ok {
				continue // the whole file was read: the full read answers
			}
			got := body["entries"].([]*session.Entry)
			full, err := catalog.Open(c.env, a, c.ref, catalog.Keep{IDs: true})
			if err != nil {
				t.Fatal(err)
			}
			var list session.Entries = session.EntriesOf(full.Session.Timeline)
			if full.Entries != nil {
				list = full.Entries
			}
			for i, g := range got {
				w, err := list.Next()
				if err != nil {
					t.Fatalf("%s: entry %d: %v", c.ref.Path, i, err)
				}
				wc := *w
				wc.Native = nil
				gj, _ := json.Marshal(g)
				wj, _ := json.Marshal(wc)
				if string(gj) != string(wj) {
					t.Errorf("%s, a first page of %d: entry %d is\n%s\nwhere a full read gives\n%s", c.ref.Path, n, i, gj, wj)
					break
				}
			}
			full.Close()
			checked++
			if len(got) != n {
				t.Errorf("%s: a first page of %d has %d entries", c.ref.Path, n, len(got))
			}
		}
	}
	if checked == 0 {
		t.Fatal("no session was long enough for a first page")
	}
	t.Log(fmt.Sprintf("%d first pages checked", checked))
}
