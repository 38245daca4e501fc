package vt

import (
	"strings"
	"unicode/utf8"
)

// Screen is a terminal's screen. The zero value is not usable; call New.
// A Screen is not safe for concurrent use.
type Screen struct {
	rows, cols int
	main, alt  [][]rune
	grid       [][]rune // main or alt
	altOn      bool

	row, col int
	wrapNext bool // the last column was written: the next glyph wraps
	noWrap   bool // DECAWM off
	top, bot int  // scroll region, inclusive
	saved    cursor
	last     rune // the last glyph, for REP

	// Parser.
	state  state
	params []int
	cur    int  // the parameter being read, -1 when none
	priv   byte // '?', '>', '=' or '<' after CSI
	inter  bool // an intermediate byte was seen: the sequence is ignored
	utf    [utf8.UTFMax]byte
	utfN   int
	osc    int // bytes of the current string sequence
}

type cursor struct{ row, col int }

type state uint8

const (
	ground state = iota
	escape
	escSkip // ESC ( B and friends: one more byte
	csi
	str    // OSC, DCS, SOS, PM, APC: skipped up to BEL or ST
	strEsc // ESC inside a string: ST if '\' follows
)

// cont marks the right half of a wide character.
const cont rune = -1

// maxParams bounds the parameters kept for one sequence.
const maxParams = 32

// New returns a blank screen of rows by cols cells.
func New(rows, cols int) *Screen {
	s := &Screen{}
	s.Resize(rows, cols)
	return s
}

// Size returns the screen's rows and columns.
func (s *Screen) Size() (rows, cols int) { return s.rows, s.cols }

// Resize changes the screen's size, keeping what fits, as a terminal
// does when its window changes.
func (s *Screen) Resize(rows, cols int) {
	rows, cols = max(rows, 1), max(cols, 1)
	s.main = resize(s.main, rows, cols)
	s.alt = resize(s.alt, rows, cols)
	s.rows, s.cols = rows, cols
	s.grid = s.main
	if s.altOn {
		s.grid = s.alt
	}
	s.top, s.bot = 0, rows-1
	s.row, s.col = min(s.row, rows-1), min(s.col, cols-1)
	s.saved = cursor{min(s.saved.row, rows-1), min(s.saved.col, cols-1)}
	s.wrapNext = false
}

func resize(g [][]rune, rows, cols int) [][]rune {
	// Keep the bottom rows, where a TUI's prompt and footer are.
	if len(g) > rows {
		g = g[len(g)-rows:]
	}
	out := make([][]rune, rows)
	for i := range out {
		line := make([]rune, cols)
		for j := range line {
			line[j] = ' '
		}
		if i < len(g) {
			copy(line, g[i])
			if cols < len(g[i]) && cols > 0 && line[cols-1] != cont && isWideLeft(g[i], cols-1) {
				line[cols-1] = ' ' // a wide glyph cut in half
			}
		}
		out[i] = line
	}
	return out
}

func isWideLeft(line []rune, i int) bool { return i+1 < len(line) && line[i+1] == cont }

// Write feeds output to the screen. It never fails.
func (s *Screen) Write(p []byte) (int, error) {
	for _, b := range p {
		s.feed(b)
	}
	return len(p), nil
}

// Lines returns the screen's rows as text, trailing blanks trimmed.
func (s *Screen) Lines() []string {
	out := make([]string, s.rows)
	var sb strings.Builder
	for i, line := range s.grid {
		sb.Reset()
		for _, r := range line {
			if r != cont {
				sb.WriteRune(r)
			}
		}
		out[i] = strings.TrimRight(sb.String(), " ")
	}
	return out
}

