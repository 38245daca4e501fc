package opencode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// refWalker is the export walker as it was before exportWalker found
// values by their brackets: encoding/json reads the document, token by
// token and element by element. FuzzExportWalk checks that both read the
// same rows and find the same problems.
type refWalker struct {
	dec  *json.Decoder
	in   *errReader
	line int
	// warn receives problems with the document's shape.
	warn func(line int, msg string)
}

// walk calls fn for each row of the document: the session's info, each
// message, each part. It returns an error only when reading fails; a
// malformed document is reported through w.warn and ends the walk.
func (w *refWalker) walk(fn func(r row, info *sessionInfo)) error {
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

func (w *refWalker) messages(fn func(r row, info *sessionInfo)) error {
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
func (w *refWalker) fail(err error, what string) error {
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

// walkRows returns what a walk of data with walk passes to its callback
// and to warn: each row, and each warning up to its byte offset (the
// offsets and syntax messages may differ: encoding/json's decoder counts
// from where its value began).
func walkRows(data []byte, ref bool) (rows []string, warnings []string, err error) {
	add := func(r row, info *sessionInfo) {
		rows = append(rows, fmt.Sprintf("%d %d %v %q %q %v", r.kind, r.line, r.nested, r.data, r.record, info != nil))
	}
	warn := func(line int, msg string) {
		if i := strings.Index(msg, " at byte "); i >= 0 {
			msg = msg[:i]
		}
		w := fmt.Sprintf("%d %s", line, msg)
		if ref && len(warnings) > 0 && warnings[len(warnings)-1] == w {
			return // the walk before said it twice when the messages array was malformed
		}
		warnings = append(warnings, w)
	}
	if ref {
		// The walk before said "empty input" of a document cut before
		// its first row, whatever it held.
		warn := func(line int, msg string) {
			if rest, ok := strings.CutPrefix(msg, "empty input"); ok && len(bytes.TrimSpace(data)) > 0 {
				msg = "the export ends early" + rest
			}
			warn(line, msg)
		}
		w := &refWalker{in: &errReader{r: bytes.NewReader(data)}, warn: warn}
		err = w.walk(add)
	} else {
		w := &exportWalker{in: &errReader{r: bytes.NewReader(data)}, warn: warn}
		err = w.walk(add)
	}
	return rows, warnings, err
}

var exportSeeds = []string{
	"", "   ", "{", `{"info":`, `{"info":{"id":"a"}`, `{"info":{"id":"a"},`, `{"info":{"id":"a"}}`, `[1,2]`, `"x"`, `7`, `tru`, "\x00\x01not json",
	`{"info":{"id":"ses_abc","title":"t"},"messages":[{"info":{"id":"msg_a","role":"user"},"parts":[{"id":"prt_a","type":"text","text":"hi"}]},{"info":`,
	`{"info":{"id":"ses_abc"},"messages":{"a":[1,{"b":2}]}}`, `{"info":{"id":"ses_abc"},"messages":[7]}`, `{"messages":[7,]}`, `{"messages":[{"info":{},"parts":null}]}`,
	`{"messages":[{"info":{},"parts":[1,"a\\\"]",{"x":"}"}]},{"parts":[],"info":{"a":[]}}], "extra" : [1, {"b" : "c"}] , "info" : {"id":"x"} }`,
	`{"messages":[{"info":{},"info":{"id":"2"},"parts":[]}, {"inf\u006f":{},"parts":[]}, {"INFO":{},"parts":[]}]}`,
	`{"messages":[{"info":{"t":"\xff"},"parts":[]}]}`, `{"messages":[{"info":{},"parts":[]}}`, `{"messages":[{"info":{},"parts":[]]}`, `{"a":1 "b":2}`, `{"a" 1}`, `{1:2}`,
	`{"messages":[{"info":{"a":1e5,"b":-0.5,"c":true,"d":null},"parts":[{"type":"text","text":"a\nb"}]}] }  trailing`,
	`{"messages":[12345678901234567890123456789,00000000000000000000000000000001,truefalse,{"info":{},"parts":[]}]}`,
	`{"x":-12345678901234567890.5e+10,"messages":[],"info":{"text":"\\\\\\\"\\\\\\\\\"}"}}`,
}

// nativeFiles returns the native files of a testdata case.
func nativeFiles(tb testing.TB, name string) [][]byte {
	tb.Helper()
	ar, err := txtar.ParseFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	var files [][]byte
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "native/") {
			files = append(files, f.Data)
		}
	}
	if len(files) == 0 {
		tb.Fatalf("%s has no native file", name)
	}
	return files
}

func FuzzExportWalk(f *testing.F) {
	for _, s := range exportSeeds {
		f.Add([]byte(s))
	}
	for _, name := range []string{"testdata/export-run1.txtar", "testdata/export-importF.txtar"} {
		for _, b := range nativeFiles(f, name) {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		refRows, refWarnings, refErr := walkRows(data, true)
		for _, size := range []int{64 << 10, 16} { // 16: bufio's least
			exportBuffer = size
			rows, warnings, err := walkRows(data, false)
			exportBuffer = 64 << 10
			if strings.Join(rows, "\n") != strings.Join(refRows, "\n") || (err == nil) != (refErr == nil) {
				t.Fatalf("%q, read %d bytes at a time:\nrows %q, %v\nencoding/json's %q, %v", data, size, rows, err, refRows, refErr)
			}
			if strings.Join(warnings, "\n") != strings.Join(refWarnings, "\n") {
				t.Fatalf("%q, read %d bytes at a time:\nwarnings %q\nencoding/json's %q", data, size, warnings, refWarnings)
			}
		}
	})
}
