package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotFoundSaysWhat: a template, a scenario or an A/B run that does not
// exist exits 3 saying so, not "session not found"; a store stead cannot
// read is the error (exit 1), not a session that is not there.
func TestNotFoundSaysWhat(t *testing.T) {
	env := homes(t)
	env.Vars["XDG_STATE_HOME"] = t.TempDir()
	env.Vars["XDG_CONFIG_HOME"] = t.TempDir()
	for _, args := range [][]string{
		{"template", "show", "nope"},
		{"scenario", "run", filepath.Join(t.TempDir(), "nope.yaml")},
		{"ab", "show", "ab-20991231-000000-000000000000"},
	} {
		_, errOut, code := run(t, env, args...)
		if code != ExitNotFound || strings.Contains(errOut, "session not found") {
			t.Errorf("stead %s: exit %d, want %d without \"session not found\": %q", strings.Join(args, " "), code, ExitNotFound, errOut)
		}
	}

	bad := filepath.Join(t.TempDir(), "opencode.db")
	if err := os.WriteFile(bad, []byte("not a database\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env.Vars["OPENCODE_DB"] = bad
	const id = "ses_e0079bc40ffeWGiAVrGg0Ba6kx"
	for _, ref := range []string{"opencode:" + id, id} {
		_, errOut, code := run(t, env, "session", "show", ref)
		if code != ExitError || !strings.Contains(errOut, "not a SQLite database") || strings.Contains(errOut, "not found") {
			t.Errorf("show %s from a store that cannot be read: exit %d, want %d saying why: %q", ref, code, ExitError, errOut)
		}
	}
}
