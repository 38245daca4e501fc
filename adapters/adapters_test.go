package adapters_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/session"
)

// TestSessionID reads the session id out of what each real CLI printed in
// a headless run: its testdata/output/ok.txtar, recorded from the pinned
// version, holds the output (stdout) and the id (want).
func TestSessionID(t *testing.T) {
	for _, a := range adapters.All {
		if a.Driver == nil || a.SessionID == nil {
			continue
		}
		t.Run(a.Name, func(t *testing.T) {
			out := readOutput(t, a.Name, "ok.txtar")
			if got, want := a.SessionID(out["stdout"]), strings.TrimSpace(string(out["want"])); got != want {
				t.Errorf("SessionID = %q, want %q", got, want)
			}
			if got := a.SessionID([]byte("Error: no model\n")); got != "" {
				t.Errorf("SessionID of an error message = %q, want none", got)
			}
		})
	}
}

// readOutput reads a CLI's testdata/output/<name>: the files of a txtar
// archive, by name.
func readOutput(t *testing.T, cli, name string) map[string][]byte {
	t.Helper()
	path := filepath.Join(cli, "testdata", "output", name)
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatalf("%v (record what the pinned %s prints in a headless run)", err, cli)
	}
	files := map[string][]byte{}
	for _, f := range ar.Files {
		files[f.Name] = f.Data
	}
	if files["want"] == nil {
		t.Fatalf("%s holds no want", path)
	}
	return files
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
// model server failed: its testdata/output/failed.txtar, recorded from the
// pinned version, holds the output (stdout, stderr) and the error (want).
func TestFailure(t *testing.T) {
	for _, a := range adapters.All {
		if a.Driver == nil || a.Failure == nil {
			continue
		}
		t.Run(a.Name, func(t *testing.T) {
			out := readOutput(t, a.Name, "failed.txtar")
			if out["stdout"] == nil && out["stderr"] == nil {
				t.Fatal("no sample")
			}
			if got, want := a.Failure(out["stdout"], out["stderr"]), strings.TrimSuffix(string(out["want"]), "\n"); got != want {
				t.Errorf("Failure = %q, want %q", got, want)
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
