package jsonl

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Scanner is a pull parser for JSON Lines over a fixed-size window. A caller
// moves from record to record with NextLine and walks each record with
// BeginObject/NextKey, BeginArray/NextElem and the value readers, skipping
// what it does not need with Skip. It can stop walking a record at any
// point; NextLine then skips the rest of the line without parsing it.
//
// Errors within a record are sticky: after one, every reader returns a zero
// value and NextKey/NextElem return false, and LineErr reports what went
// wrong. The next NextLine starts cleanly on the following line.
type Scanner struct {
	r    io.Reader
	buf  []byte
	pos  int
	end  int
	eof  bool
	rerr error

	line     int   // number of the current line
	off      int64 // stream offset of buf[0]
	lineOff  int64 // stream offset of the current line
	started  bool
	finished bool // the current line was skipped to its end by Finish
	first    byte // the first byte of the current line
	// partial is set by Finish and Rest when the current line is the
	// last and has no newline; lineLen is then its length.
	partial bool
	lineLen int64

	// open counts the objects and arrays of the current line the walk
	// has begun and not yet seen the end of; walked is set once it began
	// one.
	open   int
	walked bool
	tail   []byte // scratch for Finish

	lerr   error  // syntax error in the current line
	key    []byte // the current key: in the window, or in keyBuf
	keyBuf []byte // scratch for keys with escapes
	str    []byte // scratch for string values
	trunc  bool

	// AppendRaw's capture of the value being skipped.
	capture []byte
	capOn   bool
	capAt   int // start in buf of what is not yet in capture
}

// DefaultWindow is the window size NewScanner uses when given 0.
const DefaultWindow = 256 << 10

// NewScanner returns a Scanner reading r through a window of size bytes.
func NewScanner(r io.Reader, size int) *Scanner {
	if size <= 0 {
		size = DefaultWindow
	}
	if size < 64 {
		size = 64
	}
	return &Scanner{r: r, buf: make([]byte, size), keyBuf: make([]byte, 0, 64), str: make([]byte, 0, 256)}
}

// Reset makes the scanner read r from the start, keeping its buffers.
func (s *Scanner) Reset(r io.Reader) {
	*s = Scanner{r: r, buf: s.buf, keyBuf: s.keyBuf[:0], str: s.str[:0], tail: s.tail[:0]}
}

// ResetBytes makes the scanner read b, in place: b is the window, so
// nothing is copied and the window never grows. b must not change while
// the scanner reads it.
func (s *Scanner) ResetBytes(b []byte) {
	*s = Scanner{buf: b, end: len(b), eof: true, keyBuf: s.keyBuf[:0], str: s.str[:0]}
}

// SyntaxError describes a malformed record.
type SyntaxError struct {
	Msg    string
	Offset int64 // stream offset where the problem was found
}

func (e *SyntaxError) Error() string { return e.Msg }

// NextLine skips what is left of the current line and moves to the start of
// the next line that is not blank. It returns false at the end of input or
// on a read error (see Err).
func (s *Scanner) NextLine() bool {
	if s.started && !s.finished {
		if !s.skipToEOL() {
			return false
		}
	}
	s.started, s.finished = true, false
	s.lerr, s.partial = nil, false
	s.open, s.walked = 0, false
	for {
		s.line++
		s.lineOff = s.off + int64(s.pos)
		// Skip leading blanks; a blank line is skipped entirely.
		for {
			if s.pos >= s.end && !s.more() {
				return false
			}
			c := s.buf[s.pos]
			if c == ' ' || c == '\t' || c == '\r' {
				s.pos++
				continue
			}
			if c == '\n' {
				s.pos++
				break // blank line: count it and look at the next
			}
			s.first = c
			return true
		}
	}
}

