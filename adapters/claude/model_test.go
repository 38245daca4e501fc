package claude

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stead-dev/stead/session"
)

// TestConfiguredModel: $ANTHROPIC_MODEL, then the project's local and
// shared settings, then the user's, then Claude Code's default; aliases
// resolved.
func TestConfiguredModel(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	env := session.Env{Home: home, Vars: map[string]string{}}
	write := func(path, data string) {
		os.MkdirAll(filepath.Dir(path), 0o700)
		os.WriteFile(path, []byte(data), 0o600)
	}
	check := func(what, want, wantFrom string) {
		t.Helper()
		if m, from := ConfiguredModel(env, dir); m != want || from != wantFrom {
			t.Errorf("%s: %q from %q, want %q from %q", what, m, from, want, wantFrom)
		}
	}
	check("nothing configured", DefaultModel, "default")
	user := filepath.Join(home, ".claude", "settings.json")
	write(user, `{"model": "sonnet"}`)
	check("user settings", "claude-sonnet-5-5", user)
	shared := filepath.Join(dir, ".claude", "settings.json")
	write(shared, `{"model": "claude-haiku-5-5", "permissions": {}}`)
	check("project settings", "claude-haiku-5-5", shared)
	local := filepath.Join(dir, ".claude", "settings.local.json")
	write(local, `{"model": "claude-x-local"}`)
	check("local project settings", "claude-x-local", local)
	env.Vars["ANTHROPIC_MODEL"] = "opus"
	check("ANTHROPIC_MODEL", "claude-opus-5-5", "ANTHROPIC_MODEL")
}
