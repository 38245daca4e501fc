package agenthistory

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/stead-dev/stead/session"
)

// Reader reads an export one session at a time. Lines have no length
// limit. A line it cannot read is skipped with a warning (see Warnings)
// and reading goes on.
type Reader struct {
	// Names says which CLI each agent name is; set it before the first
	// Next (the zero Names reads every agent as universal).
	Names Names

	br       *bufio.Reader
	buf      bytes.Buffer
	enc      *json.Encoder
	name     string
	line     int
	header   Header
	lines    int // session lines after the header, read or not
	warnings []error
	err      error // io.EOF, or the read error that ended the stream
	counted  bool  // the session count was checked
}

// NewReader reads and checks the header of the export r holds; name (a
// file name) prefixes warnings and errors, as name:line. A stream that
// starts with gzip's magic bytes is decompressed.
func NewReader(r io.Reader, name string) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, &LineError{Name: name, Line: 1, Err: fmt.Errorf("gzip: %w", err)}
		}
		br = bufio.NewReaderSize(gz, 64<<10)
	}
	rd := &Reader{br: br, name: name}
	rd.enc = json.NewEncoder(&rd.buf)
	rd.enc.SetEscapeHTML(false)
	line, err := rd.br.ReadBytes('\n')
	rd.line = 1
	if err != nil && err != io.EOF {
		return nil, &LineError{Name: name, Line: 1, Err: err}
	}
	if err == io.EOF {
		rd.err = io.EOF
	}
	line = bytes.TrimSpace(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")))
	if len(line) == 0 {
		return nil, &LineError{Name: name, Line: 1, Err: errors.New("no header: the first line is empty")}
	}
	h, problems, err := parseHeader(line)
	if err != nil {
		return nil, &LineError{Name: name, Line: 1, Err: err}
	}
	rd.header = h
	for _, p := range problems {
		rd.warn(1, errors.New(p))
	}
	return rd, nil
}

// encode returns v's JSON, valid until the next call.
func (r *Reader) encode(v any) ([]byte, error) {
	r.buf.Reset()
	if err := r.enc.Encode(v); err != nil {
		return nil, err
	}
	b := r.buf.Bytes()
	return b[:len(b)-1], nil
}

// Header returns the export's header.
func (r *Reader) Header() Header { return r.header }

// Warnings returns what the Reader skipped or could not read so far, each
// a *LineError naming the line.
func (r *Reader) Warnings() []error { return append([]error(nil), r.warnings...) }

func (r *Reader) warn(line int, err error) {
	r.warnings = append(r.warnings, &LineError{Name: r.name, Line: line, Err: err})
}

