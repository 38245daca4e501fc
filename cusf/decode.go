package cusf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/stead-dev/stead/session"
)

// LineError is a problem with one line of a CUSF file. Decode returns them
// as warnings.
type LineError struct {
	Name string
	Line int
	Err  error
}

func (e *LineError) Error() string { return e.Name + ":" + strconv.Itoa(e.Line) + ": " + e.Err.Error() }

func (e *LineError) Unwrap() error { return e.Err }

// Decode reads a CUSF file into a universal session. name names the file
// in warnings ("name:line: ..."). Lines are read one at a time with no
// length limit. A line that is not JSON, has fields of the wrong type, or
// has an unknown type is skipped with a warning (also kept in
// Session.Warnings) and decoding goes on; the error is for a failing
// reader or input with no CUSF line at all.
//
// The session's Source.CLI is the llm_source mapped back (see CLI) and its
// Source.Format is "cusf". Every JSON line is kept: a timeline entry's
// line in its Native record, the _meta, session_start and session_end
// lines (and other lines that made no entry) in Session.Records, with the
// fields CUSF defines and any unknown ones, for inspection and so that
// re-encoding the session gives the file back (see Encoder). Lines that
// are not JSON are dropped.
func Decode(r io.Reader, name string) (*session.Session, []error, error) {
	d := newDecoder(name, session.NewBuilder("", name))
	if err := d.read(r); err != nil {
		return nil, d.warns, err
	}
	s, err := d.finish()
	if err != nil {
		return nil, d.warns, err
	}
	nameResults(s.Timeline)
	return s, d.warns, nil
}

func newDecoder(name string, b *session.Builder) *decoder {
	return &decoder{name: name, b: b, cli: session.Universal, groups: map[string]*group{}}
}

// read decodes r a line at a time.
func (d *decoder) read(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	n := 0
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			n++
			d.line(n, line)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", d.name, err)
		}
	}
	d.flush()
	return nil
}

// finish returns the session read, with its source and end time.
func (d *decoder) finish() (*session.Session, error) {
	if !d.sawMeta && !d.sawStart && d.entries == 0 {
		return nil, fmt.Errorf("%s: no CUSF line", d.name)
	}
	s := d.b.Session()
	s.Source.CLI = d.cli
	s.Source.Format = Format
	if d.ended.After(s.Metadata.LastModified) {
		s.Metadata.LastModified = d.ended
	}
	return s, nil
}

type decoder struct {
	name string
	b    *session.Builder
	// emit, when set, is handed each event instead of b (a second read:
	// see Outline).
	emit  func(session.Event)
	warns []error
	// lform, when set, gets each entry id of the form results are named in
	// ("L" and a digit), in order (a first read: see Outline).
	lform   func(id string)
	cli     string
	sawMeta bool

	sawStart bool
	startID  string
	ended    time.Time
	entries  int

	// groups maps the id of each assistant message to the response it
	// belongs to.
	groups map[string]*group
	// open is the response of the previous line when that was an
	// assistant message with no stop_reason (more of it may follow).
	open *group
	// pending is a line held back until the next one says whether it is
	// one the encoder made up (see hold).
	pending *held
}

// group is one model response.
type group struct {
	messageID string
	model     string
	// For an empty assistant message folded into its first tool call:
	// that call's entry id, and the message's parent.
	folded             bool
	foldedInto, parent string
	usage              *session.Usage
}

type held struct {
	n   int
	raw []byte
	r   record
}

func (d *decoder) warn(n int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	d.warns = append(d.warns, &LineError{Name: d.name, Line: n, Err: errors.New(msg)})
	if d.b != nil {
		d.b.Warn(session.Warning{Path: d.name, Line: n, Message: msg})
	}
}

// event hands ev on, to the Builder or to emit.
func (d *decoder) event(ev session.Event) {
	if d.emit != nil {
		d.emit(ev)
		return
	}
	d.b.Add(ev)
}

func (d *decoder) keep(n int, raw []byte) {
	d.event(session.Event{Line: n, Record: &session.Record{Line: n, Record: json.RawMessage(raw)}})
}

