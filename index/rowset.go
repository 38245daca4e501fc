package index

import (
	"encoding/json"
	"strconv"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/session"
)

// rowSet is what the index keeps of a session's entries, made from its
// decoder's events one at a time (a live run's from its bus, a growing
// file's from what was appended): each entry's rows, in order.
type rowSet struct {
	a       adapters.Adapter
	pk      *packer // packs the rows' text
	rows    []row
	byEntry map[string][]int // an entry's rows
	// ids, set for a file's decoder, names the entries as a full read
	// does (session.Builder): an entry with no id after its line, a
	// repeated id made unique. Without it an entry given again replaces
	// the one it names (a bus may deliver an event twice).
	ids *session.IDs
	// changed is the first row changed since it was last set (rows
	// appended are not changes).
	changed int
}

// add takes an event: its new entries, and the updates to earlier ones
// (a model the index keeps). An entry it already has (given again: a bus
// delivering twice, a CLI restating a message) replaces it. added hears
// each entry it did not have. add reports whether the rows changed.
func (s *rowSet) add(ev session.Event, added func(*session.Entry)) bool {
	if s.byEntry == nil {
		s.byEntry = make(map[string][]int)
	}
	changed := false
	for i := range ev.Entries {
		e := &ev.Entries[i]
		if s.ids != nil {
			if e.ID == "" {
				e.ID = "L" + strconv.Itoa(ev.Line)
			}
			e.ID = s.ids.Unique(e.ID)
			if e.Type == session.ToolCall && len(e.Input) == 0 {
				e.Input = emptyInput
			}
		}
		rows := rowsOf(s.a, e, s.pk)
		if at, ok := s.byEntry[e.ID]; ok {
			if len(at) > 0 {
				s.changed = min(s.changed, at[0])
			}
			if len(at) == len(rows) {
				for j, n := range at {
					s.rows[n] = rows[j]
				}
			} else {
				s.replace(e.ID, rows)
			}
			changed = true
			continue
		}
		for _, r := range rows {
			s.byEntry[e.ID] = append(s.byEntry[e.ID], len(s.rows))
			s.rows = append(s.rows, r)
		}
		if added != nil {
			added(e)
		}
		changed = changed || len(rows) > 0
	}
	for _, u := range ev.Updates {
		if u.Model == "" {
			continue
		}
		for _, n := range s.byEntry[u.EntryID] {
			if s.rows[n].model != u.Model {
				s.rows[n].model = u.Model
				s.changed = min(s.changed, n)
				changed = true
			}
		}
	}
	return changed
}

// emptyInput is a tool call's input when it has none, as a full read
// gives it.
var emptyInput = json.RawMessage(`{}`)

// replace puts rows in the place of entry id's, which were not as many.
func (s *rowSet) replace(id string, rows []row) {
	at := s.byEntry[id]
	first := len(s.rows)
	if len(at) > 0 {
		first = at[0]
	}
	kept := make([]row, 0, len(s.rows)-len(at)+len(rows))
	for i, r := range s.rows {
		if i == first {
			kept = append(kept, rows...)
		}
		if r.entry != id {
			kept = append(kept, r)
		}
	}
	if first == len(s.rows) {
		kept = append(kept, rows...)
	}
	s.rows = kept
	s.index()
}

// index makes byEntry anew.
func (s *rowSet) index() {
	s.byEntry = make(map[string][]int, len(s.rows))
	for i, r := range s.rows {
		s.byEntry[r.entry] = append(s.byEntry[r.entry], i)
	}
}
