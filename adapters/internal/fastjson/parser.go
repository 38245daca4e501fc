package fastjson

import (
	"encoding/binary"
	"math/bits"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Parser walks one JSON value held whole in memory. A caller moves
// through objects with Object and Key, through arrays with Array and
// Elem, reads the values it wants with Str, Bool, Int and Raw, and skips
// the others with Skip; Skip checks what it skips.
//
// Failure is sticky: after the input proves invalid (Invalid) or the
// caller declines it (Decline), every method returns a zero value and the
// walk ends; Failed reports either. A caller that gets a failure decodes
// the input with encoding/json instead (see the package doc).
type Parser struct {
	b        []byte
	pos      int
	invalid  bool
	declined bool
	nest     []byte // '{' or '[' for each container being walked
	first    []bool // whether the container on nest has yielded nothing yet
	skipNest []byte
	nonASCII bool // a string may hold bytes beyond ASCII
	interned [interns]string
}

// maxDepth bounds the nesting a Parser follows; deeper input is declined
// (encoding/json's own limit is 10000, and reports an error past it).
const maxDepth = 5000

// Reset makes the parser read b from its start.
func (p *Parser) Reset(b []byte) {
	p.b, p.pos, p.invalid, p.declined, p.nonASCII = b, 0, false, false, false
	p.nest, p.first = p.nest[:0], p.first[:0]
}

// Failed reports whether the input was invalid or declined.
func (p *Parser) Failed() bool { return p.invalid || p.declined }

// Invalid reports whether the input is not JSON.
func (p *Parser) Invalid() bool { return p.invalid }

// Decline gives up on the input: it is JSON, but not JSON the caller
// reads the way encoding/json would.
func (p *Parser) Decline() { p.declined = true }

func (p *Parser) bad() { p.invalid = true }

// Mark is a place in the input to come back to with Rewind.
type Mark struct {
	pos, depth int
	failed     bool
}

// Mark returns the current place, before the next value.
func (p *Parser) Mark() Mark {
	p.ws()
	return Mark{p.pos, len(p.nest), p.Failed()}
}

// Rewind goes back to m, forgetting a Decline since (not an invalid
// input): a caller that declined a value's contents comes back to read
// the value another way, say with Raw.
func (p *Parser) Rewind(m Mark) {
	if p.invalid || m.failed {
		return
	}
	p.pos, p.declined = m.pos, false
	p.nest, p.first = p.nest[:m.depth], p.first[:m.depth]
}

func (p *Parser) ws() {
	if p.pos < len(p.b) && p.b[p.pos] > ' ' {
		return // the usual case: records are written without whitespace
	}
	for p.pos < len(p.b) {
		switch p.b[p.pos] {
		case ' ', '\t', '\r', '\n':
			p.pos++
		default:
			return
		}
	}
}

// NonASCII reports whether the input walked so far may hold bytes beyond
// ASCII; when it does not, the input is valid UTF-8.
func (p *Parser) NonASCII() bool { return p.nonASCII }

// Since returns the input from m to the current place (a value read
// since m), as Raw would have returned it.
func (p *Parser) Since(m Mark) []byte { return p.b[m.pos:p.pos:p.pos] }

// Kind returns the first byte of the next value ('{', '[', '"', 't',
// 'f', 'n', '-' or a digit, or anything else for invalid input), or 0 at
// the end of the input or after a failure.
func (p *Parser) Kind() byte {
	if p.Failed() {
		return 0
	}
	p.ws()
	if p.pos >= len(p.b) {
		return 0
	}
	return p.b[p.pos]
}

// End checks that nothing but whitespace follows the value walked, and
// reports whether the walk succeeded.
func (p *Parser) End() bool {
	if p.Failed() {
		return false
	}
	p.ws()
	if p.pos != len(p.b) || len(p.nest) != 0 {
		p.bad()
	}
	return !p.Failed()
}

// Object starts walking an object. It fails (declines) when the next value
// is not one.
func (p *Parser) Object() bool { return p.open('{') }

// Array starts walking an array. It fails (declines) when the next value
// is not one.
func (p *Parser) Array() bool { return p.open('[') }

func (p *Parser) open(c byte) bool {
	k := p.Kind()
	if k != c {
		if k != 0 {
			p.Decline()
		} else if !p.Failed() {
			p.bad()
		}
		return false
	}
	if len(p.nest) >= maxDepth {
		p.Decline()
		return false
	}
	p.pos++
	p.nest = append(p.nest, c)
	p.first = append(p.first, true)
	return true
}

// more moves past the comma before the next member or element of the
// container on top of nest, or past its closing bracket.
func (p *Parser) more(closing byte) bool {
	if p.Failed() || len(p.nest) == 0 {
		return false
	}
	top := len(p.nest) - 1
	p.ws()
	if p.pos >= len(p.b) {
		p.bad()
		return false
	}
	c := p.b[p.pos]
	if c == closing {
		p.pos++
		p.nest, p.first = p.nest[:top], p.first[:top]
		return false
	}
	if p.first[top] {
		p.first[top] = false
		return true
	}
	if c != ',' {
		p.bad()
		return false
	}
	p.pos++
	return true
}

// Key moves to the next member of the object being walked and returns its
// key, a slice of the input valid as long as it; it returns false at the
// end of the object (consuming its '}') or on a failure. The member's
// value must be read or skipped before the next Key. A key holding an
// escape is declined: it must be decoded before it can be matched.
func (p *Parser) Key() ([]byte, bool) {
	if !p.more('}') {
		return nil, false
	}
	p.ws()
	if p.pos >= len(p.b) || p.b[p.pos] != '"' {
		p.bad()
		return nil, false
	}
	start := p.pos + 1
	end, esc, _ := p.scanString(start)
	if p.invalid {
		return nil, false
	}
	p.pos = end + 1
	p.ws()
	if p.pos >= len(p.b) || p.b[p.pos] != ':' {
		p.bad()
		return nil, false
	}
	p.pos++
	if esc {
		p.Decline()
		return nil, false
	}
	return p.b[start:end], true
}

// Elem moves to the next element of the array being walked; it returns
// false at the end of the array (consuming its ']') or on a failure.
func (p *Parser) Elem() bool {
	if !p.more(']') {
		return false
	}
	p.ws()
	return true
}

// Null consumes a null and reports whether there was one.
func (p *Parser) Null() bool {
	if p.Kind() != 'n' {
		return false
	}
	p.literal("null")
	return !p.invalid
}

// Str reads a string into *dst. A null leaves *dst as it is, as
// encoding/json does; any other value is declined.
func (p *Parser) Str(dst *string) {
	switch p.Kind() {
	case '"':
		*dst = p.str()
	case 'n':
		p.literal("null")
	case 0:
		if !p.Failed() {
			p.bad()
		}
	default:
		p.Decline()
	}
}

// Intern is Str for a value that recurs from record to record (a type, a
// session id, a model): a short value is kept once and shared.
func (p *Parser) Intern(dst *string) {
	if p.Kind() != '"' {
		p.Str(dst)
		return
	}
	start := p.pos + 1
	end, esc, hi := p.scanString(start)
	if p.invalid {
		return
	}
	raw := p.b[start:end]
	if esc || hi || len(raw) > maxInterned {
		*dst = p.str()
		return
	}
	p.pos = end + 1
	if len(raw) == 0 {
		*dst = ""
		return
	}
	// A direct-mapped cache: cheaper than a map, and a miss only costs
	// the copy Str would have made.
	h := (uint(len(raw))*31 + uint(raw[0])*7 + uint(raw[len(raw)/2])*13 + uint(raw[len(raw)-1])) % interns
	if s := p.interned[h]; s == string(raw) {
		*dst = s
		return
	}
	s := string(raw)
	p.interned[h] = s
	*dst = s
}

// Interned values are at most maxInterned bytes; a parser keeps the last
// value of each of interns slots.
const (
	maxInterned = 64
	interns     = 256
)

// View is Str for a value used only while the input is (a timestamp to
// parse): a value without escapes comes as a view of the input, not a
// copy.
func (p *Parser) View(dst *string) {
	if p.Kind() != '"' {
		p.Str(dst)
		return
	}
	start := p.pos + 1
	end, esc, hi := p.scanString(start)
	if p.invalid {
		return
	}
	raw := p.b[start:end]
	if esc || (hi && !utf8.Valid(raw)) {
		*dst = p.str()
		return
	}
	p.pos = end + 1
	*dst = unsafe.String(unsafe.SliceData(raw), len(raw))
}

// String reads a string, or a null as "", declining any other value.
func (p *Parser) String() string {
	var s string
	p.Str(&s)
	return s
}

// Bool reads a boolean into *dst. A null leaves *dst as it is; any other
// value is declined.
func (p *Parser) Bool(dst *bool) {
	switch p.Kind() {
	case 't':
		p.literal("true")
		*dst = true
	case 'f':
		p.literal("false")
		*dst = false
	case 'n':
		p.literal("null")
	case 0:
		if !p.Failed() {
			p.bad()
		}
	default:
		p.Decline()
	}
}

// Int reads an integer into *dst. A null leaves *dst as it is; a number
// with a fraction or an exponent, one out of range, or any other value, is
// declined (encoding/json reports it as of the wrong type).
func Int[T int | int64](p *Parser, dst *T) {
	switch c := p.Kind(); {
	case c == 'n':
		p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.pos
		p.number()
		if p.invalid {
			return
		}
		n, ok := parseInt(p.b[start:p.pos])
		if !ok {
			p.Decline()
			return
		}
		*dst = T(n)
	case c == 0:
		if !p.Failed() {
			p.bad()
		}
	default:
		p.Decline()
	}
}

// parseInt parses an integer literal, as strconv.ParseInt(s, 10, 64)
// would, without the string conversion.
func parseInt(s []byte) (int64, bool) {
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	if len(s) == 0 || len(s) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > 1<<63-1 {
		return 0, false
	}
	return int64(n), true
}

// Raw returns the next value as it appears in the input, checked, and
// consumes it: a slice of the input whose capacity ends with it.
func (p *Parser) Raw() []byte {
	if p.Kind() == 0 {
		if !p.Failed() {
			p.bad()
		}
		return nil
	}
	start := p.pos
	p.skip()
	if p.Failed() {
		return nil
	}
	return p.b[start:p.pos:p.pos]
}

// Skip consumes the next value, checking it.
func (p *Parser) Skip() {
	if p.Kind() == 0 {
		if !p.Failed() {
			p.bad()
		}
		return
	}
	p.skip()
}

func (p *Parser) literal(lit string) {
	if len(p.b)-p.pos < len(lit) || string(p.b[p.pos:p.pos+len(lit)]) != lit {
		p.bad()
		return
	}
	p.pos += len(lit)
}

// number consumes a number, checking its grammar.
func (p *Parser) number() {
	b, i := p.b, p.pos
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	default:
		p.bad()
		return
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			p.bad()
			return
		}
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			p.bad()
			return
		}
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	p.pos = i
}

