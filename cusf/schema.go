package cusf

// stead checks CUSF lines against Schema with the small evaluator of this
// file rather than a general JSON Schema library. The library it used
// before (github.com/santhosh-tekuri/jsonschema/v6) compiles the
// meta-schemas of every draft in its package init: 3.1 ms, 1.7 MB and
// 21,280 allocations (GODEBUG=inittrace=1), paid by every stead command,
// not only by `stead import --validate`, and it pulled in
// golang.org/x/text/message. Without it, `stead help` takes 6.3 ms a
// process instead of 11.0 (perf stat -r 50). This evaluator is compiled
// on first use.
//
// It supports the subset of JSON Schema 2020-12 that
// schemas/cusf-v1.0.0.json uses, and only that:
//
//   - at the root only: $schema (the 2020-12 dialect), $id and $defs;
//   - $ref to "#/$defs/<name>";
//   - the annotations title, description and default (ignored);
//   - type (a name or a list of names), const, enum, properties,
//     required, allOf, if/then/else, minimum, pattern (a Go regexp,
//     searched unanchored) and format "date-time" (asserted).
//
// Any other keyword, or a $ref that does not resolve, is a compile error,
// so that an edit of the schema beyond this subset fails loudly instead of
// being ignored. Keywords are evaluated in the order the library did
// (type, const, enum and format first, each stopping the evaluation of its
// schema when it fails), so the two report the same errors; the
// differential test in schema_test.go holds them to it.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// dialect is the only $schema accepted.
const dialect = "https://json-schema.org/draft/2020-12/schema"

// lineSchema is Schema compiled, once.
var lineSchema = sync.OnceValues(func() (*schema, error) {
	return compileSchema(Schema)
})

// schema is one compiled (sub)schema: the checks of its keywords.
type schema struct {
	types    []string // "type": JSON type names; empty for any
	constant *any     // "const"
	enum     []any    // "enum"; nil for none
	dateTime bool     // "format": "date-time"
	ref      *schema  // "$ref", resolved
	required []string
	props    map[string]*schema
	names    []string // the keys of props, sorted, so errors come in a fixed order
	pattern  *regexp.Regexp
	minimum  *decimal
	allOf    []*schema
	ifs      *schema // "if"; then and else apply only with it
	then     *schema
	els      *schema
}

// schemaError is one failed keyword: a leaf of the error tree, as the JSON
// Schema output formats call the innermost errors.
type schemaError struct {
	// Location is the instance location: the keys from the top of the
	// value to the one that failed (the object's own for "required").
	Location []string
	// Keyword is the keyword that failed: "type", "const", "enum",
	// "format", "required", "minimum" or "pattern".
	Keyword string
	// Message says what failed, values clipped, without the location.
	Message string
}

func (e schemaError) Error() string {
	if len(e.Location) == 0 {
		return e.Message
	}
	return "at " + pointer(e.Location) + ": " + e.Message
}

// pointer writes a location as a JSON pointer (RFC 6901).
func pointer(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		b.WriteString(pointerEscaper.Replace(tok))
	}
	return b.String()
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// validate checks v, a value decoded by encoding/json with UseNumber,
// against s and returns the errors found, none when v is valid.
func (s *schema) validate(v any) []schemaError {
	var errs []schemaError
	s.check(v, make([]string, 0, 4), &errs)
	return errs
}

