package opencode

import (
	"os"
	"strings"
	"testing"

	"github.com/stead-dev/stead/live"
)

// The screens are real OpenCode screens (shared/clis/samples).
func TestScreenState(t *testing.T) {
	for file, want := range map[string]live.RunState{
		"tui_busy_spinner.txt":       live.RunBusy,
		"tui_02_idle_after_turn.txt": "",
		// 1.18.33 with "permission": {"bash": "ask"}: the prompt, then
		// Allow once (the command runs, then the turn ends), or Reject.
		"tui_permission_bash.txt":            live.RunWaiting,
		"tui_permission_allowed_running.txt": live.RunBusy,
		"tui_permission_allowed_idle.txt":    "",
		"tui_permission_rejected_idle.txt":   "",
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
	data, err := os.ReadFile("testdata/tui/tui_permission_bash.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, detail, _ := screenState(strings.Split(string(data), "\n")); detail != "approval: Shell command" {
		t.Errorf("permission detail %q", detail)
	}
}