// Finish skips what is left of the current line and checks, cheaply, that
// the record was complete: the last byte of the line that is not
// whitespace must close the record ('}' or ']'), or have been consumed by
// the walk, and nothing may follow a record the walk read to its end. A
// record cut short (a crash mid-write) or followed by garbage then fails
// the line, even when the caller stopped walking it early. The last line,
// when it has no newline (where a crash leaves a record cut short) and
// what the walk left of it is in the window, is checked whole: its
// brackets must close what the walk left open.
// NextLine calls nothing more; call Finish before checking Failed.
func (s *Scanner) Finish() {
	if s.finished || !s.started {
		return
	}
	s.finished = true
	if s.lerr != nil {
		if !s.skipToEOL() {
			s.endPartial()
		}
		return
	}
	var tail []byte // what the walk left of the line, while it is all in the window
	var last byte   // last non-blank byte after the walk's position
	for first := true; ; first = false {
		seg := s.buf[s.pos:s.end]
		i := bytes.IndexByte(seg, '\n')
		end := len(seg)
		if i >= 0 {
			end = i
		}
		for j := end - 1; j >= 0; j-- {
			if c := seg[j]; c != ' ' && c != '\t' && c != '\r' {
				last = c
				break
			}
		}
		if i >= 0 {
			s.pos += i + 1
			break
		}
		tail = nil
		if first && s.walked {
			// Kept in case the line ends with the input here, where a
			// crash leaves a record cut short.
			s.tail = append(s.tail[:0], seg...)
			tail = s.tail
		}
		s.pos = s.end
		if !s.more() {
			s.endPartial()
			break
		}
	}
	switch {
	case s.partial && tail != nil && !closes(tail, s.open):
		s.lerr = &SyntaxError{Msg: "record ends early or has trailing data", Offset: s.lineOff}
	case s.walked && s.open == 0 && last != 0:
		s.lerr = &SyntaxError{Msg: "record ends early or has trailing data", Offset: s.lineOff}
	case last != 0 && last != '}' && last != ']':
		s.lerr = &SyntaxError{Msg: "record ends early or has trailing data", Offset: s.lineOff}
	}
}

// endPartial notes that the current line ended with the input, without a
// newline.
func (s *Scanner) endPartial() {
	s.partial = true
	s.lineLen = s.off + int64(s.pos) - s.lineOff
}

// Partial reports whether the current line, once finished (Finish or
// Rest), is the last line of the input, has no newline and starts a
// record: one that may still be being written.
func (s *Scanner) Partial() bool { return s.partial && s.first == '{' }

// Problem describes what was wrong with the current line, once finished
// and Failed, for a warning: an incomplete last line (see Partial and
// Incomplete), or a malformed record, in the words Reader uses (so that
// list and show say the same of a line).
func (s *Scanner) Problem() string {
	if s.lerr == nil {
		return ""
	}
	if s.Partial() {
		return Incomplete(int(s.lineLen), s.lerr)
	}
	return "malformed JSON (" + s.lerr.Error() + "); line skipped"
}

// Rest returns what is left of the current line, when the line ends within
// the window, and moves past it, checking the record is complete as Finish
// does. It returns false and consumes nothing when the line runs beyond the
// window. Callers use it to pick a few fields out of a record's flat tail
// with EachField instead of walking it.
func (s *Scanner) Rest() ([]byte, bool) {
	if s.lerr != nil || s.finished {
		return nil, false
	}
	seg := s.buf[s.pos:s.end]
	i := bytes.IndexByte(seg, '\n')
	next := s.pos + i + 1
	partial := false
	if i < 0 {
		if !s.eof {
			return nil, false
		}
		i, next, partial = len(seg), s.end, true
	}
	rest := seg[:i]
	s.pos, s.finished = next, true
	if partial {
		s.endPartial()
	}
	if !closes(rest, s.open) {
		s.lerr = &SyntaxError{Msg: "record ends early or has trailing data", Offset: s.lineOff}
	}
	return rest, s.lerr == nil
}

