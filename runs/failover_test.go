package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// TestContinuation: a worker taking over a run continues from the history
// and every entry the bus captured; the prompt whose turn was not over is
// typed again, on a session that ends before it, and nothing else is.
func TestContinuation(t *testing.T) {
	user := func(id, text string) session.Entry { return session.Entry{ID: id, Type: session.User, Content: text} }
	answer := func(id, text string) session.Entry {
		return session.Entry{ID: id, Type: session.Assistant, Content: text}
	}
	call := func(id string) session.Entry {
		return session.Entry{ID: id, Type: session.ToolCall, Tool: session.Tool("shell")}
	}
	for _, tc := range []struct {
		name     string
		prompt   string // the run's first prompt
		captured []session.Entry
		states   []live.RunState
		retype   string
		kept     int // captured entries in the session continued
	}{
		{"killed while the model answered the first prompt", "FIRST", []session.Entry{user("u1", "FIRST")},
			[]live.RunState{live.RunStarting, live.RunReady, live.RunBusy}, "FIRST", 0},
		{"killed during a tool call of the turn", "FIRST", []session.Entry{user("u1", "FIRST"), answer("a1", "I will look."), call("c1")},
			[]live.RunState{live.RunReady, live.RunBusy}, "FIRST", 0},
		{"killed before the prompt reached the session", "FIRST", nil,
			[]live.RunState{live.RunStarting}, "FIRST", 0},
		{"killed once the turn was over", "FIRST", []session.Entry{user("u1", "FIRST"), answer("a1", "Done.")},
			[]live.RunState{live.RunBusy, live.RunReady}, "", 2},
		{"killed during a later prompt sent on the bus", "FIRST", []session.Entry{user("u1", "FIRST"), answer("a1", "Done."), user("u2", "SECOND")},
			[]live.RunState{live.RunBusy, live.RunReady, live.RunBusy}, "SECOND", 2},
		{"an interactive run killed while idle", "", []session.Entry{user("u1", "FIRST"), answer("a1", "Done.")},
			[]live.RunState{live.RunBusy, live.RunReady}, "", 2},
		{"a failover's own state is not the run's", "FIRST", []session.Entry{user("u1", "FIRST")},
			[]live.RunState{live.RunBusy, live.RunFailover}, "FIRST", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := bus.New(context.Background(), bus.Options{StoreDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			ctx := context.Background()
			run := NewID()
			history := &session.Session{Source: session.Source{CLI: "claude"}, Timeline: []session.Entry{user("h1", "HISTORY"), answer("h2", "HISTORY-ANSWER")}}
			if err := putHistory(ctx, b, run, history); err != nil {
				t.Fatal(err)
			}
			for i, e := range tc.captured {
				data, _ := json.Marshal(session.Event{Line: i + 1, Entries: []session.Entry{e}})
				if err := b.Publish(ctx, run, bus.Entry, data, fmt.Sprintf("%s:e:%s", run, e.ID)); err != nil {
					t.Fatal(err)
				}
			}
			for _, st := range tc.states {
				data, _ := json.Marshal(live.Status{Run: run, State: st, Time: time.Now()})
				if err := b.Publish(ctx, run, bus.Status, data, ""); err != nil {
					t.Fatal(err)
				}
			}
			sv := &Supervisor{Bus: b}
			prior := live.Run{ID: run, CLI: "codex", State: live.RunBusy, PID: 1}
			res, s, err := sv.continuation(ctx, prior, Spec{ID: run, To: "codex", Prompt: tc.prompt})
			if err != nil {
				t.Fatal(err)
			}
			if res.retype != tc.retype || res.captured != len(tc.captured) {
				t.Errorf("retype %q, captured %d; want %q, %d", res.retype, res.captured, tc.retype, len(tc.captured))
			}
			var got []string
			for _, e := range s.Timeline {
				got = append(got, e.ID)
			}
			want := []string{"h1", "h2"}
			for _, e := range tc.captured[:tc.kept] {
				want = append(want, e.ID)
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("the session continued holds %v; want %v", got, want)
			}
			if s.Timeline[0].CLI != "claude" {
				t.Errorf("the history's entries lost their CLI: %+v", s.Timeline[0])
			}
		})
	}
}

// TestContinueIn: a run continues in its own CLI where it is installed,
// else in the first of its fallbacks that is; where none is, the error
// names them all.
func TestContinueIn(t *testing.T) {
	empty := t.TempDir()
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{"PATH": empty, "STEAD_CLAUDE_BIN": "/bin/true"}}
	spec := Spec{ID: "r", To: "codex", Fallback: []string{"gemini", "claude"}}
	if got, err := continueIn(env, spec); err != nil || got != "claude" {
		t.Errorf("continueIn with codex and gemini missing = %q, %v; want claude", got, err)
	}
	env.Vars["STEAD_CODEX_BIN"] = "/bin/true"
	if got, err := continueIn(env, spec); err != nil || got != "codex" {
		t.Errorf("continueIn with codex installed = %q, %v; want codex", got, err)
	}
	delete(env.Vars, "STEAD_CODEX_BIN")
	delete(env.Vars, "STEAD_CLAUDE_BIN")
	if _, err := continueIn(env, spec); err == nil || !strings.Contains(err.Error(), "codex, gemini, claude") {
		t.Errorf("continueIn with none installed: %v; want an error naming all three", err)
	}
}