// check reports whether v, at location loc, is valid against s, and
// appends its errors to *errs; with errs nil it only gives the verdict.
func (s *schema) check(v any, loc []string, errs *[]schemaError) bool {
	fail := func(keyword, format string, args ...any) bool {
		if errs != nil {
			*errs = append(*errs, schemaError{Location: slices.Clone(loc), Keyword: keyword, Message: fmt.Sprintf(format, args...)})
		}
		return false
	}
	if len(s.types) > 0 && !slices.ContainsFunc(s.types, func(t string) bool { return hasType(v, t) }) {
		return fail("type", "got %s, want %s", describeValue(v), strings.Join(s.types, " or "))
	}
	if s.constant != nil && !jsonEqual(v, *s.constant) {
		return fail("const", "got %s, want %s", describeValue(v), brief(*s.constant))
	}
	if s.enum != nil && !slices.ContainsFunc(s.enum, func(e any) bool { return jsonEqual(v, e) }) {
		want := make([]string, len(s.enum))
		for i, e := range s.enum {
			want[i] = brief(e)
		}
		return fail("enum", "got %s, want one of %s", describeValue(v), strings.Join(want, ", "))
	}
	if str, ok := v.(string); ok && s.dateTime {
		if err := checkDateTime(str); err != nil {
			return fail("format", "%s is not a valid date-time (%v)", brief(str), err)
		}
	}
	ok := true
	if s.ref != nil {
		ok = s.ref.check(v, loc, errs) && ok
	}
	switch v := v.(type) {
	case map[string]any:
		var missing []string
		for _, name := range s.required {
			if _, there := v[name]; !there {
				missing = append(missing, strconv.Quote(name))
			}
		}
		switch len(missing) {
		case 0:
		case 1:
			ok = fail("required", "missing property %s", missing[0])
		default:
			ok = fail("required", "missing properties %s", strings.Join(missing, ", "))
		}
		for _, name := range s.names {
			if pv, there := v[name]; there {
				ok = s.props[name].check(pv, append(loc, name), errs) && ok
			}
		}
	case string:
		if s.pattern != nil && !s.pattern.MatchString(v) {
			ok = fail("pattern", "%s does not match the pattern %s", brief(v), s.pattern)
		}
	case json.Number:
		if s.minimum != nil {
			if d, good := parseDecimal(string(v)); good && d.compare(*s.minimum) < 0 {
				ok = fail("minimum", "%s is less than the minimum %s", brief(v), clip(s.minimum.text))
			}
		}
	}
	for _, sub := range s.allOf {
		ok = sub.check(v, loc, errs) && ok
	}
	if s.ifs != nil {
		switch {
		case s.ifs.check(v, loc, nil):
			if s.then != nil {
				ok = s.then.check(v, loc, errs) && ok
			}
		case s.els != nil:
			ok = s.els.check(v, loc, errs) && ok
		}
	}
	return ok
}

// hasType reports whether v is of the JSON type t. An integer is a number
// with no fractional part: 1.0 is one, as in 2020-12.
func hasType(v any, t string) bool {
	switch v := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	case json.Number:
		if t == "number" {
			return true
		}
		d, ok := parseDecimal(string(v))
		return t == "integer" && ok && d.isInteger()
	}
	return false
}

// jsonEqual reports whether a and b are the same JSON value, numbers
// compared by value (1 and 1.0 are equal).
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !jsonEqual(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		return ok && slices.EqualFunc(a, b, jsonEqual)
	case json.Number:
		b, ok := b.(json.Number)
		if !ok {
			return false
		}
		da, oka := parseDecimal(string(a))
		db, okb := parseDecimal(string(b))
		return oka && okb && da.compare(db) == 0
	default: // nil, bool, string
		return a == b
	}
}

// describeValue names v's type and, for a scalar, shows it (clipped).
func describeValue(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string " + brief(v)
	case bool:
		return "boolean " + brief(v)
	}
	return "number " + brief(v)
}

// brief shows a scalar value as JSON, clipped, so that a 5 MB string never
// makes a 5 MB message.
func brief(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(clip(v))
	case json.Number:
		return clip(string(v))
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprint(v)
}

// checkDateTime says why s is not an RFC 3339 date-time, or returns nil.
// It accepts what jsonschema v6's date-time format does: a valid
// yyyy-mm-dd date, T or t, hh:mm:ss with an optional fraction of one
// digit or more, and Z, z or a ±hh:mm offset; a second of 60 only at
// 23:59 UTC (a leap second). Each two-digit field is read with
// strconv.Atoi, as the library reads it.
func checkDateTime(s string) error {
	if len(s) < 20 {
		return errors.New("less than 20 characters long")
	}
	if s[10] != 'T' && s[10] != 't' {
		return errors.New("the 11th character is not T or t")
	}
	if _, err := time.Parse(time.DateOnly, s[:10]); err != nil {
		return errors.New("invalid date")
	}
	t := s[11:] // at least 9 bytes
	if t[2] != ':' || t[5] != ':' {
		return errors.New("the time is not hh:mm:ss")
	}
	h, m, sec := field(t[0:2]), field(t[3:5]), field(t[6:8])
	if h < 0 || m < 0 || sec < 0 {
		return errors.New("the time is not hh:mm:ss")
	}
	if h > 23 || m > 59 || sec > 60 {
		return errors.New("hour, minute or second out of range")
	}
	t = t[8:]
	if rest, found := strings.CutPrefix(t, "."); found {
		n := 0
		for n < len(rest) && '0' <= rest[n] && rest[n] <= '9' {
			n++
		}
		if n == 0 {
			return errors.New("no digit in the fraction of a second")
		}
		t = rest[n:]
	}
	if t != "Z" && t != "z" {
		if len(t) != 6 || (t[0] != '+' && t[0] != '-') || t[3] != ':' {
			return errors.New("the offset is not Z or ±hh:mm")
		}
		oh, om := field(t[1:3]), field(t[4:6])
		if oh < 0 || om < 0 || oh > 23 || om > 59 {
			return errors.New("the offset is not Z or ±hh:mm")
		}
		// The time in UTC, for the leap second rule: local minus offset.
		off := oh*60 + om
		if t[0] == '+' {
			off = -off
		}
		hm := h*60 + m + off
		if hm < 0 {
			hm += 24 * 60
		}
		h, m = hm/60, hm%60
	}
	if sec == 60 && (h != 23 || m != 59) {
		return errors.New("a leap second not at 23:59 UTC")
	}
	return nil
}

