package kimi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/adapters/internal/jsonread"
	"github.com/stead-dev/stead/session"
)

// Native format variants, as Source.Format names them.
const (
	FormatCode          = "kimi-code"        // Kimi Code wire.jsonl
	FormatLegacyWire    = "kimi-cli-wire"    // legacy wire.jsonl
	FormatLegacyContext = "kimi-cli-context" // legacy context.jsonl
)

// record is one line of any of the three formats, decoded once: Kimi Code's
// flat records ({"type", ...payload, "time"}), the legacy wire's
// {"timestamp", "message": {"type", "payload"}} and the legacy context's
// messages ({"role", "content", ...}). Fields whose shape differs by record
// type stay raw.
type record struct {
	Type string `json:"type"`
	// Kind is "event" on the derived event journal 2.1.0 interleaves, and
	// the request kind (loop, compaction) on llm.request.
	Kind            string          `json:"kind"`
	Time            float64         `json:"time"`
	CreatedAt       float64         `json:"created_at"`
	ProtocolVersion string          `json:"protocol_version"`
	Timestamp       float64         `json:"timestamp"`
	Message         json.RawMessage `json:"message"`
	Role            *string         `json:"role"`

	Event                 *loopEvent      `json:"event"`
	Usage                 *tokenUsage     `json:"usage"`
	Model                 string          `json:"model"`
	ModelAlias            string          `json:"modelAlias"`
	SystemPrompt          string          `json:"systemPrompt"`
	EnvironmentDisclosure *envDisclosure  `json:"environmentDisclosure"`
	Summary               json.RawMessage `json:"summary"`
	ContextSummary        string          `json:"contextSummary"`
	Count                 int             `json:"count"`
	Turns                 json.RawMessage `json:"turns"`
	FromTurnID            json.RawMessage `json:"fromTurnId"`
	Reason                string          `json:"reason"`
	Error                 json.RawMessage `json:"error"`
	DurationMs            float64         `json:"durationMs"`
	Step                  int             `json:"step"`
	NextAttempt           int             `json:"nextAttempt"`
	MaxAttempts           int             `json:"maxAttempts"`
	ErrorName             string          `json:"errorName"`
	ErrorMessage          string          `json:"errorMessage"`
	SubagentID            string          `json:"subagentId"`
	ParentToolCallID      string          `json:"parentToolCallId"`
	Info                  json.RawMessage `json:"info"`
	ToolCallID            string          `json:"toolCallId"`
	Result                json.RawMessage `json:"result"`

	// in, when set, has the fast reader read the message into it as
	// well (see inline).
	in *inline
}

type envDisclosure struct {
	Cwd string `json:"cwd"`
}

// tokenUsage is a model response's usage: Kimi Code's camelCase fields or
// the legacy snake_case ones. Input excludes cache reads and writes in both.
type tokenUsage struct {
	InputOther          int64 `json:"inputOther"`
	Output              int64 `json:"output"`
	InputCacheRead      int64 `json:"inputCacheRead"`
	InputCacheCreation  int64 `json:"inputCacheCreation"`
	InputOtherL         int64 `json:"input_other"`
	InputCacheReadL     int64 `json:"input_cache_read"`
	InputCacheCreationL int64 `json:"input_cache_creation"`
}

func (t *tokenUsage) universal() session.Usage {
	if t == nil {
		return session.Usage{}
	}
	return session.Usage{
		Input:      nonNeg(t.InputOther) + nonNeg(t.InputOtherL),
		Output:     nonNeg(t.Output),
		CacheRead:  nonNeg(t.InputCacheRead) + nonNeg(t.InputCacheReadL),
		CacheWrite: nonNeg(t.InputCacheCreation) + nonNeg(t.InputCacheCreationL),
	}
}

func nonNeg(n int64) int64 {
	if n < 0 {
		return 0
	}
	return n
}

// contextMessage is a Kimi Code ContextMessage, a legacy context.jsonl
// row, or a migrated journal's message (protocol 1.0: tool calls with a
// nested function).
type contextMessage struct {
	Role        string          `json:"role"`
	Content     json.RawMessage `json:"content"`
	ToolCalls   []toolCall      `json:"toolCalls"`
	ToolCallsL  []toolCall      `json:"tool_calls"`
	ToolCallID  string          `json:"toolCallId"`
	ToolCallIDL string          `json:"tool_call_id"`
	ID          string          `json:"id"`
	Origin      json.RawMessage `json:"origin"`
	IsError     bool            `json:"isError"`
	Usage       *tokenUsage     `json:"usage"`

	// in, when set, has the fast reader read the content into it as
	// well (see inline).
	in *inline
}

type toolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Function  *toolFunction   `json:"function"`
}

// toolFunction is a tool call's nested function (protocol 1.0, and the
// legacy wire's ToolCall).
type toolFunction struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func (c toolCall) name() string {
	if c.Function != nil && c.Name == "" {
		return c.Function.Name
	}
	return c.Name
}

func (c toolCall) args() json.RawMessage {
	if c.Function != nil && len(c.Arguments) == 0 {
		return c.Function.Arguments
	}
	return c.Arguments
}

// loopEvent is the event of a context.append_loop_event record.
type loopEvent struct {
	Type         string          `json:"type"`
	UUID         string          `json:"uuid"`
	Part         *part           `json:"part"`
	ToolCallID   string          `json:"toolCallId"`
	Name         string          `json:"name"`
	Args         json.RawMessage `json:"args"`
	Result       *toolOutcome    `json:"result"`
	FinishReason string          `json:"finishReason"`
	Usage        *tokenUsage     `json:"usage"`
}

type toolOutcome struct {
	Output  json.RawMessage `json:"output"`
	IsError bool            `json:"isError"`
	Note    string          `json:"note"`
}

// part is a content part: Kimi Code's (camelCase media fields) or the
// legacy kimi-cli's (snake_case).
type part struct {
	Type      string  `json:"type"`
	Text      string  `json:"text"`
	Think     string  `json:"think"`
	Encrypted *string `json:"encrypted"`
	ImageURL  *media  `json:"imageUrl"`
	AudioURL  *media  `json:"audioUrl"`
	VideoURL  *media  `json:"videoUrl"`
	ImageURLL *media  `json:"image_url"`
	AudioURLL *media  `json:"audio_url"`
	VideoURLL *media  `json:"video_url"`
}

type media struct {
	URL string `json:"url"`
}

// Decoder reads the records of a Kimi session file and yields universal
// events, one per record. It reads all three formats, telling them apart
// line by line: a Kimi Code wire.jsonl, a legacy kimi-cli wire.jsonl, and a
// legacy context.jsonl.
type Decoder struct {
	// Path names the file in warnings; a Kimi Code journal's blobs are
	// found beside it.
	Path string
	// SessionID is the id of the session the file belongs to: subagent
	// links are named <SessionID>/<agent>.
	SessionID string
	// Origin, when set, is the session a fork copied this journal from:
	// entries before the Forks-th "forked" record get it as their Origin.
	Origin string
	Forks  int

	r       *jsonl.Reader
	rec     record          // the record being read, reused
	jp      jsonread.Parser // reads records, reused
	in      inline          // what jp reads of a record beyond its fields
	row     contextMessage  // a legacy context row being read
	po      promptOrigin    // the origin of a message being read
	ids     session.IDs
	last    string // id of the last entry, for linear parent links
	format  string
	model   string // provider model of the latest llm.request
	alias   string // model alias of the latest profile.bind / config.update
	shown   string // model last reported in an Info
	step    step
	pending []string // tool calls of the current turn without a result
	unknown map[string]bool
	linked  map[string]bool   // subagents already linked to their call
	asks    map[string]string // legacy approval request id -> tool call id
	forked  int               // "forked" records seen
	batch   *batch            // allocates for a whole-session read (see batch); nil for a stream
}

// step is the model response being read: Kimi Code's step.begin to
// step.end, the legacy wire's StepBegin to the next one.
type step struct {
	open  bool
	first string // the step's first model entry, which takes its usage
	used  bool   // the usage went to first
	// rec is usage.record's usage, for a step.end without usage.
	rec session.Usage
}

// NewDecoder returns a decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{
		r: jsonl.NewReader(r), unknown: make(map[string]bool),
		linked: make(map[string]bool), asks: make(map[string]string),
	}
}

