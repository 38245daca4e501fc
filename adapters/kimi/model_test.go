package kimi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/session"
)

// TestConfiguredModel: the KIMI_MODEL_* model wins, else config.toml's
// default_model alias names its model; nothing configured is "default".
func TestConfiguredModel(t *testing.T) {
	home := t.TempDir()
	env := session.Env{Home: home, Vars: map[string]string{}}
	if m, from := ConfiguredModel(env); m != "" || from != "default" {
		t.Errorf("nothing configured: %q from %q", m, from)
	}
	cfg := "default_model = \"fake/k2\" # the default\n\n[providers.fake]\ntype = \"kimi\"\n\n[models.\"fake/k2\"]\nprovider = \"fake\"\nmodel = \"fake-k2\"\n\n[models.other]\nmodel = 'other-model'\n"
	os.MkdirAll(filepath.Join(home, ".kimi-code"), 0o700)
	path := filepath.Join(home, ".kimi-code", "config.toml")
	os.WriteFile(path, []byte(cfg), 0o600)
	if m, from := ConfiguredModel(env); m != "fake-k2" || from != path {
		t.Errorf("config.toml: %q from %q", m, from)
	}
	// A line of any length.
	os.WriteFile(path, []byte("# "+strings.Repeat("x", 2<<20)+"\n"+cfg), 0o600)
	if m, _ := ConfiguredModel(env); m != "fake-k2" {
		t.Errorf("the model after a 2 MB line: %q", m)
	}
	env.Vars["KIMI_MODEL_NAME"] = "env-model"
	if m, from := ConfiguredModel(env); m != "env-model" || from != "KIMI_MODEL_NAME" {
		t.Errorf("KIMI_MODEL_NAME: %q from %q", m, from)
	}
}
