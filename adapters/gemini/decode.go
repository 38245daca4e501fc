package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/adapters/internal/jsonread"
	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// Native format variants, as Session.Source.Format names them.
const (
	FormatJSONL  = "gemini-jsonl"
	FormatLegacy = "gemini-json"
	FormatLogs   = "gemini-logs"
)

// Decoder reads a Gemini CLI session from a stream and yields universal
// events, one per record. It reads the JSON Lines files of 0.61.0, the
// older single JSON document and a logs.json prompt history, telling them
// apart by their first line.
type Decoder struct {
	// Path names the file in warnings.
	Path string

	src     io.Reader
	mode    int
	r       *jsonl.Reader
	queue   []session.Event // whole-document formats, decoded up front
	logsFor string          // logs.json: only this session's prompts

	t       tracker
	list    []string // the messages the CLI would load now, in order
	inList  map[string]bool
	used    session.IDs // entry ids handed out
	started bool
	unknown map[string]bool

	rec record          // the record being read, reused
	jp  jsonread.Parser // reads records, and the JSON inside them
	sc  scratch         // the lists of the record being read

	// Scratch space of view, reused from one message to the next.
	texts, thinking []string
	prefix, probe   []byte
}

const (
	modeUnknown = iota
	modeJSONL
	modeLegacy
	modeLogs
)

// NewDecoder returns a decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{
		src:     r,
		t:       newTracker(),
		inList:  make(map[string]bool),
		unknown: make(map[string]bool),
	}
}

// Decode returns the event for the next record, or io.EOF at the end. A
// record that cannot be parsed yields an event holding only a warning.
func (d *Decoder) Decode() (session.Event, error) {
	if err := d.sniff(); err != nil {
		return session.Event{}, err
	}
	if d.mode != modeJSONL {
		if len(d.queue) == 0 {
			return session.Event{}, io.EOF
		}
		ev := d.queue[0]
		d.queue = d.queue[1:]
		return ev, nil
	}
	rec := &d.rec
	ln, err := jsonl.ReadInto(d.r, rec, d.parse)
	if err == io.EOF {
		return session.Event{}, io.EOF
	}
	if err != nil {
		return session.Event{}, d.readError(err)
	}
	return d.event(ln, rec), nil
}

// sniff tells the format apart, once.
func (d *Decoder) sniff() error {
	if d.mode != modeUnknown {
		return nil
	}
	if err := d.start(); err != nil {
		return d.readError(err)
	}
	return nil
}

func (d *Decoder) readError(err error) error {
	return fmt.Errorf("gemini: read %s: %w", d.name(), err)
}

// event turns a line of JSON Lines, read into rec, into its event.
func (d *Decoder) event(ln jsonl.Record, rec *record) session.Event {
	ev := session.Event{Line: ln.Line}
	if p := ln.Report(d.Path); p != "" {
		// Name a field by its JSON path, not the Go structs it is in.
		ev.Warning = d.warn(ln.Line, strings.ReplaceAll(p, "msgRecord.message.", ""))
	}
	if !ln.Skipped {
		d.convert(rec, ln.Raw, &ev)
	}
	return ev
}

// parse reads a record as jsonl.ReadInto calls it, with parseRecord.
func (d *Decoder) parse(line []byte, rec *record) (ok, nonASCII bool) {
	d.sc.reset()
	return parseRecord(&d.jp, &d.sc, line, rec), false
}

// parseRecord reads a line into rec with jsonread.Parse, several times
// faster than encoding/json, and reports whether it could: encoding/json
// reads what Parse leaves to it, and decides what is wrong with a line.
// Parse declines invalid UTF-8, so what it reads needs no check. The
// record's lists go to sc.
func parseRecord(jp *jsonread.Parser, sc *scratch, line []byte, rec *record) bool {
	rec.sc = sc
	return jp.Parse(line, rec)
}

// start looks at the first line to tell the formats apart: a line holding
// only "{" opens a pretty-printed legacy session, one holding only "["
// a logs.json history; anything else is JSON Lines.
func (d *Decoder) start() error {
	head, first, err := peekFirstLine(d.src)
	if err != nil {
		return err
	}
	d.src = io.MultiReader(bytes.NewReader(head), d.src)
	switch first {
	case "{":
		d.mode = modeLegacy
		return d.readLegacy()
	case "[":
		d.mode = modeLogs
		return d.readLogs()
	}
	d.mode = modeJSONL
	d.r = jsonl.NewReader(d.src)
	return nil
}

