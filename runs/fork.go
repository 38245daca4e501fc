package runs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/inject"
	"github.com/stead-dev/stead/session"
)

// Errors Cut ends in.
var (
	// ErrNoEntry: no entry of the session has the id, or one starting
	// with it.
	ErrNoEntry = errors.New("no such entry")
	// ErrAmbiguous: the prefix starts the ids of several entries.
	ErrAmbiguous = errors.New("names more than one entry")
)

// Cut cuts s's timeline after the entry at names (its id, or a prefix of
// exactly one entry's id) and returns that entry's id; an empty at keeps
// the whole session and returns "".
func Cut(s *session.Session, at string) (string, error) {
	if at == "" {
		return "", nil
	}
	found := -1
	for i, e := range s.Timeline {
		if e.ID == at {
			found = i
			break
		}
		if strings.HasPrefix(e.ID, at) {
			if found >= 0 {
				return "", fmt.Errorf("%q %w (%s and %s): give more of the id", at, ErrAmbiguous, s.Timeline[found].ID, e.ID)
			}
			found = i
		}
	}
	if found < 0 {
		return "", fmt.Errorf("%w %q in the session (%d entries)", ErrNoEntry, at, len(s.Timeline))
	}
	s.Timeline = s.Timeline[:found+1]
	return s.Timeline[found].ID, nil
}

// LastCLI is the CLI that wrote the session's last entry: a stored run
// mixes CLIs, and its fork continues in the last one by default.
func LastCLI(s *session.Session) string {
	for i := len(s.Timeline) - 1; i >= 0; i-- {
		if c := s.Timeline[i].CLI; c != "" {
			return c
		}
	}
	return s.Source.CLI
}

// Fork is what a fork is made of.
type Fork struct {
	// At is the entry the fork ends with (see Cut); "" forks the whole
	// session.
	At string
	// To is the CLI the fork is written for; "" is LastCLI.
	To string
	// Dir is the project directory the fork is placed for; "" is the
	// session's.
	Dir string
	// Model is the model the fork continues with; "" is the one To is
	// configured with, never the source's.
	Model string
}

// Fork writes the fork of s that f asks for as a new session in the
// target CLI's store, and reports what it wrote and lost. s is cut, not
// copied.
func (sv *Supervisor) Fork(s *session.Session, f Fork) (*inject.Report, error) {
	at, err := Cut(s, f.At)
	if err != nil {
		return nil, err
	}
	if f.To == "" {
		f.To = LastCLI(s)
	}
	dst, ok := adapters.Lookup(f.To)
	if !ok || !dst.Writes() {
		return nil, fmt.Errorf("stead does not write sessions for %q", f.To)
	}
	r, w := Injector(s.Source.CLI, dst)
	rep, err := inject.Install(s, r, w, inject.Options{Env: sv.Env, Dir: f.Dir, Model: f.Model, Tool: sv.Tool, At: at})
	if err != nil {
		return nil, fmt.Errorf("placing the fork in %s: %w", dst.Name, err)
	}
	if sv.Placed != nil {
		sv.Placed(rep)
	}
	return rep, nil
}