// Decode returns the event for the next record, or io.EOF at the end. A
// line that cannot be parsed yields an event holding only a warning.
func (d *Decoder) Decode() (session.Event, error) {
	rec := &d.rec
	line, err := jsonl.ReadInto(d.r, rec, d.parse)
	if err == io.EOF {
		return session.Event{}, io.EOF
	}
	if err != nil {
		return session.Event{}, fmt.Errorf("kimi: read %s: %w", d.name(), err)
	}
	ev := session.Event{Line: line.Line}
	if p := line.Report(d.Path); p != "" {
		ev.Warning = d.warn(line.Line, p)
	}
	if !line.Skipped {
		d.convert(rec, line.Raw, &ev)
	}
	return ev, nil
}

// parse reads a record with jsonread.Parse, several times faster than
// encoding/json, as jsonl.ReadInto calls it: encoding/json reads what
// Parse leaves to it, and decides what is wrong with a line. Parse
// declines invalid UTF-8, so what it reads needs no check.
func (d *Decoder) parse(line []byte, rec *record) (ok, nonASCII bool) {
	d.in.reset()
	rec.in = &d.in
	return d.jp.Parse(line, rec), false
}

func (d *Decoder) name() string {
	if d.Path == "" {
		return "input"
	}
	return d.Path
}

// warnOnce warns about an unknown kind of record the first time it is seen.
func (d *Decoder) warnOnce(ev *session.Event, key, msg string) {
	if d.unknown[key] {
		return
	}
	d.unknown[key] = true
	if ev.Warning == nil {
		ev.Warning = d.warn(ev.Line, msg)
	}
}

func (d *Decoder) setFormat(ev *session.Event, f string) {
	if d.format != f {
		d.format = f
		addInfo(ev).Format = f
	}
}

func addInfo(ev *session.Event) *session.Info {
	if ev.Info == nil {
		ev.Info = &session.Info{}
	}
	return ev.Info
}

func (d *Decoder) convert(rec *record, raw []byte, ev *session.Event) {
	var entries []session.Entry
	var ts time.Time
	switch {
	case rec.Type == "metadata":
		if rec.CreatedAt != 0 {
			d.setFormat(ev, FormatCode)
			addInfo(ev).Created = msTime(rec.CreatedAt)
		} else {
			d.setFormat(ev, FormatLegacyWire)
		}
	case rec.Kind == "event" && rec.Type != "":
		// The derived event journal 2.1.0 interleaves: it repeats what
		// the records around it say.
	case rec.Type != "":
		d.setFormat(ev, FormatCode)
		ts = msTime(rec.Time)
		entries = d.code(rec, ev)
	case len(rec.Message) > 0 && rec.Role == nil:
		d.setFormat(ev, FormatLegacyWire)
		ts = secTime(rec.Timestamp)
		var m *wireMessage
		if rec.in != nil && rec.in.wireOK {
			m = &rec.in.wire
		}
		entries = d.wire(rec.Message, m, ev)
	case rec.Role != nil:
		d.setFormat(ev, FormatLegacyContext)
		entries = d.contextRow(*rec.Role, raw, ev)
	default:
		d.warnOnce(ev, "untyped", "record of no known type kept verbatim")
	}
	d.finish(ev, raw, ts, entries)
}

// finish gives the entries of a record ids, times, parent links and the
// native record, or keeps the record when it produced none.
func (d *Decoder) finish(ev *session.Event, raw []byte, ts time.Time, entries []session.Entry) {
	if len(entries) == 0 {
		ev.Record = d.newRecord(session.Record{Line: ev.Line, Record: raw})
		return
	}
	origin := ""
	if d.Origin != "" && d.forked < d.Forks {
		origin = d.Origin
	}
	for i := range entries {
		e := &entries[i]
		e.ID = d.unique(e.ID, ev.Line, i)
		e.Timestamp = ts
		e.ParentID = d.last
		e.Origin = origin
		if (e.Type == session.Assistant || e.Type == session.ToolCall) && e.Model == "" {
			e.Model = d.currentModel()
		}
		if e.Type == session.ToolCall {
			d.pending = append(d.pending, e.ID)
		}
		if i == 0 {
			e.Native = d.newNative(session.Native{Line: ev.Line, Record: raw})
		} else {
			e.Native = d.newNative(session.Native{Line: ev.Line, Part: i})
		}
		d.last = e.ID
	}
	ev.Entries = entries
}

func (d *Decoder) currentModel() string {
	if d.model != "" {
		return d.model
	}
	return d.alias
}

