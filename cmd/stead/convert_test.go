package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stead-dev/stead/internal/atomicfile"
	"github.com/stead-dev/stead/session"
)

const claudeSession = "claude:6cccbe0a-a5b6-4c51-bd4c-d322261e2887"

// TestConvertInstall converts a real Claude Code session into every other
// CLI's store and checks stead then reads it back there, with the command
// that resumes it.
func TestConvertInstall(t *testing.T) {
	env := allHomes(t)
	resume := map[string]*regexp.Regexp{
		session.Codex:    regexp.MustCompile(`cd \S+ && codex resume ([0-9a-f-]{36})`),
		session.Claude:   regexp.MustCompile(`cd \S+ && claude --resume ([0-9a-f-]{36})`),
		session.Gemini:   regexp.MustCompile(`cd \S+ && gemini --resume ([0-9a-f-]{36})`),
		session.OpenCode: regexp.MustCompile(`cd \S+ && opencode --session (ses_\w+)`),
		session.Kimi:     regexp.MustCompile(`cd \S+ && kimi -r (session_[0-9a-f-]{36})`),
	}
	for cli, re := range resume {
		t.Run(cli, func(t *testing.T) {
			out := mustRun(t, env, "session", "convert", claudeSession, "--to", cli, "--install", "--cwd", t.TempDir())
			m := re.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no %s resume command in:\n%s", cli, out)
			}
			back := mustRun(t, env, "session", "show", cli+":"+m[1], "--json")
			s, err := session.Unmarshal([]byte(back))
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, e := range s.Timeline {
				if (e.Type == session.User || e.Type == session.Assistant) && e.Kind == "" && e.Content != "" {
					texts = append(texts, e.Content)
				}
			}
			if !strings.Contains(strings.Join(texts, "\n"), "Please run a command for me") {
				t.Errorf("the installed session lacks the source's prompt: %q", texts)
			}
		})
	}
}

func TestConvertJSONAndOutput(t *testing.T) {
	env := allHomes(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "rollout.jsonl")
	rep := mustRun(t, env, "session", "convert", claudeSession, "--to", "codex", "-o", out, "--json")
	var got struct {
		Source    session.Origin `json:"source"`
		Target    session.Target `json:"target"`
		Installed bool           `json:"installed"`
		Entries   int            `json:"entries"`
		ToolCalls int            `json:"toolCalls"`
		Losses    []session.Loss `json:"losses"`
	}
	if err := json.Unmarshal([]byte(rep), &got); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, rep)
	}
	if got.Source.CLI != "claude" || got.Target.CLI != "codex" || got.Installed || got.Entries == 0 || got.ToolCalls != 1 || got.Losses == nil {
		t.Errorf("report %+v", got)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), `"type":"session_meta"`) {
		t.Fatalf("-o wrote %q, %v", b, err)
	}
	// Never over an existing file.
	_, errOut, code := run(t, env, "session", "convert", claudeSession, "--to", "codex", "-o", out)
	if code == ExitOK || !strings.Contains(errOut, "exists") {
		t.Errorf("converting over an existing file: exit %d, %q", code, errOut)
	}
	if b2, _ := os.ReadFile(out); string(b2) != string(b) {
		t.Error("the existing file was changed")
	}
}

func TestConvertErrors(t *testing.T) {
	env := allHomes(t)
	for _, tc := range []struct {
		args []string
		code ExitCode
		msg  string
	}{
		{[]string{"session", "convert", claudeSession}, ExitUsage, "--to is required"},
		{[]string{"session", "convert", claudeSession, "--to", "vim"}, ExitUsage, `unknown CLI "vim"`},
		{[]string{"session", "convert", claudeSession, "--to", "codex", "--fidelity", "high"}, ExitUsage, "--fidelity"},
		{[]string{"session", "convert", claudeSession, "--to", "codex", "--json"}, ExitUsage, "-o FILE or --install"},
		{[]string{"session", "convert", "claude:00000000-0000-4000-8000-000000000000", "--to", "codex"}, ExitNotFound, "session not found"},
	} {
		_, errOut, code := run(t, env, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("stead %s: exit %d, %q; want exit %d mentioning %q", strings.Join(tc.args, " "), code, errOut, tc.code, tc.msg)
		}
	}
}

