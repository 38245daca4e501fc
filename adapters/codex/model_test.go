package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// TestConfiguredModel: config.toml's top-level model (not a table's), and
// none ("default") without one.
func TestConfiguredModel(t *testing.T) {
	home := t.TempDir()
	env := session.Env{Home: home, Vars: map[string]string{}}
	if m, from := ConfiguredModel(env); m != "" || from != "default" {
		t.Errorf("nothing configured: %q from %q", m, from)
	}
	path := filepath.Join(home, ".codex", "config.toml")
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte(Setup(live.Launch{Home: home, BaseURL: "http://127.0.0.1:9", Model: "gpt-x"}).Files[".codex/config.toml"]), 0o600)
	if m, from := ConfiguredModel(env); m != "gpt-x" || from != path {
		t.Errorf("Setup's config.toml: %q from %q", m, from)
	}
	os.WriteFile(path, []byte("[profiles.fast]\nmodel = \"gpt-fast\"\n"), 0o600)
	if m, _ := ConfiguredModel(env); m != "" {
		t.Errorf("a profile's model taken as the top level's: %q", m)
	}
	// A line of any length, and a last line without its newline.
	os.WriteFile(path, []byte("# "+strings.Repeat("x", 2<<20)+"\nmodel = \"gpt-after\""), 0o600)
	if m, _ := ConfiguredModel(env); m != "gpt-after" {
		t.Errorf("the model after a 2 MB line: %q", m)
	}
}