func (d *Decoder) unique(id string, line, part int) string {
	if id == "" {
		// L<line>, or L<line>.<part>, built in one allocation.
		var buf [32]byte
		b := strconv.AppendInt(append(buf[:0], 'L'), int64(line), 10)
		if part > 0 {
			b = strconv.AppendInt(append(b, '.'), int64(part), 10)
		}
		id = string(b)
	}
	// A repeated id (a journal copied into itself, a provider reusing
	// call ids) gets the next free #n.
	return d.ids.Unique(id)
}

// stepEntry marks an entry the model produced in the open step: the first
// one takes the step's usage.
func (d *Decoder) stepEntry(e *session.Entry, line int) {
	if d.step.open && d.step.first == "" {
		// The id finish will give it: set it now so the usage can find it.
		e.ID = d.unique(e.ID, line, 0)
		d.step.first = e.ID
		d.ids.Forget(e.ID) // finish registers it
	}
}

// usage gives a model response's usage a home: the first entry of the open
// step when it has one and no usage yet, or else an entry of its own (a
// response with no content, a compaction request).
func (d *Decoder) usage(ev *session.Event, u session.Usage) []session.Entry {
	if u.IsZero() {
		return nil
	}
	if d.step.open && d.step.first != "" && !d.step.used {
		d.step.used = true
		ev.Updates = append(ev.Updates, session.Update{EntryID: d.step.first, Usage: d.newUsage(u)})
		return nil
	}
	return d.one(session.Entry{Type: session.Assistant, Usage: d.newUsage(u)})
}

// resolve removes a tool call from those awaiting a result.
func (d *Decoder) resolve(callID string) {
	for i, id := range d.pending {
		if id == callID {
			d.pending = append(d.pending[:i], d.pending[i+1:]...)
			return
		}
	}
}

// interrupt marks the tool calls still awaiting a result interrupted.
func (d *Decoder) interrupt(ev *session.Event) {
	for _, id := range d.pending {
		ev.Updates = append(ev.Updates, session.Update{EntryID: id, Status: session.StatusInterrupted})
	}
	d.pending = d.pending[:0]
}

// link links the tool call callID to the subagent agent, once.
func (d *Decoder) link(ev *session.Event, agent, callID string) {
	if agent == "" || callID == "" || d.linked[agent] {
		return
	}
	d.linked[agent] = true
	id := agent
	if d.SessionID != "" {
		id = d.SessionID + "/" + agent
	}
	ev.Updates = append(ev.Updates, session.Update{EntryID: callID, Subagent: &session.Link{
		Kind: session.LinkSubagent, CLI: session.Kimi, ID: id, AgentID: agent, CallID: callID,
	}})
}

// message converts a context message (Kimi Code's or a legacy context
// row); userKind classifies a user message, given its first text part.
func (d *Decoder) message(m *contextMessage, ev *session.Event, userKind func(d *Decoder, m *contextMessage, first string) (session.EntryType, string)) []session.Entry {
	c := d.messageContent(m)
	switch m.Role {
	case "user":
		typ, kind := userKind(d, m, c.first)
		return d.one(session.Entry{ID: m.ID, Type: typ, Kind: kind, Content: c.text, Attachments: c.atts})
	case "assistant":
		calls := m.ToolCalls
		if len(calls) == 0 {
			calls = m.ToolCallsL
		}
		u := m.Usage.universal()
		text := c.text != "" || c.thinking != "" || len(c.atts) > 0 || len(calls) == 0 || !u.IsZero()
		n := len(calls)
		if text {
			n++
		}
		entries := d.entries(n)[:0]
		if text {
			entries = append(entries, session.Entry{
				ID: m.ID, Type: session.Assistant, Content: c.text, Thinking: c.thinking,
				Reasoning: c.reasoning, Attachments: c.atts,
			})
		}
		for _, tc := range calls {
			name := tc.name()
			entries = append(entries, session.Entry{
				ID: tc.ID, Type: session.ToolCall, Tool: UniversalTool(name), OriginalTool: name,
				Input: argsInput(tc.args()),
			})
		}
		if !u.IsZero() {
			entries[0].Usage = d.newUsage(u)
		}
		return entries
	case "tool":
		callID := m.ToolCallID
		if callID == "" {
			callID = m.ToolCallIDL
		}
		d.resolve(callID)
		ok := !m.IsError && !isErrorText(c.first)
		text := c.text
		if ok {
			text = stripSystem(text)
		}
		return d.one(toolResultEntry(callID, ok, text, c.atts))
	case "system":
		return d.one(session.Entry{ID: m.ID, Type: session.System, Kind: session.KindInstructions, Content: c.text})
	}
	d.warnOnce(ev, "role/"+m.Role, fmt.Sprintf("message of unknown role %q kept verbatim", m.Role))
	return nil
}

