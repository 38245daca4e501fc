package safetext

import (
	"io"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Unsafe reports whether r must not reach a terminal as it is: C0
// controls but tab and newline, DEL, the C1 controls (U+0080 to U+009F,
// which some terminals obey as escape sequences), and the bidirectional
// controls that reorder what a line shows ("Trojan Source").
func Unsafe(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\t' && r != '\n'
	case r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// Terminal returns s with every unsafe character (Unsafe) and every byte
// that is not UTF-8 written as a visible escape: ESC as \x1b, U+009B as
// \u009b. A carriage return is kept only right before a newline (CRLF
// line ends, and what stead writes to a terminal in raw mode); any other
// one is shown as \r, since it could overwrite what the line showed.
func Terminal(s string) string {
	if clean(s) {
		return s
	}
	return string(appendTerminal(make([]byte, 0, len(s)+16), s, true))
}

// clean reports whether s is all printable ASCII, tabs and newlines: the
// common case, which needs no copy.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x7f || c < 0x20 && c != '\t' && c != '\n' {
			return false
		}
	}
	return true
}

// appendTerminal appends s made safe to b. final says that s is all there
// is: a carriage return at its end is not followed by a newline.
func appendTerminal(b []byte, s string, final bool) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
				b = append(b, c)
			case c < 0x20 && c != '\t' && c != '\n', c == 0x7f:
				b = appendHex(b, c)
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = appendHex(b, c)
		case Unsafe(r):
			b = append(b, `\u`...)
			h := strconv.FormatInt(int64(r), 16)
			for n := len(h); n < 4; n++ {
				b = append(b, '0')
			}
			b = append(b, h...)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return b
}

func appendHex(b []byte, c byte) []byte {
	const digits = "0123456789abcdef"
	if c == '\r' {
		return append(b, `\r`...)
	}
	return append(b, '\\', 'x', digits[c>>4], digits[c&0xf])
}

// Writer passes what is written to it on through Terminal. It holds back
// at most the start of a character cut by the end of a write, and a
// carriage return that may start a CRLF, until the next write or Flush.
// It is safe for concurrent use, as an *os.File is.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	held []byte
	buf  []byte
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p made safe. It reports len(p) when the underlying writer
// took everything.
func (t *Writer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.held) == 0 && clean(string(p)) {
		// The common case: nothing to change or hold.
		if _, err := t.w.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	data := p
	if len(t.held) > 0 {
		data = append(t.held, p...)
		t.held = nil
	}
	cut := len(data) - incompleteTail(data)
	if cut > 0 && data[cut-1] == '\r' {
		cut--
	}
	t.buf = appendTerminal(t.buf[:0], string(data[:cut]), false)
	t.held = append([]byte(nil), data[cut:]...)
	if _, err := t.w.Write(t.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held back, made safe as it is.
func (t *Writer) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.held) == 0 {
		return nil
	}
	t.buf = appendTerminal(t.buf[:0], string(t.held), true)
	t.held = nil
	_, err := t.w.Write(t.buf)
	return err
}

// incompleteTail is how many bytes at the end of b start a UTF-8
// character that the next write may complete.
func incompleteTail(b []byte) int {
	for n := 1; n <= 3 && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < 0x80 {
			return 0
		}
		if c >= 0xc0 { // a start byte
			if !utf8.FullRune(b[len(b)-n:]) {
				return n
			}
			return 0
		}
	}
	return 0
}
