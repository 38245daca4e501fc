package session

import "strconv"

// IDs is the set of entry ids a reader has handed out. Unique makes each
// id it is given unique the way every reader names a repeated id: the
// first "#n" suffix free, n counting from 2. It remembers the last suffix
// of each id, so a file repeating one id n times (a journal copied into
// itself, or a hostile file) costs n lookups, not n². The zero IDs is
// empty and ready to use.
type IDs struct {
	taken  map[string]bool
	suffix map[string]int
}

// Has reports whether id was handed out.
func (s *IDs) Has(id string) bool { return s.taken[id] }

// Add marks id as handed out, as it is.
func (s *IDs) Add(id string) {
	s.init()
	s.taken[id] = true
}

// Unique returns id, or id#n when id was handed out already, and marks
// what it returns as handed out.
func (s *IDs) Unique(id string) string {
	s.init()
	if s.taken[id] {
		id = nextFree(id, s.Has, s.suffix)
	}
	s.taken[id] = true
	return id
}

func (s *IDs) init() {
	if s.taken == nil {
		s.taken, s.suffix = make(map[string]bool), make(map[string]int)
	}
}

// Forget takes id back, for a reader that names an entry before it hands
// the entry out (Unique gives it again then).
func (s *IDs) Forget(id string) { delete(s.taken, id) }

// nextFree returns the first id#n that taken does not hold, n from 2, and
// records n in last[id] to start there next time: every id#n below it is
// taken already, as ids are not given back.
func nextFree(id string, taken func(string) bool, last map[string]int) string {
	for n := max(2, last[id]+1); ; n++ {
		if c := id + "#" + strconv.Itoa(n); !taken(c) {
			last[id] = n
			return c
		}
	}
}