func toolResultEntry(callID string, ok bool, text string, atts []session.Attachment) session.Entry {
	e := session.Entry{Type: session.ToolResult, CallID: callID, Success: ok, Attachments: atts}
	if callID != "" {
		e.ID = callID + ":result"
	}
	if ok {
		e.Output = text
	} else {
		e.Error = text
		if t := strings.TrimSpace(text); t == interruptedResult || t == "<system>ERROR: "+interruptedResult+"</system>" {
			// The result Kimi Code sends for a call that never finished,
			// which stead writes into kimi-cli sessions for such calls.
			e.Status = session.StatusInterrupted
		}
	}
	return e
}

// partEntry converts a content part of the model's output.
func (d *Decoder) partEntry(p *part, id string) (session.Entry, bool) {
	var c content
	d.addPart(&c, p)
	if c.text == "" && c.thinking == "" && len(c.reasoning) == 0 && len(c.atts) == 0 {
		return session.Entry{}, false
	}
	return session.Entry{ID: id, Type: session.Assistant, Content: c.text, Thinking: c.thinking, Reasoning: c.reasoning, Attachments: c.atts}, true
}

// content is message content flattened: text parts joined, thinking, and
// media as attachments.
type content struct {
	text      string // non-empty text parts, joined by newlines
	first     string // the first non-empty text part
	thinking  string
	reasoning []session.Reasoning
	atts      []session.Attachment
}

// quickParts reads a list of parts as content does (an element that is
// not an object is no part), or reports false.
func quickParts(raw []byte) (ps []part, ok bool) {
	ok = jsonread.ParseValue(raw, func(p *jsonread.Parser) { ps = readParts(p, ps) })
	return ps, ok
}

// messageContent flattens the content of m, as read with it when it
// was (see inline).
func (d *Decoder) messageContent(m *contextMessage) content {
	in := m.in
	if in == nil || !in.contentOK {
		return d.content(m.Content)
	}
	var c content
	if in.isText {
		d.addPart(&c, &part{Type: "text", Text: in.text})
		return c
	}
	for i := range in.parts {
		d.addPart(&c, &in.parts[i])
	}
	return c
}

// content flattens content: a string, an array of parts, or null.
func (d *Decoder) content(raw json.RawMessage) content {
	var c content
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return c
	}
	switch raw[0] {
	case '"':
		d.addPart(&c, &part{Type: "text", Text: jsonText(raw)})
	case '[':
		if ps, ok := quickParts(raw); ok {
			for i := range ps {
				d.addPart(&c, &ps[i])
			}
			return c
		}
		var parts []json.RawMessage
		_ = json.Unmarshal(raw, &parts)
		for _, pr := range parts {
			var p part
			if json.Unmarshal(pr, &p) == nil || p.Type != "" {
				d.addPart(&c, &p)
			}
		}
	}
	return c
}

func (d *Decoder) addPart(c *content, p *part) {
	switch p.Type {
	case "text":
		if p.Text == "" {
			return
		}
		if c.text == "" {
			c.first, c.text = p.Text, p.Text
		} else {
			c.text += "\n" + p.Text
		}
	case "think":
		if p.Think == "" && (p.Encrypted == nil || *p.Encrypted == "") {
			return
		}
		if c.thinking != "" && p.Think != "" {
			c.thinking += "\n"
		}
		c.thinking += p.Think
		r := session.Reasoning{Format: "kimi", Text: p.Think}
		if p.Encrypted != nil {
			r.Encrypted = *p.Encrypted
		}
		c.reasoning = append(c.reasoning, r)
	case "image_url", "audio_url", "video_url":
		m := firstMedia(p.ImageURL, p.ImageURLL, p.AudioURL, p.AudioURLL, p.VideoURL, p.VideoURLL)
		if m != nil && m.URL != "" {
			c.atts = append(c.atts, d.attachment(strings.TrimSuffix(p.Type, "_url"), m.URL))
		}
	}
}

