package opencode

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/session"
)

// Source formats, in Session.Source.Format.
const (
	FormatDB      = "opencode-db"      // opencode.db (1.x)
	FormatExport  = "opencode-export"  // the JSON of opencode export
	FormatStorage = "opencode-storage" // the storage/ JSON tree (0.x)
)

// rowKind says what a row is.
type rowKind int

const (
	rowSession rowKind = iota
	rowMessage
	rowPart
)

// A row is one native record of a session, whichever store it came from:
// the session's info, a message or a part. Rows reach the decoder and the
// summarizer in reading order: the session first, then each message
// followed by its parts. Their line is their 1-based position in that
// order; it is what Native.Line, Record.Line and Warning.Line hold, since
// a database row has no line of its own.
type row struct {
	kind rowKind
	line int
	// id is the message's or part's id; msgID is a part's message.
	id, msgID string
	// created is the row's time_created column (0 outside the database).
	created int64
	// data is the JSON object: a message's info or a part (for the
	// database, its data column).
	data []byte
	// record is what is kept: the database row as an object of its
	// columns, or the export's or storage file's object verbatim.
	record json.RawMessage
	// path is the file holding the record when it is not the session's
	// own (a storage/ file).
	path string
	// nested marks a part written inside its message (the export): it
	// belongs to the message before it, whatever ids say.
	nested bool
}

// decoder folds rows into a universal session.
type decoder struct {
	b    *session.Builder
	path string // the store, for warnings
	info sessionInfo

	used session.IDs
	last string // the previous entry, for ParentID
	msg  *msgState

	// linkPath is the store subagent links point at: the database,
	// which holds a session's subagent sessions too.
	linkPath string

	cost                    float64
	lastModel, lastProvider string
	unknownTypes            map[string]bool
}

// msgState is the message being decoded: its part entries are held until
// the message ends, when its usage is placed.
type msgState struct {
	row  row
	info messageInfo
	ok   bool
	out  []pendingEvent
	// step bookkeeping: the index in out where the current step began,
	// whether a step reported usage, and usage of steps that made no
	// entry.
	stepFrom  int
	stepUsage bool
	orphan    session.Usage
}

type pendingEvent struct {
	line    int
	entries []session.Entry
	record  *session.Record
	warning *session.Warning
}

func newDecoder(path, format string) *decoder {
	d := &decoder{b: session.NewBuilder(session.OpenCode, path), path: path, unknownTypes: map[string]bool{}}
	d.b.Add(session.Event{Info: &session.Info{Format: format}})
	return d
}

// warning reports a problem with row r: in the store's file, or in the
// file holding the row when it has its own (storage/).
func (d *decoder) warning(r row, format string, args ...any) *session.Warning {
	w := &session.Warning{Path: d.path, Line: r.line, Message: fmt.Sprintf(format, args...)}
	if r.path != "" {
		w.Path, w.Line = r.path, 0
	}
	return w
}

// session takes the session's own row. linkPath is the store a parent
// link points at.
func (d *decoder) session(r row, info sessionInfo, linkPath string) {
	d.info, d.linkPath = info, linkPath
	in := &session.Info{ID: info.ID, Path: info.Directory, Title: realTitle(info.Title), Version: info.Version, Created: msTime(int64(info.Time.Created))}
	if info.Model != nil {
		in.Model, in.Provider = info.Model.ID, info.Model.ProviderID
	}
	if info.ParentID != "" {
		in.Parent = &session.Link{Kind: session.LinkSubagent, CLI: session.OpenCode, ID: info.ParentID, Path: linkPath}
	}
	ev := session.Event{Line: r.line, Info: in}
	if len(r.record) > 0 {
		ev.Record = &session.Record{Line: r.line, Record: r.record}
	}
	d.b.Add(ev)
}

// warn records a warning that belongs to no row.
func (d *decoder) warn(w session.Warning) { d.b.Warn(w) }

// keep stores a row that makes no entry.
func (d *decoder) keep(r row, w *session.Warning) {
	d.b.Add(session.Event{Line: r.line, Record: &session.Record{Line: r.line, Record: r.record}, Warning: w})
}