// String returns the screen as text, one line per row, trailing blank
// lines dropped.
func (s *Screen) String() string {
	lines := s.Lines()
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// Contains reports whether text appears on one row of the screen.
func (s *Screen) Contains(text string) bool {
	for _, l := range s.Lines() {
		if strings.Contains(l, text) {
			return true
		}
	}
	return false
}

// Cursor returns the cursor's row and column, from 0.
func (s *Screen) Cursor() (row, col int) { return s.row, s.col }

// AltScreen reports whether the alternate screen is shown.
func (s *Screen) AltScreen() bool { return s.altOn }

func (s *Screen) feed(b byte) {
	switch s.state {
	case escSkip:
		s.state = ground
		return
	case str:
		switch b {
		case 0x07:
			s.state = ground
		case 0x1b:
			s.state = strEsc
		case 0x18, 0x1a:
			s.state = ground
		}
		return
	case strEsc:
		if b == '\\' {
			s.state = ground
		} else {
			s.state = str
		}
		return
	}
	// C0 controls act in every other state (as on a VT100), except ESC
	// and CAN/SUB, which also cancel a sequence.
	if b < 0x20 || b == 0x7f {
		s.utfN = 0
		s.control(b)
		return
	}
	switch s.state {
	case escape:
		s.escape(b)
	case csi:
		s.csiByte(b)
	default:
		s.text(b)
	}
}

func (s *Screen) control(b byte) {
	switch b {
	case 0x1b:
		s.state = escape
		return
	case 0x18, 0x1a: // CAN, SUB
		s.state = ground
		return
	case '\b':
		s.wrapNext = false
		if s.col > 0 {
			s.col--
		}
	case '\t':
		s.wrapNext = false
		s.col = min((s.col/8+1)*8, s.cols-1)
	case '\n', '\v', '\f':
		s.lineFeed()
	case '\r':
		s.wrapNext = false
		s.col = 0
	}
}

func (s *Screen) text(b byte) {
	if s.utfN == 0 && b < utf8.RuneSelf {
		s.put(rune(b))
		return
	}
	if s.utfN == 0 && !utf8.RuneStart(b) {
		s.put(utf8.RuneError)
		return
	}
	if s.utfN > 0 && utf8.RuneStart(b) {
		// A sequence cut short by a new one.
		s.utfN = 0
		s.put(utf8.RuneError)
		s.text(b)
		return
	}
	s.utf[s.utfN] = b
	s.utfN++
	if utf8.FullRune(s.utf[:s.utfN]) {
		r, _ := utf8.DecodeRune(s.utf[:s.utfN])
		s.utfN = 0
		s.put(r)
	} else if s.utfN == utf8.UTFMax {
		s.utfN = 0
		s.put(utf8.RuneError)
	}
}

// put writes a glyph at the cursor.
func (s *Screen) put(r rune) {
	w := width(r)
	if w == 0 {
		return // combining marks and zero-width characters: not kept
	}
	if s.wrapNext || s.col+w > s.cols {
		if s.noWrap {
			s.col = s.cols - w
		} else {
			s.col = 0
			s.lineFeed()
		}
		s.wrapNext = false
	}
	if w > s.cols {
		return
	}
	line := s.grid[s.row]
	s.clearWide(line, s.col)
	line[s.col] = r
	if w == 2 {
		s.clearWide(line, s.col+1)
		line[s.col+1] = cont
	}
	s.last = r
	if s.col+w >= s.cols {
		s.col = s.cols - 1
		s.wrapNext = !s.noWrap
	} else {
		s.col += w
	}
}

// clearWide blanks the other half of a wide glyph that cell i is part of.
func (s *Screen) clearWide(line []rune, i int) {
	if line[i] == cont && i > 0 {
		line[i-1] = ' '
	}
	if i+1 < len(line) && line[i+1] == cont {
		line[i+1] = ' '
	}
}

func (s *Screen) lineFeed() {
	s.wrapNext = false
	if s.row == s.bot {
		s.scrollUp(1)
	} else if s.row < s.rows-1 {
		s.row++
	}
}

func (s *Screen) reverseIndex() {
	s.wrapNext = false
	if s.row == s.top {
		s.scrollDown(1)
	} else if s.row > 0 {
		s.row--
	}
}

// scrollUp moves the scroll region's rows up n, blank rows entering at
// its bottom.
func (s *Screen) scrollUp(n int) {
	s.shift(s.top, s.bot, n)
}

func (s *Screen) scrollDown(n int) {
	s.shift(s.top, s.bot, -n)
}

// shift moves rows top..bot up by n (down when n < 0), blanking the rows
// that enter.
func (s *Screen) shift(top, bot, n int) {
	h := bot - top + 1
	if h <= 0 || n == 0 {
		return
	}
	if n >= h || -n >= h {
		for i := top; i <= bot; i++ {
			blank(s.grid[i])
		}
		return
	}
	rows := s.grid[top : bot+1]
	if n > 0 {
		gone := append([][]rune(nil), rows[:n]...)
		copy(rows, rows[n:])
		for i, l := range gone {
			blank(l)
			rows[h-n+i] = l
		}
	} else {
		n = -n
		gone := append([][]rune(nil), rows[h-n:]...)
		copy(rows[n:], rows[:h-n])
		for i, l := range gone {
			blank(l)
			rows[i] = l
		}
	}
}

func blank(line []rune) {
	for i := range line {
		line[i] = ' '
	}
}

func (s *Screen) escape(b byte) {
	s.state = ground
	switch b {
	case '[':
		s.state = csi
		s.params = s.params[:0]
		s.cur = -1
		s.priv = 0
		s.inter = false
	case ']', 'P', 'X', '^', '_':
		s.state = str
	case '(', ')', '*', '+', '-', '.', '/', '#', '%', ' ':
		s.state = escSkip
	case '7':
		s.saved = cursor{s.row, s.col}
	case '8':
		s.row, s.col, s.wrapNext = s.saved.row, s.saved.col, false
	case 'D':
		s.lineFeed()
	case 'E':
		s.lineFeed()
		s.col = 0
	case 'M':
		s.reverseIndex()
	case 'c':
		rows, cols := s.rows, s.cols
		*s = Screen{}
		s.Resize(rows, cols)
	}
}

func (s *Screen) csiByte(b byte) {
	switch {
	case b >= '0' && b <= '9':
		if s.cur < 0 {
			s.cur = 0
		}
		if s.cur < 1<<16 {
			s.cur = s.cur*10 + int(b-'0')
		}
	case b == ';' || b == ':':
		s.pushParam()
		s.cur = 0
	case b >= '<' && b <= '?':
		if len(s.params) == 0 && s.cur < 0 {
			s.priv = b
		} else {
			s.inter = true
		}
	case b >= 0x20 && b <= 0x2f:
		s.inter = true
	case b >= 0x40 && b <= 0x7e:
		s.pushParam()
		s.state = ground
		if !s.inter {
			s.dispatch(b)
		}
	default:
		s.state = ground
	}
}

func (s *Screen) pushParam() {
	if len(s.params) < maxParams {
		s.params = append(s.params, s.cur)
	}
}

// param returns parameter i, or def when it is missing or zero.
func (s *Screen) param(i, def int) int {
	if i < len(s.params) && s.params[i] > 0 {
		return s.params[i]
	}
	return def
}

func (s *Screen) dispatch(final byte) {
	if s.priv == '?' {
		if final == 'h' || final == 'l' {
			on := final == 'h'
			for _, p := range s.params {
				s.mode(p, on)
			}
		}
		return
	}
	if s.priv != 0 {
		return
	}
	n := s.param(0, 1)
	s.wrapNext = false
	switch final {
	case 'A':
		s.row = max(s.row-n, s.upper())
	case 'B', 'e':
		s.row = min(s.row+n, s.lower())
	case 'C', 'a':
		s.col = min(s.col+n, s.cols-1)
	case 'D':
		s.col = max(s.col-n, 0)
	case 'E':
		s.row, s.col = min(s.row+n, s.lower()), 0
	case 'F':
		s.row, s.col = max(s.row-n, s.upper()), 0
	case 'G', '`':
		s.col = clamp(n-1, 0, s.cols-1)
	case 'd':
		s.row = clamp(n-1, 0, s.rows-1)
	case 'H', 'f':
		s.row, s.col = clamp(s.param(0, 1)-1, 0, s.rows-1), clamp(s.param(1, 1)-1, 0, s.cols-1)
	case 'J':
		s.eraseDisplay(s.param(0, 0))
	case 'K':
		s.eraseLine(s.param(0, 0))
	case 'L':
		if s.row >= s.top && s.row <= s.bot {
			s.shift(s.row, s.bot, -min(n, s.bot-s.row+1))
		}
	case 'M':
		if s.row >= s.top && s.row <= s.bot {
			s.shift(s.row, s.bot, min(n, s.bot-s.row+1))
		}
	case '@':
		line := s.grid[s.row]
		n = min(n, s.cols-s.col)
		copy(line[s.col+n:], line[s.col:])
		for i := s.col; i < s.col+n; i++ {
			line[i] = ' '
		}
	case 'P':
		line := s.grid[s.row]
		n = min(n, s.cols-s.col)
		copy(line[s.col:], line[s.col+n:])
		for i := s.cols - n; i < s.cols; i++ {
			line[i] = ' '
		}
	case 'X':
		line := s.grid[s.row]
		for i := s.col; i < min(s.col+n, s.cols); i++ {
			line[i] = ' '
		}
	case 'S':
		s.scrollUp(n)
	case 'T':
		s.scrollDown(n)
	case 'b':
		if s.last != 0 {
			for range min(n, s.rows*s.cols) {
				s.put(s.last)
			}
		}
	case 'r':
		top, bot := s.param(0, 1)-1, s.param(1, s.rows)-1
		if top < bot && bot < s.rows {
			s.top, s.bot = top, bot
			s.row, s.col = 0, 0
		}
	case 's':
		s.saved = cursor{s.row, s.col}
	case 'u':
		s.row, s.col = s.saved.row, s.saved.col
	}
}

// upper and lower bound vertical cursor moves: the scroll region when the
// cursor is in it.
func (s *Screen) upper() int {
	if s.row >= s.top {
		return s.top
	}
	return 0
}

func (s *Screen) lower() int {
	if s.row <= s.bot {
		return s.bot
	}
	return s.rows - 1
}

func (s *Screen) mode(p int, on bool) {
	switch p {
	case 7:
		s.noWrap = !on
	case 47, 1047, 1049:
		if on == s.altOn {
			return
		}
		if p == 1049 && on {
			s.saved = cursor{s.row, s.col}
		}
		s.altOn = on
		if on {
			s.grid = s.alt
			for _, l := range s.alt {
				blank(l)
			}
		} else {
			s.grid = s.main
		}
		if p == 1049 && !on {
			s.row, s.col = s.saved.row, s.saved.col
		}
		s.wrapNext = false
	}
}

func (s *Screen) eraseDisplay(how int) {
	switch how {
	case 0:
		s.eraseLine(0)
		for i := s.row + 1; i < s.rows; i++ {
			blank(s.grid[i])
		}
	case 1:
		s.eraseLine(1)
		for i := 0; i < s.row; i++ {
			blank(s.grid[i])
		}
	case 2, 3:
		for _, l := range s.grid {
			blank(l)
		}
	}
}

func (s *Screen) eraseLine(how int) {
	line := s.grid[s.row]
	from, to := s.col, s.cols
	switch how {
	case 1:
		from, to = 0, s.col+1
	case 2:
		from = 0
	}
	// A wide glyph half inside the erased span goes entirely.
	if from > 0 && line[from] == cont {
		line[from-1] = ' '
	}
	if to < s.cols && line[to] == cont {
		line[to] = ' '
	}
	for i := from; i < to; i++ {
		line[i] = ' '
	}
}

func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }
