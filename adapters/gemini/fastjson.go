package gemini

// A single-pass JSON reader for the records this package decodes, several
// times faster than encoding/json: it checks the syntax while it reads,
// reads each member straight into its field (json.RawMessage fields are
// slices of the input, not copies) and skips what no field wants.
//
// It reads only what encoding/json reads the same way, and gives up on
// anything else: invalid UTF-8, a key that matches a field only when case
// is ignored, a key given twice, a key with escapes, a value of a type its
// field cannot hold, a number its field cannot hold, or invalid JSON. The
// caller then reads the input again with encoding/json, which decides what
// it holds and says what is wrong with it, so behaviour never differs.
// adapters/kimi has a copy of this file (but for the package clause).

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonObject is a struct that reads its own members.
type jsonObject interface {
	// member reads the value of the member key into its field and
	// returns the field's number, from 1 to 64, or returns 0, reading
	// nothing, when no field has that name.
	member(p *jsonParser, key []byte) int
	// names returns the lower-cased names of all members member reads.
	names() map[string]bool
}

// jsonParser reads one JSON document. Its methods panic with errSlowPath
// when the input is not one they read as encoding/json does; parseJSON
// turns that into false.
type jsonParser struct {
	b     []byte
	i     int
	depth int
	buf   []byte // scratch for unescaping strings
}

// useParser is false in tests that compare Read with and without it.
var useParser = true

type slowPath struct{}

var errSlowPath = slowPath{}

// maxDepth is encoding/json's limit on nesting.
const maxDepth = 10000

// parseJSON reads b, a JSON object, into v and reports whether it could.
// When it could not, v holds part of what b says and the caller must start
// again with encoding/json from a fresh v. The json.RawMessage fields of v
// are slices of b.
func parseJSON(b []byte, v jsonObject) (ok bool) {
	var p jsonParser
	return p.parse(b, v)
}

// parse is parseJSON with p, keeping its scratch space.
func (p *jsonParser) parse(b []byte, v jsonObject) (ok bool) {
	if !useParser || !utf8.Valid(b) {
		return false
	}
	*p = jsonParser{b: b, buf: p.buf}
	return p.run(func() {
		p.object(v)
		p.ws()
		if p.i != len(p.b) {
			p.fail()
		}
	})
}

// run calls f and reports whether it returned without giving up. A panic
// other than errSlowPath is a bug and goes on.
func (p *jsonParser) run(f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, slow := r.(slowPath); !slow {
				panic(r)
			}
			ok = false
		}
	}()
	f()
	return true
}

func (p *jsonParser) fail() { panic(errSlowPath) }

func (p *jsonParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
			continue
		}
		return
	}
}

// peek returns the next byte that is not white space, or 0 at the end.
func (p *jsonParser) peek() byte {
	p.ws()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *jsonParser) expect(c byte) {
	if p.peek() != c {
		p.fail()
	}
	p.i++
}

func (p *jsonParser) literal(lit string) {
	if len(p.b)-p.i < len(lit) || string(p.b[p.i:p.i+len(lit)]) != lit {
		p.fail()
	}
	p.i += len(lit)
}

// null reads a null and reports true, or reports false when the next value
// is not null.
func (p *jsonParser) null() bool {
	if p.peek() != 'n' {
		return false
	}
	p.literal("null")
	return true
}

// object reads an object into v, or a null (which leaves v as it is).
func (p *jsonParser) object(v jsonObject) {
	if p.null() {
		return
	}
	p.expect('{')
	p.depth++
	if p.depth > maxDepth {
		p.fail()
	}
	var seen uint64 // the fields read
	if p.peek() == '}' {
		p.i++
		p.depth--
		return
	}
	for {
		key := p.key()
		p.expect(':')
		if f := v.member(p, key); f > 0 {
			bit := uint64(1) << (f - 1)
			if seen&bit != 0 {
				p.fail() // encoding/json merges duplicates
			}
			seen |= bit
		} else {
			p.unknown(key, v.names())
			p.skip()
		}
		switch p.peek() {
		case ',':
			p.i++
			continue
		case '}':
			p.i++
			p.depth--
			return
		}
		p.fail()
	}
}

// key reads a member name. A name with escapes is left to encoding/json.
func (p *jsonParser) key() []byte {
	p.expect('"')
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return p.b[start : p.i-1]
		case c == '\\' || c < 0x20:
			p.fail()
		}
		p.i++
	}
	p.fail()
	return nil
}