// message starts a message.
func (d *decoder) message(r row) {
	var info messageInfo
	d.parsedMessage(r, &info, parseJSON(r.data, &info))
}

// parsedMessage is message of a row parsed into info, err what parsing
// it said.
func (d *decoder) parsedMessage(r row, info *messageInfo, err error) {
	d.endMessage()
	m := &msgState{row: r, info: *info}
	if err != nil {
		if r.id == "" {
			r.id = fieldString(r.data, "id")
		}
		m.out = append(m.out, pendingEvent{line: r.line, warning: d.warning(r, "message %s: %s; kept in records, its parts read as the assistant's", r.id, errText(err))})
	} else {
		m.ok = true
		if m.row.id == "" {
			m.row.id = m.info.ID
		}
		if m.info.Role != "user" && m.info.Role != "assistant" {
			m.out = append(m.out, pendingEvent{line: r.line, warning: d.warning(r, "message %s has unknown role %q; its parts read as the assistant's", r.id, m.info.Role)})
		}
	}
	d.msg = m
}

// part decodes a part of the current message.
func (d *decoder) part(r row) {
	if !d.partOfMessage(r) {
		return
	}
	var p part
	d.parsedPart(r, &p, parseJSON(r.data, &p))
}

// partOfMessage reports whether r is a part of the current message,
// keeping it in records with a warning when it is not.
func (d *decoder) partOfMessage(r row) bool {
	if m := d.msg; m == nil || !r.nested && r.msgID != m.row.id {
		d.keep(r, d.warning(r, "part %s belongs to no message of the session (message %s); kept in records", r.id, r.msgID))
		return false
	}
	return true
}

// parsedPart is part of a row of the current message parsed into p, err
// what parsing it said.
func (d *decoder) parsedPart(r row, p *part, err error) {
	m := d.msg
	if err != nil {
		if r.id == "" {
			r.id = fieldString(r.data, "id")
		}
		m.out = append(m.out, pendingEvent{line: r.line, record: &session.Record{Line: r.line, Record: r.record},
			warning: d.warning(r, "part %s: %s; skipped, kept in records", r.id, errText(err))})
		return
	}
	if r.id != "" {
		p.ID = r.id // the row's id (the file name in storage/) wins, as in OpenCode's migration
	} else {
		r.id = p.ID
	}
	var w *session.Warning
	switch p.Type {
	case "step-start":
		m.stepFrom = len(m.out)
	case "step-finish":
		if u := p.Tokens.usage(); !u.IsZero() {
			m.stepUsage = true
			if e := m.firstModelEntry(m.stepFrom); e != nil {
				addUsage(e, u)
			} else {
				m.orphan.Add(u)
			}
		}
		m.stepFrom = len(m.out) + 1
	default:
		if !partTypes[p.Type] {
			w = d.warning(r, "part %s has unknown type %q; kept in records", r.id, p.Type)
		}
	}
	entries := d.entries(m, p, r)
	if len(entries) == 0 {
		m.out = append(m.out, pendingEvent{line: r.line, record: &session.Record{Line: r.line, Record: r.record}, warning: w})
		return
	}
	for i := range entries {
		if i == 0 {
			entries[i].Native = &session.Native{Line: r.line, Record: r.record, Path: r.path}
		} else {
			entries[i].Native = &session.Native{Line: r.line, Part: i, Path: r.path}
		}
	}
	m.out = append(m.out, pendingEvent{line: r.line, entries: entries, warning: w})
}

// firstModelEntry returns the first assistant or tool call entry of the
// message from out[from:], or nil.
func (m *msgState) firstModelEntry(from int) *session.Entry {
	for i := from; i < len(m.out); i++ {
		for j := range m.out[i].entries {
			e := &m.out[i].entries[j]
			if e.Type == session.Assistant || e.Type == session.ToolCall {
				return e
			}
		}
	}
	return nil
}

func addUsage(e *session.Entry, u session.Usage) {
	if e.Usage == nil {
		e.Usage = &u
		return
	}
	sum := *e.Usage
	sum.Add(u)
	e.Usage = &sum
}