// peekFirstLine reads from r until it knows the first non-blank line is
// more than a lone bracket, returning what it read and that line, trimmed,
// when it is "{" or "[".
func peekFirstLine(r io.Reader) (head []byte, first string, err error) {
	buf := make([]byte, 0, 512)
	for {
		t := bytes.TrimLeft(buf, " \t\r\n")
		if len(t) > 0 {
			if t[0] != '{' && t[0] != '[' {
				return buf, "", nil
			}
			rest := bytes.TrimLeft(t[1:], " \t\r")
			if len(rest) > 0 {
				if rest[0] == '\n' {
					return buf, string(t[:1]), nil
				}
				return buf, "", nil
			}
		}
		if len(buf) == cap(buf) {
			if len(buf) >= 64<<10 {
				return buf, "", nil
			}
			nb := make([]byte, len(buf), 2*cap(buf))
			copy(nb, buf)
			buf = nb
		}
		n, rerr := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if rerr == io.EOF {
			if t := bytes.TrimSpace(buf); len(t) == 1 {
				return buf, string(t), nil
			}
			return buf, "", nil
		}
		if rerr != nil {
			return buf, "", rerr
		}
	}
}

func (d *Decoder) name() string {
	if d.Path == "" {
		return "input"
	}
	return d.Path
}

func (d *Decoder) warn(line int, msg string) *session.Warning {
	return &session.Warning{Path: d.Path, Line: line, Message: msg}
}

// note sets the event's warning unless it has one.
func (d *Decoder) note(ev *session.Event, msg string) {
	if ev.Warning == nil {
		ev.Warning = d.warn(ev.Line, msg)
	}
}

func addInfo(ev *session.Event) *session.Info {
	if ev.Info == nil {
		ev.Info = &session.Info{}
	}
	return ev.Info
}

func (d *Decoder) begin(ev *session.Event, format string) {
	if !d.started {
		d.started = true
		in := addInfo(ev)
		in.Provider = "google"
		in.Format = format
	}
}

// convert turns one line into entries, or keeps it as a record when it
// adds none.
func (d *Decoder) convert(rec *record, raw []byte, ev *session.Event) {
	d.begin(ev, FormatJSONL)
	var entries []session.Entry
	switch rec.kind() {
	case recMessage:
		rec.ID = str(rec.RawID)
		entries = d.message(&rec.message, ev, nil)
	case recSet:
		entries = d.set(rec.Set, ev)
	case recMeta:
		d.meta(rec, ev)
		entries = d.messages(rec.Messages, ev)
	case recRewind:
		d.rewind(str(rec.RewindTo))
	default:
		if !d.unknown["record"] {
			d.unknown["record"] = true
			d.note(ev, "unknown record kept verbatim")
		}
	}
	d.attach(entries, raw, ev)
}

// attach keeps the native record on the first entry a record made (the
// others point at its line), or in Records when it made none.
func (d *Decoder) attach(entries []session.Entry, raw []byte, ev *session.Event) {
	if len(entries) == 0 {
		ev.Record = &session.Record{Line: ev.Line, Record: raw}
		return
	}
	natives := make([]session.Native, len(entries)) // one allocation, not one each
	for i := range entries {
		if i == 0 {
			natives[i] = session.Native{Line: ev.Line, Record: raw}
		} else {
			natives[i] = session.Native{Line: ev.Line, Part: i}
		}
		entries[i].Native = &natives[i]
	}
	ev.Entries = entries
}

// meta reads a metadata record ({sessionId, projectHash, startTime, ...}).
func (d *Decoder) meta(rec *record, ev *session.Event) {
	in := addInfo(ev)
	in.ID = str(rec.SessionID)
	in.Created, _ = session.ParseTime(rec.StartTime)
	in.Title = str(rec.Summary)
	if in.Path == "" {
		in.Path = firstString(rec.Directories)
	}
}

// set reads a "$set" update. Its messages, when present, are the whole new
// list of messages.
func (d *Decoder) set(s *setRecord, ev *session.Event) []session.Entry {
	if id := str(s.SessionID); id != "" {
		addInfo(ev).ID = id
	}
	if t := str(s.Summary); t != "" {
		addInfo(ev).Title = t
	}
	if p := firstString(s.Directories); p != "" {
		addInfo(ev).Path = p
	}
	if s.Messages == nil {
		return nil
	}
	d.list = d.list[:0]
	clear(d.inList)
	return d.messages(s.Messages, ev)
}

