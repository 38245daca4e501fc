package opencode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/stead-dev/stead/adapters/internal/jsonl"

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
// holds one message with its parts, never the whole document.
type exportWalker struct {
	dec  *json.Decoder
	in   *errReader
	line int
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

// walk calls fn for each row of the document: the session's info, each
// message, each part. It returns an error only when reading fails; a
// malformed document is reported through w.warn and ends the walk.
func (w *exportWalker) walk(fn func(r row, info *sessionInfo)) error {
	br := bufio.NewReaderSize(w.in, 64<<10)
	head, _ := br.Peek(len(sqliteMagic))
	if bytes.Equal(head, sqliteMagic) {
		w.warn(0, "this is a SQLite database (opencode.db), not an export: open it by path, or name a session as opencode:<id>")
		return w.in.err
	}
	w.dec = json.NewDecoder(br)
	tok, err := w.dec.Token()
	if err != nil {
		return w.fail(err, "an OpenCode export is a JSON object")
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		w.warn(0, "not an OpenCode export: the document is not a JSON object")
		return w.in.err
	}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return w.fail(err, "")
		}
		key, _ := tok.(string)
		switch key {
		case "info":
			var raw json.RawMessage
			if err := w.dec.Decode(&raw); err != nil {
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
				return err
			}
		default:
			var raw json.RawMessage
			if err := w.dec.Decode(&raw); err != nil {
				return w.fail(err, "")
			}
			w.line++
			rec, _ := json.Marshal(map[string]json.RawMessage{key: raw})
			fn(row{kind: rowSession, line: w.line, record: rec}, nil)
		}
	}
	if _, err := w.dec.Token(); err != nil {
		return w.fail(err, "")
	}
	return w.in.err
}

func (w *exportWalker) messages(fn func(r row, info *sessionInfo)) error {
	tok, err := w.dec.Token()
	if err != nil {
		return w.fail(err, "")
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		w.warn(w.line+1, "messages is not an array; skipped")
		if d, ok := tok.(json.Delim); ok && d == '{' {
			// Skip the object's contents.
			for depth := 1; depth > 0; {
				t, err := w.dec.Token()
				if err != nil {
					return w.fail(err, "")
				}
				if d, ok := t.(json.Delim); ok {
					if d == '{' || d == '[' {
						depth++
					} else {
						depth--
					}
				}
			}
		}
		return nil
	}
	for w.dec.More() {
		// The decoder checks the element's syntax as it reads it; the
		// element is then split without another pass of encoding/json,
		// and each info and part is decoded once, by the reader of rows.
		var raw json.RawMessage
		if err := w.dec.Decode(&raw); err != nil {
			return w.fail(err, "")
		}
		w.line++
		info, parts, ok := splitMessage(raw)
		if !ok {
			w.warn(w.line, "message: not an object with an info object and a parts array; kept in records")
			fn(row{kind: rowSession, line: w.line, record: raw}, nil)
			continue
		}
		fn(row{kind: rowMessage, line: w.line, data: info, record: info}, nil)
		eachElement(parts, func(p []byte) {
			w.line++
			fn(row{kind: rowPart, line: w.line, nested: true, data: p, record: p}, nil)
		})
	}
	if _, err := w.dec.Token(); err != nil {
		return w.fail(err, "")
	}
	return nil
}

// fail reports a decoding error: a read error is returned, malformed JSON
// is a warning that ends the walk.
func (w *exportWalker) fail(err error, what string) error {
	if w.in.err != nil {
		return w.in.err
	}
	msg := "malformed export JSON"
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "the export ends early"
		if w.line == 0 {
			msg = "empty input"
		}
	}
	if what != "" {
		msg += " (" + what + ")"
	}
	w.warn(w.line+1, fmt.Sprintf("%s at byte %d: %v; the rest was not read", msg, w.dec.InputOffset(), err))
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