// Next returns the next session, or io.EOF after the last. Any other error
// is one of the underlying stream, and ends reading.
func (r *Reader) Next() (*session.Session, error) {
	for r.err == nil {
		b, err := r.br.ReadBytes('\n')
		if len(b) > 0 {
			r.line++
		}
		if err != nil {
			r.err = err
			if err != io.EOF {
				r.err = &LineError{Name: r.name, Line: r.line, Err: err}
			}
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		r.lines++
		s, werr := r.decode(b, r.line)
		if werr != nil {
			r.warnings = append(r.warnings, &LineError{Name: r.name, Line: r.line, Err: werr, Skipped: true})
			continue
		}
		return s, nil
	}
	if r.err == io.EOF && !r.counted {
		r.counted = true
		if r.lines != r.header.SessionCount {
			r.warn(1, fmt.Errorf("the header's session_count is %d, the export has %d session lines", r.header.SessionCount, r.lines))
		}
	}
	return nil, r.err
}

// lineJSON is a line of the export, its parts left raw, its messages
// where they are in the line.
type lineJSON struct {
	Type     string     `json:"type"`
	Session  rawInPlace `json:"session"`
	Messages inPlace    `json:"messages"`
	Graph    rawInPlace `json:"graph"`
}

// rawInPlace is a raw JSON value left in the line it was read from (see
// inPlace).
type rawInPlace []byte

func (p *rawInPlace) UnmarshalJSON(b []byte) error {
	*p = b
	return nil
}

// copiedLine is lineJSON as encoding/json reads it whole: a line whose
// messages are not an array is decoded again so, for its error.
type copiedLine struct {
	Type     string            `json:"type"`
	Session  json.RawMessage   `json:"session"`
	Messages []json.RawMessage `json:"messages"`
	Graph    json.RawMessage   `json:"graph"`
}

// inPlace is a JSON array of raw values left in the line they were read
// from, not copied as json.RawMessage values are: a session line holds
// nearly all its bytes in its messages, read one at a time. A value kept
// after the line is read must be copied.
type inPlace struct {
	vals     []json.RawMessage
	notArray bool // neither an array nor null
}

// UnmarshalJSON splits the array b, a part of the line being decoded
// (encoding/json hands an Unmarshaler its part of the input, checked).
func (p *inPlace) UnmarshalJSON(b []byte) error {
	i := skipSpace(b, 0)
	p.vals, p.notArray = p.vals[:0], false
	switch {
	case string(b[i:]) == "null":
		p.vals = nil
		return nil
	case i >= len(b) || b[i] != '[':
		p.notArray = true
		return nil
	}
	for i = skipSpace(b, i+1); i < len(b) && b[i] != ']'; {
		end := skipValue(b, i)
		p.vals = append(p.vals, json.RawMessage(b[i:end:end]))
		if i = skipSpace(b, end); i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return nil
}

var lineKeys = map[string]bool{"type": true, "session": true, "messages": true, "graph": true}

// span is where one message's entries are in the timeline.
type span struct {
	raw        json.RawMessage
	index      int
	start, end int
}

// decode reads one session line. The error of a line it skips says why.
func (r *Reader) decode(b []byte, line int) (*session.Session, error) {
	if b[0] != '{' {
		return nil, errors.New("not a JSON object")
	}
	var l lineJSON
	if err := json.Unmarshal(b, &l); err != nil || l.Messages.notArray {
		// Read as encoding/json reads the line whole, for its words.
		var whole copiedLine
		if err := json.Unmarshal(b, &whole); err != nil {
			return nil, jsonErr(err)
		}
		return nil, errors.New("messages: not an array")
	}
	switch l.Type {
	case "session":
	case "header":
		return nil, errors.New("a second header line")
	default:
		return nil, fmt.Errorf("unknown line type %q", l.Type)
	}
	if len(l.Session) == 0 || string(l.Session) == "null" {
		return nil, errors.New("a session line without a session object")
	}
	var o sessionJSON
	if err := json.Unmarshal(l.Session, &o); err != nil {
		return nil, fmt.Errorf("session object: %w", jsonErr(err))
	}
	s := r.newSession(&o, line)

	// What the session object holds that s does not give back, and any
	// field of the line this package does not know, is kept as a record
	// (below, with a graph that does not match the messages).
	var unknown []string
	for _, k := range topKeys(b) {
		if !lineKeys[k] {
			unknown = append(unknown, k)
		}
	}
	keep := len(unknown) > 0 || !r.sameSession(l.Session, s)

	spans := make([]span, 0, len(l.Messages.vals))
	var alias map[string]string
	for k, raw := range l.Messages.vals {
		var m messageJSON
		if err := json.Unmarshal(raw, &m); err != nil {
			r.warn(line, fmt.Errorf("message %d: %v (kept as a record)", k+1, jsonErr(err)))
			s.Records = append(s.Records, session.Record{Line: line, Record: bytes.Clone(raw)})
			continue
		}
		start := len(s.Timeline)
		s.Timeline = r.appendEntries(s.Timeline, &m, line, k+1)
		spans = append(spans, span{raw: raw, index: m.Index, start: start, end: len(s.Timeline)})
		if m.UUID != nil && *m.UUID != "" && s.Timeline[start].ID != *m.UUID {
			// A message whose uuid no entry took (a tool_use block's
			// entry is named by its tool_id): what follows it follows its
			// last entry.
			if alias == nil {
				alias = map[string]string{}
			}
			alias[*m.UUID] = s.Timeline[len(s.Timeline)-1].ID
		}
	}
	if alias != nil {
		ids := make(map[string]bool, len(s.Timeline))
		for i := range s.Timeline {
			ids[s.Timeline[i].ID] = true
		}
		for i := range s.Timeline {
			e := &s.Timeline[i]
			if to, ok := alias[e.ParentID]; ok && !ids[e.ParentID] {
				e.ParentID = to
			}
		}
	}

	if g := l.Graph; len(g) > 0 && string(g) != "null" && !keep {
		keep = !r.same(g, func(bool) ([]byte, error) { return r.encodeGraph(s.Timeline) })
	}
	if keep {
		rec := map[string]json.RawMessage{"type": json.RawMessage(`"session"`), "session": json.RawMessage(l.Session)}
		if len(l.Graph) > 0 {
			rec["graph"] = json.RawMessage(l.Graph)
		}
		if len(unknown) > 0 {
			var all map[string]json.RawMessage
			json.Unmarshal(b, &all)
			for _, k := range unknown {
				rec[k] = all[k]
			}
		}
		if rb, err := session.MarshalCompact(rec); err == nil {
			s.Records = append(s.Records, session.Record{Line: line, Record: rb})
		}
	}

	// Keep each message that its entries do not give back whole as their
	// native record, in this file at this line.
	ctx := newMsgCtx(s, newLineIndex(false))
	for k, sp := range spans {
		es := s.Timeline[sp.start:sp.end]
		ctx.ids.add(es)
		if r.matches(sp.raw, ctx, es, sp.index, k == 0) ||
			r.same(sp.raw, func(all bool) ([]byte, error) { return ctx.encodeMessage(r.encode, es, sp.index, k == 0, all) }) {
			continue
		}
		if es[0].Native != nil {
			r.warn(line, fmt.Errorf("message %d: fields not kept (its entry already has a native record)", sp.index))
			continue
		}
		es[0].Native = &session.Native{Line: line, Path: r.name, Record: bytes.Clone(sp.raw)}
		for i := 1; i < len(es); i++ {
			if es[i].Native == nil {
				es[i].Native = &session.Native{Line: line, Part: i, Path: r.name}
			}
		}
	}
	return s, nil
}

// encodeGraph returns the conversation graph of a timeline, as a Writer
// writes it, or null for a linear one.
func (r *Reader) encodeGraph(tl []session.Entry) ([]byte, error) {
	ids := newLineIndex(true)
	for i := 0; i < len(tl); {
		end := messageEnd(tl, i)
		ids.add(tl[i:end])
		i = end
	}
	var out bytes.Buffer
	wrote, err := ids.writeGraph(&out, "", r.encode)
	if !wrote {
		return []byte("null"), err
	}
	return out.Bytes(), err
}

// jsonErr words a decoding error for a person who knows the format, not
// this package's types.
func jsonErr(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Errorf("%s: unexpected JSON %s", te.Field, te.Value)
		}
		return fmt.Errorf("unexpected JSON %s", te.Value)
	}
	return err
}