// messages reads the messages of a "$set" or metadata record in order.
// Elements that are not message records (an object with a string id) are
// ignored, as Gemini CLI ignores them.
func (d *Decoder) messages(msgs []msgRecord, ev *session.Event) []session.Entry {
	var entries []session.Entry
	for i := range msgs {
		m := &msgs[i]
		if !isString(m.RawID) {
			continue
		}
		m.ID = str(m.RawID)
		entries = d.message(&m.message, ev, entries)
	}
	return entries
}

// rewind drops the message id and everything after it from the list, or
// everything when id is not in it (as the CLI's loader does). The dropped
// entries stay in the timeline: the next message's parent is the entry
// before them.
func (d *Decoder) rewind(id string) {
	i := len(d.list)
	if d.inList[id] {
		for j, m := range d.list {
			if m == id {
				i = j
				break
			}
		}
	} else {
		i = 0
	}
	for _, m := range d.list[i:] {
		delete(d.inList, m)
	}
	d.list = d.list[:i]
}

// tail is the last entry of the messages in the list, the parent of the
// next message.
func (d *Decoder) tail() string {
	for i := len(d.list) - 1; i >= 0; i-- {
		if st := d.t.msgs[d.list[i]]; st != nil && st.last != "" {
			return st.last
		}
	}
	return ""
}

// unique returns id, or id#N when an entry already has it.
func (d *Decoder) unique(id string, line int) string {
	if id == "" {
		id = "L" + strconv.Itoa(line)
	}
	return d.used.Unique(id)
}

// full is a message read in full, beside its view.
type full struct {
	prefix   []byte // the first textMax bytes of a user's text, until the next view
	text     string
	thinking string
	atts     []session.Attachment
	calls    []fullCall
	results  []result
}

type fullCall struct {
	name  string
	input json.RawMessage
	res   result
	ts    string
}

// view reads a message into the view the tracker decides on, and the full
// data entries are built from.
func (d *Decoder) view(m *message, ev *session.Event) (view, full) {
	v := view{id: m.ID, typ: m.Type, model: m.Model}
	var f full
	if m.Tokens != nil {
		v.usage, v.hasUsage = m.Tokens.universal(), true
	}
	ps := m.parts
	if !m.parsed {
		var err error
		ps, err = parts(m.Content)
		if err != nil {
			d.note(ev, "content read in part: "+err.Error())
		}
	}
	text, thinking := d.texts[:0], d.thinking[:0]
	for i := range ps {
		p := &ps[i] // not a copy: a part is large
		switch {
		case p.Thought:
			if p.Text != "" {
				thinking = append(thinking, p.Text)
			}
		case p.Text != "":
			text = append(text, p.Text)
		}
		if p.FunctionResponse != nil && m.Type == typeUser {
			t, out, errKey := responseText(&d.jp, p.FunctionResponse)
			probe, trunc := clip(out, probeMax)
			v.results = append(v.results, resultView{
				callID: p.FunctionResponse.ID,
				name:   p.FunctionResponse.Name,
				status: resultStatus("", p.FunctionResponse.Name, errKey, d.bytes(probe), trunc, t),
			})
			f.results = append(f.results, result{text: t, errKey: errKey, probe: out, set: true})
		}
		if a, ok := attachment(p); ok {
			f.atts = append(f.atts, a)
			v.attach = true
		}
	}
	if len(f.results) > 0 {
		// Images beside a tool's response (read_file of an image) are
		// the result's.
		f.results[0].atts, f.atts, v.attach = f.atts, nil, false
	}
	f.text = strings.Join(text, "")
	switch m.Type {
	case typeGemini:
		v.hasText = f.text != ""
		if len(m.Thoughts) > 0 {
			thinking = thinking[:0]
			for _, t := range m.Thoughts {
				if s := t.text(); s != "" {
					thinking = append(thinking, s)
				}
			}
		}
		f.thinking = strings.Join(thinking, "\n\n")
		v.hasThinking = f.thinking != ""
		d.calls(m, ps, &v, &f, ev)
	default:
		p, trunc := clip(f.text, textMax)
		d.prefix = append(d.prefix[:0], p...)
		f.prefix = d.prefix
		v.cls = classify(f.prefix, trunc)
	}
	d.texts, d.thinking = text, thinking
	return v, f
}

