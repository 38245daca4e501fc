package kimi

import (
	"os"
	"strings"
	"testing"

	"github.com/stead-dev/stead/live"
)

// The lines are those measured on Kimi Code's screen under a PTY.
func TestScreenState(t *testing.T) {
	for _, tc := range []struct {
		line string
		want live.RunState
	}{
		{"🌑 · Tip: press ctrl+o to open the editor", live.RunBusy},
		{"  ⠋ Thinking… · Tip: use /help", live.RunBusy},
		{"⠼ Working… · Tip: …", live.RunBusy},
		{"Running… (0s) (ctrl+b to run in background)", live.RunBusy},
		{"│ >", ""},
		{"● ⠋ thinking… is only a block title", ""},
		{"✨ Working… on it, the user typed this", ""},
		{"Never Ask  stub-model thinking  /work … tips", ""},
	} {
		st, _, ok := screenState([]string{"", tc.line, "context: 3% (8.1k/256k)"})
		if !ok {
			st = ""
		}
		if st != tc.want {
			t.Errorf("%q: %q, want %q", tc.line, st, tc.want)
		}
	}
}

// The screens are Kimi Code 2.1.0's under stead's PTY, asking before a
// command in its default mode, then after Enter approved it.
func TestApprovalScreens(t *testing.T) {
	for file, want := range map[string]live.RunState{
		"approval_command.txt":       live.RunWaiting,
		"approval_approved_idle.txt": "",
	} {
		data, err := os.ReadFile("testdata/tui/" + file)
		if err != nil {
			t.Fatal(err)
		}
		st, detail, ok := screenState(strings.Split(string(data), "\n"))
		if !ok {
			st = ""
		}
		if st != want {
			t.Errorf("%s: %q, want %q", file, st, want)
		}
		if want == live.RunWaiting && detail != "approval: Run this command?" {
			t.Errorf("%s: detail %q", file, detail)
		}
	}
	// A question in the transcript is not the panel.
	if st, _, ok := screenState([]string{" ▶ Shall I go on?", " │ >"}); ok && st == live.RunWaiting {
		t.Error("a question without the panel's footer reads as waiting")
	}
}
