package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostileNames are directory names a session or a user could give, each
// trying to run a command when a printed command line is pasted.
func hostileNames(pwned string) []string {
	return []string{
		"proj$(touch " + pwned + ")",
		"proj`touch " + pwned + "`",
		"proj'; touch " + pwned + "; echo '",
		`proj"; touch ` + pwned + `; echo "`,
		"proj\\$(touch " + pwned + ")",
		"proj ${IFS}x; touch " + pwned,
		"proj\ntouch " + pwned,
		"proj\x1b]0;title\x07$(touch " + pwned + ")",
		"proj|touch " + pwned,
		"proj&touch " + pwned + "&",
		"~proj #$(touch " + pwned + ")",
	}
}

// TestResumeCommandPastes pastes the resume command that convert --install
// prints (as text and in --json) into a real shell, for project
// directories named to run a command: the command must reach the real
// directory and run the CLI there, and nothing else may run.
func TestResumeCommandPastes(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	env := allHomes(t)
	root := t.TempDir()
	pwned := filepath.Join(root, "PWNED")
	// A codex that says where it ran and with what.
	bin := filepath.Join(root, "bin")
	os.MkdirAll(bin, 0o700)
	ran := filepath.Join(root, "ran")
	fake := "#!/bin/sh\nprintf '%s\\0' \"$PWD\" \"$@\" > " + ran + "\n"
	if err := os.WriteFile(filepath.Join(bin, "codex"), []byte(fake), 0o700); err != nil {
		t.Fatal(err)
	}
	for i, name := range hostileNames(pwned) {
		dir := filepath.Join(root, "p", strings.Repeat("x", i), name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		text := mustRun(t, env, "session", "convert", claudeSession, "--to", "codex", "--install", "--cwd", dir)
		_, after, ok := strings.Cut(text, "Resume it with:\n\n    ")
		printed, _, _ := strings.Cut(after, "\n\n")
		if !ok || printed == "" {
			t.Fatalf("no resume command in:\n%s", text)
		}
		var rep struct {
			ResumeCommand string `json:"resumeCommand"`
		}
		out := mustRun(t, env, "session", "convert", claudeSession, "--to", "codex", "--install", "--cwd", dir, "--json")
		if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.ResumeCommand == "" {
			t.Fatalf("convert --json: %v\n%s", err, out)
		}
		for _, cmd := range []string{printed, rep.ResumeCommand} {
			os.Remove(ran)
			c := exec.Command(sh, "-c", cmd)
			c.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
			out, err := c.CombinedOutput()
			if _, serr := os.Stat(pwned); serr == nil {
				t.Fatalf("pasting %q ran a command from the directory's name", cmd)
			}
			if err != nil {
				t.Errorf("%q: sh: %v\n%s", cmd, err, out)
				continue
			}
			got, err := os.ReadFile(ran)
			words := strings.Split(string(got), "\x00")
			if err != nil || len(words) < 2 || words[0] != dir || words[1] != "resume" {
				t.Errorf("pasting %q ran codex with %q (%v), want it in %q", cmd, got, err, dir)
			}
		}
	}
}
