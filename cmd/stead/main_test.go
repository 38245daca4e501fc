package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// homes is a Claude config dir and a Codex home of the adapters'
// testdata (samples.ClaudeCodex).
func homes(t *testing.T) session.Env { return samples.ClaudeCodex(t) }

func write(t *testing.T, path string, data []byte) { samples.Write(t, path, data) }

// run runs stead in-process and returns its output and exit code.
func run(t *testing.T, env session.Env, args ...string) (stdout, stderr string, code ExitCode) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = MainEnv(args, &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, env)
	return out.String(), errOut.String(), code
}

func mustRun(t *testing.T, env session.Env, args ...string) string {
	t.Helper()
	out, errOut, code := run(t, env, args...)
	if code != ExitOK {
		t.Fatalf("stead %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

type listed struct {
	Sessions []struct {
		CLI      string  `json:"cli"`
		ID       string  `json:"id"`
		Project  string  `json:"project"`
		Title    string  `json:"title"`
		Start    *string `json:"start"`
		End      *string `json:"end"`
		Messages int     `json:"messages"`
		Turns    int     `json:"turns"`
		Path     string  `json:"path"`
	} `json:"sessions"`
	Warnings []session.Warning `json:"warnings"`
}

func TestListJSON(t *testing.T) {
	env := homes(t)
	var got listed
	if err := json.Unmarshal([]byte(mustRun(t, env, "session", "list", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	// Every session file appears once with --subagents; without, the
	// subagent sessions (Claude's agent-*.jsonl files, a Codex thread
	// another spawned) are left out.
	files, subagents := 0, 1
	for _, root := range []string{env.Vars["CLAUDE_CONFIG_DIR"], env.Vars["CODEX_HOME"]} {
		filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err == nil && strings.HasSuffix(p, ".jsonl") {
				files++
				if strings.HasPrefix(filepath.Base(p), "agent-") {
					subagents++
				}
			}
			return nil
		})
	}
	if all := sessionsIn(t, env); len(all) != files {
		t.Errorf("listed %d sessions with --subagents, there are %d files", len(all), files)
	}
	if len(got.Sessions) != files-subagents {
		t.Errorf("listed %d sessions, want %d (all but %d subagents)", len(got.Sessions), files-subagents, subagents)
	}
	seen := map[string]bool{}
	for _, s := range got.Sessions {
		key := s.CLI + ":" + s.ID
		if seen[key] {
			t.Errorf("%s listed twice", key)
		}
		seen[key] = true
		if s.CLI == "" || s.ID == "" || s.Path == "" || s.Start == nil || s.End == nil {
			t.Errorf("incomplete entry %+v", s)
		}
	}
	// Known sessions, checked field by field against the files.
	want := map[string]struct {
		project, start, end string
		messages, turns     int
	}{
		"claude:742233ee-d311-4040-bf40-f490e4667f65": {"/home/dev/lab-claude/work/tui1", "2026-11-21T19:15:23.732Z", "2026-11-21T19:15:50.052Z", 5, 2},
		"codex:01a1ff86-0e88-7863-a344-97213dbbd07a":  {"/home/dev/lab-codex/work/proj1", "2026-11-21T19:12:18.080Z", "2026-11-21T19:12:30.343Z", 4, 2},
		"codex:01a1ff87-612f-7d81-a969-d7b8bb66e562":  {"/home/dev/lab-codex/work/tui1", "2026-11-21T19:13:55.760Z", "2026-11-21T19:15:13.959Z", 10, 5},
	}
	for _, s := range got.Sessions {
		w, ok := want[s.CLI+":"+s.ID]
		if !ok {
			continue
		}
		delete(want, s.CLI+":"+s.ID)
		if s.Project != w.project || *s.Start != w.start || *s.End != w.end || s.Messages != w.messages || s.Turns != w.turns {
			t.Errorf("%s:%s = project %s start %s end %s messages %d turns %d, want %+v", s.CLI, s.ID, s.Project, *s.Start, *s.End, s.Messages, s.Turns, w)
		}
	}
	if len(want) > 0 {
		t.Errorf("not listed: %v", want)
	}
	// Newest first.
	for i := 1; i < len(got.Sessions); i++ {
		if *got.Sessions[i-1].Start < *got.Sessions[i].Start {
			t.Errorf("not newest first at %d", i)
		}
	}
	// The malformed lines of the hand-written cases are reported with
	// file and line.
	found := false
	for _, w := range got.Warnings {
		if strings.HasSuffix(w.Path, "5e55e55e-0000-4000-8000-000000000001.jsonl") && w.Line == 27 {
			found = true
		}
	}
	if !found {
		t.Errorf("warnings do not name the malformed line: %+v", got.Warnings)
	}

	// Filters.
	var claudeOnly listed
	json.Unmarshal([]byte(mustRun(t, env, "session", "list", "--json", "--cli", "claude", "--subagents")), &claudeOnly)
	sub := false
	for _, s := range claudeOnly.Sessions {
		if s.CLI != "claude" {
			t.Errorf("--cli claude listed %s", s.CLI)
		}
		sub = sub || s.ID == "agent-a9211ce"
	}
	if !sub {
		t.Error("--subagents did not list the subagent")
	}
	var proj listed
	json.Unmarshal([]byte(mustRun(t, env, "session", "list", "--json", "--project", "/home/dev/lab-codex/work/proj1")), &proj)
	for _, s := range proj.Sessions {
		if s.Project != "/home/dev/lab-codex/work/proj1" {
			t.Errorf("--project listed %s", s.Project)
		}
	}
	if len(proj.Sessions) == 0 {
		t.Error("--project matched nothing")
	}
}

func TestListHuman(t *testing.T) {
	env := homes(t)
	out := mustRun(t, env, "session", "list", "-n", "3")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "CLI") {
		t.Errorf("table:\n%s", out)
	}
	// Empty stores.
	empty := session.Env{Home: t.TempDir(), Vars: map[string]string{}}
	out, errOut, code := run(t, empty, "session", "list")
	if code != ExitOK || out != "" || !strings.Contains(errOut, "no sessions found") {
		t.Errorf("empty: %q %q %d", out, errOut, code)
	}
	out = mustRun(t, empty, "session", "list", "--json")
	if !strings.Contains(out, `"sessions": []`) {
		t.Errorf("empty json: %s", out)
	}
}

func TestExitCodes(t *testing.T) {
	env := homes(t)
	for _, tt := range []struct {
		args []string
		code ExitCode
		msg  string
	}{
		{[]string{"session", "show", "claude:00000000-0000-4000-8000-000000000000"}, ExitNotFound, "not found"},
		{[]string{"session", "show", "nothing-like-this"}, ExitNotFound, "no session"},
		{[]string{"session", "show"}, ExitUsage, "exactly one"},
		{[]string{"session", "show", "--format", "xml", "x"}, ExitUsage, "--format"},
		{[]string{"session", "list", "--cli", "vim"}, ExitUsage, "unknown CLI"},
		{[]string{"session", "list", "--since", "last tuesday"}, ExitUsage, "--since"},
		{[]string{"session", "list", "--bogus"}, ExitUsage, "unknown flag"},
		{[]string{"session", "stats", "--config", "/nonexistent/config.json"}, ExitError, "config"},
	} {
		_, errOut, code := run(t, env, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.msg) {
			t.Errorf("stead %s: exit %d, stderr %q; want exit %d mentioning %q", strings.Join(tt.args, " "), code, errOut, tt.code, tt.msg)
		}
	}
}

func TestSchemaCommand(t *testing.T) {
	out := mustRun(t, session.Env{}, "schema")
	if !bytes.Equal([]byte(out), session.Schema) {
		t.Error("schema output differs from the embedded schema")
	}
}

// sessionsIn returns cli:id for every listed session.
func sessionsIn(t *testing.T, env session.Env) []string {
	var got listed
	if err := json.Unmarshal([]byte(mustRun(t, env, "session", "list", "--json", "--subagents")), &got); err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, s := range got.Sessions {
		refs = append(refs, s.CLI+":"+s.ID)
	}
	sort.Strings(refs)
	return refs
}

var _ = usftest.Validate

// TestUnknownCommand: an unknown command, at the top or in a group, is a
// usage error (exit 2) that suggests the command meant; a group alone
// prints its help.
func TestUnknownCommand(t *testing.T) {
	env := homes(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sesion", "list"}, `unknown command "sesion" for "stead"; did you mean session?`},
		{[]string{"session", "stat"}, `unknown command "stat" for "stead session"; did you mean stats?`},
		{[]string{"serve", "bogus"}, `unknown command "bogus" for "stead serve"`},
		{[]string{"nothing-like-it"}, `unknown command "nothing-like-it" for "stead"`},
	} {
		out, errOut, code := run(t, env, c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("stead %v: exit %d, want %d and %q\n%s%s", c.args, code, ExitUsage, c.want, out, errOut)
		}
	}
	out, errOut, code := run(t, env, "session")
	if code != ExitOK || !strings.Contains(out, "Available Commands") {
		t.Errorf("stead session: exit %d, want its help\n%s%s", code, out, errOut)
	}
	out, _, _ = run(t, env, "--help")
	for _, cmd := range []string{"convert", "resume", "ab", "chain", "serve", "scenario", "Exit codes"} {
		if !strings.Contains(out, cmd) {
			t.Errorf("stead --help does not mention %s:\n%s", cmd, out)
		}
	}
}
