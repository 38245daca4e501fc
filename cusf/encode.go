package cusf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/stead-dev/stead/session"
)

// Options configure an Encoder.
type Options struct {
	// Exporter is _meta.exporter, e.g. "stead/dev". Empty is "stead".
	Exporter string
	// Now gives _meta.exported_at (and the file name's time); nil is
	// time.Now. Tests set it.
	Now func() time.Time
	// ExportType is the {export_type} part of the file name (§3.1), e.g.
	// "context-export"; empty is "export". The Encoder itself does not use
	// it: see Options.FileName.
	ExportType string
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// FileName is the §3.1 file name for s under these options.
func (o Options) FileName(s *session.Session) string {
	return FileName(s, o.ExportType, o.now())
}

// Encoder writes universal sessions as CUSF files.
type Encoder struct {
	w    io.Writer
	opts Options
}

// NewEncoder returns an Encoder writing to w.
func NewEncoder(w io.Writer, opts Options) *Encoder {
	return &Encoder{w: w, opts: opts}
}

// Encode writes s as one whole CUSF file: the _meta line, session_start,
// a line per timeline entry (plus the assistant messages and tool_use
// lines CUSF needs and the timeline lacks, see the package documentation),
// and session_end. It is EncodeStream of s and its timeline.
func (e *Encoder) Encode(s *session.Session) error {
	return e.EncodeStream(s, sliceEntries(s.Timeline))
}

// Entries gives the timeline entries of a session one at a time, in
// timeline order, for EncodeStream. Next returns nil and io.EOF after the
// last entry; any other error ends the export with that error. The entry
// Next returns may be reused (overwritten) by the next call: the Encoder
// copies what it keeps.
type Entries interface {
	Next() (*session.Entry, error)
}

// sliceEntries gives the entries of a timeline held in memory.
func sliceEntries(tl []session.Entry) Entries { return &timeline{tl} }

// timeline is the Entries of a timeline held in memory. Its entries stay
// put, so the Encoder keeps pointers to them instead of copies.
type timeline struct{ tl []session.Entry }

func (t *timeline) Next() (*session.Entry, error) {
	if len(t.tl) == 0 {
		return nil, io.EOF
	}
	e := &t.tl[0]
	t.tl = t.tl[1:]
	return e, nil
}

func (*timeline) stable() {}

// EncodeStream writes the same file as Encode would for meta with the
// timeline entries gives, without holding the timeline: meta is the
// session (its Timeline is ignored), entries its timeline in order.
//
// Lines are written as they are made. What is held besides the output
// buffer is the set of tool ids written and a window of entries read
// ahead, which the mapping needs:
//
//   - started_at depends on the first entry with a time, so the entries
//     before it (which are written with that time) are held until it is
//     read: none in a session whose entries all have times, all of them in
//     one with no time at all (legacy and injected sessions, which are
//     small);
//   - an assistant message (written or made up) carries the usage and
//     model of the tool calls of its response that follow it, and its
//     stop_reason depends on the entry after it, so the run of tool calls
//     after it is held, plus one entry: a few entries for one response.
func (e *Encoder) EncodeStream(meta *session.Session, entries Entries) error {
	bw := bufio.NewWriterSize(e.w, 64<<10)
	w := &writer{enc: json.NewEncoder(bw), s: meta, emitted: map[string]bool{}}
	w.in.src = entries
	_, w.in.stable = entries.(interface{ stable() })
	w.in.err = &w.err
	w.enc.SetEscapeHTML(false)
	if meta.Source.Format == Format {
		w.native = true
		w.start, w.end = nativeBounds(meta.Records)
	}
	now := e.opts.now()
	exporter := e.opts.Exporter
	if exporter == "" {
		exporter = "stead"
	}
	w.put(newMetaLine(now, exporter))
	w.sessionStart(now)
	for i := 0; w.err == nil; i++ {
		en := w.in.peek(0)
		if en == nil {
			break
		}
		w.entry(i, en)
		w.in.pop()
	}
	w.sessionEnd()
	if w.err != nil {
		return w.err
	}
	return bw.Flush()
}

func newMetaLine(now time.Time, exporter string) metaLine {
	return metaLine{Meta: meta{Format: Format, Version: Version,
		ExportedAt: now.UTC().Format(time.RFC3339), Exporter: exporter}}
}

// window holds the entries read from an Entries and not yet written:
// the current one first, then those read ahead.
type window struct {
	src    Entries
	stable bool // entries stay valid after the next call: keep pointers
	buf    []*session.Entry
	head   int
	free   []*session.Entry // copies written, to copy into again
	eof    bool
	err    *error // the writer's error, set when reading fails
}

// peek returns the k-th entry from the current one (0), reading as far
// ahead as needed, or nil after the last entry or on an error.
func (q *window) peek(k int) *session.Entry {
	for len(q.buf)-q.head <= k {
		if q.eof {
			return nil
		}
		e, err := q.src.Next()
		switch {
		case err == io.EOF:
			q.eof = true
			return nil
		case err == nil && e == nil:
			err = errors.New("cusf: Entries.Next returned no entry and no error")
			fallthrough
		case err != nil:
			q.eof = true
			if *q.err == nil {
				*q.err = err
			}
			return nil
		}
		if !q.stable {
			var c *session.Entry
			if n := len(q.free); n > 0 {
				c, q.free = q.free[n-1], q.free[:n-1]
			} else {
				c = new(session.Entry)
			}
			copyEntry(c, e)
			e = c
		}
		q.buf = append(q.buf, e)
	}
	return q.buf[q.head+k]
}

// pop drops the current entry, which the writer no longer refers to.
func (q *window) pop() {
	if !q.stable && len(q.free) < 16 {
		q.free = append(q.free, q.buf[q.head])
	}
	q.buf[q.head] = nil
	q.head++
	if q.head == len(q.buf) {
		q.buf, q.head = q.buf[:0], 0
	} else if q.head >= 64 && 2*q.head >= len(q.buf) {
		n := copy(q.buf, q.buf[q.head:])
		clear(q.buf[n:])
		q.buf, q.head = q.buf[:n], 0
	}
}

// copyEntry copies the parts of e the writer reads into c, an earlier
// copy whose buffers it reuses, so that c survives the source reusing e.
func copyEntry(c, e *session.Entry) {
	input, usage, native := c.Input[:0], c.Usage, c.Native
	*c = session.Entry{
		ID: e.ID, Timestamp: e.Timestamp, Type: e.Type,
		Content: e.Content, Thinking: e.Thinking,
		Tool: e.Tool, OriginalTool: e.OriginalTool,
		CallID: e.CallID, Success: e.Success, Output: e.Output, Error: e.Error,
		ParentID: e.ParentID, Kind: e.Kind, Model: e.Model, MessageID: e.MessageID,
	}
	if e.Input != nil {
		c.Input = append(input, e.Input...)
		if c.Input == nil {
			c.Input = json.RawMessage{}
		}
	}
	if e.Usage != nil {
		if usage == nil {
			usage = new(session.Usage)
		}
		*usage = *e.Usage
		c.Usage = usage
	}
	if e.Native != nil && len(e.Native.Record) > 0 {
		if native == nil {
			native = new(session.Native)
		}
		native.Record = append(native.Record[:0], e.Native.Record...)
		c.Native = native
	}
}

// writer is the state of one Encode.
type writer struct {
	enc *json.Encoder
	err error
	s   *session.Session // the session, whose Timeline is not used
	in  window

	// native is set for a session decoded from CUSF: the fields the
	// universal model has no place for come from the native records.
	native     bool
	start, end *record

	last     time.Time // the last timestamp written
	owner    owner
	emitted  map[string]bool // tool ids written
	messages int64
	tokens   session.Usage
	counted  bool
}

// owner is the assistant message tool_use lines written now belong to.
// It stays valid while only tool_use lines follow it.
type owner struct {
	id, messageID string
	valid         bool
}

func (w *writer) put(v any) {
	if w.err == nil {
		w.err = w.enc.Encode(v)
	}
}

func (w *writer) sessionID() string {
	switch {
	case w.s.ID != "":
		return w.s.ID
	case w.s.Source.OriginalID != "":
		return w.s.Source.OriginalID
	}
	return "unknown"
}

// startTime is started_at: the session's creation time, or the first
// entry's time when that is earlier or the creation time is unknown, or
// (a session with no time at all) its last modification, or now. It reads
// ahead to the first entry with a time, holding the entries before it.
func (w *writer) startTime(now time.Time) time.Time {
	s := w.s
	t := s.Metadata.Created
	for k := 0; ; k++ {
		e := w.in.peek(k)
		if e == nil {
			break
		}
		if ts := e.Timestamp; !ts.IsZero() {
			if t.IsZero() || ts.Before(t) {
				t = ts
			}
			break
		}
	}
	if t.IsZero() {
		t = s.Metadata.LastModified
	}
	if t.IsZero() {
		t = now
	}
	return t
}

// stamp returns the time to write for t: t itself, or the last time
// written when t is unknown or earlier (lines must be in chronological
// order, and no time is ever invented later than a real one).
func (w *writer) stamp(t time.Time) string {
	if !t.IsZero() && t.After(w.last) {
		w.last = t
	}
	return session.FormatTime(w.last)
}

func (w *writer) sessionStart(now time.Time) {
	s := w.s
	w.last = w.startTime(now)
	l := startLine{
		Type:        TypeSessionStart,
		SessionID:   w.sessionID(),
		LLMSource:   LLMSource(s.Source.CLI),
		LLMModel:    s.Model.Model,
		StartedAt:   session.FormatTime(w.last),
		ProjectPath: s.Project.Path,
		Cwd:         s.Project.Path,
	}
	if s.Project.Git != nil {
		l.GitBranch = s.Project.Git.Branch
	}
	if n := w.start; n != nil {
		if validSource(n.LLMSource) && CLI(n.LLMSource) == s.Source.CLI {
			l.LLMSource = n.LLMSource
		}
		if n.LLMModel == nil {
			l.LLMModel = ""
		}
		if n.ProjectPath == nil {
			l.ProjectPath = ""
		}
		l.Cwd = ""
		if n.Cwd != nil {
			l.Cwd = *n.Cwd
		}
		l.MachineID, l.TenantID, l.UserID = n.MachineID, n.TenantID, n.UserID
	}
	w.put(l)
}

func (w *writer) sessionEnd() {
	s := w.s
	ended := s.Metadata.LastModified
	if ended.IsZero() || ended.Before(w.last) {
		ended = w.last
	}
	w.last = ended
	n := w.messages
	l := endLine{
		Type:          TypeSessionEnd,
		SessionID:     w.sessionID(),
		EndedAt:       session.FormatTime(ended),
		TotalMessages: &n,
		EndReason:     EndExport,
	}
	if w.counted {
		l.TotalTokens = &tokensJSON{Input: w.tokens.Input, Output: w.tokens.Output}
	}
	if r := w.end; r != nil {
		l.EndReason = ""
		if r.EndReason != nil && validEnd(*r.EndReason) {
			l.EndReason = *r.EndReason
		}
		if r.TotalMessages == nil {
			l.TotalMessages = nil
		}
		if r.TotalTokens == nil {
			l.TotalTokens = nil
		} else if l.TotalTokens == nil {
			l.TotalTokens = &tokensJSON{}
		}
	} else if w.native {
		l.EndReason = "" // a decoded file that had no session_end
	}
	w.put(l)
}

// sameResponse reports whether two entries may belong to one model
// response: their message ids are equal, or one is unknown.
func sameResponse(a, b string) bool { return a == "" || b == "" || a == b }

func role(t session.EntryType) string {
	switch t {
	case session.Assistant:
		return "assistant"
	case session.System:
		return "system"
	}
	return "user"
}

// entry writes e, the i-th entry (from 0) and the current one of w.in.
func (w *writer) entry(i int, e *session.Entry) {
	switch e.Type {
	case session.User, session.Assistant, session.System:
		w.message(i, e)
	case session.ToolCall:
		w.toolUse(e)
	case session.ToolResult:
		w.toolResult(e)
	}
}

// owned sums the usage of the tool calls after the current entry that
// belong to the response with message id msg (the calls the assistant
// message written for it owns), and returns the first model they name.
// It reads ahead to the end of those calls.
func (w *writer) owned(msg string) (u *session.Usage, model string) {
	for k := 1; ; k++ {
		c := w.in.peek(k)
		if c == nil || c.Type != session.ToolCall || !sameResponse(msg, c.MessageID) {
			break
		}
		if c.Usage != nil {
			u = addUsage(u, c.Usage)
		}
		if model == "" {
			model = c.Model
		}
	}
	return u, model
}

func addUsage(a, b *session.Usage) *session.Usage {
	var u session.Usage
	if a != nil {
		u = *a
	}
	if b != nil {
		u.Add(*b)
	}
	return &u
}

func (w *writer) writeMessage(l *messageLine, u *session.Usage) {
	if u != nil {
		l.Usage = &usageJSON{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}
		w.tokens.Add(*u)
		w.counted = true
	}
	w.messages++
	w.put(l)
}

func (w *writer) message(i int, e *session.Entry) {
	l := messageLine{
		Type:      TypeMessage,
		Role:      role(e.Type),
		Content:   e.Content,
		Timestamp: w.stamp(e.Timestamp),
		MessageID: e.ID,
		Model:     e.Model,
		Thinking:  e.Thinking,
	}
	if e.ParentID != "" {
		l.ParentID = &e.ParentID
	}
	if l.MessageID == "" {
		l.MessageID = "L" + strconv.Itoa(i+1)
	}
	u := e.Usage
	w.owner.valid = false
	if e.Type == session.Assistant {
		cu, model := w.owned(e.MessageID)
		if cu != nil {
			u = addUsage(u, cu)
		}
		if l.Model == "" {
			l.Model = model
		}
		w.owner = owner{id: l.MessageID, messageID: e.MessageID, valid: true}
	}
	l.StopReason = w.stopReason(e)
	if n := w.nativeOf(e); n != nil {
		l.StopReason = ""
		if n.StopReason != nil && validStop(*n.StopReason) {
			l.StopReason = *n.StopReason
		}
	}
	w.writeMessage(&l, u)
}

// stopReason derives a message's stop_reason: error for an error entry;
// for an assistant message, tool_use when tool calls of its response
// follow, nothing when more of its response follows, else end_turn. e is
// the current entry; the next one is read ahead.
func (w *writer) stopReason(e *session.Entry) string {
	if e.Kind == session.KindError {
		return StopError
	}
	if e.Type != session.Assistant {
		return ""
	}
	if next := w.in.peek(1); next != nil {
		switch {
		case next.Type == session.ToolCall && sameResponse(e.MessageID, next.MessageID):
			return StopToolUse
		case next.Type == session.Assistant && e.MessageID != "" && next.MessageID == e.MessageID:
			return ""
		}
	}
	return StopEndTurn
}

// nativeOf returns the CUSF record behind an entry of a decoded session.
func (w *writer) nativeOf(e *session.Entry) *record {
	if !w.native || e.Native == nil || len(e.Native.Record) == 0 {
		return nil
	}
	var r record
	if json.Unmarshal(e.Native.Record, &r) != nil {
		return nil
	}
	return &r
}

func toolID(e *session.Entry) string {
	if e.CallID != "" {
		return e.CallID
	}
	return e.ID
}

// synthSuffix ends the message_id of an assistant message the encoder
// makes for a tool call with no message of its own: the call's tool_id and
// this, which is how Decode knows it.
const synthSuffix = "-msg"

var emptyObject = json.RawMessage(`{}`)

// toolInput is a call's input as a JSON object: the input itself, or
// {"input": ...} holding an input that is not an object.
func toolInput(raw json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return emptyObject
	}
	if t[0] == '{' && json.Valid(t) {
		return t
	}
	var v any = json.RawMessage(t)
	if !json.Valid(t) {
		v = string(raw)
	}
	b, err := json.Marshal(map[string]any{"input": v})
	if err != nil {
		return emptyObject
	}
	return b
}

