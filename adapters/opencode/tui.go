package opencode

import (
	"strings"
	"time"

	"github.com/stead-dev/stead/live"
)

// TUI drives OpenCode's interactive UI. It must be the session leader with
// the terminal as its controlling terminal, or it stops at its first
// read; it turns bracketed paste on seconds before it takes keys (it
// drops them until then) and sets its title ("OC | <title>") when it does; Ctrl-C on an empty input quits with
// code 0. Its session lives in a database, which capture polls; its
// footer's "esc interrupt" (painted cell by cell, so read from the
// screen) says busy before the database does, and its permission prompt
// (only where the configuration says "ask": its default allows bash)
// says it waits.
var TUI = live.TUI{
	Screen:     screenState,
	Argv:       TUIArgv,
	Paste:      true,
	Settle:     500 * time.Millisecond,
	TitleReady: true,
	EnterAfter: 200 * time.Millisecond,
	Quit:       []live.Key{{Bytes: "\x03", Wait: 3 * time.Second}},
}

// TUIArgv opens l.Resume in the interactive UI.
func TUIArgv(l live.Launch) []string {
	var args []string
	if l.Resume != "" {
		args = append(args, "--session", l.Resume)
	}
	return args
}

// screenState reads OpenCode's screen: its permission prompt, which
// replaces the input box ("△ Permission required" above the choices and
// the footer "enter confirm"), and its footer's "esc interrupt" while it
// works (retries of a failing model included). The store has no record
// of the prompt: the tool part it asks about reads "running".
func screenState(lines []string) (live.RunState, string, bool) {
	for i, l := range lines {
		if strings.Contains(l, "△ Permission required") && confirmBelow(lines[i+1:]) {
			return live.RunWaiting, "approval: " + permissionTitle(lines[i+1:]), true
		}
	}
	for _, l := range lines {
		if strings.Contains(l, "esc interrupt") {
			return live.RunBusy, "", true
		}
	}
	return "", "", false
}

// confirmBelow reports whether the permission prompt's footer ("⇆ select
// enter confirm") is below its title.
func confirmBelow(lines []string) bool {
	for _, l := range lines {
		if strings.Contains(l, "enter confirm") {
			return true
		}
	}
	return false
}

// permissionTitle is what a permission prompt asks about: the line under
// its title ("# Shell command"), without the box's border.
func permissionTitle(lines []string) string {
	for _, l := range lines {
		t := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "┃"))
		if t != "" {
			return strings.TrimSpace(strings.TrimPrefix(t, "#"))
		}
	}
	return "a permission"
}
