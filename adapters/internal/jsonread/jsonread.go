package jsonread

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
	"unsafe"
)

// Object is a struct that reads its own members.
type Object interface {
	// Member reads the value of the member key into its field and
	// returns the field's number, from 1 to 64, or returns 0, reading
	// nothing, when no field has that name.
	Member(p *Parser, key []byte) int
	// Names returns the lower-cased names of all members Member reads
	// (see the function Names).
	Names() map[string]bool
}

// Parser reads one JSON document. Its methods panic with errSlowPath
// when the input is not one they read as encoding/json does (Fail);
// Parse and ParseValue turn that into false. The methods that read a
// value are for Object.Member and for ParseValue's read.
type Parser struct {
	b     []byte
	i     int
	depth int
}

// Disabled makes every reader here give up, as on input it leaves to
// encoding/json (and AppendCompact call json.Compact). Only tests set it,
// to compare what an adapter reads with and without the parser.
var Disabled bool

type slowPath struct{}

var errSlowPath = slowPath{}

// maxDepth is encoding/json's limit on nesting.
const maxDepth = 10000

// Parse reads b, a JSON object, into v and reports whether it could.
// When it could not, v holds part of what b says and the caller must start
// again with encoding/json from a fresh v. The json.RawMessage fields of v
// are slices of b.
func Parse(b []byte, v Object) (ok bool) {
	var p Parser
	return p.Parse(b, v)
}

// Parse is the function Parse with p.
func (p *Parser) Parse(b []byte, v Object) (ok bool) {
	if Disabled || !utf8.Valid(b) {
		return false
	}
	*p = Parser{b: b}
	return p.run(func() {
		p.Object(v)
		p.ws()
		if p.i != len(p.b) {
			p.Fail()
		}
	})
}

// run calls f and reports whether it returned without giving up. A panic
// other than errSlowPath is a bug and goes on.
func (p *Parser) run(f func()) (ok bool) {
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

// Fail gives up on the input: Parse or ParseValue reports false.
func (p *Parser) Fail() { panic(errSlowPath) }

func (p *Parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
			continue
		}
		return
	}
}

// Peek returns the next byte that is not white space, or 0 at the end.
func (p *Parser) Peek() byte {
	p.ws()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// Expect reads the byte c after white space, or gives up.
func (p *Parser) Expect(c byte) {
	if p.Peek() != c {
		p.Fail()
	}
	p.i++
}

func (p *Parser) literal(lit string) {
	if len(p.b)-p.i < len(lit) || string(p.b[p.i:p.i+len(lit)]) != lit {
		p.Fail()
	}
	p.i += len(lit)
}

// null reads a null and reports true, or reports false when the next value
// is not null.
func (p *Parser) null() bool {
	if p.Peek() != 'n' {
		return false
	}
	p.literal("null")
	return true
}

// Object reads an object into v, or a null (which leaves v as it is).
func (p *Parser) Object(v Object) {
	if p.null() {
		return
	}
	p.Expect('{')
	p.depth++
	if p.depth > maxDepth {
		p.Fail()
	}
	var seen uint64 // the fields read
	if p.Peek() == '}' {
		p.i++
		p.depth--
		return
	}
	for {
		key := p.key()
		p.Expect(':')
		if f := v.Member(p, key); f > 0 {
			bit := uint64(1) << (f - 1)
			if seen&bit != 0 {
				p.Fail() // encoding/json merges duplicates
			}
			seen |= bit
		} else {
			p.unknown(key, v.Names())
			p.Skip()
		}
		if !p.next('}') {
			return
		}
	}
}

// next reads what follows an element of an array or a member of an
// object, the ',' before the next or the closing byte, and reports
// whether another follows.
func (p *Parser) next(closing byte) bool {
	switch p.Peek() {
	case ',':
		p.i++
		return true
	case closing:
		p.i++
		p.depth--
		return false
	}
	p.Fail()
	return false
}

// key reads a member name. A name with escapes is left to encoding/json.
func (p *Parser) key() []byte {
	p.Expect('"')
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return p.b[start : p.i-1]
		case c == '\\' || c < 0x20:
			p.Fail()
		}
		p.i++
	}
	p.Fail()
	return nil
}

