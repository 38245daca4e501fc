package adapters_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/session"
)

// TestSessionID reads the session id out of what each real CLI printed in
// a headless run (samples recorded from the pinned versions).
func TestSessionID(t *testing.T) {
	want := map[string]string{
		"claude.json":    "6cccbe0a-a5b6-4c51-bd4c-d322261e2887",
		"codex.jsonl":    "01a1ff86-0e88-7863-a344-97213dbbd07a",
		"gemini.json":    "b28a2652-78ad-40cb-8ef8-a5bc4227158d",
		"opencode.jsonl": "ses_e0079bc40ffeWGiAVrGg0Ba6kx",
		"kimi.jsonl":     "session_424dae73-8f4e-48a0-bcf3-315aeab5f322",
	}
	for file, id := range want {
		cli := file[:len(file)-len(filepath.Ext(file))]
		t.Run(cli, func(t *testing.T) {
			a, ok := adapters.Lookup(cli)
			if !ok || a.Driver == nil || a.SessionID == nil {
				t.Fatalf("no SessionID for %s", cli)
			}
			out, err := os.ReadFile(filepath.Join("testdata", "stdout", file))
			if err != nil {
				t.Fatal(err)
			}
			if got := a.SessionID(out); got != id {
				t.Errorf("SessionID = %q, want %q", got, id)
			}
			if got := a.SessionID([]byte("Error: no model\n")); got != "" {
				t.Errorf("SessionID of an error message = %q, want none", got)
			}
		})
	}
}

// TestLaunch checks every launchable CLI's setup keeps to its home and
// points at the base URL.
func TestLaunch(t *testing.T) {
	for _, a := range adapters.All {
		if a.Driver == nil || a.Setup == nil {
			continue
		}
		t.Run(a.Name, func(t *testing.T) {
			l := launch(t)
			st := a.Setup(l)
			for name := range st.Files {
				p := filepath.Join(l.Home, filepath.FromSlash(name))
				if !strings.HasPrefix(p, l.Home+string(filepath.Separator)) {
					t.Errorf("setup file %q lies outside the home", name)
				}
			}
			seen := false
			for _, kv := range st.Env {
				if contains(kv, "127.0.0.1:4242") {
					seen = true
				}
			}
			for _, f := range st.Files {
				if contains(f, "127.0.0.1:4242") {
					seen = true
				}
			}
			if !seen {
				t.Errorf("neither the environment nor the files name the base URL: %v", st.Env)
			}
			args := a.Argv(l)
			if !containsArg(args, "fix the bug") && !containsArg(args, "bug") {
				t.Errorf("argv %q does not carry the prompt", args)
			}
			l.Resume = "ses-123"
			if args := a.Argv(l); !containsArg(args, "ses-123") {
				t.Errorf("argv %q does not name the session to resume", args)
			}
		})
	}
}

// TestFailure reads the error out of what each real CLI printed when its
// model server failed (samples from the pinned versions; Kimi Code's was
// printed against the stub's injected 500).
func TestFailure(t *testing.T) {
	want := map[string]string{
		"claude":   "API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)",
		"codex":    "We’re currently experiencing high demand, which may cause temporary errors.",
		"gemini":   "fake error 400",
		"opencode": "Cannot connect to API: Unable to connect. Is the computer able to access the url?",
		"kimi":     "failed to run prompt: provider.api_error: 500 stead stub: fault 500 injected at turn 1",
	}
	for cli, msg := range want {
		t.Run(cli, func(t *testing.T) {
			a, _ := adapters.Lookup(cli)
			if a.Driver == nil || a.Failure == nil {
				t.Fatalf("no Failure for %s", cli)
			}
			stdout, _ := os.ReadFile(filepath.Join("testdata", "failure", cli+".stdout"))
			stderr, _ := os.ReadFile(filepath.Join("testdata", "failure", cli+".stderr"))
			if stdout == nil && stderr == nil {
				t.Fatal("no sample")
			}
			if got := a.Failure(stdout, stderr); got != msg {
				t.Errorf("Failure = %q, want %q", got, msg)
			}
		})
	}
}

// TestCallsAreTools checks that the tool a model calls for a universal
// tool is one the CLI's Tools map reads back as that tool, and that the
// stub's candidate list puts the called names first.
func TestCallsAreTools(t *testing.T) {
	for _, a := range adapters.All {
		for u, name := range a.Calls {
			if got := a.Tools[name]; got != u {
				t.Errorf("%s: Calls[%s] = %q, which Tools reads as %q", a.Name, u, name, got)
			}
		}
	}
	names := adapters.NativeTools(session.ToolBash)
	for i, want := range []string{"Bash", "bash", "exec_command", "run_shell_command"} {
		if i >= len(names) || names[i] != want {
			t.Fatalf("NativeTools(bash) = %q, want the called names first: Bash, bash, exec_command, run_shell_command", names)
		}
	}
}
