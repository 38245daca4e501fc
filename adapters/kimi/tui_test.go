package kimi

import (
	"testing"

	"github.com/stead-dev/stead/session"
)

// The lines are those measured on Kimi Code's screen under a PTY.
func TestScreenState(t *testing.T) {
	for _, tc := range []struct {
		line string
		want session.RunState
	}{
		{"🌑 · Tip: press ctrl+o to open the editor", session.RunBusy},
		{"  ⠋ Thinking… · Tip: use /help", session.RunBusy},
		{"⠼ Working… · Tip: …", session.RunBusy},
		{"Running… (0s) (ctrl+b to run in background)", session.RunBusy},
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
