package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/index"
)

type searched struct {
	Query string      `json:"query"`
	Hits  []index.Hit `json:"hits"`
}

// TestSearchEveryCLI: stead search finds entries of each CLI's sessions
// (a prompt, a tool call's command, a tool's output), each hit names a
// session and entry that show --at shows and fork --at forks at.
func TestSearchEveryCLI(t *testing.T) {
	env := allHomes(t)
	env.Vars["XDG_CACHE_HOME"] = t.TempDir()
	var st struct {
		Index   index.Status     `json:"index"`
		Refresh *index.Refreshed `json:"refresh"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, env, "index", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Refresh == nil || st.Refresh.Added == 0 || st.Index.Sessions != st.Refresh.Added || st.Index.Entries == 0 {
		t.Fatalf("stead index: %+v %+v", st.Index, st.Refresh)
	}
	for _, cli := range adapters.Names() {
		for _, role := range []string{"user", "tool_call", "tool_result"} {
			var got searched
			out := mustRun(t, env, "search", "the OR a OR run OR file", "--cli", cli, "--role", role, "-n", "3", "--json")
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			if len(got.Hits) == 0 {
				if role == "user" {
					t.Errorf("%s: no prompt found", cli)
				}
				continue
			}
			h := got.Hits[0]
			if h.CLI != cli || h.Role != role || h.Entry == "" || !strings.Contains(h.Snippet, index.Mark) {
				t.Errorf("%s %s: hit %+v", cli, role, h)
				continue
			}
			shown := mustRun(t, env, "session", "show", h.Ref(), "--at", h.Entry, "-C", "0")
			if !strings.Contains(shown, "the one asked for") {
				t.Errorf("%s: show %s --at %s does not show the entry:\n%s", cli, h.Ref(), h.Entry, shown)
			}
			if role == "user" {
				out := mustRun(t, env, "session", "fork", h.Ref(), "--at", h.Entry, "--to", "claude", "--json", "--cwd", t.TempDir(),
					"-o", filepath.Join(t.TempDir(), "fork.jsonl"))
				var rep struct {
					Source struct {
						At string `json:"at"`
					} `json:"source"`
				}
				if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Source.At != h.Entry {
					t.Errorf("%s: fork %s --at %s forked at %q (%v)", cli, h.Ref(), h.Entry, rep.Source.At, err)
				}
			}
		}
	}
	// A second search refreshes nothing, and a filter by session keeps
	// to that session.
	var got searched
	if err := json.Unmarshal([]byte(mustRun(t, env, "search", "the", "--json", "-n", "1")), &got); err != nil || len(got.Hits) != 1 {
		t.Fatalf("search the: %v %+v", err, got)
	}
	ref := got.Hits[0].Ref()
	if err := json.Unmarshal([]byte(mustRun(t, env, "search", "the", "--session", ref, "--json", "-n", "50")), &got); err != nil {
		t.Fatal(err)
	}
	for _, h := range got.Hits {
		if h.Ref() != ref {
			t.Errorf("--session %s found an entry of %s", ref, h.Ref())
		}
	}
}

// TestSearchBadInput: a query stead cannot read names where, and exits
// 2; so do unknown roles and CLIs; a hit's text reaches a terminal made
// safe.
func TestSearchBadInput(t *testing.T) {
	env := homes(t)
	env.Vars["XDG_CACHE_HOME"] = t.TempDir()
	for _, args := range [][]string{
		{"search", `"unclosed`},
		{"search", "x", "--role", "prompt"},
		{"search", "x", "--cli", "emacs"},
		{"search", "OR"},
		{"search"},
	} {
		_, errOut, code := run(t, env, args...)
		if code != ExitUsage {
			t.Errorf("stead %s: exit %d (%s); want %d", strings.Join(args, " "), code, errOut, ExitUsage)
		}
	}
	_, errOut, _ := run(t, env, "search", `say "hello`)
	if !strings.Contains(errOut, "at character 5") {
		t.Errorf("the error does not say where: %s", errOut)
	}
}

// TestHitMadeSafe: a hit's snippet, ref and tool come from session files:
// their escape sequences never reach the terminal, only stead's marks.
func TestHitMadeSafe(t *testing.T) {
	h := index.Hit{CLI: "claude", SessionID: "s\x1b[2J", Entry: "e\x07", Role: "tool_result", Tool: "bash\x1b]0;pwn\x07",
		Snippet: "before \x1b]52;c;ZXZpbA==\x07 " + index.Mark + "rm\x1b[31m" + index.EndMark + " after\r\x1b[1A"}
	for _, colour := range []bool{true, false} {
		var b strings.Builder
		writeHit(&b, h, "", colour)
		out := b.String()
		if colour {
			out = strings.ReplaceAll(strings.ReplaceAll(out, "\x1b[1;31m", ""), "\x1b[0m", "")
		}
		if strings.ContainsAny(out, "\x1b\x07\r") {
			t.Errorf("colour %v: control characters reach the terminal: %q", colour, out)
		}
		if !strings.Contains(b.String(), "rm") {
			t.Errorf("colour %v: the match is lost: %q", colour, b.String())
		}
	}
}

// TestListAndStatsFromTheIndex: session list and stats print the same
// with an index (made by stead index) as without one, in every form.
func TestListAndStatsFromTheIndex(t *testing.T) {
	env := allHomes(t)
	env.Vars["XDG_CACHE_HOME"] = t.TempDir()
	commands := [][]string{
		{"session", "list", "--json", "--subagents"},
		{"session", "list"},
		{"session", "stats", "--json"},
		{"session", "stats", "--by", "day,model", "--json"},
		{"session", "stats"},
	}
	var before []string
	for _, c := range commands {
		before = append(before, mustRun(t, env, c...))
	}
	mustRun(t, env, "index")
	if _, err := os.Stat(index.DefaultPath(env)); err != nil {
		t.Fatal(err)
	}
	for i, c := range commands {
		if got := mustRun(t, env, c...); got != before[i] {
			t.Errorf("stead %s: with the index:\n%s\nwithout:\n%s", strings.Join(c, " "), got, before[i])
		}
	}
}

// list and stats run their collector at answerGC, search and index at
// freshGC, under indexMemory in stead's own process, unless the
// environment says otherwise; a test's process is left as it is.
func TestAnswerFromIndexGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	settings := func() (int, int64) {
		gc := debug.SetGCPercent(100)
		debug.SetGCPercent(gc)
		return gc, debug.SetMemoryLimit(-1)
	}
	reset := func() {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}
	tests := []struct {
		name      string
		process   bool
		gogc, lim string
		gc        int // asked for
		wantGC    int
		wantLimit int64
	}{
		{"stead's process", true, "", "", answerGC, answerGC, indexMemory},
		{"stead's process, a freshness check", true, "", "", freshGC, freshGC, indexMemory},
		{"a test's", false, "", "", answerGC, 100, math.MaxInt64},
		{"GOGC and GOMEMLIMIT set", true, "100", "1GiB", freshGC, 100, math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOGC", tt.gogc)
			t.Setenv("GOMEMLIMIT", tt.lim)
			reset()
			(&Factory{Process: tt.process}).answerFromIndex(tt.gc)
			if gc, limit := settings(); gc != tt.wantGC || limit != tt.wantLimit {
				t.Errorf("GOGC %d, memory limit %d; want %d, %d", gc, limit, tt.wantGC, tt.wantLimit)
			}
		})
	}
}