// skip consumes the value at p.pos (not whitespace), checking it, without
// recursion.
func (p *Parser) skip() {
	nest := p.skipNest[:0]
	defer func() { p.skipNest = nest[:0] }()
	b := p.b
	for {
		// A value.
		p.ws()
		if p.pos >= len(b) {
			p.bad()
			return
		}
		switch c := b[p.pos]; {
		case c == '"':
			end, _, _ := p.scanString(p.pos + 1)
			if p.invalid {
				return
			}
			p.pos = end + 1
		case c == '{' || c == '[':
			p.pos++
			p.ws()
			if p.pos < len(b) && b[p.pos] == c+2 { // '}' is '{'+2, ']' is '['+2
				p.pos++
				break
			}
			if len(nest)+len(p.nest) >= maxDepth {
				p.Decline()
				return
			}
			nest = append(nest, c)
			if c == '{' && !p.memberKey() {
				return
			}
			continue
		case c == 't':
			p.literal("true")
		case c == 'f':
			p.literal("false")
		case c == 'n':
			p.literal("null")
		case c == '-' || (c >= '0' && c <= '9'):
			p.number()
		default:
			p.bad()
		}
		if p.invalid {
			return
		}
		// After a value: close containers, or move to the next member.
		for {
			if len(nest) == 0 {
				return
			}
			p.ws()
			if p.pos >= len(b) {
				p.bad()
				return
			}
			top := nest[len(nest)-1]
			c := b[p.pos]
			if c == top+2 {
				p.pos++
				nest = nest[:len(nest)-1]
				continue
			}
			if c != ',' {
				p.bad()
				return
			}
			p.pos++
			if top == '{' && !p.memberKey() {
				return
			}
			break
		}
	}
}

