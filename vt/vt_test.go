package vt_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stead-dev/stead/vt"
)

func screen(rows, cols int, out ...string) *vt.Screen {
	s := vt.New(rows, cols)
	for _, o := range out {
		s.Write([]byte(o))
	}
	return s
}

func wantLines(t *testing.T, s *vt.Screen, want ...string) {
	t.Helper()
	got := s.Lines()
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), s)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestTextWrapAndScroll(t *testing.T) {
	s := screen(3, 5, "hello world\r\nab\r\ncd")
	// "hello" fills row 0 and the next glyph wraps; five lines scroll
	// two off the top.
	wantLines(t, s, "d", "ab", "cd")
	s = screen(3, 5, "hello world\r\nab\r\ncd\r\n")
	wantLines(t, s, "ab", "cd", "")
	// With autowrap off the last column is overwritten.
	s = screen(2, 5, "\x1b[?7lhello world")
	wantLines(t, s, "helld", "")
}

func TestCursorMovesAndErases(t *testing.T) {
	s := screen(4, 10,
		"0123456789\r\n", "abcdefghij\r\n", "ABCDEFGHIJ",
		"\x1b[2;3H", "XY", // CUP is 1-based
		"\x1b[1;6H\x1b[K",              // erase to the end of row 0
		"\x1b[3;5H\x1b[1K",             // erase to the start of row 2, cursor included
		"\x1b[4;1H\x1b[3Cz", "\x1b[Aq", // forward, then up
	)
	wantLines(t, s, "01234", "abXYefghij", "    qFGHIJ", "   z")
	if r, c := s.Cursor(); r != 2 || c != 5 {
		t.Errorf("cursor at %d,%d, want 2,5", r, c)
	}
	s.Write([]byte("\x1b[2J"))
	if s.String() != "" {
		t.Errorf("after ED 2: %q", s)
	}
}

func TestCellDiffsReadAsText(t *testing.T) {
	// OpenCode paints by cell diffs: the words never pass contiguously.
	s := screen(5, 40, "\x1b[5;29Hrupt", "\x1b[5;20Hesc ", "\x1b[5;24Hinter", "\x1b[5;4H\u2b1d\u2b1d\u25a0")
	if !s.Contains("esc interrupt") {
		t.Errorf("the footer does not read 'esc interrupt':\n%s", s)
	}
	if strings.Contains(s.String(), "\x1b") {
		t.Error("escape bytes on the screen")
	}
}

func TestSequencesSplitAcrossWrites(t *testing.T) {
	whole := "\x1b[2;3Hé中x\x1b]0;title\x07y\x1b[1;1Hz"
	want := screen(3, 10, whole).String()
	for i := 1; i < len(whole); i++ {
		if got := screen(3, 10, whole[:i], whole[i:]).String(); got != want {
			t.Errorf("split at %d: %q, want %q", i, got, want)
		}
	}
	if want != "z\n  é中xy" {
		t.Errorf("screen %q", want)
	}
}

func TestWideCharacters(t *testing.T) {
	s := screen(2, 5, "中文字")
	// Two wide glyphs fill four cells; the third does not fit and wraps.
	wantLines(t, s, "中文", "字")
	s.Write([]byte("\x1b[1;2Hx")) // over the right half of 中
	wantLines(t, s, " x文", "字")
}

func TestScrollRegionInsertDelete(t *testing.T) {
	s := screen(5, 4, "a\r\nb\r\nc\r\nd\r\ne", "\x1b[2;4r", "\x1b[4;1H\n", "x")
	// LF at the region's bottom scrolls rows 2..4 only.
	wantLines(t, s, "a", "c", "d", "x", "e")
	s.Write([]byte("\x1b[2;1H\x1b[L")) // insert a line at row 2
	wantLines(t, s, "a", "", "c", "d", "e")
	s.Write([]byte("\x1b[2;1H\x1b[2M")) // delete two
	wantLines(t, s, "a", "d", "", "", "e")
	s.Write([]byte("\x1b[r\x1b[1;1H\x1bM")) // reverse index at the top
	wantLines(t, s, "", "a", "d", "", "")
}

