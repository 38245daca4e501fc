package codex

import (
	"strings"
	"time"

	"github.com/stead-dev/stead/live"
)

// TUI drives Codex's interactive UI. It runs without the shared
// background app-server (--no-daemon), which would outlive it; it takes
// input once bracketed paste is on and it has been quiet; an Enter that
// follows typed text too closely is taken as part of a paste burst, so
// Enter waits half a second; Ctrl-C on an empty composer quits with code
// 0. Busy and idle come from the rollout's turn records; the screen's
// "Working (Ns • esc to interrupt)" line says busy sooner, and an
// approval overlay or a dialog's "enter continue" footer says Codex waits
// for an answer. A refused approval (or Esc) ends the turn with
// turn_aborted, and no task_complete follows.
var TUI = live.TUI{
	Screen:            screenState,
	InterruptEndsTurn: true,
	Dialogs: []live.Dialog{{
		Name:     "trust the project folder",
		Match:    []string{"Trust this folder?", "Trust and continue"},
		Selected: "› 1. Trust and continue",
		Confirm:  live.Key{Bytes: "\r", Wait: 500 * time.Millisecond},
		Trust:    true,
	}},
	Argv:       TUIArgv,
	Paste:      true,
	Settle:     500 * time.Millisecond,
	EnterAfter: 500 * time.Millisecond,
	Quit:       []live.Key{{Bytes: "\x03", Wait: 400 * time.Millisecond}, {Bytes: "\x03", Wait: 3 * time.Second}},
}

// TUIArgv opens l.Resume in the interactive UI.
func TUIArgv(l live.Launch) []string {
	args := []string{"--no-daemon"}
	if l.Model != "" {
		args = append(args, "-m", l.Model)
	}
	if l.Auto {
		args = append(args, "--dangerously-bypass-approvals-and-sandbox")
	}
	if l.Resume != "" {
		args = append(args, "resume", l.Resume)
	}
	return args
}

// screenState reads Codex's screen: its approval overlays, its working
// line (not shown while text streams, so its absence says nothing) and
// the footer of its dialogs (folder trust, working directory on resume).
func screenState(lines []string) (live.RunState, string, bool) {
	if q, ok := approval(lines); ok {
		return live.RunWaiting, "approval: " + q, true
	}
	for _, l := range lines {
		switch {
		case strings.Contains(l, "esc to interrupt"):
			return live.RunBusy, "", true
		case strings.Contains(l, "enter continue ·"):
			return live.RunWaiting, "a dialog: " + dialogTitle(lines), true
		}
	}
	return "", "", false
}

// approval finds an approval overlay: its question ("Would you like to
// run the following command?", "... make the following edits?", "Do
// you want to approve network access to ...?") above the footer "Press
// enter to confirm or esc to cancel" (tui_screens.txt 11). The rollout
// holds no record of it: the call it asks about is written first.
func approval(lines []string) (string, bool) {
	question := ""
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case (strings.HasPrefix(t, "Would you like to ") || strings.HasPrefix(t, "Do you want to ")) && strings.HasSuffix(t, "?"):
			question = t
		case question != "" && strings.HasPrefix(t, "Press ") && strings.Contains(t, " to confirm or ") && strings.HasSuffix(t, " to cancel"):
			return question, true
		}
	}
	return "", false
}

// dialogTitle is the first non-blank line of a dialog's screen.
func dialogTitle(lines []string) string {
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}