func firstMedia(ms ...*media) *media {
	for _, m := range ms {
		if m != nil {
			return m
		}
	}
	return nil
}

// attachment turns a media URL into an attachment: a data: URL is
// embedded, a blobref: (Kimi Code's offloaded media, kimi.md §3.5) points
// at the blob beside the journal, anything else is kept as a URL.
func (d *Decoder) attachment(kind, url string) session.Attachment {
	a := session.Attachment{Type: kind}
	switch {
	case strings.HasPrefix(url, "data:"):
		head, data, ok := strings.Cut(strings.TrimPrefix(url, "data:"), ",")
		if mt, isB64 := strings.CutSuffix(head, ";base64"); ok && isB64 {
			a.MediaType, a.Data = mt, data
		} else {
			a.URL = url
		}
	case strings.HasPrefix(url, "blobref:"):
		mt, sum, _ := strings.Cut(strings.TrimPrefix(url, "blobref:"), ";")
		a.MediaType = mt
		if d.Path != "" && validName(sum) {
			a.Path = filepath.Join(filepath.Dir(d.Path), "blobs", sum)
		} else {
			a.URL = url
		}
	default:
		a.URL = url
	}
	return a
}

// argsInput turns a tool call's arguments (a JSON string of an object, or
// null) into a tool input.
func argsInput(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		if s, ok := jsonread.QuickString(raw); ok {
			return objectInput(json.RawMessage(s), "arguments")
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return objectInput(json.RawMessage(s), "arguments")
		}
	}
	return objectInput(raw, "arguments")
}

// objectInput returns raw as a tool input: as it is when it is a JSON
// object, else wrapped as {key: raw} (or {key: "<raw>"} when raw is not
// JSON at all); null and nothing are {}.
func objectInput(raw json.RawMessage, key string) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage(`{}`)
	}
	if t[0] == '{' {
		if b, ok := jsonread.AppendCompact(make([]byte, 0, len(t)), t); ok {
			return b
		}
	}
	var v any = string(raw)
	if json.Valid(t) {
		v = json.RawMessage(t)
	}
	b, _ := json.Marshal(map[string]any{key: v})
	return b
}

// wordSet returns the set of the space-separated words in s.
func wordSet(s string) map[string]bool {
	set := make(map[string]bool)
	for _, w := range strings.Fields(s) {
		set[w] = true
	}
	return set
}

// jsonText returns raw as a string when it is a JSON string, else "".
func jsonText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	if s, ok := jsonread.QuickString(raw); ok {
		return s
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// isErrorText reports whether a tool message's first text part is the
// error kimi-cli puts there ("<system>ERROR: ...</system>").
func isErrorText(first string) bool {
	return strings.HasPrefix(strings.TrimSpace(first), "<system>ERROR")
}

// stripSystem returns a tool message's text without the leading
// "<system>…</system>" parts kimi-cli writes before the output (a note
// such as "Command executed successfully."), unless that is all there is.
func stripSystem(text string) string {
	for {
		t := strings.TrimLeft(text, " \n")
		if !strings.HasPrefix(t, "<system>") {
			break
		}
		end := strings.Index(t, "</system>")
		if end < 0 {
			break
		}
		rest := strings.TrimLeft(t[end+len("</system>"):], "\n")
		if rest == "" {
			break
		}
		text = rest
	}
	return text
}

// msTime converts epoch milliseconds; values outside years 1970 to 9999
// read as no time.
func msTime(ms float64) time.Time {
	if !(ms > 0 && ms < 253402300800000) {
		return time.Time{}
	}
	return time.UnixMilli(int64(ms)).UTC()
}

// secTime converts epoch seconds with a fraction, kept to the
// millisecond.
func secTime(s float64) time.Time {
	if !(s > 0 && s < 253402300800) {
		return time.Time{}
	}
	return time.UnixMilli(int64(math.Round(s * 1000))).UTC()
}

// Read decodes a whole Kimi session file from r.
func Read(r io.Reader) (*session.Session, error) {
	return read(NewDecoder(r))
}

func read(dec *Decoder) (*session.Session, error) {
	dec.batch = new(batch)
	b := session.NewBuilder(session.Kimi, dec.Path)
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
