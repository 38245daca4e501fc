package runs

import (
	"testing"

	"github.com/stead-dev/stead/session"
)

// TestTurnErrors checks how a turn's end is read: Claude records an API
// error as an assistant message of kind error, which is the turn's error
// and not its answer; an answer after an error clears it.
func TestTurnErrors(t *testing.T) {
	apiErr := session.Entry{Type: session.Assistant, Kind: session.KindError, Content: "API Error: 500"}
	sysErr := session.Entry{Type: session.System, Kind: session.KindError, Content: "stream dropped"}
	answer := session.Entry{Type: session.Assistant, Content: "done"}
	prompt := session.Entry{Type: session.User, Content: "go"}
	for _, tc := range []struct {
		name      string
		entries   []session.Entry
		err, text string
	}{
		{"assistant error", []session.Entry{prompt, apiErr}, "API Error: 500", ""},
		{"system error", []session.Entry{prompt, sysErr}, "stream dropped", ""},
		{"answer", []session.Entry{prompt, answer}, "", "done"},
		{"answer after a retried error", []session.Entry{prompt, apiErr, answer}, "", "done"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &session.Session{Timeline: tc.entries}
			if got := TurnError(s, 0); got != tc.err {
				t.Errorf("TurnError = %q, want %q", got, tc.err)
			}
			if got := AnswerOf(s, 0); got != tc.text {
				t.Errorf("AnswerOf = %q, want %q", got, tc.text)
			}
		})
	}
}
