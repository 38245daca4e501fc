package opencode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/adapters/internal/jsonread"

	"github.com/stead-dev/stead/session"
)

// The export format is what `opencode export [id]` prints and `opencode
// import` reads: one JSON document
//
//	{"info": {session info}, "messages": [{"info": {message}, "parts": [{part}, …]}, …]}
//
// where each message and part carries its id, sessionID (and messageID)
// beside the fields the database keeps in its data column.

// exportWalker reads an export document one message at a time, so memory
// holds one message with its parts, never the whole document. It finds
// each value's end by its brackets and quotes, then checks its syntax with
// jsonread (encoding/json for what that leaves), reading each byte of a
// message about twice at memory speed where encoding/json's scanner read
// it four times over.
type exportWalker struct {
	in   *errReader
	br   *bufio.Reader
	off  int64 // bytes of the document read
	line int
	// started is set once the document shows more than white space.
	started bool
	buf     []byte // the value being read
	// warn receives problems with the document's shape.
	warn func(line int, msg string)
}

// errReader remembers the first error of the underlying reader, so that
// a read error is told from malformed JSON.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// exportBuffer is how much of the document is read at a time. Tests make
// it small, so that values cross from one read to the next.
var exportBuffer = 64 << 10

// syntaxError is malformed JSON at a byte of the document.
type syntaxError struct {
	msg string
	at  int64
}

func (e *syntaxError) Error() string { return e.msg }

// walk calls fn for each row of the document: the session's info, each
// message, each part. It returns an error only when reading fails; a
// malformed document is reported through w.warn and ends the walk.
func (w *exportWalker) walk(fn func(r row, info *sessionInfo)) error {
	w.br = bufio.NewReaderSize(w.in, exportBuffer)
	head, _ := w.br.Peek(len(sqliteMagic))
	if bytes.Equal(head, sqliteMagic) {
		w.warn(0, "this is a SQLite database (opencode.db), not an export: open it by path, or name a session as opencode:<id>")
		return w.in.err
	}
	c, err := w.ws()
	if err != nil {
		return w.fail(err, "an OpenCode export is a JSON object")
	}
	w.started = true
	if c != '{' {
		// Whatever it is, it is not an export; encoding/json says whether
		// it is JSON at all.
		if _, err := json.NewDecoder(w.br).Token(); err != nil {
			return w.fail(err, "an OpenCode export is a JSON object")
		}
		w.warn(0, "not an OpenCode export: the document is not a JSON object")
		return w.in.err
	}
	w.skip(1)
	for first := true; ; first = false {
		c, err := w.ws()
		if err != nil {
			return w.fail(err, "")
		}
		if c == '}' {
			return w.in.err
		}
		if !first {
			if c != ',' {
				return w.fail(w.badChar(c, "after object key:value pair"), "")
			}
			w.skip(1)
			if c, err = w.ws(); err != nil {
				return w.fail(err, "")
			}
		}
		if c != '"' {
			return w.fail(w.badChar(c, "looking for beginning of object key string"), "")
		}
		key, err := w.value()
		if err != nil {
			return w.fail(err, "")
		}
		var name string
		if err := json.Unmarshal(key, &name); err != nil {
			return w.fail(w.invalid(key, w.off-int64(len(key))), "")
		}
		if c, err = w.ws(); err != nil {
			return w.fail(err, "")
		}
		if c != ':' {
			return w.fail(w.badChar(c, "after object key"), "")
		}
		w.skip(1)
		switch name {
		case "info":
			raw, err := w.checkedValue()
			if err != nil {
				return w.fail(err, "")
			}
			w.line++
			var info sessionInfo
			if err := parseJSON(raw, &info); err != nil {
				w.warn(w.line, "session info: "+errText(err))
			}
			fn(row{kind: rowSession, line: w.line, data: raw, record: raw}, &info)
		case "messages":
			if err := w.messages(fn); err != nil {
				return w.fail(err, "")
			}
		default:
			raw, err := w.checkedValue()
			if err != nil {
				return w.fail(err, "")
			}
			w.line++
			rec, _ := json.Marshal(map[string]json.RawMessage{name: raw})
			fn(row{kind: rowSession, line: w.line, record: rec}, nil)
		}
	}
}