// entries makes the entries of one part.
func (d *decoder) entries(m *msgState, p *part, r row) []session.Entry {
	role := m.info.Role
	model, _ := m.info.model()
	ts := msTime(int64(p.Time.Start))
	if ts.IsZero() {
		ts = m.time()
	}
	assistant := func(e session.Entry) session.Entry {
		e.Model, e.MessageID = model, m.row.id
		return e
	}
	switch p.Type {
	case "text":
		e := session.Entry{ID: d.unique(p.ID, r.line), Timestamp: ts, Content: p.Text}
		if role == "user" {
			e.Type = session.User
			if p.Synthetic {
				e.Kind = session.KindMeta
			}
			return []session.Entry{e}
		}
		e.Type = session.Assistant
		if m.info.isSummary() {
			e.Kind = session.KindSummary
		}
		return []session.Entry{assistant(e)}
	case "reasoning":
		e := session.Entry{ID: d.unique(p.ID, r.line), Timestamp: ts, Type: session.Assistant, Thinking: p.Text, Reasoning: reasoning(p)}
		return []session.Entry{assistant(e)}
	case "tool":
		return d.tool(m, p, r, model)
	case "file":
		e := session.Entry{ID: d.unique(p.ID, r.line), Timestamp: ts, Attachments: []session.Attachment{attachment(p)}}
		if role == "user" {
			e.Type, e.Kind = session.User, session.KindMeta
			return []session.Entry{e}
		}
		e.Type = session.Assistant
		return []session.Entry{assistant(e)}
	case "subtask":
		text := p.Prompt
		if text == "" {
			text = p.Description
		}
		return []session.Entry{{ID: d.unique(p.ID, r.line), Timestamp: ts, Type: session.User, Kind: session.KindCommand, Content: text}}
	case "compaction":
		return []session.Entry{{ID: d.unique(p.ID, r.line), Timestamp: ts, Type: session.System, Kind: session.KindCompaction}}
	case "retry":
		msg := "retry " + strconv.Itoa(p.Attempt)
		if t := p.Error.text(); t != "" {
			msg += ": " + t
		}
		return []session.Entry{{ID: d.unique(p.ID, r.line), Timestamp: ts, Type: session.System, Kind: session.KindError, Content: msg}}
	}
	return nil
}

// tool makes a tool part's call and, once the tool has finished, its
// result, paired by the call id.
func (d *decoder) tool(m *msgState, p *part, r row, model string) []session.Entry {
	s := p.State
	if s == nil {
		s = &toolState{}
	}
	start := msTime(int64(s.Time.Start))
	if start.IsZero() {
		start = m.time()
	}
	callID := p.CallID
	if callID == "" || d.used.Has(callID) {
		callID = p.ID
	}
	callID = d.unique(callID, r.line)
	call := session.Entry{
		ID: callID, Timestamp: start, Type: session.ToolCall, Tool: UniversalTool(p.Tool), OriginalTool: p.Tool,
		Input: objectInput(s.Input), Model: model, MessageID: m.row.id,
	}
	if p.Tool == "task" {
		if child := metaString(s.Metadata, "sessionId"); child != "" {
			call.Subagent = &session.Link{Kind: session.LinkSubagent, CLI: session.OpenCode, ID: child, CallID: p.CallID, Path: d.linkPath}
		}
	}
	status, done := partStatus(s)
	if !done {
		switch s.Status {
		case "pending", "running":
		default:
			m.out = append(m.out, pendingEvent{line: r.line, warning: d.warning(r, "tool part %s has unknown status %q; the call is pending", r.id, s.Status)})
		}
		return []session.Entry{call}
	}
	end := msTime(int64(s.Time.End))
	if end.IsZero() {
		end = start
	}
	res := session.Entry{
		ID: d.unique(p.ID+":result", r.line), Timestamp: end, Type: session.ToolResult, CallID: callID,
		Success: status == session.StatusOK, Status: status, MessageID: m.row.id, Subagent: call.Subagent,
	}
	text := s.Error
	if s.Status == "completed" {
		text = s.Output // a command that exited non-zero completed
	}
	if res.Success {
		res.Output = text
	} else {
		res.Error = text
	}
	for i := range s.Attachments {
		res.Attachments = append(res.Attachments, attachment(&s.Attachments[i]))
	}
	return []session.Entry{call, res}
}

