package kimi

import (
	"time"

	"github.com/stead-dev/stead/session"
)

// TUI drives Kimi Code's interactive UI. It turns bracketed paste on
// before its folder-trust dialog, but sets its title only after the
// dialogs: readiness waits for both. A paste followed by Enter submits;
// two Ctrl-C within 1.5 s quit with code 0. Busy and idle come from the
// wire's turn records (turn.prompt, turn.ended).
var TUI = session.TUI{
	Argv:       TUIArgv,
	Paste:      true,
	TitleReady: true,
	// A failed turn ends with turn.ended reason "failed", which is an
	// error entry.
	ErrorEndsTurn: true,
	Settle:        500 * time.Millisecond,
	EnterAfter:    200 * time.Millisecond,
	Quit:          []session.Key{{Bytes: "\x03", Wait: 400 * time.Millisecond}, {Bytes: "\x03", Wait: 3 * time.Second}},
}

// TUIArgv opens l.Resume in the interactive UI.
func TUIArgv(l session.Launch) []string {
	args := []string{"-m", EnvModel}
	if l.Auto {
		args = append(args, "--yolo")
	}
	if l.Resume != "" {
		args = append(args, "-r", l.Resume)
	}
	return args
}