// memberKey consumes a key and its colon, inside skip.
func (p *Parser) memberKey() bool {
	p.ws()
	if p.pos >= len(p.b) || p.b[p.pos] != '"' {
		p.bad()
		return false
	}
	end, _, _ := p.scanString(p.pos + 1)
	if p.invalid {
		return false
	}
	p.pos = end + 1
	p.ws()
	if p.pos >= len(p.b) || p.b[p.pos] != ':' {
		p.bad()
		return false
	}
	p.pos++
	return true
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special marks, in its high bits, the bytes of x that are a quote, a
// backslash or a control character; the lowest marked byte is exact
// (higher ones may be false).
func special(x uint64) uint64 {
	q := x ^ (ones * '"')
	s := x ^ (ones * '\\')
	return ((x - ones*0x20) &^ x & highs) |
		((q - ones) &^ q & highs) |
		((s - ones) &^ s & highs)
}

// scanString checks the string whose content starts at b[i] and returns
// the index of its closing quote, whether it holds escapes, and whether it
// may hold bytes beyond ASCII.
func (p *Parser) scanString(i int) (end int, esc, hi bool) {
	b := p.b
	var acc uint64
	for {
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			if m := special(x); m != 0 {
				n := bits.TrailingZeros64(m) >> 3
				acc |= x & (1<<(8*n) - 1)
				i += n
				goto found
			}
			acc |= x
			i += 8
		}
		for i < len(b) {
			c := b[i]
			if c < 0x20 || c == '"' || c == '\\' {
				goto found
			}
			acc |= uint64(c)
			i++
		}
		p.bad() // unterminated
		return 0, false, false
	found:
		switch c := b[i]; {
		case c == '"':
			hi = acc&highs != 0
			p.nonASCII = p.nonASCII || hi
			return i, esc, hi
		case c < 0x20:
			p.bad()
			return 0, false, false
		}
		// An escape.
		esc = true
		if i+1 >= len(b) {
			p.bad()
			return 0, false, false
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if getu4(b[i:]) < 0 {
				p.bad()
				return 0, false, false
			}
			i += 6
		default:
			p.bad()
			return 0, false, false
		}
	}
}