// partStatus is a tool part's outcome: its status, and for a command
// that completed, its exit code (OpenCode's bash tool keeps it in
// state.metadata.exit; null when it was killed, for a timeout or an
// abort).
func partStatus(s *toolState) (session.ToolStatus, bool) {
	status, done := toolStatus(s)
	if status != session.StatusOK || len(s.Metadata) == 0 {
		return status, done
	}
	var m bashMeta
	if parseJSON(s.Metadata, &m) != nil || m.Exit == nil {
		return status, done
	}
	switch exit := strings.TrimSpace(string(m.Exit)); {
	case exit == "null":
		switch {
		case strings.HasSuffix(s.Output, "(Command was aborted)"):
			return session.StatusInterrupted, true
		case strings.Contains(s.Output, "(Command timed out after "):
			return session.StatusError, true
		}
	case exit != "0" && exit != "":
		return session.StatusError, true
	}
	return status, done
}

// bashMeta is what partStatus reads of a tool's state.metadata: the exit
// code OpenCode's bash tool keeps there, "null" when the command was
// killed, nil when there is none. (A *json.RawMessage, as it was, is nil
// for a null too: a killed command was read as one that succeeded.)
type bashMeta struct {
	Exit json.RawMessage `json:"exit"`
}

// unique returns id, or a variant of it no entry uses yet.
func (d *decoder) unique(id string, line int) string {
	if id == "" {
		id = "L" + strconv.Itoa(line)
	}
	return d.used.Unique(id)
}

// time is when the message was created.
func (m *msgState) time() time.Time {
	t := msTime(int64(m.info.Time.Created))
	if t.IsZero() {
		t = msTime(m.row.created)
	}
	return t
}

// endMessage places the current message's usage and hands its events to
// the builder.
func (d *decoder) endMessage() {
	m := d.msg
	if m == nil {
		return
	}
	d.msg = nil
	info := &m.info
	model, provider := info.model()
	if info.Role == "assistant" {
		d.cost += info.Cost
		if model != "" {
			d.lastModel, d.lastProvider = model, provider
		}
	}
	var u session.Usage
	if !m.stepUsage && info.Role == "assistant" {
		u = info.Tokens.usage()
	}
	u.Add(m.orphan)

	// The message itself makes an entry when it failed, or when its
	// usage has no entry to go on.
	var own *session.Entry
	if m.ok && info.Error != nil {
		kind := session.KindError
		if info.Error.Name == "MessageAbortedError" {
			kind = session.KindInterrupt
		}
		t := msTime(int64(info.Time.Completed))
		if t.IsZero() {
			t = m.time()
		}
		own = &session.Entry{ID: d.unique(m.row.id, m.row.line), Timestamp: t, Type: session.System, Kind: kind, Content: info.Error.text(), Model: model, MessageID: m.row.id}
	}
	if !u.IsZero() {
		target := m.firstModelEntry(0)
		if target == nil && own == nil {
			own = &session.Entry{ID: d.unique(m.row.id, m.row.line), Timestamp: m.time(), Type: session.Assistant, Model: model, MessageID: m.row.id}
		}
		if target == nil {
			target = own
		}
		addUsage(target, u)
	}

	if own == nil {
		d.b.Add(session.Event{Line: m.row.line, Record: &session.Record{Line: m.row.line, Record: m.row.record}})
	}
	for _, pe := range m.out {
		ev := session.Event{Line: pe.line, Record: pe.record, Warning: pe.warning}
		for _, e := range pe.entries {
			e.ParentID = d.last
			d.last = e.ID
			ev.Entries = append(ev.Entries, e)
		}
		d.b.Add(ev)
	}
	if own != nil {
		own.ParentID = d.last
		d.last = own.ID
		own.Native = &session.Native{Line: m.row.line, Record: m.row.record, Path: m.row.path}
		d.b.Add(session.Event{Line: m.row.line, Entries: []session.Entry{*own}})
	}
}