// messages reads the messages array. An error is a failing reader or
// malformed JSON, which ends the walk.
func (w *exportWalker) messages(fn func(r row, info *sessionInfo)) error {
	c, err := w.ws()
	if err != nil {
		return err
	}
	if c != '[' {
		// encoding/json's tokens read a string, number or literal whole
		// (and fail on a bad one) but only the brace of an object.
		if c != '{' {
			if _, err := w.checkedValue(); err != nil {
				return err
			}
		}
		w.warn(w.line+1, "messages is not an array; skipped")
		if c == '{' {
			_, err := w.checkedValue()
			return err
		}
		return nil
	}
	w.skip(1)
	var msg exportMessage
	for first := true; ; first = false {
		c, err := w.ws()
		if err != nil {
			return err
		}
		if c == ']' {
			w.skip(1)
			return nil
		}
		if !first {
			if c != ',' {
				return w.badChar(c, "after array element")
			}
			w.skip(1)
		}
		at := w.off
		raw, err := w.value()
		if err != nil {
			return err
		}
		msg = exportMessage{parts: msg.parts[:0]}
		if !jsonread.Parse(raw, &msg) {
			// What jsonread leaves (odd bytes, duplicate keys, escapes in
			// keys) is checked by encoding/json and split as it reads.
			msg = exportMessage{parts: msg.parts[:0]}
			if !json.Valid(raw) {
				return w.invalid(raw, at)
			}
			info, parts, ok := splitMessage(raw)
			msg.info, msg.ok = info, ok
			eachElement(parts, func(p []byte) { msg.parts = append(msg.parts, p) })
		}
		w.line++
		if !msg.ok {
			w.warn(w.line, "message: not an object with an info object and a parts array; kept in records")
			fn(row{kind: rowSession, line: w.line, record: raw}, nil)
			continue
		}
		fn(row{kind: rowMessage, line: w.line, data: msg.info, record: msg.info}, nil)
		for _, p := range msg.parts {
			w.line++
			fn(row{kind: rowPart, line: w.line, nested: true, data: p, record: p}, nil)
		}
	}
}

// exportMessage is an element of the messages array, split as
// splitMessage splits it: ok when it is an object with an info object and
// a parts array (or none), whose elements are parts.
type exportMessage struct {
	info  json.RawMessage
	parts []json.RawMessage
	ok    bool
	// notArray is set when parts is there and is not an array.
	notArray bool
}

var exportMessageNames = map[string]bool{"info": true, "parts": true}

func (m *exportMessage) Names() map[string]bool { return exportMessageNames }

func (m *exportMessage) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "info":
		p.Raw(&m.info)
		m.ok = m.info[0] == '{' && !m.notArray
		return 1
	case "parts":
		if p.Peek() != '[' {
			var skipped json.RawMessage
			p.Raw(&skipped)
			m.notArray, m.ok = true, false
			return 2
		}
		for more := p.OpenArray(); more; more = p.More() {
			var part json.RawMessage
			p.Raw(&part)
			m.parts = append(m.parts, part)
		}
		return 2
	}
	return 0
}