func (w *writer) toolUse(e *session.Entry) {
	ts := w.stamp(e.Timestamp)
	if !w.owner.valid || !sameResponse(w.owner.messageID, e.MessageID) {
		// No assistant message of this response was written: write an
		// empty one to carry the response's model and usage, as CUSF
		// hangs every tool_use off an assistant message.
		id := toolID(e) + synthSuffix
		l := messageLine{Type: TypeMessage, Role: "assistant", Timestamp: ts, MessageID: id,
			Model: e.Model, StopReason: StopToolUse}
		if e.ParentID != "" {
			l.ParentID = &e.ParentID
		}
		u := e.Usage
		cu, model := w.owned(e.MessageID)
		if cu != nil {
			u = addUsage(u, cu)
		}
		if l.Model == "" {
			l.Model = model
		}
		w.writeMessage(&l, u)
		w.owner = owner{id: id, messageID: e.MessageID, valid: true}
	}
	id := toolID(e)
	l := toolUseLine{Type: TypeToolUse, ToolName: ToolName(e), ToolInput: toolInput(e.Input),
		ToolID: id, Timestamp: ts, ParentID: w.owner.id}
	if n := w.nativeOf(e); n != nil && n.ToolInput == nil && string(l.ToolInput) == "{}" {
		l.ToolInput = nil
	}
	w.emitted[id] = true
	w.put(l)
}

