package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// Entries gives a session's timeline one entry at a time, in order, and
// io.EOF after the last. The entry it returns may be reused by the next
// call.
type Entries interface {
	Next() (*Entry, error)
}

// Records gives a session's native records one at a time, in order, and
// io.EOF after the last. The record it returns may be reused by the next
// call.
type Records interface {
	Next() (*Record, error)
}

// EncodeStream writes the session meta describes to w as Encode does,
// the same bytes, without the session whole in memory: its timeline comes
// from entries (meta.Timeline is not read) and its native records from
// records (meta.Records when records is nil). Every value is written as it
// is encoded, a long string or native record a piece at a time, so memory
// holds the entry entries gives and a 64 KB buffer, never an entry's
// encoding. The fields before the timeline (id, source, project, model)
// and those after it (metadata, title, links, warnings) are meta's: a
// caller streaming a large file reads it first for them (see Outline).
//
// An entry of an unknown type, or a native record or tool input that is
// not JSON, fails with the document half written.
func EncodeStream(w io.Writer, meta *Session, entries Entries, records Records, indent bool) error {
	if records == nil {
		records = &sliceRecords{recs: meta.Records}
	}
	j := &jsonStream{w: bufio.NewWriterSize(w, 64<<10), indent: indent}
	err := j.session(meta, entries, records)
	if err == nil {
		j.w.WriteByte('\n')
		err = j.w.Flush()
	}
	return err
}

// EntriesOf gives the entries of a timeline held in memory, one at a time.
func EntriesOf(tl []Entry) Entries { return &sliceEntries{tl: tl} }

// sliceEntries gives the entries of a timeline held in memory.
type sliceEntries struct {
	tl []Entry
	i  int
}

func (s *sliceEntries) Next() (*Entry, error) {
	if s.i >= len(s.tl) {
		return nil, io.EOF
	}
	s.i++
	return &s.tl[s.i-1], nil
}

// sliceRecords gives the records of a slice.
type sliceRecords struct {
	recs []Record
	i    int
}

func (s *sliceRecords) Next() (*Record, error) {
	if s.i >= len(s.recs) {
		return nil, io.EOF
	}
	s.i++
	return &s.recs[s.i-1], nil
}

// jsonStream writes JSON as encoding/json's Encoder does with
// SetEscapeHTML(false) (and SetIndent("", "  ") when indent), one token
// at a time.
type jsonStream struct {
	w      *bufio.Writer
	indent bool
	depth  int
	first  bool   // nothing written yet in the open object or array
	firsts []bool // first of the enclosing ones

	scratch []byte
}

// open starts an object or array.
func (j *jsonStream) open(c byte) {
	j.w.WriteByte(c)
	j.firsts = append(j.firsts, j.first)
	j.first = true
	j.depth++
}

// close ends the object or array open started.
func (j *jsonStream) close(c byte) {
	j.depth--
	if !j.first && j.indent {
		j.newline(j.depth)
	}
	j.w.WriteByte(c)
	j.first = j.firsts[len(j.firsts)-1]
	j.firsts = j.firsts[:len(j.firsts)-1]
}

// next starts a member or element.
func (j *jsonStream) next() {
	if !j.first {
		j.w.WriteByte(',')
	}
	j.first = false
	if j.indent {
		j.newline(j.depth)
	}
}

func (j *jsonStream) newline(depth int) {
	j.w.WriteByte('\n')
	for range depth {
		j.w.WriteString("  ")
	}
}

// key starts the member k, a name that needs no escaping.
func (j *jsonStream) key(k string) {
	j.next()
	j.w.WriteByte('"')
	j.w.WriteString(k)
	j.w.WriteString(`":`)
	if j.indent {
		j.w.WriteByte(' ')
	}
}

func (j *jsonStream) strField(k, v string) {
	j.key(k)
	j.str(v)
}

// optStr writes a string member left out when empty (omitempty).
func (j *jsonStream) optStr(k, v string) {
	if v != "" {
		j.strField(k, v)
	}
}

func (j *jsonStream) intField(k string, n int64) {
	j.key(k)
	var b [20]byte
	j.w.Write(strconv.AppendInt(b[:0], n, 10))
}

func (j *jsonStream) boolField(k string, v bool) {
	j.key(k)
	j.w.WriteString(strconv.FormatBool(v))
}

// value writes v as MarshalCompact encodes it: for the small values
// (links, usage, metadata), held encoded while written.
func (j *jsonStream) value(k string, v any) error {
	b, err := MarshalCompact(v)
	if err != nil {
		return err
	}
	j.key(k)
	j.copyJSON(b)
	return nil
}

