package supervisor

import "io"

// The user's screen around a CLI's terminal. A CLI's TUI turns terminal
// modes on (mouse reporting, bracketed paste, focus events, application
// cursor keys and keypad, the kitty keyboard protocol, a hidden cursor,
// colours, a scroll region) and turns them off only when it exits
// cleanly. Detaching from it, or a CLI that was killed, would leave them
// on in the user's shell: clicks typed as escape codes, no cursor.
const (
	// resetModes turns off every mode a CLI's TUI may have turned on.
	resetModes = "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l" + // mouse reporting
		"\x1b[?2004l" + // bracketed paste
		"\x1b[?1004l" + // focus events
		"\x1b[?1l\x1b>" + // normal cursor keys and keypad
		"\x1b[<u" + // the kitty keyboard protocol's flags, popped
		"\x1b[r\x1b[0m\x1b[?25h" // whole-screen scrolling, plain text, a visible cursor
	// enterScreen saves the cursor and switches to a cleared alternate
	// screen; leaveScreen returns to the main one as it was.
	enterScreen = "\x1b[?1049h\x1b[H\x1b[2J"
	leaveScreen = "\x1b[?1049l"
)

// ShowOn shows a CLI's terminal on a user's screen, w, the way tmux
// attach does: on a screen of its own. The function it returns resets
// the modes the CLI turned on and puts the user's screen back as it was
// before; call it once, when the user detaches or the CLI is gone.
func ShowOn(w io.Writer) (restore func()) {
	io.WriteString(w, enterScreen)
	return func() { io.WriteString(w, resetModes+leaveScreen) }
}

// ResetModes turns off the modes a CLI's TUI may have left on in w, the
// user's terminal, when it did not exit cleanly; the text it drew stays.
func ResetModes(w io.Writer) { io.WriteString(w, resetModes) }