// unknown gives up on a key no field has when encoding/json would match it
// to a field regardless of case.
func (p *Parser) unknown(key []byte, names map[string]bool) {
	var low [64]byte
	if len(key) > len(low) {
		return // longer than any field's name
	}
	for i, c := range key {
		if c >= utf8.RuneSelf {
			p.Fail() // Unicode case folding: leave it to encoding/json
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	if names[string(low[:len(key)])] {
		p.Fail()
	}
}

// Skip reads a value of any type, checking it is valid JSON.
func (p *Parser) Skip() {
	switch p.Peek() {
	case '{':
		p.i++
		p.depth++
		if p.depth > maxDepth {
			p.Fail()
		}
		if p.Peek() == '}' {
			p.i++
			p.depth--
			return
		}
		for {
			if p.Peek() != '"' {
				p.Fail()
			}
			p.skipString()
			p.Expect(':')
			p.Skip()
			if !p.next('}') {
				return
			}
		}
	case '[':
		p.i++
		p.depth++
		if p.depth > maxDepth {
			p.Fail()
		}
		if p.Peek() == ']' {
			p.i++
			p.depth--
			return
		}
		for {
			p.Skip()
			if !p.next(']') {
				return
			}
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
func (p *Parser) skipString() (escaped bool) {
	p.i++ // "
	for {
		p.i = plainEnd(p.b, p.i)
		if p.i >= len(p.b) {
			p.Fail()
		}
		switch p.b[p.i] {
		case '"':
			p.i++
			return escaped
		case '\\':
			escaped = true
			if p.i+1 >= len(p.b) {
				p.Fail()
			}
			switch p.b[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if hex4(p.b[p.i+2:]) < 0 {
					p.Fail()
				}
				p.i += 6
			default:
				p.Fail()
			}
		default:
			p.Fail() // a control character
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

// StringValue reads a string value.
func (p *Parser) StringValue() string {
	start := p.i
	if !p.skipString() {
		return string(p.b[start+1 : p.i-1])
	}
	// Unescaped into a buffer of its own that becomes the string (a
	// string is never longer unescaped): one allocation, no second copy.
	raw := p.b[start+1 : p.i-1]
	b := unescape(make([]byte, 0, len(raw)), raw)
	return unsafe.String(unsafe.SliceData(b), len(b))
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
func (p *Parser) number() []byte {
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
		p.Fail()
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			p.Fail()
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
			p.Fail()
		}
	}
	p.i = i
	return b[start:i]
}

// The readers of a member's value into a field of each type.

// Str reads a string, or a null that leaves s as it is.
func (p *Parser) Str(s *string) {
	switch p.Peek() {
	case '"':
		*s = p.StringValue()
	case 'n':
		p.literal("null")
	default:
		p.Fail()
	}
}

// StrPtr reads a string or null into a *string.
func (p *Parser) StrPtr(s **string) {
	if p.null() {
		*s = nil
		return
	}
	v := ""
	p.Str(&v)
	*s = &v
}

// Raw reads any value as it is.
func (p *Parser) Raw(r *json.RawMessage) {
	p.ws()
	start := p.i
	p.Skip()
	*r = p.b[start:p.i:p.i]
}

// Bool reads a boolean, or a null that leaves v as it is.
func (p *Parser) Bool(v *bool) {
	switch p.Peek() {
	case 't':
		p.literal("true")
		*v = true
	case 'f':
		p.literal("false")
		*v = false
	case 'n':
		p.literal("null")
	default:
		p.Fail()
	}
}

// Int64 reads a number that is an integer into an int64, as
// strconv.ParseInt reads it, or a null that leaves v as it is.
func (p *Parser) Int64(v *int64) {
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
				p.Fail()
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
		p.Fail()
	}
	*v = n
}

// Int reads a number that is an integer into an int, as Int64 does.
func (p *Parser) Int(v *int) {
	n := int64(*v)
	p.Int64(&n)
	if int64(int(n)) != n {
		p.Fail()
	}
	*v = int(n)
}

// IntPtr reads an integer or null into an *int.
func (p *Parser) IntPtr(v **int) {
	if p.null() {
		*v = nil
		return
	}
	n := 0
	p.Int(&n)
	*v = &n
}

// Float reads a number into a float64, or a null that leaves v as it is.
func (p *Parser) Float(v *float64) {
	if p.null() {
		return
	}
	t := p.number()
	f, err := strconv.ParseFloat(string(t), 64)
	if err != nil {
		p.Fail()
	}
	*v = f
}

// Object pointer and slice readers, for any struct that reads its
// own members.

// ObjectPtr reads an object or null into a pointer to a struct.
func ObjectPtr[T any, P interface {
	*T
	Object
}](p *Parser, v **T) {
	if p.null() {
		*v = nil
		return
	}
	if p.Peek() != '{' {
		p.Fail()
	}
	if *v == nil {
		*v = new(T)
	}
	p.Object(P(*v))
}

// Objects reads an array of objects, or null, into a slice of structs.
func Objects[T any, P interface {
	*T
	Object
}](p *Parser, s *[]T) {
	if p.null() {
		*s = nil
		return
	}
	out := (*s)[:0]
	if out == nil {
		out = []T{}
	}
	for more := p.OpenArray(); more; more = p.More() {
		var zero T
		out = append(out, zero)
		if c := p.Peek(); c != '{' && c != 'n' {
			p.Fail()
		}
		p.Object(P(&out[len(out)-1]))
	}
	*s = out
}

// OpenArray reads the '[' that opens an array and reports whether an
// element follows; when none does, it has read the ']' too. Read each
// element, then call More.
func (p *Parser) OpenArray() bool {
	p.Expect('[')
	p.depth++
	if p.Peek() == ']' {
		p.i++
		p.depth--
		return false
	}
	return true
}

// More reads what follows an element of an array, the ',' before the
// next or the closing ']', and reports whether an element follows.
func (p *Parser) More() bool { return p.next(']') }

// Begin skips white space and returns where the next value starts, for
// Since.
func (p *Parser) Begin() int {
	p.ws()
	return p.i
}

// Since returns the input from start (from Begin) to where p has read,
// as a slice of the input.
func (p *Parser) Since(start int) json.RawMessage { return p.b[start:p.i:p.i] }

// Names returns the lower-cased names encoding/json reads into a
// struct of type t, promoted fields included.
func Names(t reflect.Type) map[string]bool {
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

// ParseValue reads b, one JSON value, with read, and reports whether it
// could (see Parse).
func ParseValue(b []byte, read func(p *Parser)) bool {
	if Disabled || !utf8.Valid(b) {
		return false
	}
	p := Parser{b: b}
	return p.run(func() {
		read(&p)
		p.ws()
		if p.i != len(p.b) {
			p.Fail()
		}
	})
}

// QuickString returns raw, a JSON string, as encoding/json reads it, or
// false when it leaves that to encoding/json.
func QuickString(raw []byte) (s string, ok bool) {
	if Disabled || len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if raw[len(raw)-1] == '"' && plainEnd(raw, 1) == len(raw)-1 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]), true
	}
	ok = ParseValue(raw, func(p *Parser) {
		if p.Peek() != '"' {
			p.Fail()
		}
		s = p.StringValue()
	})
	return s, ok
}

// AppendCompact appends raw to dst without the white space outside its
// strings and reports true, as json.Compact does, or reports false when
// raw is not one valid JSON value.
func AppendCompact(dst, raw []byte) ([]byte, bool) {
	if Disabled {
		b := bytes.NewBuffer(dst)
		err := json.Compact(b, raw)
		return b.Bytes(), err == nil
	}
	p := Parser{b: raw}
	if !p.run(func() {
		p.Skip()
		p.ws()
		if p.i != len(p.b) {
			p.Fail()
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