// field reads a two-character time field as jsonschema v6 does, with
// strconv.Atoi (which also takes "+5" for 5); -1 when it is not a number
// or is negative.
func field(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// decimal is a JSON number held exactly, as sign × 0.digits × 10^exp:
// digits has no leading or trailing zero, and zero has no digits. It
// compares numbers of any size without big arithmetic.
type decimal struct {
	neg    bool
	digits string
	exp    int
	text   string // as written
}

// maxExp bounds the exponents of decimals: beyond it a number is not
// one stead compares (no CUSF number comes near).
const maxExp = 1 << 40

// parseDecimal parses a JSON number.
func parseDecimal(s string) (decimal, bool) {
	d := decimal{text: s}
	if rest, found := strings.CutPrefix(s, "-"); found {
		d.neg, s = true, rest
	}
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		n, err := strconv.Atoi(s[i+1:])
		if err != nil || n > maxExp || n < -maxExp {
			return decimal{}, false
		}
		exp, s = n, s[:i]
	}
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || strings.Trim(whole, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" {
		return decimal{}, false
	}
	digits := whole + frac
	exp += len(whole)
	trimmed := strings.TrimLeft(digits, "0")
	exp -= len(digits) - len(trimmed)
	d.digits = strings.TrimRight(trimmed, "0")
	if d.digits == "" {
		return decimal{text: d.text}, true // zero, -0 too
	}
	d.exp = exp
	return d, true
}

// isInteger reports whether d has no fractional part.
func (d decimal) isInteger() bool {
	return len(d.digits) <= d.exp
}