// ws skips white space and returns the next byte, unread.
func (w *exportWalker) ws() (byte, error) {
	for {
		c, err := w.br.ReadByte()
		if err != nil {
			if err == io.EOF && w.off > 0 {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			w.br.UnreadByte()
			return c, nil
		}
		w.off++
	}
}

// skip reads n bytes that ws or value has seen.
func (w *exportWalker) skip(n int) {
	w.br.Discard(n)
	w.off += int64(n)
}

// value reads the value that starts at the next byte that is not white
// space, to its end: a string to its closing quote, an object or array to
// its closing bracket, a number or literal to the byte that ends it. It
// does not check the syntax: its caller does. The result is the caller's
// own (a copy). The document ending first is io.ErrUnexpectedEOF, or the
// syntax error encoding/json finds in what was read.
func (w *exportWalker) value() ([]byte, error) {
	if _, err := w.ws(); err != nil {
		return nil, err
	}
	w.buf = w.buf[:0]
	at := w.off
	depth := 0 // of objects and arrays, when not in a string
	inString := false
	slashes := 0 // backslashes just before the next byte, in a string
	for first := true; ; first = false {
		chunk, err := w.br.Peek(max(w.br.Buffered(), 1))
		if len(chunk) == 0 {
			if err == io.EOF {
				return nil, w.invalid(w.buf, at)
			}
			return nil, err
		}
		if first {
			switch c := chunk[0]; {
			case c == '"' || c == '{' || c == '[':
			case startsValue(c):
				return w.scalar(at)
			default:
				return nil, w.badChar(c, "looking for beginning of value")
			}
		}
		i := 0
		for i < len(chunk) {
			c := chunk[i]
			if inString {
				// The next quote that no backslash escapes ends the string.
				j := bytes.IndexByte(chunk[i:], '"')
				if j < 0 {
					slashes = jsonl.TrailingBackslashes(chunk[i:], slashes)
					i = len(chunk)
					break
				}
				if j > 0 {
					slashes = jsonl.TrailingBackslashes(chunk[i:i+j], slashes)
				}
				i += j + 1
				if slashes%2 == 1 {
					slashes = 0
					continue
				}
				slashes = 0
				inString = false
				if depth == 0 {
					return w.take(chunk[:i]), nil
				}
				continue
			}
			switch {
			case c == '"':
				inString = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
				if depth <= 0 {
					return w.take(chunk[:i+1]), nil
				}
			}
			i++
		}
		w.buf = append(w.buf, chunk...)
		w.skip(len(chunk))
	}
}

// scalar reads a number or literal as encoding/json reads it: to the
// first byte that cannot continue it.
func (w *exportWalker) scalar(at int64) ([]byte, error) {
	w.buf = w.buf[:0]
	for {
		chunk, err := w.br.Peek(max(w.br.Buffered(), 1))
		if len(chunk) == 0 && err != io.EOF {
			return nil, err
		}
		end := 0
		for end < len(chunk) && isScalarByte(chunk[end]) {
			end++
		}
		if end == len(chunk) && len(chunk) > 0 {
			w.buf = append(w.buf, chunk...)
			w.skip(len(chunk))
			continue
		}
		// With the byte after it, encoding/json tells where it ends or
		// what is wrong with it.
		cand := append(w.buf, chunk[:min(end+1, len(chunk))]...)
		dec := json.NewDecoder(bytes.NewReader(cand))
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return nil, w.invalid(cand, at)
		}
		k := int(dec.InputOffset())
		raw := bytes.Clone(cand[:k])
		if read := len(w.buf); k >= read {
			w.skip(k - read)
		} else {
			w.unread(cand[k:read])
		}
		return raw, nil
	}
}

// unread puts back b, the last bytes read, to be read again.
func (w *exportWalker) unread(b []byte) {
	w.br = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(bytes.Clone(b)), w.br), exportBuffer)
	w.off -= int64(len(b))
}

// take ends value with chunk, the rest of it in the buffered input, and
// returns a copy of the value.
func (w *exportWalker) take(chunk []byte) []byte {
	w.buf = append(w.buf, chunk...)
	w.skip(len(chunk))
	return bytes.Clone(w.buf)
}

// checkedValue is value, checked to be valid JSON.
func (w *exportWalker) checkedValue() ([]byte, error) {
	if _, err := w.ws(); err != nil {
		return nil, err
	}
	at := w.off
	raw, err := w.value()
	if err != nil {
		return nil, err
	}
	if !validJSON(raw) {
		return nil, w.invalid(raw, at)
	}
	return raw, nil
}

// invalid returns what encoding/json finds wrong with raw, a value that
// is not valid JSON, read from byte at of the document: a syntax error, or
// io.ErrUnexpectedEOF when raw is cut short.
func (w *exportWalker) invalid(raw []byte, at int64) error {
	var v json.RawMessage
	err := json.NewDecoder(bytes.NewReader(raw)).Decode(&v)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return &syntaxError{msg: se.Error(), at: at}
	case err == nil:
		return &syntaxError{msg: "invalid character after " + strconv.Quote(string(v)), at: at}
	}
	return io.ErrUnexpectedEOF
}