// bytes returns s as bytes, for the functions the summarizer shares that
// read bytes: a copy in scratch space, good until the next call.
func (d *Decoder) bytes(s string) []byte {
	d.probe = append(d.probe[:0], s...)
	return d.probe
}

// calls reads a gemini message's tool calls: toolCalls[] with their
// results, then functionCall parts of its content that toolCalls does not
// also list.
func (d *Decoder) calls(m *message, ps []part, v *view, f *full, ev *session.Event) {
	ids := map[string]bool{}
	names := map[string]bool{}
	size := len(m.ToolCalls)
	for i := range ps {
		if ps[i].FunctionCall != nil {
			size++
		}
	}
	v.calls = make([]callView, 0, size)
	f.calls = make([]fullCall, 0, size)
	n := 0
	add := func(id, name string, args json.RawMessage, res result, status, ts, agent string) {
		n++
		key := id
		if key == "" {
			key = m.ID + "#call" + strconv.Itoa(n)
		}
		c := callView{id: id, key: key, name: name, hasResult: res.set, agentID: agent}
		if res.set {
			probe, trunc := clip(res.probe, probeMax)
			c.status = resultStatus(status, name, res.errKey, d.bytes(probe), trunc, res.text)
		} else {
			c.status = callStatus(status)
		}
		if modifiesFiles(name) {
			c.path = filePath(args)
		}
		v.calls = append(v.calls, c)
		f.calls = append(f.calls, fullCall{name: name, input: objectArgs(args), res: res, ts: ts})
	}
	for i := range m.ToolCalls {
		tc := &m.ToolCalls[i]
		res, err := readResult(&d.jp, tc)
		if err != nil {
			d.note(ev, "tool result read in part: "+err.Error())
		}
		if tc.ID != "" {
			ids[tc.ID] = true
		} else {
			names[tc.Name] = true
		}
		add(tc.ID, tc.Name, tc.Args, res, tc.Status, tc.Timestamp, tc.AgentID)
	}
	for i := range ps {
		fc := ps[i].FunctionCall
		if fc == nil || (fc.ID != "" && ids[fc.ID]) || (fc.ID == "" && names[fc.Name]) {
			continue
		}
		add(fc.ID, fc.Name, fc.Args, result{}, "", "", "")
	}
}

// clip returns the first n bytes of s and whether there was more.
func clip(s string, n int) (string, bool) {
	if len(s) > n {
		return s[:n], true
	}
	return s, false
}

