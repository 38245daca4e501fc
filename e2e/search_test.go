package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/internal/clitest"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// TestSearchRealSessions: a session each real CLI wrote against the stub
// is found by a word of its prompt, its shell command, a line of the
// command's output and its thinking, each hit naming that session and an
// entry of it of the right role; and the session forks at a hit's entry.
func TestSearchRealSessions(t *testing.T) {
	for _, c := range clis {
		t.Run(c.name, func(t *testing.T) {
			up := strings.ToUpper(c.name)
			prompt := "Look for the QUOKKA" + up + " marker."
			script := &modelstub.Script{
				Prompts: []string{prompt},
				Turns: []modelstub.Turn{
					{Thinking: "Pondering the WOMBAT" + up + " idea first.", Text: "Running it.",
						Tools: []modelstub.ToolUse{{Tool: session.ToolBash, Args: map[string]any{"command": "echo NUMBAT" + up + "-printed"}}}},
					{Text: "Found it. SEARCH-FINAL"},
				},
			}
			e := clitest.New(t, c.name, script, clitest.In(t.TempDir()))
			r := e.Run(prompt, "")
			succeeded(t, r, "SEARCH-FINAL")
			env := e.StoreEnv()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			ix, err := index.Open(ctx, filepath.Join(t.TempDir(), "index.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			res, err := ix.Refresh(ctx, env, nil)
			if err != nil || res.Added == 0 {
				t.Fatalf("indexing %s's store: %+v, %v", c.name, res, err)
			}
			a, _ := adapters.Lookup(c.name)
			var ref session.Ref
			for _, sr := range e.Sessions() {
				if sr.ID == r.SessionID {
					ref = sr
				}
			}
			s, err := a.Open(env, ref)
			if err != nil {
				t.Fatalf("reading the session %s: %v", r.SessionID, err)
			}
			roles := map[string]string{}
			for _, en := range s.Timeline {
				roles[en.ID] = string(en.Type)
				if en.Thinking != "" {
					roles[en.ID+"/thinking"] = "thinking"
				}
			}
			for _, tc := range []struct{ query, role string }{
				{"quokka" + c.name, "user"},
				{`"echo numbat` + c.name + `"`, "tool_call"},
				{"NUMBAT" + up + "-printed", "tool_result"},
				{"wombat" + c.name, "thinking"},
			} {
				hits, err := ix.Search(ctx, index.Query{Text: tc.query, Roles: []string{tc.role}})
				if err != nil {
					t.Fatalf("search %s: %v", tc.query, err)
				}
				if len(hits) == 0 {
					t.Errorf("search %s (%s): nothing found", tc.query, tc.role)
					continue
				}
				h := hits[0]
				want := tc.role
				if tc.role == "thinking" {
					want = roles[h.Entry+"/thinking"]
				} else {
					want = roles[h.Entry]
				}
				if h.SessionID != r.SessionID || want != tc.role {
					t.Errorf("search %s: hit %s entry %s (a %q here); want an entry of %s of role %s", tc.query, h.Ref(), h.Entry, want, r.SessionID, tc.role)
				}
			}
			hits, err := ix.Search(ctx, index.Query{Text: "quokka" + c.name})
			if err != nil || len(hits) == 0 {
				t.Fatalf("search: %v", err)
			}
			sv := &runs.Supervisor{Env: env, Tool: "stead e2e"}
			fork, err := sv.Fork(s, runs.Fork{At: hits[0].Entry, To: c.name, Dir: e.Dir})
			if err != nil {
				t.Fatalf("fork --at %s: %v", hits[0].Entry, err)
			}
			if fork.Source.At != hits[0].Entry {
				t.Errorf("the fork is at %q; want the hit's entry %s", fork.Source.At, hits[0].Entry)
			}
		})
	}
}

// TestSearchFindsLiveRun: an entry a live run's CLI just wrote is found by
// stead search as soon as stead watch has shown it: the search brings the
// index up to date with the CLI's store, reading only what changed, by
// asking the watcher of the daemon.
func TestSearchFindsLiveRun(t *testing.T) {
	const reply = "The answer is BANDICOOTLIVE. LIVE-REPLY"
	l, ref := newLive(t, "claude", "codex", modelstub.Turn{Text: reply})
	// The index holds the stores as they were before the run. The daemon
	// (started before the index was made) keeps it fresh from then on.
	l.stead("index")
	deadline := time.Now().Add(30 * time.Second)
	for !watched(t, l) {
		if time.Now().After(deadline) {
			t.Fatal("30 s after the index was made, the daemon does not keep it fresh")
		}
		time.Sleep(200 * time.Millisecond)
	}
	var rec live.Run
	out := l.stead("session", "resume", ref, "--to", "codex", "--cwd", l.dir, "--prompt", livePrompt, "--detach", "--json")
	if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.ID == "" {
		t.Fatalf("resume --detach printed %q (%v)", out, err)
	}
	w := l.watch(rec.ID)
	w.until(t, "the reply", 3*time.Minute, replied)
	begin := time.Now()
	var got struct {
		Hits []index.Hit `json:"hits"`
	}
	if err := json.Unmarshal([]byte(l.stead("search", "bandicootlive", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	took := time.Since(begin)
	if len(got.Hits) == 0 {
		t.Fatalf("the live run's reply was not found right after stead watch showed it")
	}
	if h := got.Hits[0]; h.CLI != "codex" || h.Role != "assistant" || h.SessionID != rec.SessionID {
		t.Errorf("hit %+v; want the reply in the run's Codex session %s", h, rec.SessionID)
	}
	t.Logf("found %s after stead watch showed it (the search process, its refresh and query)", took.Round(time.Millisecond))
	if !watched(t, l) {
		t.Error("after the run, the daemon no longer keeps the index fresh")
	}
}

// TestSearchFindsRunFromTheBus: a run whose CLI's store the index does
// not read is found through the bus, its hit naming the run. Here the
// daemon's environment points Codex elsewhere while the detached run
// takes the asking command's (a machine of a NATS cluster is the same
// case: its runs' stores are not this machine's).
func TestSearchFindsRunFromTheBus(t *testing.T) {
	const reply = "The answer is WOMBATBUS. LIVE-REPLY"
	l, ref := newLive(t, "claude", "codex", modelstub.Turn{Text: reply})
	l.daemon.Process.Signal(syscall.SIGTERM)
	l.waitDaemon()
	elsewhere := *l
	elsewhere.env = nil
	for _, kv := range l.env {
		if !strings.HasPrefix(kv, "CODEX_HOME=") {
			elsewhere.env = append(elsewhere.env, kv)
		}
	}
	elsewhere.env = append(elsewhere.env, "CODEX_HOME="+t.TempDir())
	l.daemonEnv = elsewhere.env
	l.startDaemon(l.root)
	elsewhere.stead("index")
	deadline := time.Now().Add(30 * time.Second)
	for !watched(t, &elsewhere) {
		if time.Now().After(deadline) {
			t.Fatal("30 s after the index was made, the daemon does not keep it fresh")
		}
		time.Sleep(200 * time.Millisecond)
	}

	rec, w := l.startRun(t, ref, "codex")
	w.until(t, "the reply", 3*time.Minute, replied)
	begin := time.Now()
	var got struct {
		Hits []index.Hit `json:"hits"`
	}
	for len(got.Hits) == 0 {
		if time.Since(begin) > 10*time.Second {
			t.Fatal("the run's reply was not found 10 s after stead watch showed it")
		}
		if err := json.Unmarshal([]byte(elsewhere.stead("search", "wombatbus", "--json")), &got); err != nil {
			t.Fatal(err)
		}
	}
	took := time.Since(begin)
	t.Logf("found %s after stead watch showed it, through the bus", took.Round(time.Millisecond))
	if took > 2*time.Second {
		t.Errorf("the run's reply was found %s after stead watch showed it; the goal is a second", took.Round(time.Millisecond))
	}
	if h := got.Hits[0]; h.CLI != "codex" || h.Role != "assistant" || h.SessionID != rec.SessionID || h.Run != rec.ID || h.Host != rec.Host {
		t.Errorf("hit %+v; want the reply in the run's Codex session %s, naming run %s on %s", h, rec.SessionID, rec.ID, rec.Host)
	}
	// In the index of the stores the run wrote to, the store's copy is
	// the one found.
	var own struct {
		Hits []index.Hit `json:"hits"`
	}
	if err := json.Unmarshal([]byte(l.stead("search", "wombatbus", "--json")), &own); err != nil {
		t.Fatal(err)
	}
	if len(own.Hits) != 1 || own.Hits[0].Run != "" || own.Hits[0].SessionID != rec.SessionID {
		t.Errorf("searched with the run's own stores: %+v; want one hit, the store's", own.Hits)
	}
}

// watched reports whether the daemon's watcher brings the index up to
// date (stead index says so).
func watched(t *testing.T, l *steadCmd) bool {
	var st struct {
		Refresh index.Refreshed `json:"refresh"`
	}
	if err := json.Unmarshal([]byte(l.stead("index", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	return st.Refresh.Watcher != 0
}