// sign is -1, 0 or 1.
func (d decimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// compare compares d and e: -1 if d < e, 0 if equal, 1 if d > e.
func (d decimal) compare(e decimal) int {
	if ds, es := d.sign(), e.sign(); ds != es || ds == 0 {
		return cmp.Compare(ds, es)
	}
	c := cmp.Compare(d.exp, e.exp)
	if c == 0 {
		// Same magnitude: the digits compare as strings, a prefix
		// being the smaller (0.12 < 0.123).
		c = strings.Compare(d.digits, e.digits)
	}
	if d.neg {
		return -c
	}
	return c
}

// compileSchema compiles a JSON Schema document of the subset this file
// supports (see the top of the file).
func compileSchema(data []byte) (*schema, error) {
	doc, err := decodeLine(data)
	if err != nil {
		return nil, fmt.Errorf("the document is not JSON: %w", err)
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, errors.New("the document is not an object")
	}
	c := &compiler{defs: map[string]*schema{}}
	if raw, ok := root["$defs"]; ok {
		defs, ok := raw.(map[string]any)
		if !ok {
			return nil, errors.New("at #/$defs: not an object")
		}
		c.raw = defs
	}
	s := &schema{}
	if err := c.compile(s, root, "#"); err != nil {
		return nil, err
	}
	// Compile the definitions no $ref reaches too, so that every
	// keyword of the file is checked.
	for _, name := range slices.Sorted(maps.Keys(c.raw)) {
		if _, err := c.def(name, "#/$defs"); err != nil {
			return nil, err
		}
	}
	// Every cycle of schemas goes through a definition.
	free := map[*schema]bool{}
	for _, name := range slices.Sorted(maps.Keys(c.raw)) {
		if loops(c.defs[name], map[*schema]bool{}, free) {
			return nil, fmt.Errorf("at #/$defs/%s: a $ref cycle that never goes into the value", name)
		}
	}
	return s, nil
}

// compiler holds the definitions of a schema document while it compiles.
type compiler struct {
	raw  map[string]any     // "$defs" as written
	defs map[string]*schema // those compiled, or being compiled
}

// def returns the definition name, compiling it the first time; at is
// where it is referred to, for errors.
func (c *compiler) def(name, at string) (*schema, error) {
	if s, ok := c.defs[name]; ok {
		return s, nil
	}
	raw, ok := c.raw[name]
	if !ok {
		return nil, fmt.Errorf("at %s: $ref %q does not resolve", at, "#/$defs/"+name)
	}
	s := &schema{}
	c.defs[name] = s // before compiling, so that a recursive $ref finds it
	return s, c.compile(s, raw, "#/$defs/"+name)
}

// compile fills s with the schema raw found at the JSON pointer at.
func (c *compiler) compile(s *schema, raw any, at string) error {
	obj, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("at %s: a schema is not an object (boolean schemas are not supported)", at)
	}
	sub := func(key string) (*schema, error) {
		child := &schema{}
		return child, c.compile(child, obj[key], at+"/"+key)
	}
	for _, key := range slices.Sorted(maps.Keys(obj)) {
		val := obj[key]
		bad := func(want string) error {
			return fmt.Errorf("at %s: %s is not %s", at, key, want)
		}
		var err error
		switch key {
		case "title", "description", "default":
			// Annotations.
		case "$schema", "$id", "$defs":
			if at != "#" {
				return fmt.Errorf("at %s: %s is supported only at the root", at, key)
			}
			if key == "$schema" && val != dialect {
				return fmt.Errorf("at %s: $schema is not %s", at, dialect)
			}
		case "$ref":
			ref, _ := val.(string)
			name, found := strings.CutPrefix(ref, "#/$defs/")
			if !found || strings.Contains(name, "/") {
				return fmt.Errorf("at %s: $ref %q is not #/$defs/<name>", at, ref)
			}
			name = strings.NewReplacer("~1", "/", "~0", "~").Replace(name)
			s.ref, err = c.def(name, at)
		case "type":
			switch t := val.(type) {
			case string:
				s.types = []string{t}
			case []any:
				for _, x := range t {
					name, _ := x.(string)
					s.types = append(s.types, name)
				}
			}
			if len(s.types) == 0 {
				return bad("a type name or a list of them")
			}
			for _, t := range s.types {
				if !slices.Contains([]string{"object", "array", "string", "number", "integer", "boolean", "null"}, t) {
					return bad("a type name or a list of them")
				}
			}
		case "const":
			s.constant = &val
		case "enum":
			list, ok := val.([]any)
			if !ok || len(list) == 0 {
				return bad("a list of values")
			}
			s.enum = list
		case "required":
			list, ok := val.([]any)
			if !ok {
				return bad("a list of names")
			}
			for _, x := range list {
				name, ok := x.(string)
				if !ok {
					return bad("a list of names")
				}
				s.required = append(s.required, name)
			}
		case "properties":
			props, ok := val.(map[string]any)
			if !ok {
				return bad("an object")
			}
			s.props = map[string]*schema{}
			s.names = slices.Sorted(maps.Keys(props))
			for _, name := range s.names {
				child := &schema{}
				if err := c.compile(child, props[name], at+"/properties/"+name); err != nil {
					return err
				}
				s.props[name] = child
			}
		case "allOf":
			list, ok := val.([]any)
			if !ok || len(list) == 0 {
				return bad("a list of schemas")
			}
			for i, x := range list {
				child := &schema{}
				if err := c.compile(child, x, at+"/allOf/"+strconv.Itoa(i)); err != nil {
					return err
				}
				s.allOf = append(s.allOf, child)
			}
		case "if":
			s.ifs, err = sub(key)
		case "then":
			s.then, err = sub(key)
		case "else":
			s.els, err = sub(key)
		case "minimum":
			n, _ := val.(json.Number)
			d, ok := parseDecimal(string(n))
			if !ok {
				return bad("a number")
			}
			s.minimum = &d
		case "pattern":
			p, ok := val.(string)
			if !ok {
				return bad("a string")
			}
			if s.pattern, err = regexp.Compile(p); err != nil {
				return fmt.Errorf("at %s: pattern: %w", at, err)
			}
		case "format":
			if val != "date-time" {
				return fmt.Errorf("at %s: format %s is not supported (only date-time is)", at, brief(val))
			}
			s.dateTime = true
		default:
			return fmt.Errorf("at %s: keyword %q is not supported", at, key)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// loops reports whether s can come back to a schema on the path to it
// (or to itself) through $ref, allOf, if, then and else alone: a cycle
// that would evaluate the same value forever. free holds the schemas
// found free of such cycles.
func loops(s *schema, onPath, free map[*schema]bool) bool {
	if free[s] {
		return false
	}
	if onPath[s] {
		return true
	}
	onPath[s] = true
	for _, n := range append([]*schema{s.ref, s.ifs, s.then, s.els}, s.allOf...) {
		if n != nil && loops(n, onPath, free) {
			return true
		}
	}
	delete(onPath, s)
	free[s] = true
	return false
}

// decodeLine decodes one JSON value, numbers as json.Number. Anything but
// white space after the value is an error.
func decodeLine(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if rest := bytes.TrimLeft(data[d.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, errors.New("invalid character after top-level value")
	}
	return v, nil
}
