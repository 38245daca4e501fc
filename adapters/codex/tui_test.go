package codex

import (
	"os"
	"strings"
	"testing"

	"github.com/stead-dev/stead/session"
)

// screens splits the measured screens (shared/clis/samples) by their
// "=== N. title ===" headings.
func screens(t *testing.T) map[string][]string {
	data, err := os.ReadFile("testdata/tui_screens.txt")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	var cur string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "=== ") {
			cur, _, _ = strings.Cut(strings.TrimPrefix(l, "=== "), ".")
			continue
		}
		if cur != "" && !strings.HasPrefix(l, "(") {
			out[cur] = append(out[cur], l)
		}
	}
	return out
}

func TestScreenState(t *testing.T) {
	s := screens(t)
	for _, tc := range []struct {
		screen string
		want   session.RunState
	}{
		{"2", session.RunWaiting},  // the folder-trust dialog
		{"3", ""},                  // idle
		{"4", session.RunBusy},     // Working (2s • esc to interrupt)
		{"5", ""},                  // turn finished
		{"10", session.RunWaiting}, // working directory on resume
	} {
		st, detail, ok := screenState(s[tc.screen])
		if !ok {
			st = ""
		}
		if st != tc.want {
			t.Errorf("screen %s: %q (%s), want %q", tc.screen, st, detail, tc.want)
		}
	}
	if _, detail, _ := screenState(s["10"]); detail != "a dialog: Working directory · resume" {
		t.Errorf("dialog detail %q", detail)
	}
}

func TestConfiguredProvider(t *testing.T) {
	for config, want := range map[string]string{
		"": "openai",
		"model = \"m\"\nmodel_provider = \"stead-stub\"\n": "stead-stub",
		"model_provider='local' # mine\n":                  "local",
		"[model_providers.x]\nmodel_provider = \"no\"\n":   "openai", // not top level
	} {
		home := t.TempDir()
		if config != "" {
			os.WriteFile(home+"/config.toml", []byte(config), 0o600)
		}
		env := session.Env{Vars: map[string]string{"CODEX_HOME": home}}
		if got := ConfiguredProvider(env); got != want {
			t.Errorf("%q: %q, want %q", config, got, want)
		}
	}
}
