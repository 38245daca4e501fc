package supervisor

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stead-dev/stead/vt"
)

// TestShowOnRestoresTheScreen: a CLI drawn on the user's screen between
// ShowOn and its restore, turning modes on as TUIs do, leaves the screen
// as it was, with every mode it turned on off again.
func TestShowOnRestoresTheScreen(t *testing.T) {
	var out bytes.Buffer
	screen := vt.New(10, 60)
	out.WriteString("$ ls\r\nUSER-SCREEN\r\n$ stead attach")
	restore := ShowOn(&out)
	// Codex-like: mouse and focus reporting, bracketed paste, the kitty
	// keyboard protocol, a hidden cursor, a scroll region, colours.
	cli := "\x1b[?1000h\x1b[?1006h\x1b[?1004h\x1b[?2004h\x1b[>1u\x1b[?25l\x1b[2;9r\x1b[31mCLI-SCREEN"
	out.WriteString(cli)
	restore()
	screen.Write(out.Bytes())
	if text := screen.String(); !strings.Contains(text, "USER-SCREEN") || strings.Contains(text, "CLI-SCREEN") || screen.AltScreen() {
		t.Errorf("after restore the screen shows:\n%s", text)
	}
	if row, col := screen.Cursor(); row != 2 || col != len("$ stead attach") {
		t.Errorf("the cursor is at %d,%d, want where the user left it, 2,%d", row, col, len("$ stead attach"))
	}
	after := out.String()[strings.LastIndex(out.String(), "CLI-SCREEN"):]
	for _, off := range []string{"\x1b[?1000l", "\x1b[?1006l", "\x1b[?1004l", "\x1b[?2004l", "\x1b[<u", "\x1b[?25h", "\x1b[r", "\x1b[0m"} {
		if !strings.Contains(after, off) {
			t.Errorf("restore does not turn off %q", off)
		}
	}
}