func (d *decoder) line(n int, raw []byte) {
	raw = bytes.TrimRight(raw, "\r\n")
	if n == 1 {
		raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return
	}
	var r record
	if err := json.Unmarshal(raw, &r); err != nil {
		d.flush()
		if json.Valid(raw) {
			d.warn(n, "skipped: %v", err)
			d.keep(n, raw)
		} else {
			d.warn(n, "skipped: not a JSON line: %v", err)
		}
		return
	}
	if p := d.pending; p != nil {
		d.pending = nil
		if !d.fold(p, n, raw, &r) {
			d.record(p.n, p.raw, &p.r)
		}
	}
	if d.hold(n, raw, &r) {
		return
	}
	d.record(n, raw, &r)
}

// hold holds back the lines the encoder makes up when the timeline lacks
// what CUSF needs: an empty assistant message ending with tool_use (made
// for tool calls with no message of their own), and an unknown tool_use
// with no input or parent (made before a result whose call the session did
// not hold). The next line tells whether the guess is right.
func (d *decoder) hold(n int, raw []byte, r *record) bool {
	switch {
	case r.Meta == nil && r.Type == TypeMessage && r.Role == "assistant" && r.Content == "" && r.Thinking == "" &&
		r.StopReason != nil && *r.StopReason == StopToolUse && strings.HasSuffix(r.MessageID, synthSuffix):
	case r.Meta == nil && r.Type == TypeToolUse && r.ToolName == string(session.ToolUnknown) &&
		r.ToolInput == nil && r.ParentID == nil:
	default:
		return false
	}
	d.pending = &held{n: n, raw: raw, r: *r}
	return true
}

// fold folds the held line p into the line that follows it, when that
// shows p was made up by the encoder, and reports whether it did.
func (d *decoder) fold(p *held, n int, raw []byte, r *record) bool {
	switch p.r.Type {
	case TypeMessage:
		if r.Type != TypeToolUse || r.ParentID == nil || *r.ParentID != p.r.MessageID || p.r.MessageID != r.ToolID+synthSuffix {
			return false
		}
		g := &group{messageID: p.r.MessageID, model: p.r.Model, usage: usage(p.r.Usage), parent: deref(p.r.ParentID), folded: true}
		d.groups[p.r.MessageID] = g
		d.keep(p.n, p.raw)
		return true
	case TypeToolUse:
		if r.Type != TypeToolResult || r.ToolID != p.r.ToolID || r.Timestamp != p.r.Timestamp {
			return false
		}
		d.keep(p.n, p.raw)
		return true
	}
	return false
}

func (d *decoder) flush() {
	if p := d.pending; p != nil {
		d.pending = nil
		d.record(p.n, p.raw, &p.r)
	}
}

func (d *decoder) time(n int, field, s string) time.Time {
	t, err := session.ParseTime(s)
	if err != nil {
		d.warn(n, "%s: %v", field, err)
	}
	return t
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func usage(u *usageJSON) *session.Usage {
	if u == nil {
		return nil
	}
	return &session.Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}
}

func (d *decoder) add(n int, e session.Entry) {
	d.entries++
	if d.lform != nil && isLForm(e.ID) {
		d.lform(e.ID)
	}
	d.event(session.Event{Line: n, Entries: []session.Entry{e}})
}

