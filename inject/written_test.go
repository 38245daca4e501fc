package inject_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/inject"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

// The recorded Claude Code session the tests below copy: two turns, the
// first with a tool call, the second 12 s after the first ended.
var (
	tuiSession = filepath.Join("..", "adapters", "claude", "testdata", "tui-session.txtar")
	tuiStart   = time.Date(2026, 11, 21, 19, 15, 23, 0, time.UTC)
	// betweenTurns is after the first turn's records and before the
	// second's.
	betweenTurns = time.Date(2026, 11, 21, 19, 15, 35, 0, time.UTC)
	tuiEnd       = time.Date(2026, 11, 21, 19, 15, 51, 0, time.UTC)
)

type target struct{ cli, format string }

// writingTargets lists every CLI (and storage format) stead both writes
// and summarises.
func writingTargets() []target {
	var ts []target
	for _, a := range adapters.All {
		if a.Writes() && a.Reads() {
			ts = append(ts, target{cli: a.Name})
		}
	}
	return append(ts, target{cli: session.Kimi, format: "legacy"})
}

// install installs src as a new session of tg's CLI, written at written
// (its provenance's time), and returns the adapter, environment and ref
// of the new session.
func install(t *testing.T, src *session.Session, tg target, written time.Time, w func(adapters.Adapter) inject.Writer) (adapters.Adapter, session.Env, session.Ref) {
	t.Helper()
	a, _ := adapters.Lookup(tg.cli)
	c, _ := adapters.Lookup(session.Claude)
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{}}
	rep, err := inject.Install(src, inject.Reader{CLI: session.Claude, ToolArgs: c.ToolArgs}, w(a),
		inject.Options{Env: env, Dir: dir, Format: tg.format, Tool: "stead test", Now: func() time.Time { return written }})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := a.Locate(env, rep.Target.ID)
	if err != nil {
		t.Fatal(err)
	}
	return a, env, ref
}

// TestWrittenSessionSummary installs a recorded Claude Code session in
// every CLI stead writes, as if stead had written it between the session's
// two turns: the first turn reads as the history stead copied, the second
// as what the target CLI added since. A summary of the copy counts only
// the second turn as its own (its usage, turns, tool calls) and keeps the
// first turn's usage borrowed from the source; it starts when the copy was
// written. Its messages are all it holds. The full decoder keeps every
// entry's own time.
func TestWrittenSessionSummary(t *testing.T) {
	a, _ := adapters.Lookup(session.Claude)
	src := samples.Open(t, a, tuiSession)
	from := session.OriginKey(session.Claude, src.ID)
	for _, tg := range writingTargets() {
		t.Run(tg.cli+tg.format, func(t *testing.T) {
			a, env, ref := install(t, src, tg, betweenTurns, writerFor)
			for _, detail := range []session.Detail{session.DetailFull, session.DetailList} {
				sum, err := a.SummarizeFile(ref, detail)
				if err != nil {
					t.Fatal(err)
				}
				h := sum.History
				if h == nil {
					t.Fatalf("detail %d: the summary sees no copied history", detail)
				}
				if h.From != from || !h.Written.Equal(betweenTurns) {
					t.Errorf("detail %d: history from %q written %v, want %q at %v", detail, h.From, h.Written, from, betweenTurns)
				}
				if !sum.Start.Equal(betweenTurns) || sum.End.Before(betweenTurns.Add(5*time.Second)) || sum.End.After(tuiEnd) {
					t.Errorf("detail %d: the copy spans %v to %v, want from %v to its second turn", detail, sum.Start, sum.End, betweenTurns)
				}
				if h.Start.Before(tuiStart) || !h.End.Before(betweenTurns) {
					t.Errorf("detail %d: the history spans %v to %v", detail, h.Start, h.End)
				}
				if sum.Turns != 1 || sum.Messages != 5 || h.Messages != 3 || sum.OwnMessages() != 2 {
					t.Errorf("detail %d: turns %d, messages %d (%d copied), want 1 turn, 5 messages (3 copied)", detail, sum.Turns, sum.Messages, h.Messages)
				}
				if detail == session.DetailList {
					continue
				}
				if sum.Usage.Input != 138 || sum.Usage.Output != 20 {
					t.Errorf("own usage %+v, want the second turn's (138 in, 20 out)", sum.Usage)
				}
				if b := sum.Borrowed[from].Usage; b.Input != 136+137 || b.Output != 40 || len(sum.Borrowed) != 1 {
					t.Errorf("borrowed %+v, want the first turn's usage (273 in, 40 out) under %q", sum.Borrowed, from)
				}
				if len(sum.Tools) != 0 || sum.ToolErrors != 0 || len(sum.Responses) > 1 {
					t.Errorf("tools %v, errors %d, responses %d: the copied turn's are counted", sum.Tools, sum.ToolErrors, len(sum.Responses))
				}
			}
			s, err := a.Open(env, ref)
			if err != nil {
				t.Fatal(err)
			}
			var first, last time.Time
			for _, e := range s.Timeline {
				if e.Timestamp.IsZero() {
					continue
				}
				if first.IsZero() || e.Timestamp.Before(first) {
					first = e.Timestamp
				}
				if e.Timestamp.After(last) {
					last = e.Timestamp
				}
			}
			if first.Before(tuiStart) || !first.Before(tuiStart.Add(2*time.Second)) || last.Before(betweenTurns) || last.After(tuiEnd) {
				t.Errorf("the full decoder times the entries from %v to %v, want the source's times", first, last)
			}
		})
	}
}

// TestOldWrittenSessionSummary: a session an older stead wrote records no
// time of writing, and its summary counts everything, as before.
func TestOldWrittenSessionSummary(t *testing.T) {
	a, _ := adapters.Lookup(session.Claude)
	src := samples.Open(t, a, tuiSession)
	old := func(a adapters.Adapter) inject.Writer {
		w := writerFor(a)
		place := w.Place
		w.Place = func(env session.Env, t *session.Target) (session.Placement, error) {
			t.Origin.Written = time.Time{}
			return place(env, t)
		}
		return w
	}
	for _, tg := range writingTargets() {
		t.Run(tg.cli+tg.format, func(t *testing.T) {
			a, _, ref := install(t, src, tg, betweenTurns, old)
			sum, err := a.SummarizeFile(ref, session.DetailFull)
			if err != nil {
				t.Fatal(err)
			}
			if sum.History != nil || len(sum.Borrowed) != 0 {
				t.Errorf("history %+v, borrowed %+v, want none", sum.History, sum.Borrowed)
			}
			if sum.Turns != 2 || sum.Usage.Input != 411 || sum.Usage.Output != 60 || sum.Start.After(tuiStart.Add(2*time.Second)) {
				t.Errorf("turns %d, usage %+v, start %v: want every turn counted from the source's start", sum.Turns, sum.Usage, sum.Start)
			}
		})
	}
}
