package codex

import (
	"bytes"
	"fmt"
	"io"

	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// maxForkDepth bounds how many ancestors Open follows.
const maxForkDepth = 16

// ReadFile decodes the rollout at path, without a fork's parent history.
func ReadFile(path string) (*session.Session, error) {
	s, _, err := readFile(path, -1, session.ReadOptions{})
	return s, err
}

// Open decodes the rollout at path and, when it is a fork of a paginated
// thread (which stores no copy of its history), prepends the part of the
// parent's rollout the fork builds on, found in env's store. Entries taken
// from an ancestor have Origin set to its thread id. A missing ancestor is
// a warning, not an error: the fork's own records are still returned.
func Open(env session.Env, path string) (*session.Session, error) {
	s, _, err := OpenWith(env, path, session.ReadOptions{})
	return s, err
}

// OpenWith is Open reading the rollout as o says. It reports whether
// every entry comes from the rollout at path: then NewDecoder reads the
// same entries again, in order, from its first o.Limit bytes. A fork's
// history comes from an ancestor's rollout: when o asks for an Outline, a
// fork is not read any further, as its outline would not serve.
func OpenWith(env session.Env, path string, o session.ReadOptions) (*session.Session, bool, error) {
	limit := int64(-1)
	if o.Limit > 0 {
		limit = o.Limit
	}
	return open(env, path, limit, o, 0, map[string]bool{})
}

func open(env session.Env, path string, limit int64, o session.ReadOptions, depth int, visiting map[string]bool) (*session.Session, bool, error) {
	s, base, err := readFile(path, limit, o)
	if err != nil || base == nil || base.ThreadID == "" {
		return s, true, err
	}
	if o.Outline != nil {
		// A fork's history is in its parent's file: no second read of
		// this one gives it.
		return s, false, nil
	}
	warn := func(msg string) {
		s.Warnings = append(s.Warnings, session.Warning{Path: path, Message: msg})
	}
	switch {
	case depth >= maxForkDepth:
		warn(fmt.Sprintf("fork history deeper than %d threads; older history not read", maxForkDepth))
		return s, true, nil
	case visiting[base.ThreadID] || base.ThreadID == s.ID:
		warn("fork history refers back to itself; not followed")
		return s, true, nil
	}
	visiting[s.ID] = true
	ppath, err := Locate(env, base.ThreadID)
	if err != nil {
		warn(fmt.Sprintf("history of parent thread %s not found; showing only this fork's records", base.ThreadID))
		return s, true, nil
	}
	parent, _, err := open(env, ppath, base.EndByteOffset, session.ReadOptions{}, depth+1, visiting)
	if err != nil {
		warn(fmt.Sprintf("history of parent thread %s unreadable: %v", base.ThreadID, err))
		return s, true, nil
	}
	prefix := make([]session.Entry, 0, len(parent.Timeline)+len(s.Timeline))
	for _, e := range parent.Timeline {
		if e.Origin == "" {
			e.Origin = parent.ID
		}
		if e.Native != nil && e.Native.Path == "" {
			n := *e.Native
			n.Path = ppath
			e.Native = &n
		}
		prefix = append(prefix, e)
	}
	s.Timeline = session.Join(prefix, s.Timeline)
	if n := len(prefix); n > 0 && len(s.Timeline) > n && s.Timeline[n].ParentID == "" {
		s.Timeline[n].ParentID = prefix[n-1].ID
	}
	s.Warnings = append(parent.Warnings, s.Warnings...)
	if s.Metadata.Created.IsZero() || (!parent.Metadata.Created.IsZero() && parent.Metadata.Created.Before(s.Metadata.Created)) {
		// The conversation began in the parent.
		s.Metadata.Created = parent.Metadata.Created
	}
	return s, len(prefix) == 0, nil
}

// readFile decodes the rollout at path, reading at most limit bytes when
// limit >= 0, and returns the fork history base it names, if any.
func readFile(path string, limit int64, o session.ReadOptions) (*session.Session, *historyBase, error) {
	f, err := storefile.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("codex: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if limit >= 0 {
		r = io.LimitReader(f, limit)
	}
	dec := NewDecoder(r)
	dec.Path, dec.limited = path, limit >= 0
	s, err := read(dec, o)
	return s, dec.base, err
}

// Sniff reports whether a line looks like a Codex rollout record.
func Sniff(line []byte) bool {
	if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")) {
		return false
	}
	if bytes.Contains(line, []byte(`"payload"`)) {
		for _, t := range []string{`"session_meta"`, `"response_item"`, `"event_msg"`, `"turn_context"`} {
			if bytes.Contains(line, []byte(t)) {
				return true
			}
		}
	}
	// The oldest rollouts start with a bare meta carrying instructions.
	return bytes.Contains(line, []byte(`"instructions"`)) && bytes.Contains(line, []byte(`"id"`))
}