// same reports whether what was read of raw encodes back to everything
// raw holds: enc(false) gives raw byte for byte, as when this package
// wrote raw, or else enc(true) holds every non-empty field of raw in place
// with an equal value (timestamps compared as times, numbers as numbers).
// enc(true) may add fields that enc(false) leaves to the context.
func (r *Reader) same(raw []byte, enc func(all bool) ([]byte, error)) bool {
	b, err := enc(false)
	if err == nil && bytes.Equal(b, raw) {
		return true
	}
	if b, err = enc(true); err != nil {
		return false
	}
	in, err := decodeAny(raw)
	if err != nil {
		return false
	}
	out, err := decodeAny(b)
	if err != nil {
		return false
	}
	return covers(out, in)
}

// matches reports whether the message of es, as a Writer writes it, is
// raw byte for byte: same's first test, comparing the encoding as it is
// written (see writeMessage) instead of holding it, as a message's
// encoding is as large as the message.
func (r *Reader) matches(raw []byte, ctx *msgCtx, es []session.Entry, index int, first bool) bool {
	c := &sameWriter{want: raw, same: true}
	return ctx.writeMessage(c, r.encode, es, index, first, false) == nil && c.same && c.n == len(raw)
}

// sameSession reports whether raw is the session object of s as a Writer
// writes it: same, its first test made as the object is written.
func (r *Reader) sameSession(raw []byte, s *session.Session) bool {
	c := &sameWriter{want: raw, same: true}
	err := writeSession(c, r.encode, s, r.Names, nil, func() error { return nil })
	if err == nil && c.same && c.n == len(raw) {
		return true
	}
	return r.same(raw, func(bool) ([]byte, error) { return encodeSession(r.encode, s, r.Names) })
}

// sameWriter compares what is written to it with want.
type sameWriter struct {
	want []byte
	n    int
	same bool
}

func (c *sameWriter) Write(p []byte) (int, error) {
	if c.same {
		c.same = c.n+len(p) <= len(c.want) && bytes.Equal(p, c.want[c.n:c.n+len(p)])
	}
	c.n += len(p)
	return len(p), nil
}

