package codex

import (
	"os"
	"strings"
	"testing"

	"github.com/stead-dev/stead/live"
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
		want   live.RunState
	}{
		{"2", live.RunWaiting},
		{"3", ""}, // idle
		{"4", live.RunBusy},
		{"5", ""}, // turn finished
		{"10", live.RunWaiting},
		{"11", live.RunWaiting},
		{"12", ""}, // approved, turn finished
		{"13", ""}, // refused: the turn was interrupted
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
	if _, detail, _ := screenState(s["11"]); detail != "approval: Would you like to run the following command?" {
		t.Errorf("approval detail %q", detail)
	}
	// The question alone, or the footer alone, is not an overlay: a
	// transcript may quote either.
	for _, lines := range [][]string{
		{"• Would you like to run the following command?", "› Ask Codex to do anything"},
		{"  Press enter to confirm or esc to cancel"},
	} {
		if st, _, ok := screenState(lines); ok && st == live.RunWaiting {
			t.Errorf("%q reads as waiting", lines)
		}
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
