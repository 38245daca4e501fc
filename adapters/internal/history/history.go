package history

import (
	"time"

	"github.com/stead-dev/stead/session"
)

// Split follows a summarizer through a session file and, at the end,
// takes the copied history out of its figures. The zero Split changes
// nothing, as for a session stead did not write or one an older stead
// build wrote without recording when.
type Split struct {
	from       string
	written    time.Time
	own        bool      // a record timed after written was read
	start, end time.Time // the history's records
	at         mark      // the figures when the history ended
}

// mark is what a summary had counted when its history ended.
type mark struct {
	turns, messages, toolErrors, files, responses int
	tools                                         map[session.Tool]int
	buckets                                       []session.UsageBucket // usage by time and model
}

// From records the provenance the file holds: the history was copied from
// session id of CLI cli, and stead wrote the file at written. Without a
// time it does nothing.
func (s *Split) From(cli, id string, written time.Time) {
	if written.IsZero() || s.own {
		return
	}
	s.from, s.written = session.OriginKey(cli, id), written.UTC()
}

// Record is called before a summarizer counts a record timed ts (zero for
// a record with no time). The first record timed after the session was
// written ends the history: what was counted before it is the history's.
func (s *Split) Record(sum *session.Summary, ts time.Time) {
	if s.written.IsZero() || s.own {
		return
	}
	if ts.IsZero() || !ts.After(s.written) {
		if !ts.IsZero() {
			if s.start.IsZero() || ts.Before(s.start) {
				s.start = ts
			}
			if ts.After(s.end) {
				s.end = ts
			}
		}
		return
	}
	s.own = true
	s.at = markOf(sum)
}

func markOf(sum *session.Summary) mark {
	m := mark{turns: sum.Turns, messages: sum.Messages, toolErrors: sum.ToolErrors, files: len(sum.Files),
		responses: len(sum.Responses)}
	// A copy: the session's own responses may later be counted in the
	// same quarter hour as the history's last.
	m.buckets = append([]session.UsageBucket(nil), sum.Buckets...)
	if len(sum.Tools) > 0 {
		m.tools = make(map[session.Tool]int, len(sum.Tools))
		for t, n := range sum.Tools {
			m.tools[t] = n
		}
	}
	return m
}

// Finish takes the history out of sum's figures, once the whole file is
// read: its usage, by time and model (session.Summary.Lend), goes to
// Borrowed under the key of the session it was copied from, its turns, tool calls, errors and files are not counted,
// and sum.History describes it. sum's Start becomes when the session was
// written, and its End that time too unless a later record says more.
func (s *Split) Finish(sum *session.Summary) {
	if s.written.IsZero() {
		return
	}
	at := s.at
	if !s.own {
		at = markOf(sum)
	}
	sum.Turns = max(sum.Turns-at.turns, 0)
	sum.ToolErrors = max(sum.ToolErrors-at.toolErrors, 0)
	for t, n := range at.tools {
		if sum.Tools[t] -= n; sum.Tools[t] <= 0 {
			delete(sum.Tools, t)
		}
	}
	if at.files > 0 {
		sum.Files = append([]string(nil), sum.Files[min(at.files, len(sum.Files)):]...)
	}
	if at.responses > 0 {
		sum.Responses = sum.Responses[min(at.responses, len(sum.Responses)):]
	}
	sum.Lend(s.from, at.buckets)
	sum.History = &session.History{From: s.from, Written: s.written, Start: s.start, End: s.end, Messages: at.messages}
	sum.Start = s.written
	if sum.End.Before(s.written) {
		sum.End = s.written
	}
}