// TestConvertLogAfterTornRecord: a conversion log whose last record was
// cut short (a full disk) gets the next conversion's record on a line of
// its own, so that both the records before and the new one read back.
func TestConvertLogAfterTornRecord(t *testing.T) {
	env := allHomes(t)
	state := t.TempDir()
	env.Vars["XDG_STATE_HOME"] = state
	logPath := filepath.Join(state, "stead", "conversions.jsonl")
	write(t, logPath, []byte(`{"time":"2026-11-01T00:00:00Z","source":{"cli":"claude"}}`+"\n"+`{"time":"2026-11-02T00:00:00Z","sou`))
	mustRun(t, env, "session", "convert", claudeSession, "--to", "codex", "--install", "--cwd", t.TempDir())
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var targets []string
	torn, err := atomicfile.ReadLines(f, func(_ int, rec []byte) error {
		var r struct {
			Target struct{ CLI string } `json:"target"`
		}
		if err := json.Unmarshal(rec, &r); err != nil {
			return err
		}
		targets = append(targets, r.Target.CLI)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(targets) != 2 || targets[1] != "codex" || len(torn) != 1 || torn[0].Line != 2 {
		t.Errorf("the log holds records for %q and torn lines %v; want the old one and codex's, line 2 torn", targets, torn)
	}
}

// TestConvertInvalidUTF8: a session whose prompt holds bytes that are not
// UTF-8 converts with a warning naming the file and line, also in the
// --json report's warnings, read whole or as it goes (a large file); the
// report does not say nothing was lost. A clean conversion's report has
// an empty warnings array.
func TestConvertInvalidUTF8(t *testing.T) {
	env := allHomes(t)
	files, _ := filepath.Glob(filepath.Join(env.Vars["CLAUDE_CONFIG_DIR"], "projects", "*", "6cccbe0a-a5b6-4c51-bd4c-d322261e2887.jsonl"))
	if len(files) != 1 {
		t.Fatalf("found %q", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	bad := -1
	for i, l := range lines {
		if strings.Contains(l, `"type":"user"`) && strings.Contains(l, `"content":"Please run a command for me"`) {
			lines[i] = strings.Replace(l, "run a command", "run a comm\xff\xfeand", 1)
			bad = i + 1
			break
		}
	}
	if bad < 0 {
		t.Fatal("no prompt line")
	}
	src := filepath.Join(t.TempDir(), "invalid-utf8.jsonl")
	write(t, src, []byte(strings.Join(lines, "\n")))
	want := src + ":" + strconv.Itoa(bad) + ": invalid UTF-8"

	type report struct {
		Losses   []session.Loss    `json:"losses"`
		Warnings []session.Warning `json:"warnings"`
	}
	for _, streamed := range []bool{false, true} {
		t.Run(map[bool]string{false: "whole", true: "streamed"}[streamed], func(t *testing.T) {
			if streamed {
				old := streamAbove
				streamAbove = 0
				t.Cleanup(func() { streamAbove = old })
			}
			_, errOut, code := run(t, env, "session", "convert", src, "--to", "codex", "-o", filepath.Join(t.TempDir(), "out.jsonl"))
			if code != ExitOK || !strings.Contains(errOut, "warning: "+want) || strings.Contains(errOut, "Nothing was lost") {
				t.Errorf("convert: exit %d; want a warning %q and no \"Nothing was lost\":\n%s", code, want, errOut)
			}
			out := mustRun(t, env, "session", "convert", src, "--to", "codex", "-o", filepath.Join(t.TempDir(), "out.jsonl"), "--json")
			var rep report
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, w := range rep.Warnings {
				found = found || strings.HasPrefix(w.String(), want)
			}
			if !found {
				t.Errorf("--json warnings %v lack %q", rep.Warnings, want)
			}
		})
	}
	out := mustRun(t, env, "session", "convert", claudeSession, "--to", "codex", "-o", filepath.Join(t.TempDir(), "clean.jsonl"), "--json")
	if !strings.Contains(out, `"warnings": []`) {
		t.Errorf("a clean conversion's report has no empty warnings array:\n%s", out)
	}
}
