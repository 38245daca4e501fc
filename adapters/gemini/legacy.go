package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/stead-dev/stead/session"
)

// The two whole-document formats, read up front: the single JSON object a
// session was before 0.61.0's JSON Lines (Gemini CLI still loads one, and
// on resume continues it in a .jsonl twin), and logs.json, the prompt
// history of a project. Both are JSON written with indentation, so a
// record's "line" is the line its object starts on, and the record kept is
// the object made compact.

// lines maps byte offsets of a document to 1-based line numbers, for
// offsets that only grow.
type lines struct {
	data []byte
	off  int
	line int
}

func (l *lines) at(off int) int {
	if l.line == 0 {
		l.line = 1
	}
	if off > len(l.data) {
		off = len(l.data)
	}
	if off > l.off {
		l.line += bytes.Count(l.data[l.off:off], []byte("\n"))
		l.off = off
	}
	return l.line
}

// valueStart returns the offset of the value after a key at off: past
// blanks, a colon or a comma.
func valueStart(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
			continue
		}
		break
	}
	return off
}

// readLegacy decodes a legacy session document: its top-level fields are
// the metadata record (kept in Records, at the line of its opening brace)
// and each of its messages is a record of its own.
func (d *Decoder) readLegacy() error {
	data, err := io.ReadAll(d.src)
	if err != nil {
		return err
	}
	ln := lines{data: data}
	dec := json.NewDecoder(bytes.NewReader(data))
	start := valueStart(data, 0)
	meta := session.Event{Line: ln.at(start)}
	d.begin(&meta, FormatLegacy)
	d.queue = append(d.queue, meta)
	metaAt := len(d.queue) - 1
	fail := func(err error) {
		l := ln.at(int(dec.InputOffset()))
		d.queue = append(d.queue, session.Event{Line: l, Warning: d.warn(l, "malformed JSON document ("+err.Error()+"); rest skipped")})
	}
	var obj bytes.Buffer
	obj.WriteByte('{')
	finishMeta := func() {
		obj.WriteByte('}')
		ev := &d.queue[metaAt]
		var rec record
		_ = json.Unmarshal(obj.Bytes(), &rec)
		d.meta(&rec, ev)
		ev.Record = &session.Record{Line: ev.Line, Record: obj.Bytes()}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		if err == nil {
			err = fmt.Errorf("not an object")
		}
		fail(err)
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			fail(err)
			break
		}
		key, _ := tok.(string)
		at := valueStart(data, int(dec.InputOffset()))
		if key == "messages" && at < len(data) && data[at] == '[' {
			if err := d.legacyMessages(dec, data, &ln); err != nil {
				fail(err)
				break
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			fail(err)
			break
		}
		if obj.Len() > 1 {
			obj.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		obj.Write(k)
		obj.WriteByte(':')
		_ = json.Compact(&obj, raw)
	}
	finishMeta()
	return nil
}

// legacyMessages decodes the messages array of a legacy document, one
// event per message.
func (d *Decoder) legacyMessages(dec *json.Decoder, data []byte, ln *lines) error {
	if _, err := dec.Token(); err != nil { // [
		return err
	}
	for dec.More() {
		at := valueStart(data, int(dec.InputOffset()))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		ev := session.Event{Line: ln.at(at)}
		var b bytes.Buffer
		_ = json.Compact(&b, raw)
		var m msgRecord
		var entries []session.Entry
		if len(raw) > 0 && raw[0] == '{' {
			if err := json.Unmarshal(raw, &m); err != nil {
				d.note(&ev, "message read in part: "+err.Error())
			}
			if isString(m.RawID) {
				m.ID = str(m.RawID)
				entries = d.message(&m.message, &ev, nil)
			}
		}
		d.attach(entries, b.Bytes(), &ev)
		d.queue = append(d.queue, ev)
	}
	_, err := dec.Token() // ]
	return err
}

// logEntry is one prompt of logs.json.
type logEntry struct {
	SessionID json.RawMessage `json:"sessionId"`
	MessageID json.RawMessage `json:"messageId"`
	Type      string          `json:"type"`
	Message   json.RawMessage `json:"message"`
	Timestamp string          `json:"timestamp"`
}

// readLogs decodes a logs.json prompt history: each prompt becomes a user
// entry (only those of logsFor's session when it is set).
func (d *Decoder) readLogs() error {
	data, err := io.ReadAll(d.src)
	if err != nil {
		return err
	}
	ln := lines{data: data}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		d.queue = append(d.queue, session.Event{Line: 1, Warning: d.warn(1, "malformed JSON document ("+err.Error()+"); skipped")})
		return nil
	}
	last := ""
	for dec.More() {
		at := valueStart(data, int(dec.InputOffset()))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			l := ln.at(at)
			d.queue = append(d.queue, session.Event{Line: l, Warning: d.warn(l, "malformed JSON document ("+err.Error()+"); rest skipped")})
			return nil
		}
		ev := session.Event{Line: ln.at(at)}
		var e logEntry
		if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &e) != nil {
			ev.Warning = d.warn(ev.Line, "not a prompt record; skipped")
			d.queue = append(d.queue, ev)
			continue
		}
		sid := str(e.SessionID)
		if d.logsFor != "" && sid != d.logsFor {
			continue
		}
		d.begin(&ev, FormatLogs)
		if sid != "" {
			addInfo(&ev).ID = sid
		}
		var b bytes.Buffer
		_ = json.Compact(&b, raw)
		var entries []session.Entry
		if text := str(e.Message); text != "" {
			p, trunc := clip(text, textMax)
			c := classify([]byte(p), trunc)
			if !c.empty {
				ts, _ := session.ParseTime(e.Timestamp)
				mid := str(e.MessageID)
				if mid == "" {
					mid = compactJSON(e.MessageID)
				}
				id := sid + ":" + mid
				entry := session.Entry{ID: d.unique(id, ev.Line), Type: c.typ, Kind: c.kind, Content: text, Timestamp: ts, ParentID: last}
				last = entry.ID
				entries = append(entries, entry)
			}
		}
		d.attach(entries, b.Bytes(), &ev)
		d.queue = append(d.queue, ev)
	}
	return nil
}