// closes reports whether tail, what is left of a record once the walk
// opened depth objects and arrays, closes them and ends there: its
// brackets balance outside strings and only spaces follow. A line cut
// right after a nested value ends in a bracket too, and is refused.
func closes(tail []byte, depth int) bool {
	for i := 0; i < len(tail); i++ {
		if depth == 0 {
			return len(bytes.TrimLeft(tail[i:], " \t\r")) == 0
		}
		switch tail[i] {
		case '"':
			// To the quote that ends the string: one after an even
			// run of backslashes.
			for {
				j := bytes.IndexByte(tail[i+1:], '"')
				if j < 0 {
					return false
				}
				i += j + 1
				n := 0
				for tail[i-1-n] == '\\' {
					n++
				}
				if n%2 == 0 {
					break
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
	}
	return depth == 0
}

// EachField calls fn with the key and value of each member of a flat run of
// object members such as Rest returns (`"a":"x","b":2}`): string values
// without their quotes (escapes left in), other values as they are. Nested
// objects and arrays are passed whole. It stops at the end of the run or
// of the object, or when fn returns false.
func EachField(b []byte, fn func(key, value []byte) bool) {
	i := 0
	for i < len(b) {
		// Find the next key.
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return
		}
		if k := bytes.LastIndexAny(b[i:i+q], "}]"); k >= 0 {
			return // the object ended
		}
		i += q + 1
		end := stringEnd(b, i)
		if end < 0 {
			return
		}
		key := b[i:end]
		i = end + 1
		for i < len(b) && (b[i] == ' ' || b[i] == ':' || b[i] == '\t') {
			i++
		}
		if i >= len(b) {
			return
		}
		var val []byte
		switch b[i] {
		case '"':
			e := stringEnd(b, i+1)
			if e < 0 {
				return
			}
			val, i = b[i+1:e], e+1
		case '{', '[':
			e := nestedEnd(b, i)
			if e < 0 {
				return
			}
			val, i = b[i:e], e
		default:
			e := i
			for e < len(b) && b[e] != ',' && b[e] != '}' && b[e] != ']' && b[e] != ' ' {
				e++
			}
			val, i = b[i:e], e
		}
		if !fn(key, val) {
			return
		}
	}
}

// stringEnd returns the index of the quote closing the string whose
// content starts at b[i], or -1.
func stringEnd(b []byte, i int) int {
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return -1
		}
		e := i + q
		n := 0
		for j := e - 1; j >= i && b[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return e
		}
		i = e + 1
	}
}

// nestedEnd returns the index just past the object or array starting at
// b[i], or -1.
func nestedEnd(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			e := stringEnd(b, i+1)
			if e < 0 {
				return -1
			}
			i = e
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return -1
}

// Unquote decodes the content of a JSON string (without its quotes), as
// EachField hands it out. It returns b itself when there is nothing to
// decode.
func Unquote(b []byte) ([]byte, bool) {
	if bytes.IndexByte(b, '\\') < 0 {
		return b, true
	}
	return unescape(append(bytes.Clone(b), '"'))
}

// unescape decodes the JSON string starting at b (after its opening quote).
func unescape(b []byte) ([]byte, bool) {
	s := NewScanner(bytes.NewReader(append([]byte{'"'}, b...)), 64)
	s.started = true
	v := s.String(1 << 20)
	return bytes.Clone(v), !s.Failed()
}

// skipToEOL moves past the next newline. It returns false at end of input.
func (s *Scanner) skipToEOL() bool {
	for {
		if i := bytes.IndexByte(s.buf[s.pos:s.end], '\n'); i >= 0 {
			s.pos += i + 1
			return true
		}
		s.pos = s.end
		if !s.more() {
			return false
		}
	}
}