// unknown gives up on a key no field has when encoding/json would match it
// to a field regardless of case.
func (p *jsonParser) unknown(key []byte, names map[string]bool) {
	var low [64]byte
	if len(key) > len(low) {
		return // longer than any field's name
	}
	for i, c := range key {
		if c >= utf8.RuneSelf {
			p.fail() // Unicode case folding: leave it to encoding/json
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	if names[string(low[:len(key)])] {
		p.fail()
	}
}

// skip reads a value of any type, checking it is valid JSON.
func (p *jsonParser) skip() {
	switch p.peek() {
	case '{':
		p.i++
		p.depth++
		if p.depth > maxDepth {
			p.fail()
		}
		if p.peek() == '}' {
			p.i++
			p.depth--
			return
		}
		for {
			if p.peek() != '"' {
				p.fail()
			}
			p.skipString()
			p.expect(':')
			p.skip()
			switch p.peek() {
			case ',':
				p.i++
				continue
			case '}':
				p.i++
				p.depth--
				return
			}
			p.fail()
		}
	case '[':
		p.i++
		p.depth++
		if p.depth > maxDepth {
			p.fail()
		}
		if p.peek() == ']' {
			p.i++
			p.depth--
			return
		}
		for {
			p.skip()
			switch p.peek() {
			case ',':
				p.i++
				continue
			case ']':
				p.i++
				p.depth--
				return
			}
			p.fail()
		}
	case '"':
		p.skipString()
	case 't':
		p.literal("true")
	case 'f':
		p.literal("false")
	case 'n':
		p.literal("null")
	default:
		p.number()
	}
}

// isPlain is true for the bytes a string holds as they are.
var isPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x100; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = false, false
	return t
}()

// skipString reads a string, checking its escapes, and reports whether it
// has any.
func (p *jsonParser) skipString() (escaped bool) {
	p.i++ // "
	for {
		p.i = plainEnd(p.b, p.i)
		if p.i >= len(p.b) {
			p.fail()
		}
		switch p.b[p.i] {
		case '"':
			p.i++
			return escaped
		case '\\':
			escaped = true
			if p.i+1 >= len(p.b) {
				p.fail()
			}
			switch p.b[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if hex4(p.b[p.i+2:]) < 0 {
					p.fail()
				}
				p.i += 6
			default:
				p.fail()
			}
		default:
			p.fail() // a control character
		}
	}
}

// plainEnd returns the index of the first byte at or after i that a
// string does not hold as it is (a quote, a backslash or a control
// character), or len(b). It looks at eight bytes at a time.
func plainEnd(b []byte, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ (lo * '"')
		s := x ^ (lo * '\\')
		// A byte of x below 0x20, or equal to '"' or '\\', makes its
		// high bit set in m (bytes of 0x80 and above never do).
		m := ((x - lo*0x20) | (q - lo) | (s - lo)) &^ x & hi
		if m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(b) && isPlain[b[i]] {
		i++
	}
	return i
}

// hex4 returns the value of the four hex digits b starts with, or -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
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

// stringValue reads a string value.
func (p *jsonParser) stringValue() string {
	start := p.i
	if !p.skipString() {
		return string(p.b[start+1 : p.i-1])
	}
	p.buf = unescape(p.buf[:0], p.b[start+1:p.i-1])
	return string(p.buf)
}

// unescape appends the text of s, the inside of a valid string with
// escapes, to dst as encoding/json reads it: a \u escape of half a
// surrogate pair reads as U+FFFD.
func unescape(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			j := i + 1
			for j < len(s) && s[j] != '\\' {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		switch s[i+1] {
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
			r := hex4(s[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				r1 := rune(-1)
				if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r1 = hex4(s[i+2:])
				}
				if dec := utf16.DecodeRune(r, r1); dec != utf8.RuneError {
					i += 6
					r = dec
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // " \ /
			dst = append(dst, s[i+1])
		}
		i += 2
	}
	return dst
}

// number reads a number and returns its text.
func (p *jsonParser) number() []byte {
	start := p.i
	b := p.b
	i := p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		p.fail()
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			p.fail()
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			p.fail()
		}
	}
	p.i = i
	return b[start:i]
}

// The readers of a member's value into a field of each type.

// str reads a string, or a null that leaves s as it is.
func (p *jsonParser) str(s *string) {
	switch p.peek() {
	case '"':
		*s = p.stringValue()
	case 'n':
		p.literal("null")
	default:
		p.fail()
	}
}

// strPtr reads a string or null into a *string.
func (p *jsonParser) strPtr(s **string) {
	if p.null() {
		*s = nil
		return
	}
	v := ""
	p.str(&v)
	*s = &v
}

// raw reads any value as it is.
func (p *jsonParser) raw(r *json.RawMessage) {
	p.ws()
	start := p.i
	p.skip()
	*r = p.b[start:p.i:p.i]
}

func (p *jsonParser) boolean(v *bool) {
	switch p.peek() {
	case 't':
		p.literal("true")
		*v = true
	case 'f':
		p.literal("false")
		*v = false
	case 'n':
		p.literal("null")
	default:
		p.fail()
	}
}

// integer reads a number that is an integer into an int64, as
// strconv.ParseInt reads it, or a null that leaves v as it is.
func (p *jsonParser) integer(v *int64) {
	if p.null() {
		return
	}
	t := p.number()
	digits := t
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) > 0 && len(digits) <= 18 {
		var n int64
		for _, c := range digits {
			if c < '0' || c > '9' {
				p.fail()
			}
			n = n*10 + int64(c-'0')
		}
		if len(digits) != len(t) {
			n = -n
		}
		*v = n
		return
	}
	n, err := strconv.ParseInt(string(t), 10, 64)
	if err != nil {
		p.fail()
	}
	*v = n
}