func (w *writer) toolResult(e *session.Entry) {
	w.owner.valid = false
	ts := w.stamp(e.Timestamp)
	id := e.CallID
	if id == "" {
		id = e.ID
	}
	if !w.emitted[id] {
		// A result whose call the session does not hold (compacted
		// away, or in another file): CUSF needs a tool_use before it.
		w.put(toolUseLine{Type: TypeToolUse, ToolName: string(session.ToolUnknown), ToolID: id, Timestamp: ts})
		w.emitted[id] = true
	}
	l := toolResultLine{Type: TypeToolResult, ToolID: id, Result: &e.Output, IsError: !e.Success,
		ErrorMessage: e.Error, Timestamp: ts}
	if n := w.nativeOf(e); n != nil {
		l.Truncated = n.Truncated
		if n.Result == nil && e.Output == "" {
			l.Result = nil
		}
	}
	w.put(l)
}

// nativeBounds finds the session_start and session_end records of a
// decoded session.
func nativeBounds(recs []session.Record) (start, end *record) {
	for _, rec := range recs {
		if !bytes.Contains(rec.Record, []byte(`"session_`)) {
			continue
		}
		var r record
		if json.Unmarshal(rec.Record, &r) != nil {
			continue
		}
		switch r.Type {
		case TypeSessionStart:
			if start == nil {
				start = &r
			}
		case TypeSessionEnd:
			end = &r
		}
	}
	return start, end
}

// FileName is the §3.1 name of a CUSF file for s exported at now:
// {timestamp}-session-{llm_source}-{session_id}--{export_type}.jsonl, the
// timestamp like 2026-01-28T13-06-48Z. The session id and export type are
// sanitised so the name is one path element: characters other than
// letters, digits, '.', '_' and '-' become '_', and ".." cannot occur.
// An empty export type is "export".
func FileName(s *session.Session, exportType string, now time.Time) string {
	id := s.ID
	if id == "" {
		id = s.Source.OriginalID
	}
	if exportType == "" {
		exportType = "export"
	}
	return now.UTC().Format("2006-01-02T15-04-05Z") + "-session-" + LLMSource(s.Source.CLI) + "-" +
		sanitize(id, "unknown") + "--" + sanitize(exportType, "export") + ".jsonl"
}

func sanitize(s, empty string) string {
	const max = 128
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= max {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := b.String()
	for strings.Contains(out, "..") {
		out = strings.ReplaceAll(out, "..", "_")
	}
	if strings.Trim(out, "._-") == "" {
		return empty
	}
	return out
}