func decodeAny(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// covers reports whether out holds every non-empty value of in.
func covers(out, in any) bool {
	switch iv := in.(type) {
	case map[string]any:
		om, ok := out.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range iv {
			if isZero(v) {
				continue
			}
			if ov, ok := om[k]; !ok || !covers(ov, v) {
				return false
			}
		}
		return true
	case []any:
		oa, ok := out.([]any)
		if !ok || len(oa) != len(iv) {
			return false
		}
		for i := range iv {
			if !covers(oa[i], iv[i]) {
				return false
			}
		}
		return true
	case string:
		os, ok := out.(string)
		if !ok {
			return false
		}
		if os == iv {
			return true
		}
		if len(os) < 10 || len(iv) < 10 {
			return false
		}
		t1, err1 := session.ParseTime(iv)
		t2, err2 := session.ParseTime(os)
		return err1 == nil && err2 == nil && t1.Equal(t2)
	case json.Number:
		on, ok := out.(json.Number)
		if !ok {
			return false
		}
		if on == iv {
			return true
		}
		f1, err1 := iv.Float64()
		f2, err2 := on.Float64()
		return err1 == nil && err2 == nil && f1 == f2
	case bool:
		ob, ok := out.(bool)
		return ok && ob == iv
	}
	return in == nil
}

func isZero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == ""
	case json.Number:
		f, err := x.Float64()
		return err == nil && f == 0
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// newSession is the session a session object describes, without its
// timeline.
func (r *Reader) newSession(o *sessionJSON, line int) *session.Session {
	s := &session.Session{
		ID:      o.ID,
		Version: session.Version,
		Source:  session.Source{CLI: r.Names.CLI(o.Agent), Path: o.Source.Path},
		Project: session.Project{Path: o.Workspace},
	}
	s.Metadata.Created = r.parseTime(o.StartedAt, line, "session.started_at")
	s.Metadata.LastModified = r.parseTime(o.EndedAt, line, "session.ended_at")
	if x := o.Stead; x != nil {
		if x.Version != "" {
			s.Version = x.Version
		}
		if x.CLI != "" {
			s.Source.CLI = x.CLI
		}
		s.Source.OriginalID = x.OriginalID
		s.Source.Version = x.CLIVersion
		s.Source.Format = x.Format
		s.Project.Name = x.ProjectName
		s.Project.Git = x.Git
		if m := x.Model; m != nil {
			s.Model = session.Model{Provider: m.Provider, Model: m.Model, Config: unraw(m.Config, m.ConfigText)}
		}
		s.Title = x.Title
		s.Metadata.Tokens = x.Tokens
		s.Metadata.Cost = x.Cost
		s.Parent = x.Parent
		s.Subagents = x.Subagents
		if len(x.Records) > 0 {
			s.Records = make([]session.Record, len(x.Records))
			for i, rec := range x.Records {
				s.Records[i] = session.Record{Line: rec.Line, Record: unraw(rec.Record, rec.Text)}
			}
		}
		s.Warnings = x.Warnings
	}
	if s.Parent == nil && o.ParentSessionID != nil && *o.ParentSessionID != "" {
		kind := session.LinkFork
		if o.IsAgentSession {
			kind = session.LinkSubagent
		}
		s.Parent = &session.Link{Kind: kind, CLI: s.Source.CLI, ID: *o.ParentSessionID}
		if o.AgentID != nil {
			s.Parent.AgentID = *o.AgentID
		}
	}
	return s
}

func (r *Reader) parseTime(p *string, line int, what string) time.Time {
	if p == nil {
		return time.Time{}
	}
	t, err := session.ParseTime(*p)
	if err != nil {
		r.warn(line, fmt.Errorf("%s: %w", what, err))
	}
	return t
}

// appendEntries appends the entries of message m (the n-th of its line)
// to tl: one per content block.
func (r *Reader) appendEntries(tl []session.Entry, m *messageJSON, line, n int) []session.Entry {
	var meta metadataJSON
	if m.Metadata != nil {
		meta = *m.Metadata
	}
	foreign := meta.Stead == nil
	x0 := meta.Stead
	if x0 == nil {
		x0 = &entryExt{}
	}
	base := session.Entry{
		Timestamp: r.parseTime(m.Timestamp, line, "message "+strconv.Itoa(n)+" timestamp"),
		MessageID: x0.MessageID,
	}
	if meta.Model != nil {
		base.Model = meta.Model.Name
	}
	content := m.Content
	if len(content) == 0 {
		content = blocks{{Type: "text"}}
	}
	if foreign && m.Role == "assistant" && len(content) > 1 && m.UUID != nil {
		base.MessageID = *m.UUID // keep one response one message
	}
	for i := range content {
		b := &content[i]
		x := x0
		if i > 0 {
			x = &entryExt{}
			if i-1 < len(x0.Rest) && x0.Rest[i-1] != nil {
				x = x0.Rest[i-1]
			}
		}
		e := base
		switch b.Type {
		case "tool_use":
			e.Type = session.ToolCall
			e.ID = deref(b.ToolID)
			e.OriginalTool = deref(b.ToolName)
			e.Tool = session.Tool(x.Tool)
			if x.OriginalTool != nil {
				e.OriginalTool = *x.OriginalTool
			}
			switch {
			case x.InputText != nil:
				e.Input = unraw(nil, x.InputText)
			case len(b.Input) > 0 && b.Input[0] != '{' && string(b.Input) != "null":
				// USF inputs are objects: wrap another value as Codex's
				// adapter wraps a freeform input.
				e.Input = append(append([]byte(`{"input":`), b.Input...), '}')
			case len(b.Input) > 0 && string(b.Input) != "null":
				e.Input = b.Input
			}
		case "tool_result":
			e.Type = session.ToolResult
			e.CallID = deref(b.ToolID)
			e.Output = deref(b.Output)
			e.Success = b.IsError == nil || !*b.IsError
		default:
			if b.Type != "text" {
				r.warn(line, fmt.Errorf("message %d: content block %d has unknown type %q (kept as native)", n, i+1, b.Type))
			}
			e.Type = entryType(m.Role)
			e.Content = deref(b.Text)
		}
		if i == 0 {
			if e.Type != session.ToolCall || e.ID == "" {
				e.ID = deref(m.UUID)
			}
			e.ParentID = deref(m.ParentUUID)
			if u := meta.TokenUsage; u != nil {
				e.Usage = &session.Usage{Input: u.InputTokens, Output: u.OutputTokens,
					CacheWrite: u.CacheCreationTokens, CacheRead: u.CacheReadTokens, Reasoning: x.ReasoningTokens}
			}
			e.Kind = x.Kind
			if e.Kind == "" && meta.IsMeta {
				e.Kind = session.KindMeta
			}
		} else {
			switch {
			case x.ID != "":
				e.ID = x.ID
			case e.Type != session.ToolCall:
				e.ID = ""
				if foreign && m.UUID != nil && *m.UUID != "" {
					e.ID = *m.UUID + "#" + strconv.Itoa(i+1)
				}
			}
			e.ParentID = tl[len(tl)-1].ID
			if x.ParentID != nil {
				e.ParentID = *x.ParentID
			}
			if x.Timestamp != nil {
				e.Timestamp = r.parseTime(x.Timestamp, line, "message "+strconv.Itoa(n)+" timestamp")
			}
			if x.Model != nil {
				e.Model = *x.Model
			}
			e.Usage = x.Usage
			e.Kind = x.Kind
		}
		e.Thinking = x.Thinking
		e.Error = x.Error
		e.Status = session.ToolStatus(x.Status)
		e.Sidechain = x.Sidechain
		e.Reasoning = x.Reasoning
		e.Attachments = x.Attachments
		e.Subagent = x.Subagent
		e.Origin = x.Origin
		e.CLI = x.CLI
		if nv := x.Native; nv != nil {
			e.Native = &session.Native{Line: nv.Line, Part: nv.Part, Path: nv.Path, Record: unraw(nv.Record, nv.Text)}
		}
		tl = append(tl, e)
	}
	return tl
}

// entryType is the type of a text block's entry in a message of role.
func entryType(role string) session.EntryType {
	switch role {
	case "user":
		return session.User
	case "assistant":
		return session.Assistant
	}
	return session.System
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// topKeys returns the keys of the JSON object b, which must be valid,
// without decoding its values.
func topKeys(b []byte) []string {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil
	}
	var keys []string
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return keys
		}
		j := skipString(b, i)
		var k string
		if json.Unmarshal(b[i:j], &k) != nil {
			return keys
		}
		keys = append(keys, k)
		i = skipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return keys
		}
		i = skipValue(b, skipSpace(b, i+1))
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != ',' {
			return keys
		}
		i++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}