func (p *jsonParser) int(v *int) {
	n := int64(*v)
	p.integer(&n)
	if int64(int(n)) != n {
		p.fail()
	}
	*v = int(n)
}

func (p *jsonParser) intPtr(v **int) {
	if p.null() {
		*v = nil
		return
	}
	n := 0
	p.int(&n)
	*v = &n
}

// float reads a number into a float64, or a null that leaves v as it is.
func (p *jsonParser) float(v *float64) {
	if p.null() {
		return
	}
	t := p.number()
	f, err := strconv.ParseFloat(string(t), 64)
	if err != nil {
		p.fail()
	}
	*v = f
}

// object pointer, value and slice readers, for any struct that reads its
// own members.

// objectPtr reads an object or null into a pointer to a struct.
func objectPtr[T any, P interface {
	*T
	jsonObject
}](p *jsonParser, v **T) {
	if p.null() {
		*v = nil
		return
	}
	if p.peek() != '{' {
		p.fail()
	}
	if *v == nil {
		*v = new(T)
	}
	p.object(P(*v))
}

// objects reads an array of objects, or null, into a slice of structs.
func objects[T any, P interface {
	*T
	jsonObject
}](p *jsonParser, s *[]T) {
	if p.null() {
		*s = nil
		return
	}
	p.expect('[')
	p.depth++
	out := (*s)[:0]
	if out == nil {
		out = []T{}
	}
	if p.peek() == ']' {
		p.i++
		p.depth--
		*s = out
		return
	}
	for {
		var zero T
		out = append(out, zero)
		if c := p.peek(); c != '{' && c != 'n' {
			p.fail()
		}
		p.object(P(&out[len(out)-1]))
		switch p.peek() {
		case ',':
			p.i++
			continue
		case ']':
			p.i++
			p.depth--
			*s = out
			return
		}
		p.fail()
	}
}

// jsonNames returns the lower-cased names encoding/json reads into a
// struct of type t, promoted fields included.
func jsonNames(t reflect.Type) map[string]bool {
	names := map[string]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			names[strings.ToLower(name)] = true
		}
	}
	walk(t)
	return names
}

// parseValue reads b, one JSON value, with read, and reports whether it
// could (see parseJSON).
func parseValue(b []byte, read func(p *jsonParser)) bool {
	if !useParser || !utf8.Valid(b) {
		return false
	}
	p := jsonParser{b: b}
	return p.run(func() {
		read(&p)
		p.ws()
		if p.i != len(p.b) {
			p.fail()
		}
	})
}

// quickString returns raw, a JSON string, as encoding/json reads it, or
// false when it leaves that to encoding/json.
func quickString(raw []byte) (s string, ok bool) {
	if !useParser || len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if raw[len(raw)-1] == '"' && plainEnd(raw, 1) == len(raw)-1 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]), true
	}
	ok = parseValue(raw, func(p *jsonParser) {
		if p.peek() != '"' {
			p.fail()
		}
		s = p.stringValue()
	})
	return s, ok
}

// appendCompact appends raw to dst without the white space outside its
// strings and reports true, as json.Compact does, or reports false when
// raw is not one valid JSON value.
func appendCompact(dst, raw []byte) ([]byte, bool) {
	if !useParser {
		b := bytes.NewBuffer(dst)
		err := json.Compact(b, raw)
		return b.Bytes(), err == nil
	}
	p := jsonParser{b: raw}
	if !p.run(func() {
		p.skip()
		p.ws()
		if p.i != len(p.b) {
			p.fail()
		}
	}) {
		return dst, false
	}
	for i := 0; i < len(raw); {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
			i++
		case '"':
			j := i + 1
			for raw[j] != '"' {
				if raw[j] == '\\' {
					j++
				}
				j++
			}
			dst = append(dst, raw[i:j+1]...)
			i = j + 1
		default:
			j := i + 1
			for j < len(raw) && raw[j] != '"' && raw[j] != ' ' && raw[j] != '\n' && raw[j] != '\t' && raw[j] != '\r' {
				j++
			}
			dst = append(dst, raw[i:j]...)
			i = j
		}
	}
	return dst, true
}