func (d *decoder) record(n int, raw []byte, r *record) {
	open := d.open
	d.open = nil
	if r.Meta != nil {
		d.meta(n, raw, r.Meta)
		return
	}
	native := &session.Native{Line: n, Record: json.RawMessage(raw)}
	switch r.Type {
	case TypeSessionStart:
		d.start(n, raw, r)
	case TypeSessionEnd:
		if d.sawStart && r.SessionID != d.startID {
			d.warn(n, "session_end.session_id %q does not match session_start.session_id %q", r.SessionID, d.startID)
		}
		d.ended = d.time(n, "ended_at", r.EndedAt)
		d.keep(n, raw)
	case TypeMessage:
		e := session.Entry{ID: r.MessageID, Timestamp: d.time(n, "timestamp", r.Timestamp), Content: r.Content,
			Thinking: r.Thinking, ParentID: deref(r.ParentID), Model: r.Model, Usage: usage(r.Usage), Native: native}
		switch r.Role {
		case "user":
			e.Type = session.User
		case "assistant":
			e.Type = session.Assistant
		case "system":
			e.Type = session.System
		default:
			d.warn(n, "skipped: unknown role %q", r.Role)
			d.keep(n, raw)
			return
		}
		if e.ID == "" {
			e.ID = "L" + strconv.Itoa(n)
		}
		if r.StopReason != nil && *r.StopReason == StopError {
			e.Kind = session.KindError
		}
		if e.Type == session.Assistant {
			g := open
			if g == nil {
				g = &group{messageID: e.ID, model: e.Model}
			}
			e.MessageID = g.messageID
			d.groups[e.ID] = g
			if r.StopReason == nil {
				d.open = g
			}
		}
		d.add(n, e)
	case TypeToolUse:
		e := session.Entry{ID: r.ToolID, Type: session.ToolCall, Timestamp: d.time(n, "timestamp", r.Timestamp),
			Tool: Tool(r.ToolName), OriginalTool: r.ToolName, ParentID: deref(r.ParentID), Native: native}
		if len(r.ToolInput) > 0 && string(r.ToolInput) != "null" {
			e.Input = r.ToolInput
		}
		if e.ID == "" {
			e.ID = "L" + strconv.Itoa(n)
		}
		if g := d.groups[e.ParentID]; g != nil {
			e.MessageID, e.Model = g.messageID, g.model
			if g.folded {
				// The response's message was folded into its first call.
				if g.foldedInto == "" {
					e.ParentID, e.Usage, g.foldedInto = g.parent, g.usage, e.ID
				} else {
					e.ParentID = g.foldedInto
				}
			}
		}
		d.add(n, e)
	case TypeToolResult:
		e := session.Entry{ID: resultMark + strconv.Itoa(n), Type: session.ToolResult, Timestamp: d.time(n, "timestamp", r.Timestamp),
			CallID: r.ToolID, ParentID: r.ToolID, Success: !r.IsError, Output: deref(r.Result),
			Error: deref(r.ErrorMessage), Native: native}
		if r.IsError {
			e.Status = session.StatusError
		}
		d.add(n, e)
	default:
		d.warn(n, "skipped: unknown line type %q", r.Type)
		d.keep(n, raw)
	}
}

func (d *decoder) meta(n int, raw []byte, m *meta) {
	if d.sawMeta {
		d.warn(n, "a second _meta line")
	}
	d.sawMeta = true
	if m.Format != Format {
		d.warn(n, "_meta.format is %q, not %q", m.Format, Format)
	}
	if major, _, _ := strings.Cut(m.Version, "."); major != "1" {
		d.warn(n, "_meta.version %q is not a version 1 this reader knows", m.Version)
	}
	d.keep(n, raw)
}

func (d *decoder) start(n int, raw []byte, r *record) {
	if d.sawStart {
		d.warn(n, "a second session_start line (its fields are ignored)")
		d.keep(n, raw)
		return
	}
	d.sawStart, d.startID = true, r.SessionID
	if !validSource(r.LLMSource) {
		d.warn(n, "unknown llm_source %q", r.LLMSource)
	}
	d.cli = CLI(r.LLMSource)
	in := &session.Info{ID: r.SessionID, Model: deref(r.LLMModel), Created: d.time(n, "started_at", r.StartedAt), Format: Format}
	in.Path = deref(r.ProjectPath)
	if in.Path == "" {
		in.Path = deref(r.Cwd)
	}
	if r.GitBranch != "" {
		in.Git = &session.Git{Branch: r.GitBranch}
	}
	in.Provider = session.ProviderOf(in.Model)
	if in.Provider == "" {
		in.Provider = providers[d.cli]
	}
	d.event(session.Event{Line: n, Info: in, Record: &session.Record{Line: n, Record: json.RawMessage(raw)}})
}

// resultMark starts the temporary id of a tool result entry (CUSF gives
// results no id): results are named once every other id is known, so a
// result never takes an id a later message uses.
const resultMark = "\x00result:"

// nameResults names the tool results "L" and their line number, made
// unique.
func nameResults(tl []session.Entry) {
	var ids session.IDs
	for i := range tl {
		ids.Add(tl[i].ID)
	}
	for i := range tl {
		e := &tl[i]
		if line, ok := strings.CutPrefix(e.ID, resultMark); ok {
			e.ID = ids.Unique("L" + line)
		}
	}
}

var providers = map[string]string{
	session.Claude: "anthropic",
	session.Codex:  "openai",
	session.Gemini: "google",
	session.Kimi:   "moonshot",
}