// str reads the string at p.pos, decoding it as encoding/json does.
func (p *Parser) str() string {
	start := p.pos + 1
	end, esc, hi := p.scanString(start)
	if p.invalid {
		return ""
	}
	p.pos = end + 1
	raw := p.b[start:end]
	if !esc && (!hi || utf8.Valid(raw)) {
		return string(raw)
	}
	// Decode into a buffer of its own that becomes the string: one
	// allocation, no second copy.
	b := unquote(make([]byte, 0, len(raw)), raw)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// unquote appends the decoded content of a checked JSON string to dst,
// as encoding/json's unquoteBytes decodes it: invalid UTF-8 and lone
// surrogates become U+FFFD.
func unquote(dst, s []byte) []byte {
	for r := 0; r < len(s); {
		// Copy the run up to the next escape or byte beyond ASCII.
		i := r
		for i+8 <= len(s) {
			x := binary.LittleEndian.Uint64(s[i:])
			b := x ^ (ones * '\\')
			if m := ((b - ones) &^ b & highs) | (x & highs); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto run
			}
			i += 8
		}
		for i < len(s) && s[i] != '\\' && s[i] < utf8.RuneSelf {
			i++
		}
	run:
		dst = append(dst, s[r:i]...)
		if r = i; r >= len(s) {
			break
		}
		if c := s[r]; c != '\\' {
			rr, size := utf8.DecodeRune(s[r:])
			if rr == utf8.RuneError && size == 1 {
				dst = append(dst, "\uFFFD"...)
			} else {
				dst = append(dst, s[r:r+size]...)
			}
			r += size
			continue
		}
		switch e := s[r+1]; e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			rr := getu4(s[r:])
			r += 6
			if utf16.IsSurrogate(rr) {
				if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != unicode.ReplacementChar {
					r += 6
					dst = utf8.AppendRune(dst, dec)
					continue
				}
				rr = unicode.ReplacementChar
			}
			dst = utf8.AppendRune(dst, rr)
			continue
		}
		r += 2
	}
	return dst
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