// raw writes the member k, the raw JSON b (nil is null), as encoding/json
// writes a json.RawMessage: checked, its spaces dropped.
func (j *jsonStream) raw(k string, b []byte) error {
	if b == nil {
		b = []byte("null")
	}
	if !json.Valid(b) {
		return fmt.Errorf("%s is not valid JSON", k)
	}
	j.key(k)
	j.copyJSON(b)
	return nil
}

// copyJSON writes the valid JSON b without its insignificant spaces,
// indented as json.Indent indents it at the current depth.
func (j *jsonStream) copyJSON(b []byte) {
	j.scratch = AppendJSON(j.scratch[:0], b, j.depth, j.indent)
	j.w.Write(j.scratch)
}

// AppendJSON appends the valid JSON src without its insignificant
// spaces and, when indent is set, indented as json.Indent indents it with
// two spaces a level, its lines after the first at depth levels: what a
// USF stream holds, and stead's --json output.
func AppendJSON(dst, src []byte, depth int, indent bool) []byte {
	newline := func(dst []byte, depth int) []byte {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, "  "...)
		}
		return dst
	}
	pending := false // an object or array just opened: indent before what follows, unless it closes
	for i := 0; i < len(src); {
		c := src[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		if pending && c != '}' && c != ']' {
			pending = false
			depth++
			dst = newline(dst, depth)
		}
		switch c {
		case '"':
			k := i + 1
			for k < len(src) && src[k] != '"' {
				if src[k] == '\\' {
					k++
				}
				k++
			}
			k = min(k+1, len(src))
			dst = append(dst, src[i:k]...)
			i = k
			continue
		case '{', '[':
			pending = indent
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			if indent {
				dst = newline(dst, depth)
			}
		case ':':
			dst = append(dst, c)
			if indent {
				dst = append(dst, ' ')
			}
		case '}', ']':
			if pending {
				pending = false
			} else if indent {
				depth--
				dst = newline(dst, depth)
			}
			dst = append(dst, c)
		default: // a number, true, false or null
			k := i + 1
			for k < len(src) && !isDelim(src[k]) {
				k++
			}
			dst = append(dst, src[i:k]...)
			i = k
			continue
		}
		i++
	}
	return dst
}

func isDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ':', '{', '}', '[', ']', '"':
		return true
	}
	return false
}

// str writes s as a JSON string (see AppendJSONString), escaped a chunk
// at a time so that a huge string needs no buffer of its size.
func (j *jsonStream) str(s string) {
	const chunk = 64 << 10
	j.w.WriteByte('"')
	for len(s) > 0 {
		n := min(chunk, len(s))
		for n < len(s) && n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		if n == 0 {
			n = min(chunk, len(s))
		}
		j.scratch = appendEscaped(j.scratch[:0], s[:n])
		j.w.Write(j.scratch)
		s = s[n:]
	}
	j.w.WriteByte('"')
}

// AppendJSONString appends s as a JSON string, escaped as encoding/json
// escapes it without HTML escaping: ", \ and control characters, U+2028
// and U+2029; invalid UTF-8 made U+FFFD. Runs of plain characters are
// copied as they are.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	return append(appendEscaped(dst, s), '"')
}

