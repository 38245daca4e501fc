package kimi

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stead-dev/stead/live"
)

// TUI drives Kimi Code's interactive UI. It turns bracketed paste on
// before its folder-trust dialog, but sets its title only after the
// dialogs: readiness waits for both. A paste followed by Enter submits;
// two Ctrl-C within 1.5 s quit with code 0. Busy and idle come from the
// wire's turn records (turn.prompt, turn.ended); its spinner line above
// the input box says busy on the screen, and its approval panel (it asks
// before a command in its default mode) says it waits.
var TUI = live.TUI{
	Screen: screenState,
	Dialogs: []live.Dialog{{
		Name:     "trust the project folder",
		Match:    []string{"Trust this folder", "Don't trust"},
		Selected: "❯ Trust this folder",
		Confirm:  live.Key{Bytes: "\r", Wait: 500 * time.Millisecond},
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
	Quit:          []live.Key{{Bytes: "\x03", Wait: 400 * time.Millisecond}, {Bytes: "\x03", Wait: 3 * time.Second}},
}

// TUIArgv opens l.Resume in the interactive UI.
func TUIArgv(l live.Launch) []string {
	args := []string{"-m", EnvModel}
	if l.Auto {
		args = append(args, "--yolo")
	}
	if l.Resume != "" {
		args = append(args, "-r", l.Resume)
	}
	return args
}

// screenState reads Kimi's approval panel, which replaces its input
// box, and the line it shows above that box while it works: a moon phase
// while it waits for the model ("🌑 · Tip: …"), a braille spinner while
// it streams ("⠋ Thinking…", "⠋ Working…"), and "Running… (Ns)" while a
// tool runs.
func screenState(lines []string) (live.RunState, string, bool) {
	if q, ok := approval(lines); ok {
		return live.RunWaiting, "approval: " + q, true
	}
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "Running… (") && strings.Contains(t, "to run in background") {
			return live.RunBusy, "running a tool", true
		}
		r, n := utf8.DecodeRuneInString(t)
		if n == 0 || !strings.HasPrefix(t[n:], " ") {
			continue
		}
		rest := strings.TrimSpace(t[n:])
		switch {
		case r >= '🌑' && r <= '🌘' && strings.HasPrefix(rest, "·"):
			return live.RunBusy, "waiting for the model", true
		case r >= '⠁' && r <= '⣿' && (strings.HasPrefix(rest, "Thinking…") || strings.HasPrefix(rest, "Working…")):
			return live.RunBusy, "", true
		}
	}
	return "", "", false
}

// approval finds Kimi's approval panel (testdata/tui/approval_command.txt):
// its question ("▶ Run this command?") above the choices and the footer
// "↑/↓ select · 1/2/3/4 choose · ↵ confirm". The wire also says it
// (interaction.request, kind approval, then interaction.resolved), but as
// records no entry stands for.
func approval(lines []string) (string, bool) {
	question := ""
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "▶ ") && strings.HasSuffix(t, "?"):
			question = strings.TrimSpace(strings.TrimPrefix(t, "▶ "))
		case question != "" && strings.Contains(t, "select ·") && strings.HasSuffix(t, "↵ confirm"):
			return question, true
		}
	}
	return "", false
}
