package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// sessionFile is the file of a session in a test's stores.
func sessionFile(t *testing.T, env session.Env, id string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(env.Vars["CLAUDE_CONFIG_DIR"], "projects", "*", id+".jsonl"))
	if len(m) != 1 {
		t.Fatalf("files of %s: %q", id, m)
	}
	return m[0]
}

// TestSessionPrefix: a prefix of a session's id that no other id starts
// with names it wherever its id does; a prefix several ids start with is
// an error listing them (exit 3); a full id wins over the ids it is a
// prefix of; a prefix shorter than session.MinPrefix names nothing.
func TestSessionPrefix(t *testing.T) {
	env := homes(t)
	full := strings.TrimPrefix(claudeSession, "claude:")
	want := mustRun(t, env, "session", "show", claudeSession)
	for _, ref := range []string{full[:8], full[:13], "claude:" + full[:8]} {
		if got := mustRun(t, env, "session", "show", ref); got != want {
			t.Errorf("show %s is not show %s", ref, claudeSession)
		}
	}
	fork := mustRun(t, env, "session", "fork", full[:8], "--to", "codex", "--json", "-o", filepath.Join(t.TempDir(), "fork.jsonl"))
	if !strings.Contains(fork, full) {
		t.Errorf("fork %s did not fork %s:\n%s", full[:8], full, fork)
	}

	// A copy of the session under an id that starts the same way, and
	// one under an id that starts with the whole id.
	file := sessionFile(t, env, full)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	twin := full[:8] + "-0000-4000-8000-000000000000"
	write(t, filepath.Join(filepath.Dir(file), twin+".jsonl"), data)
	write(t, filepath.Join(filepath.Dir(file), full+"-copy.jsonl"), data)

	_, errOut, code := run(t, env, "session", "show", full[:8])
	if code != ExitNotFound || !strings.Contains(errOut, `"`+full[:8]+`" names 3 sessions`) {
		t.Errorf("show of an ambiguous prefix: exit %d, want %d naming 3 sessions:\n%s", code, ExitNotFound, errOut)
	}
	for _, id := range []string{full, twin, full + "-copy"} {
		if !strings.Contains(errOut, "claude:"+id+" ") {
			t.Errorf("the ambiguous prefix's error does not list claude:%s:\n%s", id, errOut)
		}
	}
	// Each candidate says its CLI, when and its title.
	if n := strings.Count(errOut, "  claude  "); n != 3 || strings.Count(errOut, "Please run a command for me") != 3 {
		t.Errorf("the candidates do not each say their CLI and title:\n%s", errOut)
	}
	if got := mustRun(t, env, "session", "show", full); got != want {
		t.Errorf("show %s (a full id, and the start of another) is not the session", full)
	}
	if got := mustRun(t, env, "session", "show", twin[:10]); !strings.Contains(got, "claude:"+twin) {
		t.Errorf("show %s did not show %s:\n%s", twin[:10], twin, got)
	}
	_, errOut, code = run(t, env, "session", "show", full[:3])
	if code != ExitNotFound || !strings.Contains(errOut, "no session") {
		t.Errorf("show of a 3-character prefix: exit %d, %q", code, errOut)
	}
}

// TestRunPrefix: a prefix of a run's id names the run in run:<run>
// references and the commands that take a run, as its id does; one that
// several runs' ids start with is an error listing them (exit 3).
func TestRunPrefix(t *testing.T) {
	env := busEnv(t, homes(t))
	file := filepath.Join(t.TempDir(), "one.json")
	mustRun(t, env, "session", "export", claudeSession, "--format", "usf", "-o", file)
	var runs []string
	for range 2 {
		var imp struct{ Sessions []struct{ Run string } }
		if err := json.Unmarshal([]byte(mustRun(t, env, "session", "import", file, "--json")), &imp); err != nil || len(imp.Sessions) != 1 {
			t.Fatalf("import: %v %+v", err, imp)
		}
		runs = append(runs, imp.Sessions[0].Run)
	}
	// Run ids are <date>-<time>-<random>: the random part tells them
	// apart.
	date, short := runs[0][:8], runs[0][:len(runs[0])-4]
	want := mustRun(t, env, "session", "show", "run:"+runs[0])
	if got := mustRun(t, env, "session", "show", "run:"+short); got != want {
		t.Errorf("show run:%s is not show run:%s", short, runs[0])
	}
	_, errOut, code := run(t, env, "stop", short)
	if code != ExitOK || !strings.Contains(errOut, "run "+runs[0]+" had already ended") {
		t.Errorf("stop %s: exit %d, %q", short, code, errOut)
	}

	for _, args := range [][]string{{"session", "show", "run:" + date}, {"stop", date}, {"watch", date}} {
		_, errOut, code := run(t, env, args...)
		if code != ExitNotFound || !strings.Contains(errOut, `"`+date+`" names 2 runs`) ||
			!strings.Contains(errOut, runs[0]) || !strings.Contains(errOut, runs[1]) || !strings.Contains(errOut, " claude ") {
			t.Errorf("stead %s: exit %d, want %d listing both runs:\n%s", strings.Join(args, " "), code, ExitNotFound, errOut)
		}
	}
	_, errOut, code = run(t, env, "watch", "19990101")
	if code != ExitNotFound || !strings.Contains(errOut, "no such run") {
		t.Errorf("watch of no run: exit %d, %q", code, errOut)
	}
}

