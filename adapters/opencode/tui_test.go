package opencode

import (
	"os"
	"strings"
	"testing"

	"github.com/stead-dev/stead/session"
)

// The screens are real OpenCode screens (shared/clis/samples).
func TestScreenState(t *testing.T) {
	for file, want := range map[string]session.RunState{
		"tui_busy_spinner.txt":       session.RunBusy,
		"tui_02_idle_after_turn.txt": "",
	} {
		data, err := os.ReadFile("testdata/tui/" + file)
		if err != nil {
			t.Fatal(err)
		}
		st, _, ok := screenState(strings.Split(string(data), "\n"))
		if !ok {
			st = ""
		}
		if st != want {
			t.Errorf("%s: %q, want %q", file, st, want)
		}
	}
}
