package kimi

import (
	"github.com/stead-dev/stead/adapters/internal/jsonread"
)

// inline is what the fast reader reads of a record beyond its fields, in
// the same pass: the message of a context.append_message or legacy wire
// record, and the content of a message. Without it the message would be
// read three times over (checked as the record's raw value, read as a
// message, its content read as parts), and every pass checks its UTF-8
// again. It also holds the values of the record's pointer fields, so that
// reading them allocates nothing.
//
// What it holds is used only when the whole record was read by the fast
// reader: then it is what reading the raw values on their own would give,
// since the same Member methods read the same bytes. When the fast reader
// gives up on the record, encoding/json reads it into a zero record, whose
// in is nil, and the raw values are read as before.
type inline struct {
	// msg is the message of a context.append_message record, when
	// msgOK.
	msg   contextMessage
	msgOK bool
	// wire is the message of a legacy wire record, when wireOK.
	wire   wireMessage
	wireOK bool
	// The record's event, role and usage, which its Event, Role and
	// Usage point to when the fast reader read them.
	event loopEvent
	role  string
	usage tokenUsage
	// The content of the message whose in is set, when contentOK:
	// text for a string, parts for an array; anything else is no
	// content.
	contentOK bool
	text      string
	isText    bool
	parts     []part // reused from record to record
}

// reset readies in for a record.
func (in *inline) reset() {
	in.msgOK, in.wireOK, in.contentOK = false, false, false
}

// readMessage reads the "message" member of r into r.Message, and when it
// is an object of a context.append_message or of a legacy wire record,
// into in.msg or in.wire as well. The record's type must come before its
// message for the former, as Kimi Code writes it. A legacy wire record
// has no type: a record with no type or role yet may be one, and its
// message is read as a wire message on that chance (what is read is not
// used when it turns out to be something else).
func (in *inline) readMessage(p *jsonread.Parser, r *record) {
	start := p.Begin()
	switch {
	case p.Peek() != '{':
		p.Skip()
	case r.Type == "context.append_message":
		in.msg = contextMessage{in: in}
		in.contentOK = false
		p.Object(&in.msg)
		in.msgOK = true
	case r.Type == "" && r.Role == nil:
		in.wire = wireMessage{}
		p.Object(&in.wire)
		in.wireOK = true
	default:
		p.Skip()
	}
	r.Message = p.Since(start)
}

// readContent reads the "content" member of a message into m.Content, and
// into in as content reads it: a string as its text, an array as its
// parts (an element that is not an object is no part, as in quickParts).
func (in *inline) readContent(p *jsonread.Parser, m *contextMessage) {
	start := p.Begin()
	switch p.Peek() {
	case '"':
		in.isText = true
		in.text = p.StringValue()
	case '[':
		in.isText, in.text = false, ""
		in.parts = readParts(p, in.parts[:0])
	default:
		in.isText, in.text = false, ""
		in.parts = in.parts[:0]
		p.Skip()
	}
	m.Content = p.Since(start)
	in.contentOK = true
}

// readParts appends the parts of an array to ps.
func readParts(p *jsonread.Parser, ps []part) []part {
	for more := p.OpenArray(); more; more = p.More() {
		if p.Peek() == '{' {
			ps = append(ps, part{})
			p.Object(&ps[len(ps)-1])
		} else {
			p.Skip()
		}
	}
	return ps
}