// finish ends the session.
func (d *decoder) finish() *session.Session {
	d.endMessage()
	s := d.b.Session()
	if d.info.Model == nil || d.info.Model.ID == "" {
		// No model on the session row (older stores): the one that
		// answered last.
		if d.lastModel != "" {
			s.Model.Model, s.Model.Provider = d.lastModel, d.lastProvider
		}
	}
	if s.Model.Provider == "" {
		s.Model.Provider = session.ProviderOf(s.Model.Model)
	}
	if up := msTime(int64(d.info.Time.Updated)); up.After(s.Metadata.LastModified) {
		s.Metadata.LastModified = up
	}
	if s.Metadata.Created.IsZero() {
		s.Metadata.Created = s.Metadata.LastModified
	}
	if d.cost > 0 {
		c := d.cost
		s.Metadata.Cost = &c
	}
	return s
}

// objectInput returns a tool input as a JSON object: objects as they are,
// anything else wrapped as {"input": value}.
func objectInput(raw json.RawMessage) json.RawMessage {
	t := strings.TrimSpace(string(raw))
	switch {
	case t == "" || t == "null":
		return json.RawMessage(`{}`)
	case t[0] == '{':
		return raw
	}
	b, _ := json.Marshal(map[string]json.RawMessage{"input": raw})
	return b
}

// reasoning keeps a reasoning part's provider metadata: Anthropic's
// signature, OpenAI's item id and encrypted content.
func reasoning(p *part) []session.Reasoning {
	var meta struct {
		Anthropic *struct {
			Signature    string `json:"signature"`
			RedactedData string `json:"redactedData"`
		} `json:"anthropic"`
		OpenAI *struct {
			ItemID                    string `json:"itemId"`
			ReasoningEncryptedContent string `json:"reasoningEncryptedContent"`
		} `json:"openai"`
	}
	if len(p.Metadata) == 0 || json.Unmarshal(p.Metadata, &meta) != nil {
		return nil
	}
	switch {
	case meta.Anthropic != nil && meta.Anthropic.RedactedData != "":
		return []session.Reasoning{{Format: "anthropic-redacted", Encrypted: meta.Anthropic.RedactedData}}
	case meta.Anthropic != nil && meta.Anthropic.Signature != "":
		return []session.Reasoning{{Format: "anthropic", Text: p.Text, Signature: meta.Anthropic.Signature}}
	case meta.OpenAI != nil && (meta.OpenAI.ItemID != "" || meta.OpenAI.ReasoningEncryptedContent != ""):
		return []session.Reasoning{{Format: "openai", ID: meta.OpenAI.ItemID, Text: p.Text, Encrypted: meta.OpenAI.ReasoningEncryptedContent}}
	}
	return nil
}

// attachment turns a file part into an attachment: a data: URL's content
// is kept as base64 data, a file: URL as a path.
func attachment(p *part) session.Attachment {
	a := session.Attachment{Type: "file", MediaType: p.Mime, Name: p.Filename}
	if strings.HasPrefix(p.Mime, "image/") {
		a.Type = "image"
	}
	switch u := p.URL; {
	case strings.HasPrefix(u, "data:"):
		if i := strings.Index(u, ","); i >= 0 {
			if strings.HasSuffix(u[:i], ";base64") {
				a.Data = u[i+1:]
			} else {
				a.Data = base64.StdEncoding.EncodeToString([]byte(u[i+1:]))
			}
		}
	case strings.HasPrefix(u, "file://"):
		a.Path = strings.TrimPrefix(u, "file://")
		if pu, err := url.Parse(u); err == nil && pu.Path != "" {
			a.Path = pu.Path
		}
	default:
		a.URL = u
	}
	return a
}

func errText(err error) string {
	if err == errNotObject {
		return "not a JSON object"
	}
	if _, ok := err.(*json.SyntaxError); ok {
		return "invalid JSON (" + err.Error() + ")"
	}
	return "not understood (" + err.Error() + ")"
}

// fieldString returns the string value of a top-level field of a JSON
// object, as written (escapes left in), or "".
func fieldString(b []byte, key string) string {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || t[0] != '{' {
		return ""
	}
	var v string
	jsonl.EachField(t[1:], func(k, value []byte) bool {
		if string(k) == key {
			v = string(value)
			return false
		}
		return true
	})
	return v
}