func appendEscaped(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, `\b`...)
			case '\f':
				dst = append(dst, `\f`...)
			case '\n':
				dst = append(dst, `\n`...)
			case '\r':
				dst = append(dst, `\r`...)
			case '\t':
				dst = append(dst, `\t`...)
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\u202`...)
			dst = append(dst, hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

func (j *jsonStream) session(s *Session, entries Entries, records Records) error {
	version := s.Version
	if version == "" {
		version = Version
	}
	j.open('{')
	j.strField("id", s.ID)
	j.strField("version", version)
	for _, f := range []struct {
		k string
		v any
	}{{"source", s.Source}, {"project", s.Project}, {"model", s.Model}} {
		if err := j.value(f.k, f.v); err != nil {
			return fmt.Errorf("session: %s: %w", f.k, err)
		}
	}
	j.key("timeline")
	j.open('[')
	for {
		e, err := entries.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		j.next()
		if err := j.entry(e); err != nil {
			return err
		}
		if _, err := j.w.Write(nil); err != nil {
			return err // the writer failed: stop reading
		}
	}
	j.close(']')
	if err := j.value("metadata", s.Metadata); err != nil {
		return fmt.Errorf("session: metadata: %w", err)
	}
	j.optStr("title", s.Title)
	if s.Parent != nil {
		if err := j.value("parent", s.Parent); err != nil {
			return err
		}
	}
	if len(s.Subagents) > 0 {
		if err := j.value("subagents", s.Subagents); err != nil {
			return err
		}
	}
	if err := j.records(records); err != nil {
		return err
	}
	if len(s.Warnings) > 0 {
		j.key("warnings")
		j.open('[')
		for _, w := range s.Warnings {
			b, err := MarshalCompact(w)
			if err != nil {
				return err
			}
			j.next()
			j.copyJSON(b)
		}
		j.close(']')
	}
	j.close('}')
	return nil
}

// records writes the records member, left out when there are none.
func (j *jsonStream) records(records Records) error {
	for n := 0; ; n++ {
		r, err := records.Next()
		if errors.Is(err, io.EOF) {
			if n > 0 {
				j.close(']')
			}
			return nil
		}
		if err != nil {
			return err
		}
		if n == 0 {
			j.key("records")
			j.open('[')
		}
		j.next()
		j.open('{')
		j.intField("line", int64(r.Line))
		if err := j.raw("record", r.Record); err != nil {
			return fmt.Errorf("session: the record of line %d: %w", r.Line, err)
		}
		j.close('}')
		if _, err := j.w.Write(nil); err != nil {
			return err
		}
	}
}

// entry writes e as Entry.MarshalJSON does.
func (j *jsonStream) entry(e *Entry) error {
	if !e.Type.Valid() {
		return fmt.Errorf("session: entry %q has invalid type %q", e.ID, e.Type)
	}
	j.open('{')
	j.strField("id", e.ID)
	j.strField("timestamp", FormatTime(e.Timestamp))
	j.strField("type", string(e.Type))
	switch e.Type {
	case User, System:
		j.strField("content", e.Content)
	case Assistant:
		j.strField("content", e.Content)
		j.optStr("thinking", e.Thinking)
	case ToolCall:
		tool := e.Tool
		if tool == "" {
			tool = ToolUnknown
		}
		j.strField("tool", string(tool))
		input := e.Input
		if len(input) == 0 {
			input = emptyObject
		}
		if err := j.raw("input", input); err != nil {
			return fmt.Errorf("session: entry %q: %w", e.ID, err)
		}
		j.optStr("originalTool", e.OriginalTool)
	case ToolResult:
		j.strField("callId", e.CallID)
		j.boolField("success", e.Success)
		j.strField("output", e.Output)
		j.optStr("error", e.Error)
	}
	j.optStr("parentId", e.ParentID)
	if e.Sidechain {
		j.boolField("sidechain", true)
	}
	j.optStr("kind", e.Kind)
	j.optStr("status", string(e.Status))
	j.optStr("model", e.Model)
	j.optStr("messageId", e.MessageID)
	if e.Usage != nil {
		if err := j.value("usage", e.Usage); err != nil {
			return err
		}
	}
	if len(e.Reasoning) > 0 {
		j.key("reasoning")
		j.open('[')
		for i := range e.Reasoning {
			r := &e.Reasoning[i]
			j.next()
			j.open('{')
			j.optStr("format", r.Format)
			j.optStr("id", r.ID)
			j.optStr("text", r.Text)
			j.optStr("signature", r.Signature)
			j.optStr("encrypted", r.Encrypted)
			j.close('}')
		}
		j.close(']')
	}
	if len(e.Attachments) > 0 {
		j.key("attachments")
		j.open('[')
		for i := range e.Attachments {
			a := &e.Attachments[i]
			j.next()
			j.open('{')
			j.strField("type", a.Type)
			j.optStr("mediaType", a.MediaType)
			j.optStr("name", a.Name)
			j.optStr("path", a.Path)
			j.optStr("url", a.URL)
			j.optStr("data", a.Data)
			j.close('}')
		}
		j.close(']')
	}
	if e.Subagent != nil {
		if err := j.value("subagent", e.Subagent); err != nil {
			return err
		}
	}
	j.optStr("origin", e.Origin)
	j.optStr("cli", e.CLI)
	if n := e.Native; n != nil {
		j.key("native")
		j.open('{')
		j.intField("line", int64(n.Line))
		if n.Part != 0 {
			j.intField("part", int64(n.Part))
		}
		if len(n.Record) > 0 {
			if err := j.raw("record", n.Record); err != nil {
				return fmt.Errorf("session: entry %q: native %w", e.ID, err)
			}
		}
		j.optStr("path", n.Path)
		j.close('}')
	}
	j.close('}')
	return nil
}
