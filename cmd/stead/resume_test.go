package main

import (
	"strings"
	"testing"
)

// TestMissingCLI: a command that would run a CLI that is not installed
// says how to install it, with its own exit code, before it starts
// anything (no daemon, no "session not found").
func TestMissingCLI(t *testing.T) {
	env := homes(t)
	env.Vars["PATH"] = t.TempDir()
	env.Vars["STEAD_CLI_CACHE"] = t.TempDir()
	env.Vars["XDG_STATE_HOME"] = t.TempDir()
	for _, args := range [][]string{
		{"session", "resume", claudeSession, "--to", "codex", "--detach"},
		{"ab", "--prompt", "hi", "--to", "codex"},
		{"chain", "codex:hi"},
	} {
		_, errOut, code := run(t, env, args...)
		if code != ExitMissingCLI || !strings.Contains(errOut, "scripts/install-clis.sh codex") ||
			!strings.Contains(errOut, "STEAD_CODEX_BIN") || strings.Contains(errOut, "session not found") ||
			strings.Contains(errOut, "started the daemon") {
			t.Errorf("stead %s: exit %d, %q", strings.Join(args, " "), code, errOut)
		}
	}
}