// TestABPrefix: ab show takes a prefix of an A/B run's id.
func TestABPrefix(t *testing.T) {
	env := homes(t)
	env.Vars["XDG_STATE_HOME"] = t.TempDir()
	for i, id := range []string{"ab-20261103-140205-0123456789ab", "ab-20261103-150000-fedcba987654"} {
		ab := &runs.AB{ID: id, Prompt: "prompt " + id, Project: "/p", Started: time.Date(2026, 11, 3, 14+i, 0, 0, 0, time.UTC),
			Variants: []runs.Variant{{Name: "claude", CLI: "claude"}, {Name: "codex", CLI: "codex"}}}
		if err := runs.SaveAB(abRoot(env), ab); err != nil {
			t.Fatal(err)
		}
	}
	out := mustRun(t, env, "ab", "show", "ab-20261103-15", "--json")
	if !strings.Contains(out, `"id": "ab-20261103-150000-fedcba987654"`) {
		t.Errorf("ab show of a prefix:\n%s", out)
	}
	_, errOut, code := run(t, env, "ab", "show", "ab-20261103")
	if code != ExitNotFound || !strings.Contains(errOut, `names 2 A/B runs`) || !strings.Contains(errOut, "claude,codex") ||
		!strings.Contains(errOut, "prompt ab-20261103-140205-0123456789ab") {
		t.Errorf("ab show of an ambiguous prefix: exit %d:\n%s", code, errOut)
	}
	_, errOut, code = run(t, env, "ab", "show", "ab-20991231")
	if code != ExitNotFound || strings.Contains(errOut, "session not found") {
		t.Errorf("ab show of no A/B run: exit %d, %q", code, errOut)
	}
}

// TestStatsIDsResolve: each session id the stats table prints names that
// session when pasted into stead session show.
func TestStatsIDsResolve(t *testing.T) {
	env := allHomes(t)
	var full listed
	if err := json.Unmarshal([]byte(mustRun(t, env, "session", "list", "--json", "--subagents")), &full); err != nil {
		t.Fatal(err)
	}
	clis := map[string]bool{}
	rows := 0
	for line := range strings.Lines(mustRun(t, env, "session", "stats", "--subagents")) {
		fields := strings.Fields(line)
		if len(fields) < 2 || fields[0] == "CLI" {
			continue
		}
		if fields[0] == "TOTAL" {
			break
		}
		cli, short := fields[0], fields[1]
		rows++
		clis[cli] = true
		out, errOut, code := run(t, env, "session", "show", short, "--json")
		var s struct {
			ID     string `json:"id"`
			Source struct {
				CLI string `json:"cli"`
			} `json:"source"`
		}
		if code != ExitOK || json.Unmarshal([]byte(out), &s) != nil || s.Source.CLI != cli || !strings.HasPrefix(s.ID, short) {
			t.Errorf("stats prints %s %s; show %s: exit %d, %s:%s\n%s", cli, short, short, code, s.Source.CLI, s.ID, errOut)
		}
	}
	if rows != len(full.Sessions) || len(clis) != 5 {
		t.Errorf("stats printed %d sessions of %d CLIs, list %d", rows, len(clis), len(full.Sessions))
	}
}

// shownID is an entry's id as a transcript shows it, after its heading.
var shownID = regexp.MustCompile("^(?:## |\\*\\*Tool call\\*\\* |\\*\\*Result\\*\\* |<details><summary>|> ).* · `([^`]+)`")

// TestShortEntryIDsFork: every entry a transcript (stead session show)
// shows is followed by its id, shortened to a prefix that fork --at reads
// as that entry and no other, in every CLI's sessions.
func TestShortEntryIDsFork(t *testing.T) {
	env := allHomes(t)
	var got listed
	if err := json.Unmarshal([]byte(mustRun(t, env, "session", "list", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	short := 0
	for _, ls := range got.Sessions {
		ref := ls.CLI + ":" + ls.ID
		s, err := session.Unmarshal([]byte(mustRun(t, env, "session", "show", ref, "--json", "--no-native")))
		if err != nil {
			t.Fatal(err)
		}
		var shown []string
		for line := range strings.Lines(mustRun(t, env, "session", "show", ref, "--all")) {
			if m := shownID.FindStringSubmatch(line); m != nil {
				shown = append(shown, m[1])
			}
		}
		if len(shown) == 0 {
			t.Errorf("show %s shows no entry id", ref)
			continue
		}
		for _, id := range shown {
			cut := *s
			full, err := runs.Cut(&cut, id)
			if err != nil {
				t.Errorf("%s: --at %s: %v", ref, id, err)
				continue
			}
			if !strings.HasPrefix(full, id) {
				t.Errorf("%s: --at %s names entry %s", ref, id, full)
			}
			if id != full {
				short++
			}
		}
		// The command itself, at the middle entry shown.
		at := shown[len(shown)/2]
		var rep struct {
			Source session.Origin `json:"source"`
		}
		out := mustRun(t, env, "session", "fork", ref, "--at", at, "--to", "claude", "--json", "--cwd", t.TempDir(), "-o", filepath.Join(t.TempDir(), "fork.jsonl"))
		if err := json.Unmarshal([]byte(out), &rep); err != nil || !strings.HasPrefix(rep.Source.At, at) {
			t.Errorf("fork %s --at %s: %v, forked at %q", ref, at, err, rep.Source.At)
		}
	}
	if short == 0 {
		t.Error("no entry id was shortened")
	}
}