// message appends the entries one version of a message adds to out, and
// puts the message at the end of the list unless it is already in it.
func (d *Decoder) message(m *message, ev *session.Event, out []session.Entry) []session.Entry {
	v, f := d.view(m, ev)
	p := d.t.apply(&v)
	st := p.st
	parent := st.last
	if !d.inList[m.ID] {
		if p.isNew || parent == "" {
			parent = d.tail()
		}
		d.inList[m.ID] = true
		d.list = append(d.list, m.ID)
	}
	if m.Type == typeUser {
		if dir := workspaceDir(f.prefix); dir != "" {
			if in := addInfo(ev); in.Path == "" {
				in.Path = dir
			}
		}
	}
	if p.unknown && !d.unknown["type:"+m.Type] {
		d.unknown["type:"+m.Type] = true
		d.note(ev, fmt.Sprintf("unknown message type %q kept in the native record", m.Type))
	}
	// The timestamp is read once an entry needs it: a message restated
	// in a $set.messages usually adds none.
	var ts time.Time
	tsRead := false
	out = slices.Grow(out, p.entries())
	start := len(out)
	add := func(e session.Entry) {
		if e.Timestamp.IsZero() && !tsRead {
			ts, _ = session.ParseTime(m.Timestamp)
			tsRead = true
		}
		e.Timestamp = orTime(e.Timestamp, ts)
		e.ParentID = parent
		parent = e.ID
		out = append(out, e)
	}

	if p.text {
		c := v.cls
		e := session.Entry{ID: d.unique(m.ID, ev.Line), Type: c.typ, Kind: c.kind, Attachments: f.atts}
		if !c.empty {
			e.Content = f.text
		}
		if m.Type != typeUser {
			e.Type, e.Kind = session.System, ""
			if m.Type == typeError {
				e.Kind = session.KindError
			}
		}
		add(e)
	}
	for _, rp := range p.results {
		r, rv := f.results[rp.i], v.results[rp.i]
		cs := d.t.calls[rp.key]
		callID := cs.entry
		if callID == "" {
			callID = rp.key
		}
		add(resultEntry(d.unique(callID+":result", ev.Line), callID, r, rv.status))
		if cs.entry != "" {
			ev.Updates = append(ev.Updates, session.Update{EntryID: cs.entry, Status: rv.status})
		}
	}
	if p.assist {
		add(session.Entry{
			ID: d.unique(m.ID, ev.Line), Type: session.Assistant,
			Content: f.text, Thinking: f.thinking, Attachments: f.atts,
			Model: st.model, MessageID: m.ID,
		})
	}
	for _, cp := range p.calls {
		c, fc := v.calls[cp.i], f.calls[cp.i]
		cs := d.t.calls[c.key]
		var link *session.Link
		if c.agentID != "" {
			link = &session.Link{Kind: session.LinkSubagent, CLI: session.Gemini, ID: c.agentID, AgentID: c.agentID}
		}
		if cp.call {
			cs.entry = d.unique(c.key, ev.Line)
			e := session.Entry{
				ID: cs.entry, Type: session.ToolCall, Tool: UniversalTool(c.name), Input: fc.input,
				OriginalTool: c.name, Model: st.model, MessageID: m.ID,
			}
			if !cp.result && c.status != session.StatusPending {
				e.Status = c.status
			}
			if link != nil {
				l := *link
				l.CallID = cs.entry
				e.Subagent = &l
			}
			add(e)
		} else {
			if cp.status {
				ev.Updates = append(ev.Updates, session.Update{EntryID: cs.entry, Status: c.status})
			}
			if link != nil && cp.result {
				// The CLI names the subagent once the call is done.
				l := *link
				l.CallID = cs.entry
				ev.Updates = append(ev.Updates, session.Update{EntryID: cs.entry, Subagent: &l})
			}
		}
		if cp.result {
			e := resultEntry(d.unique(cs.entry+":result", ev.Line), cs.entry, fc.res, c.status)
			e.Timestamp, _ = session.ParseTime(fc.ts)
			if link != nil {
				l := *link
				l.CallID = cs.entry
				e.Subagent = &l
			}
			add(e)
			if !cp.call {
				ev.Updates = append(ev.Updates, session.Update{EntryID: cs.entry, Status: c.status})
			}
		}
	}

	if p.modelChanged {
		for _, id := range st.modelled {
			ev.Updates = append(ev.Updates, session.Update{EntryID: id, Model: st.model})
		}
	}
	first := st.first == ""
	mine := out[start:]
	if len(mine) > 0 {
		if first {
			st.first = mine[0].ID
		}
		st.last = mine[len(mine)-1].ID
	}
	for _, e := range mine {
		if e.Model != "" {
			st.modelled = append(st.modelled, e.ID)
		}
	}
	if p.usage != usageNone && st.entries {
		u := st.usage
		if first && len(mine) > 0 {
			mine[0].Usage = &u
		} else {
			ev.Updates = append(ev.Updates, session.Update{EntryID: st.first, Usage: &u})
		}
	}
	return out
}

func orTime(t, def time.Time) time.Time {
	if t.IsZero() {
		return def
	}
	return t
}

// resultEntry builds a tool result entry: the text is the output of a
// success and the error of anything else.
func resultEntry(id, callID string, r result, status session.ToolStatus) session.Entry {
	e := session.Entry{ID: id, Type: session.ToolResult, CallID: callID, Success: status == session.StatusOK, Status: status, Attachments: r.atts}
	if e.Success {
		e.Output = r.text
	} else {
		e.Error = r.text
	}
	return e
}

// Read decodes a whole Gemini CLI session from r.
func Read(r io.Reader) (*session.Session, error) {
	return read(NewDecoder(r))
}

func read(dec *Decoder) (*session.Session, error) {
	b := session.NewBuilder(session.Gemini, dec.Path)
	for {
		ev, err := dec.Decode()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		b.Add(ev)
	}
	return b.Session(), nil
}

// ReadFile decodes the session stored in the file at path.
func ReadFile(path string) (*session.Session, error) {
	f, err := storefile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	defer f.Close()
	dec := NewDecoder(f)
	dec.Path = path
	return read(dec)
}
