package index

import (
	"sync"

	"github.com/stead-dev/stead/catalog"
)

// heldAt is a session the index holds, with its key.
type heldAt struct {
	k key
	h held
}

// heldSet is what the index holds of each session, as a manifest lists
// it: in the order the last refresh found the sessions, so that a
// freshness check with nothing changed meets them in the order it finds
// them and asks no map (on the 10,000-session corpus, making the map of
// them and looking each one up was about 8 ms of a 60 ms check's CPU). A
// map by key is made when first asked for (find).
type heldSet struct {
	list []heldAt
	// runs are where each CLI's sessions begin in list (they follow
	// one another in an order found).
	runs map[string]int
	// seen, set by a refresh for the sessions it finds (each CLI's
	// comparison marks its own: no two write one place).
	seen []bool

	once  sync.Once
	byKey map[key]int // made when first asked for (find)
}

func newHeldSet(list []heldAt) *heldSet {
	s := &heldSet{list: list, runs: make(map[string]int), seen: make([]bool, len(list))}
	for i := len(list) - 1; i >= 0; i-- {
		s.runs[list[i].k.cli] = i
	}
	return s
}

// heldFrom is the set of the sessions of m, in the order found lists them
// (those it does not list after).
func heldFrom(m map[key]held, found []catalog.Found) *heldSet {
	list := make([]heldAt, 0, len(m))
	done := make(map[key]bool, len(m))
	for _, f := range found {
		for _, r := range f.Refs {
			k := keyOf(r)
			if h, ok := m[k]; ok && !done[k] {
				done[k] = true
				list = append(list, heldAt{k, h})
			}
		}
	}
	for k, h := range m {
		if !done[k] {
			list = append(list, heldAt{k, h})
		}
	}
	return newHeldSet(list)
}

// find is the place of k's session in the list.
func (s *heldSet) find(k key) (int, bool) {
	s.once.Do(func() {
		s.byKey = make(map[key]int, len(s.list))
		for i, e := range s.list {
			s.byKey[e.k] = i
		}
	})
	i, ok := s.byKey[k]
	return i, ok
}

// get is what the index holds of k's session.
func (s *heldSet) get(k key) (held, bool) {
	if i, ok := s.find(k); ok {
		return s.list[i].h, true
	}
	return held{}, false
}

// keys yields the key of each session.
func (s *heldSet) keys(yield func(key) bool) {
	for _, e := range s.list {
		if !yield(e.k) {
			return
		}
	}
}

// toMap is the sessions as a map the caller may change.
func (s *heldSet) toMap() map[key]held {
	m := make(map[key]held, len(s.list))
	for _, e := range s.list {
		m[e.k] = e.h
	}
	return m
}

// matcher meets one CLI's sessions in the order a refresh finds them:
// the next of the CLI's run in the list when it is the one asked for,
// else by the map.
type matcher struct {
	s    *heldSet
	next int
	// missed counts the sessions not met in order: the set is then
	// written again in the order found (see refresh).
	missed int
}

func (s *heldSet) matcher(cli string) *matcher {
	next, ok := s.runs[cli]
	if !ok {
		next = len(s.list)
	}
	return &matcher{s: s, next: next}
}

// match is the place of k's session in the list.
func (m *matcher) match(k key) (int, bool) {
	if m.next < len(m.s.list) && m.s.list[m.next].k == k {
		m.next++
		return m.next - 1, true
	}
	m.missed++
	i, ok := m.s.find(k)
	if ok {
		m.next = i + 1 // in order again from there
	}
	return i, ok
}
