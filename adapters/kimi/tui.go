package kimi

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stead-dev/stead/session"
)

// TUI drives Kimi Code's interactive UI. It turns bracketed paste on
// before its folder-trust dialog, but sets its title only after the
// dialogs: readiness waits for both. A paste followed by Enter submits;
// two Ctrl-C within 1.5 s quit with code 0. Busy and idle come from the
// wire's turn records (turn.prompt, turn.ended); its spinner line above
// the input box says busy on the screen.
var TUI = session.TUI{
	Screen: screenState,
	Dialogs: []session.Dialog{{
		Name:     "trust the project folder",
		Match:    []string{"Trust this folder", "Don't trust"},
		Selected: "❯ Trust this folder",
		Confirm:  session.Key{Bytes: "\r", Wait: 500 * time.Millisecond},
		Trust:    true,
	}},
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

// screenState reads the line Kimi shows above its input box while it
// works: a moon phase while it waits for the model ("🌑 · Tip: …"), a
// braille spinner while it streams ("⠋ Thinking…", "⠋ Working…"), and
// "Running… (Ns)" while a tool runs.
func screenState(lines []string) (session.RunState, string, bool) {
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "Running… (") && strings.Contains(t, "to run in background") {
			return session.RunBusy, "running a tool", true
		}
		r, n := utf8.DecodeRuneInString(t)
		if n == 0 || !strings.HasPrefix(t[n:], " ") {
			continue
		}
		rest := strings.TrimSpace(t[n:])
		switch {
		case r >= '🌑' && r <= '🌘' && strings.HasPrefix(rest, "·"):
			return session.RunBusy, "waiting for the model", true
		case r >= '⠁' && r <= '⣿' && (strings.HasPrefix(rest, "Thinking…") || strings.HasPrefix(rest, "Working…")):
			return session.RunBusy, "", true
		}
	}
	return "", "", false
}