// more reads more input, keeping buf[pos:end]. It returns false when no
// more input is available.
func (s *Scanner) more() bool {
	if s.eof {
		return false
	}
	if s.pos > 0 {
		if s.capOn {
			s.capture = append(s.capture, s.buf[s.capAt:s.pos]...)
			s.capAt = 0
		}
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.off += int64(s.pos)
		s.pos, s.end = 0, n
	}
	if s.end == len(s.buf) {
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.eof = true
			if !errors.Is(err, io.EOF) {
				s.rerr = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// LineNo returns the 1-based number of the current line.
func (s *Scanner) LineNo() int { return s.line }

// LineOffset returns the stream offset of the current line.
func (s *Scanner) LineOffset() int64 { return s.lineOff }

// Err returns the first read error other than io.EOF.
func (s *Scanner) Err() error { return s.rerr }

// LineErr returns the syntax error found in the current line, if any.
func (s *Scanner) LineErr() error { return s.lerr }

// Failed reports whether the current line has a syntax error.
func (s *Scanner) Failed() bool { return s.lerr != nil }

func (s *Scanner) fail(msg string) {
	if s.lerr == nil {
		s.lerr = &SyntaxError{Msg: msg, Offset: s.off + int64(s.pos)}
	}
}

// peek skips whitespace and returns the next byte without consuming it, or
// 0 at the end of the line (which is then a syntax error for the caller to
// report).
func (s *Scanner) peek() byte {
	for {
		if s.pos >= s.end && !s.more() {
			return 0
		}
		switch c := s.buf[s.pos]; c {
		case ' ', '\t', '\r':
			s.pos++
		case '\n':
			return 0
		default:
			return c
		}
	}
}

// Kind returns the first byte of the next value: '{', '[', '"', 't', 'f',
// 'n', '-' or a digit; or 0 when the line has ended or failed.
func (s *Scanner) Kind() byte {
	if s.lerr != nil {
		return 0
	}
	return s.peek()
}

func (s *Scanner) expect(c byte) bool {
	if s.lerr != nil {
		return false
	}
	got := s.peek()
	if got != c {
		if got == 0 {
			s.fail("record ends early")
		} else {
			s.fail("expected '" + string(c) + "', found '" + string(got) + "'")
		}
		return false
	}
	s.pos++
	return true
}

// BeginObject consumes '{'. It fails the line if the next value is not an
// object.
func (s *Scanner) BeginObject() bool { return s.begin('{') }

// BeginArray consumes '['. It fails the line if the next value is not an
// array.
func (s *Scanner) BeginArray() bool { return s.begin('[') }

func (s *Scanner) begin(c byte) bool {
	if !s.expect(c) {
		return false
	}
	s.open++
	s.walked = true
	return true
}

// NextKey moves to the next member of the object being walked and reports
// whether there is one; it consumes the closing '}' when there is not. The
// key is available from Key until the next call on the scanner; the value
// must then be consumed (read or skipped) before calling NextKey again.
func (s *Scanner) NextKey() bool {
	if s.lerr != nil {
		return false
	}
	c := s.peek()
	if c == ',' {
		s.pos++
		c = s.peek()
	}
	switch c {
	case '}':
		s.pos++
		s.open = max(0, s.open-1)
		return false
	case '"':
		s.pos++
		if k, ok := s.plain(); ok {
			if s.pos < s.end && s.buf[s.pos] == ':' {
				// The key stays valid in the window until the value is
				// read.
				s.pos++
				s.key = k
				return true
			}
			// Finding the colon may refill the window under the key.
			s.keyBuf = append(s.keyBuf[:0], k...)
			s.key = s.keyBuf
		} else {
			s.key = s.readString(s.keyBuf[:0], 1<<20)
			s.keyBuf = s.key
		}
		if s.lerr != nil {
			return false
		}
		return s.expect(':')
	case 0:
		s.fail("record ends early")
	default:
		s.fail("expected object key, found '" + string(c) + "'")
	}
	return false
}

// Key returns the key NextKey moved to.
func (s *Scanner) Key() []byte { return s.key }

// NextElem moves to the next element of the array being walked and reports
// whether there is one; it consumes the closing ']' when there is not.
func (s *Scanner) NextElem() bool {
	if s.lerr != nil {
		return false
	}
	c := s.peek()
	if c == ',' {
		s.pos++
		c = s.peek()
	}
	switch c {
	case ']':
		s.pos++
		s.open = max(0, s.open-1)
		return false
	case 0:
		s.fail("record ends early")
		return false
	}
	return true
}

// String reads a string value, unescaped, keeping at most max bytes (the
// rest is skipped; Truncated reports it). A null reads as "". Any other
// value is skipped and reads as "". The result is valid until the next call
// on the scanner.
func (s *Scanner) String(max int) []byte {
	s.trunc = false
	switch s.Kind() {
	case '"':
		s.pos++
		if v, ok := s.plain(); ok {
			// The whole string is in the window and needs no
			// unescaping: hand out the window itself.
			if len(v) > max {
				v, s.trunc = v[:max], true
			}
			return v
		}
		s.str = s.readString(s.str[:0], max)
		return s.str
	case 0:
		s.fail("record ends early")
		return nil
	default:
		s.Skip()
		return nil
	}
}

// RawString reads a string value without unescaping it, keeping at most
// max of its bytes as they appear in the input (escapes included). It is
// for checks that need no decoding: whether a string is empty, or a
// marker near its start. Non-strings are skipped and read as nil.
func (s *Scanner) RawString(max int) []byte {
	s.trunc = false
	switch s.Kind() {
	case '"':
		s.pos++
	case 0:
		s.fail("record ends early")
		return nil
	default:
		s.Skip()
		return nil
	}
	start := s.off + int64(s.pos)
	n := min(max, s.end-s.pos)
	s.str = append(s.str[:0], s.buf[s.pos:s.pos+n]...)
	s.skipString()
	if s.lerr != nil {
		return nil
	}
	length := int(s.off + int64(s.pos) - 1 - start)
	if length < len(s.str) {
		s.str = s.str[:length]
	}
	s.trunc = length > max
	return s.str
}

// StringValue reads a string value whole, unescaped, as a Go string. When
// the input is all in the window (ResetBytes), it sizes the result from
// the raw string and decodes straight into it, so that a huge string
// costs one allocation of its own size and no scratch. Anything else reads
// as String does.
func (s *Scanner) StringValue() string {
	if s.Kind() != '"' || !s.eof {
		return string(s.String(math.MaxInt))
	}
	end := stringEnd(s.buf[:s.end], s.pos+1)
	if end < 0 {
		return string(s.String(math.MaxInt)) // reports the error
	}
	raw := s.buf[s.pos+1 : end]
	if bytes.IndexByte(raw, '\\') < 0 {
		if bytes.IndexByte(raw, '\n') >= 0 {
			return string(s.String(math.MaxInt)) // reports the error
		}
		s.pos = end + 1
		return string(raw)
	}
	s.pos++
	b := s.readString(make([]byte, 0, len(raw)), math.MaxInt)
	if s.lerr != nil {
		return ""
	}
	// b is never written again: the string can share its memory.
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// StringSpan reads a string value and returns its content as it appears
// in the input, escapes included, without copying: a slice of the window,
// valid as long as the input. It works only when the input is all in the
// window (ResetBytes); otherwise, or for a value that is not a string, it
// returns false and consumes nothing.
func (s *Scanner) StringSpan() ([]byte, bool) {
	if s.Kind() != '"' || !s.eof {
		return nil, false
	}
	end := stringEnd(s.buf[:s.end], s.pos+1)
	if end < 0 || bytes.IndexByte(s.buf[s.pos+1:end], '\n') >= 0 {
		return nil, false
	}
	raw := s.buf[s.pos+1 : end]
	s.pos = end + 1
	return raw, true
}

// AppendRaw appends the next value, whatever it is, to dst as it appears
// in the input, and consumes it.
func (s *Scanner) AppendRaw(dst []byte) []byte {
	if s.Kind() == 0 {
		if s.lerr == nil {
			s.fail("record ends early")
		}
		return dst
	}
	s.capture, s.capOn, s.capAt = dst, true, s.pos
	s.Skip()
	if s.capOn && s.lerr == nil {
		s.capture = append(s.capture, s.buf[s.capAt:s.pos]...)
	}
	out := s.capture
	s.capture, s.capOn = nil, false
	return out
}

// Truncated reports whether the last String result was cut at its limit.
func (s *Scanner) Truncated() bool { return s.trunc }

// Int reads a number value as an integer (a fraction is dropped). Any other
// value is skipped and reads as 0.
func (s *Scanner) Int() int64 {
	c := s.Kind()
	if c != '-' && (c < '0' || c > '9') {
		if c == 0 {
			s.fail("record ends early")
			return 0
		}
		s.Skip()
		return 0
	}
	var n int64
	neg := false
	if c == '-' {
		neg = true
		s.pos++
	}
	frac := false
	for {
		if s.pos >= s.end && !s.more() {
			break
		}
		c := s.buf[s.pos]
		switch {
		case c >= '0' && c <= '9':
			if !frac {
				n = n*10 + int64(c-'0')
			}
		case c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-':
			frac = true
		default:
			if neg {
				return -n
			}
			return n
		}
		s.pos++
	}
	if neg {
		return -n
	}
	return n
}

// Bool reads a boolean value. Any other value is skipped and reads as false.
func (s *Scanner) Bool() bool {
	switch s.Kind() {
	case 't':
		s.literal("true")
		return true
	case 'f':
		s.literal("false")
	case 0:
		s.fail("record ends early")
	default:
		s.Skip()
	}
	return false
}

// IsNull consumes a null value and reports whether there was one.
func (s *Scanner) IsNull() bool {
	if s.Kind() == 'n' {
		s.literal("null")
		return true
	}
	return false
}

func (s *Scanner) literal(lit string) {
	for i := 0; i < len(lit); i++ {
		if s.pos >= s.end && !s.more() {
			s.fail("record ends early")
			return
		}
		if s.buf[s.pos] != lit[i] {
			s.fail("invalid literal")
			return
		}
		s.pos++
	}
}

// Skip consumes the next value, whatever it is, without keeping it.
func (s *Scanner) Skip() {
	c := s.Kind()
	switch {
	case c == 0:
		if s.lerr == nil {
			s.fail("record ends early")
		}
	case c == '"':
		s.pos++
		s.skipString()
	case c == '{' || c == '[':
		s.pos++
		s.skipNested()
	case c == 't':
		s.literal("true")
	case c == 'f':
		s.literal("false")
	case c == 'n':
		s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		s.skipNumber()
	default:
		s.fail("unexpected '" + string(c) + "'")
	}
}

// plain returns the rest of a string whose opening quote was consumed, and
// consumes it, when it ends within the window and holds no escapes (nor a
// newline). Otherwise it consumes nothing and returns false.
func (s *Scanner) plain() ([]byte, bool) {
	seg := s.buf[s.pos:s.end]
	q := bytes.IndexByte(seg, '"')
	if q < 0 {
		return nil, false
	}
	run := seg[:q]
	if q > 32 {
		if bytes.IndexByte(run, '\\') >= 0 || bytes.IndexByte(run, '\n') >= 0 {
			return nil, false
		}
	} else {
		for _, c := range run {
			if c == '\\' || c == '\n' {
				return nil, false
			}
		}
	}
	s.pos += q + 1
	return run, true
}

func (s *Scanner) skipNumber() {
	for {
		if s.pos >= s.end && !s.more() {
			return
		}
		switch c := s.buf[s.pos]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			s.pos++
		default:
			return
		}
	}
}

// skipNested skips the rest of an object or array whose opening bracket
// was consumed. It tracks depth only; strings are skipped whole.
func (s *Scanner) skipNested() {
	depth := 1
outer:
	for {
		if s.pos >= s.end && !s.more() {
			s.fail("record ends early")
			return
		}
		buf := s.buf[s.pos:s.end]
		for i, c := range buf {
			switch c {
			case '"':
				s.pos += i + 1
				s.skipString()
				if s.lerr != nil {
					return
				}
				continue outer
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.pos += i + 1
					return
				}
			case '\n':
				s.pos += i
				s.fail("record ends early")
				return
			}
		}
		s.pos += len(buf)
	}
}

// skipString skips the rest of a string whose opening quote was consumed.
func (s *Scanner) skipString() {
	carry := 0 // backslashes ending the previous window
	for {
		seg := s.buf[s.pos:s.end]
		i := bytes.IndexByte(seg, '"')
		if i < 0 {
			if j := bytes.IndexByte(seg, '\n'); j >= 0 {
				s.pos += j
				s.fail("unterminated string")
				return
			}
			carry = TrailingBackslashes(seg, carry)
			s.pos = s.end
			if !s.more() {
				s.fail("unterminated string")
				return
			}
			continue
		}
		if j := bytes.IndexByte(seg[:i], '\n'); j >= 0 {
			s.pos += j
			s.fail("unterminated string")
			return
		}
		k := TrailingBackslashes(seg[:i], carry)
		carry = 0
		s.pos += i + 1
		if k%2 == 0 {
			return
		}
	}
}

// TrailingBackslashes counts the backslashes ending b, adding carry when b
// is all backslashes: a quote after an odd count is escaped. Scanning a
// string a piece at a time, carry is the count that ended the piece
// before.
func TrailingBackslashes(b []byte, carry int) int {
	k := 0
	for k < len(b) && b[len(b)-1-k] == '\\' {
		k++
	}
	if k == len(b) {
		k += carry
	}
	return k
}

// readString reads the rest of a string whose opening quote was consumed,
// appending at most max unescaped bytes to dst.
func (s *Scanner) readString(dst []byte, max int) []byte {
	s.trunc = false
	for {
		if s.pos >= s.end && !s.more() {
			s.fail("unterminated string")
			return dst
		}
		seg := s.buf[s.pos:s.end]
		// Copy the run up to the next quote, backslash or newline.
		i := 0
		for i < len(seg) {
			c := seg[i]
			if c == '"' || c == '\\' || c == '\n' {
				break
			}
			i++
		}
		if i > 0 {
			dst = appendCapped(dst, seg[:i], max, &s.trunc)
			s.pos += i
			if s.trunc {
				s.skipString()
				return dst
			}
			if i == len(seg) {
				continue
			}
		}
		switch seg[i] {
		case '"':
			s.pos++
			return dst
		case '\n':
			s.fail("unterminated string")
			return dst
		}
		// Escape sequence: make sure it is in the window.
		if s.end-s.pos < 12 {
			s.more()
		}
		rest := s.buf[s.pos:s.end]
		if len(rest) < 2 {
			s.fail("unterminated string")
			return dst
		}
		var r rune = -1
		n := 2
		switch rest[1] {
		case '"', '\\', '/':
			r = rune(rest[1])
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'u':
			r, n = decodeU(rest)
		}
		if r < 0 {
			s.fail("invalid escape in string")
			return dst
		}
		var tmp [utf8.UTFMax]byte
		w := utf8.EncodeRune(tmp[:], r)
		dst = appendCapped(dst, tmp[:w], max, &s.trunc)
		s.pos += n
		if s.trunc {
			s.skipString()
			return dst
		}
	}
}

// decodeU decodes a \uXXXX escape (and a following low surrogate) at the
// start of b. It returns the rune and the bytes used, or -1.
func decodeU(b []byte) (rune, int) {
	if len(b) < 6 {
		return -1, 0
	}
	v, err := strconv.ParseUint(string(b[2:6]), 16, 16)
	if err != nil {
		return -1, 0
	}
	r := rune(v)
	if utf16.IsSurrogate(r) {
		if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
			if v2, err := strconv.ParseUint(string(b[8:12]), 16, 16); err == nil {
				if d := utf16.DecodeRune(r, rune(v2)); d != utf8.RuneError {
					return d, 12
				}
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

func appendCapped(dst, src []byte, max int, trunc *bool) []byte {
	if room := max - len(dst); room < len(src) {
		if room > 0 {
			dst = append(dst, src[:room]...)
		}
		*trunc = true
		return dst
	}
	return append(dst, src...)
}

var scanners = sync.Pool{New: func() any { return NewScanner(nil, DefaultWindow) }}

// GetScanner returns a pooled Scanner with the default window reading r.
// Return it with PutScanner when done.
func GetScanner(r io.Reader) *Scanner {
	s := scanners.Get().(*Scanner)
	s.Reset(r)
	return s
}

// PutScanner returns a Scanner to the pool. A scanner whose window grew
// beyond the default is dropped.
func PutScanner(s *Scanner) {
	if len(s.buf) != DefaultWindow {
		return
	}
	s.r = nil
	scanners.Put(s)
}