func TestAltScreenRestoresMain(t *testing.T) {
	s := screen(3, 10, "shell$ ", "\x1b[?1049h\x1b[HTUI here")
	if !s.AltScreen() || !s.Contains("TUI here") || s.Contains("shell$") {
		t.Fatalf("alternate screen:\n%s", s)
	}
	s.Write([]byte("\x1b[?1049l"))
	if s.AltScreen() || s.String() != "shell$" {
		t.Errorf("main screen after leaving: %q", s)
	}
	if _, c := s.Cursor(); c != 7 {
		t.Errorf("cursor column %d, want 7 (restored)", c)
	}
}

func TestResizeKeepsTheBottom(t *testing.T) {
	s := screen(4, 10, "one\r\ntwo\r\nthree\r\nfour")
	s.Resize(2, 3)
	wantLines(t, s, "thr", "fou")
	s.Resize(3, 6)
	wantLines(t, s, "thr", "fou", "")
	s.Write([]byte("\x1b[3;1Hfive!!"))
	wantLines(t, s, "thr", "fou", "five!!")
}

func TestHugeParametersAreBounded(t *testing.T) {
	s := screen(3, 5, "\x1b[99999999999;99999999999H", "x", "\x1b[99999999b", "\x1b[999999999@", "\x1b[9999999L")
	if r, c := s.Cursor(); r < 0 || r >= 3 || c < 0 || c >= 5 {
		t.Errorf("cursor out of the screen: %d,%d", r, c)
	}
}

// The raw bytes Claude Code wrote to a real terminal for one turn (the
// sample in shared/clis), in its alternate screen and inline modes.
func TestRealClaudeScreens(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		// After /exit the alternate screen is gone: the shell's screen
		// with Claude's farewell.
		{"testdata/pty-raw-altscreen.bin", "claude --dangerously-skip-permissions --resume 20b88c6d-e588-4593-9ec1-8b94d5998616"},
		{"testdata/pty-raw-no-altscreen.bin", `● FAKE-FINAL: tool said ["hello-from-tool"]. Done (saw 4 messages).`},
	} {
		data, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		s := vt.New(50, 200)
		// In small writes, as a terminal reads them.
		for len(data) > 0 {
			n := min(len(data), 7)
			s.Write(data[:n])
			data = data[n:]
		}
		text := s.String()
		if strings.ContainsAny(text, "\x1b\x07\ufffd") {
			t.Errorf("%s: control bytes or broken text on the screen:\n%s", tc.file, text)
		}
		if !s.Contains(tc.want) {
			t.Errorf("%s: the screen has no line with %q:\n%s", tc.file, tc.want, text)
		}
	}
}

func FuzzWrite(f *testing.F) {
	f.Add([]byte("\x1b[2;3Hhi\x1b[?1049h\x1b[5L中\x1b]0;t\x07"), 5, 10)
	f.Add([]byte("\x1b[1;5r\x1bM\x1b[3S\x1b[2T\x1b7\x1b8\x1b[s\x1b[u"), 3, 4)
	f.Fuzz(func(t *testing.T, data []byte, rows, cols int) {
		rows, cols = 1+abs(rows)%60, 1+abs(cols)%200
		s := vt.New(rows, cols)
		s.Write(data)
		s.Resize(cols%7+1, rows%9+1)
		s.Write(data)
		r, c := s.Cursor()
		nr, nc := s.Size()
		if r < 0 || r >= nr || c < 0 || c >= nc {
			t.Fatalf("cursor %d,%d outside %dx%d", r, c, nr, nc)
		}
		if len(s.Lines()) != nr {
			t.Fatalf("%d lines on a %d-row screen", len(s.Lines()), nr)
		}
	})
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