// badChar is encoding/json's syntax error for byte c where it is.
func (w *exportWalker) badChar(c byte, context string) error {
	return &syntaxError{msg: "invalid character " + quoteChar(c) + " " + context, at: w.off}
}

// quoteChar formats c as encoding/json's errors do.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(c))
	return "'" + s[1:len(s)-1] + "'"
}

// startsValue reports whether c starts a JSON value.
func startsValue(c byte) bool {
	return c == '"' || c == '[' || c == '{' || c == '-' || c == 't' || c == 'f' || c == 'n' || '0' <= c && c <= '9'
}

// isScalarByte reports whether c can be part of a number or literal.
func isScalarByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.'
}

// fail reports a decoding error: a read error is returned, malformed JSON
// is a warning that ends the walk.
func (w *exportWalker) fail(err error, what string) error {
	if w.in.err != nil {
		return w.in.err
	}
	msg := "malformed export JSON"
	at := w.off
	var se *syntaxError
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		msg, err = "the export ends early", io.ErrUnexpectedEOF
		if !w.started {
			msg, err = "empty input", io.EOF
		}
	case errors.As(err, &se):
		at = se.at
	}
	if what != "" {
		msg += " (" + what + ")"
	}
	w.warn(w.line+1, fmt.Sprintf("%s at byte %d: %v; the rest was not read", msg, at, err))
	return nil
}

// Read decodes an OpenCode export (the JSON of opencode export) from r.
// Content it cannot read is reported in the session's warnings: only a
// failing reader is an error. Native.Line and Record.Line count the
// document's records: 1 is the session's info, then each message followed
// by its parts.
func Read(r io.Reader) (*session.Session, error) {
	return readExport(r, "")
}

func readExport(r io.Reader, path string) (*session.Session, error) {
	d := newDecoder(path, FormatExport)
	w := &exportWalker{in: &errReader{r: r}}
	w.warn = func(line int, msg string) {
		wr := session.Warning{Path: path, Line: line, Message: msg}
		if line <= 0 {
			wr.Line = 0
		}
		d.warn(wr)
	}
	err := w.walk(func(r row, info *sessionInfo) {
		switch {
		case r.kind == rowSession && info != nil:
			d.session(r, *info, "")
		case r.kind == rowSession:
			d.keep(r, nil)
		case r.kind == rowMessage:
			d.message(r)
		default:
			d.part(r)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("opencode: read export: %w", err)
	}
	return d.finish(), nil
}

// splitMessage returns the info object and the parts array of a message
// element of valid JSON: {"info": {…}, "parts": […]}. A message without
// parts has an empty parts array.
func splitMessage(b []byte) (info, parts []byte, ok bool) {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || t[0] != '{' {
		return nil, nil, false
	}
	jsonl.EachField(t[1:], func(key, value []byte) bool {
		switch string(key) {
		case "info":
			info = value
		case "parts":
			parts = value
		}
		return true
	})
	if len(info) == 0 || info[0] != '{' || (len(parts) > 0 && parts[0] != '[') {
		return nil, nil, false
	}
	return info, parts, true
}

// eachElement calls fn with each element of a JSON array of valid JSON.
func eachElement(arr []byte, fn func([]byte)) {
	if len(arr) < 2 || arr[0] != '[' {
		return
	}
	i := 1
	for i < len(arr) {
		for i < len(arr) && (arr[i] == ' ' || arr[i] == '\n' || arr[i] == '\r' || arr[i] == '\t' || arr[i] == ',') {
			i++
		}
		if i >= len(arr) || arr[i] == ']' {
			return
		}
		end := valueEnd(arr, i)
		if end <= i {
			return
		}
		fn(arr[i:end])
		i = end
	}
}

// valueEnd returns the index just past the JSON value starting at b[i].
func valueEnd(b []byte, i int) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch c := b[j]; c {
		case '"':
			for j++; j < len(b) && b[j] != '"'; j++ {
				if b[j] == '\\' {
					j++
				}
			}
			if depth == 0 {
				return j + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
			if depth < 0 {
				return j
			}
		case ',':
			if depth == 0 {
				return j
			}
		}
	}
	return len(b)
}
