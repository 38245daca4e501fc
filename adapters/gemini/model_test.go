package gemini

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// TestConfiguredModel: $GEMINI_MODEL, then the project's settings, then
// the user's, then "auto"; Setup's settings name the model.
func TestConfiguredModel(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	env := session.Env{Home: home, Vars: map[string]string{}}
	check := func(what, want, wantFrom string) {
		t.Helper()
		if m, from := ConfiguredModel(env, dir); m != want || from != wantFrom {
			t.Errorf("%s: %q from %q, want %q from %q", what, m, from, want, wantFrom)
		}
	}
	check("nothing configured", AutoModel, "default")
	user := filepath.Join(home, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(user), 0o700)
	os.WriteFile(user, []byte(Setup(live.Launch{Home: home, Model: "gemini-x-user"}).Files[".gemini/settings.json"]), 0o600)
	check("user settings (Setup's)", "gemini-x-user", user)
	project := filepath.Join(dir, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(project), 0o700)
	os.WriteFile(project, []byte(`{"model": "gemini-x-legacy-string"}`), 0o600)
	check("project settings, model as a string", "gemini-x-legacy-string", project)
	env.Vars["GEMINI_MODEL"] = "gemini-x-env"
	check("GEMINI_MODEL", "gemini-x-env", "GEMINI_MODEL")
}
