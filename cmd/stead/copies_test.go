package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/session"
)

// copyStats is what the tests of copies read of stats --json.
type copyStats struct {
	Sessions []struct {
		CLI             string         `json:"cli"`
		ID              string         `json:"id"`
		DurationSeconds float64        `json:"durationSeconds"`
		Turns           int            `json:"turns"`
		Messages        int            `json:"messages"`
		Tokens          tokensJSON     `json:"tokens"`
		ToolCalls       map[string]int `json:"toolCalls"`
	} `json:"sessions"`
	Totals struct {
		Sessions       int        `json:"sessions"`
		Turns          int        `json:"turns"`
		Messages       int        `json:"messages"`
		Tokens         tokensJSON `json:"tokens"`
		ToolCallsTotal int        `json:"toolCallsTotal"`
	} `json:"totals"`
}

func statsOf(t *testing.T, env session.Env, args ...string) copyStats {
	t.Helper()
	var out copyStats
	if err := json.Unmarshal([]byte(mustRun(t, env, append([]string{"session", "stats", "--json"}, args...)...)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// copiesHome is a home holding one recorded Claude Code session, moved
// to four days ago, with every CLI's store under it. It returns the
// session's path.
func copiesHome(t *testing.T) (session.Env, string) {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	env := session.Env{Home: home, Vars: map[string]string{
		"CLAUDE_CONFIG_DIR": filepath.Join(home, ".claude"), "CODEX_HOME": filepath.Join(home, ".codex"),
		"GEMINI_CLI_HOME": home, "XDG_DATA_HOME": filepath.Join(home, ".local", "share"),
		"KIMI_SHARE_DIR": filepath.Join(home, ".kimi"), "KIMI_CODE_HOME": filepath.Join(home, ".kimi-code"),
	}}
	ar, err := txtar.ParseFile("../../adapters/claude/testdata/tui-session.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, "native/"); ok {
			p := filepath.Join(env.Vars["CLAUDE_CONFIG_DIR"], "projects", "-tmp-proj", name)
			day := time.Now().UTC().AddDate(0, 0, -4).Format("2006-01-02T")
			write(t, p, bytes.ReplaceAll(f.Data, []byte(`"timestamp":"2026-11-21T`), []byte(`"timestamp":"`+day)))
			return env, p
		}
	}
	t.Fatal("no native file")
	return env, ""
}

// TestStatsCopiesCountOnce converts a recorded Claude Code session into
// every other CLI, as stead session convert --install does: the copies'
// history is the source's, so stats totals stay the source's alone; each
// copy starts when it was written and has lasted no time; a period of the
// last hour holds the copies but none of the history's usage. With the
// source gone, its history counts once, with one of the copies, and still
// in its own period only.
func TestStatsCopiesCountOnce(t *testing.T) {
	env, src := copiesHome(t)
	const id = "742233ee-d311-4040-bf40-f490e4667f65"
	alone := statsOf(t, env)
	if alone.Totals.Sessions != 1 || alone.Totals.Tokens.Input != 411 || alone.Totals.Turns != 2 {
		t.Fatalf("the source alone: %+v", alone.Totals)
	}
	cwd := t.TempDir()
	targets := []string{session.Codex, session.Gemini, session.OpenCode, session.Kimi}
	for _, cli := range targets {
		mustRun(t, env, "session", "convert", "claude:"+id, "--to", cli, "--install", "--cwd", cwd)
	}

	all := statsOf(t, env)
	if all.Totals.Sessions != 1+len(targets) {
		t.Fatalf("%d sessions, want the source and %d copies", all.Totals.Sessions, len(targets))
	}
	if all.Totals.Tokens != alone.Totals.Tokens || all.Totals.Turns != alone.Totals.Turns ||
		all.Totals.ToolCallsTotal != alone.Totals.ToolCallsTotal || all.Totals.Messages != alone.Totals.Messages {
		t.Errorf("totals with the copies %+v, want the source's alone %+v", all.Totals, alone.Totals)
	}
	for _, s := range all.Sessions {
		if s.CLI == session.Claude {
			continue
		}
		if s.DurationSeconds > 60 || s.Turns != 0 || s.Messages != 0 || s.Tokens != (tokensJSON{}) || len(s.ToolCalls) != 0 {
			t.Errorf("the %s copy: %.0fs long, %d turns, %d messages, tokens %+v, tools %v: want nothing of its own yet",
				s.CLI, s.DurationSeconds, s.Turns, s.Messages, s.Tokens, s.ToolCalls)
		}
	}
	var listed listed
	if err := json.Unmarshal([]byte(mustRun(t, env, "session", "list", "--json")), &listed); err != nil {
		t.Fatal(err)
	}
	for _, s := range listed.Sessions {
		if s.CLI != session.Claude && (s.Messages != 5 || s.Start == nil || s.End == nil || *s.Start != *s.End) {
			t.Errorf("listed %s copy: %d messages, from %s to %s: want the 5 messages it holds, written just now", s.CLI, s.Messages, deref(s.Start), deref(s.End))
		}
	}

	recent := statsOf(t, env, "--since", "1h")
	if recent.Totals.Sessions != len(targets) || recent.Totals.Tokens != (tokensJSON{}) || recent.Totals.Turns != 0 {
		t.Errorf("--since 1h: %+v, want the %d copies and none of the history's usage", recent.Totals, len(targets))
	}

	if err := os.Remove(src); err != nil {
		t.Fatal(err)
	}
	orphans := statsOf(t, env)
	if orphans.Totals.Tokens != alone.Totals.Tokens || orphans.Totals.Turns != 0 {
		t.Errorf("without the source: totals %+v, want its usage %+v once and no turns", orphans.Totals, alone.Totals.Tokens)
	}
	if recent := statsOf(t, env, "--since", "1h"); recent.Totals.Tokens != (tokensJSON{}) {
		t.Errorf("without the source, --since 1h: tokens %+v, want none: the history is four days old", recent.Totals.Tokens)
	}
	if old := statsOf(t, env, "--until", "1d"); old.Totals.Tokens != alone.Totals.Tokens || old.Totals.Sessions != 1 {
		t.Errorf("without the source, --until 1d: %+v, want the history's usage in one session", old.Totals)
	}
}

func deref(s *string) string {
	if s == nil {
		return "(none)"
	}
	return *s
}
