package opencode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stead-dev/stead/session"
)

// WriteVersion is the OpenCode version written sessions claim: the one
// whose schemas and loading rules the writer follows (opencode.md §3, §4).
const WriteVersion = "1.18.33"

// agent is the agent (and mode) written messages name: OpenCode's
// default primary agent.
const agent = "build"

// aborted is OpenCode's own error for a tool call that never finished
// (SessionProcessor.cleanup): the model sees it as the call's error.
const aborted = "Tool execution aborted"

// Encoder writes a session as the JSON document of `opencode export`,
// which `opencode import` reads and Commit installs:
//
//	{"info": {session}, "messages": [{"info": {message}, "parts": [{part}, …]}, …]}
//
// The session's info comes first, then one message per line. It is
// streamed: only the model response being written is held, until its tool
// calls have their results. Each user entry is a user message; each model
// response an assistant message (a new one after tool results, or when
// the response's message id changes) whose steps are framed by step-start
// and step-finish parts, a new step where another usage begins. Every
// field OpenCode's schemas require is filled (a tool state without its
// time crashes OpenCode's prompt loop), with OpenCode's own conventions:
// a tool call and its result are one tool part, a call that never
// finished is an error "Tool execution aborted" marked interrupted,
// thinking is a reasoning part (with Anthropic's signature when it has
// one), usage is written as OpenCode counts it (input without cache
// reads and writes, output without reasoning).
type Encoder struct {
	w    io.Writer
	t    session.Target
	lost func(session.Loss)
	err  error

	ids      idClock
	root     string // the project's worktree, as assistant messages record it
	started  bool
	written  int       // messages written
	lastMs   int64     // creation time of the last message
	last     time.Time // the latest timestamp seen
	user     string    // the last user message, parent of the replies
	cur      *reply
	callIDs  map[string]string // source call id -> written callID
	usedIDs  map[string]bool
	warned   map[string]bool // one-off losses already reported
	noParent string          // parent of replies before any user message
}

// reply is the assistant message being written.
type reply struct {
	info  assistantInfo
	src   string // the source's message id
	parts []any
	calls map[string]*toolPart // source call id -> its part
	// done is set once a tool result is written: what the model says
	// next is a new response.
	done bool
	// the current step's usage and whether it calls tools.
	stepUsage *session.Usage
	stepTools bool
	lastUsage *session.Usage
	anyTools  bool
}

// NewEncoder returns an encoder of the session t to w; lost hears what
// OpenCode cannot hold.
func NewEncoder(w io.Writer, t session.Target, lost func(session.Loss)) *Encoder {
	if lost == nil {
		lost = func(session.Loss) {}
	}
	if t.Created.IsZero() {
		t.Created = now()
	}
	return &Encoder{w: w, t: t, lost: lost, root: worktree(t.Dir), last: t.Created,
		callIDs: map[string]string{}, usedIDs: map[string]bool{}, warned: map[string]bool{}}
}

// The records, in the field order OpenCode's schemas give them.

type timeSpan struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

type sessionOut struct {
	ID        string         `json:"id"`
	Slug      string         `json:"slug"`
	ProjectID string         `json:"projectID"`
	Directory string         `json:"directory"`
	Path      string         `json:"path"`
	Title     string         `json:"title"`
	Version   string         `json:"version"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	Time      struct {
		Created int64 `json:"created"`
		Updated int64 `json:"updated"`
	} `json:"time"`
}

type modelRef struct {
	ProviderID string `json:"providerID"`
	ModelID    string `json:"modelID"`
}

type userInfo struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
	Role      string `json:"role"`
	Time      struct {
		Created int64 `json:"created"`
	} `json:"time"`
	Agent string   `json:"agent"`
	Model modelRef `json:"model"`
}

type tokensOut struct {
	Total     int64 `json:"total"`
	Input     int64 `json:"input"`
	Output    int64 `json:"output"`
	Reasoning int64 `json:"reasoning"`
	Cache     struct {
		Read  int64 `json:"read"`
		Write int64 `json:"write"`
	} `json:"cache"`
}

type assistantInfo struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
	Role      string `json:"role"`
	Time      struct {
		Created   int64 `json:"created"`
		Completed int64 `json:"completed"`
	} `json:"time"`
	ParentID   string `json:"parentID"`
	ModelID    string `json:"modelID"`
	ProviderID string `json:"providerID"`
	Mode       string `json:"mode"`
	Agent      string `json:"agent"`
	Path       struct {
		Cwd  string `json:"cwd"`
		Root string `json:"root"`
	} `json:"path"`
	Summary bool      `json:"summary,omitempty"`
	Cost    float64   `json:"cost"`
	Tokens  tokensOut `json:"tokens"`
	Finish  string    `json:"finish,omitempty"`
}

type partIDs struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
}

type textPart struct {
	partIDs
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Time     *timeSpan       `json:"time,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

type reasoningPart struct {
	partIDs
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
	Time     timeSpan        `json:"time"`
}

type filePart struct {
	partIDs
	Type     string `json:"type"`
	Mime     string `json:"mime"`
	Filename string `json:"filename,omitempty"`
	URL      string `json:"url"`
}

type stepStart struct {
	partIDs
	Type string `json:"type"`
}

type stepFinish struct {
	partIDs
	Type   string    `json:"type"`
	Reason string    `json:"reason"`
	Cost   float64   `json:"cost"`
	Tokens tokensOut `json:"tokens"`
}

type toolPart struct {
	partIDs
	Type   string `json:"type"`
	CallID string `json:"callID"`
	Tool   string `json:"tool"`
	State  any    `json:"state"`

	input  json.RawMessage
	start  int64
	native map[string]json.RawMessage // the recorded state, for OpenCode's own calls
}

type completedState struct {
	Status      string          `json:"status"`
	Input       json.RawMessage `json:"input"`
	Output      string          `json:"output"`
	Title       string          `json:"title"`
	Metadata    map[string]any  `json:"metadata"`
	Time        timeSpan        `json:"time"`
	Attachments []filePart      `json:"attachments,omitempty"`
}

type errorState struct {
	Status   string          `json:"status"`
	Input    json.RawMessage `json:"input"`
	Error    string          `json:"error"`
	Metadata map[string]any  `json:"metadata,omitempty"`
	Time     timeSpan        `json:"time"`
}

// Encode writes one entry.
func (e *Encoder) Encode(en *session.Entry) error {
	if e.err != nil {
		return e.err
	}
	e.start()
	if !en.Timestamp.IsZero() && en.Timestamp.After(e.last) {
		e.last = en.Timestamp
	}
	switch en.Type {
	case session.User:
		e.flush()
		e.userMessage(en)
	case session.Assistant:
		e.assistant(en)
	case session.ToolCall:
		e.call(en)
	case session.ToolResult:
		e.result(en)
	}
	return e.err
}

// Close finishes the document.
func (e *Encoder) Close() error {
	e.start()
	e.flush()
	e.write([]byte("]}\n"))
	return e.err
}

// at returns an entry's time in milliseconds: its own, else the latest
// seen.
func (e *Encoder) at(ts time.Time) int64 {
	if ts.IsZero() {
		ts = e.last
	}
	return ts.UnixMilli()
}

// messageTime returns the creation time of a new message: never before
// the last one's, since OpenCode orders messages by it.
func (e *Encoder) messageTime(ts time.Time) int64 {
	ms := e.at(ts)
	if ms < e.lastMs {
		ms = e.lastMs
	}
	e.lastMs = ms
	return ms
}

func (e *Encoder) start() {
	if e.started {
		return
	}
	e.started = true
	var s sessionOut
	s.ID, s.Slug, s.ProjectID, s.Directory = e.t.ID, slug(e.t), "global", e.t.Dir
	s.Path = relPath(e.root, e.t.Dir)
	s.Title = e.t.Title
	if s.Title == "" {
		// OpenCode's placeholder, which reads as no title. OpenCode
		// titles a session only at its first prompt; Commit titles it
		// after its first prompt instead.
		s.Title = "New session - " + e.t.Created.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	s.Version = WriteVersion
	if e.t.Origin.CLI != "" || e.t.Origin.ID != "" {
		// Provenance goes in the session's metadata, a free-form
		// record OpenCode keeps (and `opencode import` carries over).
		s.Metadata = map[string]any{"steadOrigin": e.t.Origin}
	}
	s.Time.Created = e.t.Created.UnixMilli()
	// Updated when stead writes it, as the provenance records it.
	updated := e.t.Origin.Written
	if updated.IsZero() {
		updated = now()
	}
	s.Time.Updated = max(updated.UnixMilli(), s.Time.Created)
	var b bytes.Buffer
	b.WriteString(`{"info":`)
	e.encode(&b, s)
	b.WriteString(`,"messages":[` + "\n")
	e.write(b.Bytes())
	if e.t.Model == "" {
		e.lost(session.Loss{What: session.LostEntry, How: session.HandledWarned, Detail: "no model is known for the session: " +
			"its messages name unknown/unknown, so continue it with opencode --model provider/model"})
	}
}

// slug is the session's short name (OpenCode makes an adjective-noun
// pair): the source CLI and the end of the id.
func slug(t session.Target) string {
	src := strings.ToLower(t.Origin.CLI)
	if src == "" {
		src = "imported"
	}
	return src + "-" + strings.ToLower(t.ID[max(len(t.ID)-6, 0):])
}

func (e *Encoder) userMessage(en *session.Entry) {
	var info userInfo
	ms := e.messageTime(en.Timestamp)
	info.ID, info.SessionID, info.Role, info.Agent = e.ids.ascending("msg", ms), e.t.ID, "user", agent
	info.Time.Created = ms
	info.Model = modelRef{ProviderID: orUnknown(e.t.Provider, session.ProviderOf(e.t.Model)), ModelID: orUnknown(e.t.Model, "")}
	var parts []any
	if en.Content != "" {
		parts = append(parts, textPart{partIDs: e.partIDs(info.ID, ms), Type: "text", Text: en.Content})
	}
	for _, a := range en.Attachments {
		if p, ok := e.filePart(en, a, info.ID, ms); ok {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return
	}
	e.user = info.ID
	e.message(info, parts)
}

// reply returns the assistant message en belongs to: the one being
// written, or a new one.
func (e *Encoder) reply(en *session.Entry) *reply {
	if m := e.cur; m != nil && !m.done && (en.MessageID == "" || m.src == "" || en.MessageID == m.src) {
		return m
	}
	e.flush()
	m := &reply{src: en.MessageID, calls: map[string]*toolPart{}}
	ms := e.messageTime(en.Timestamp)
	i := &m.info
	i.ID, i.SessionID, i.Role, i.Mode, i.Agent = e.ids.ascending("msg", ms), e.t.ID, "assistant", agent, agent
	i.Time.Created, i.Time.Completed = ms, ms
	i.ParentID = e.user
	if i.ParentID == "" {
		// A reply before any prompt: OpenCode needs a parent id, which
		// needs no message behind it.
		if e.noParent == "" {
			e.noParent = e.ids.ascending("msg", ms)
		}
		i.ParentID = e.noParent
	}
	i.ModelID, i.ProviderID = e.modelOf(en.Model)
	i.Path.Cwd, i.Path.Root = e.t.Dir, e.root
	e.cur = m
	m.parts = append(m.parts, stepStart{partIDs: e.partIDs(i.ID, ms), Type: "step-start"})
	return m
}

// modelOf returns the model and provider of a reply by model: history,
// the model that wrote it (the entry's, else the source session's), which
// OpenCode shows; it continues with the user messages' model (Target's).
func (e *Encoder) modelOf(model string) (string, string) {
	switch {
	case model == "" && e.t.SourceModel != "":
		return e.t.SourceModel, orUnknown(e.t.SourceProvider, session.ProviderOf(e.t.SourceModel))
	case model == "" || model == e.t.Model:
		return orUnknown(e.t.Model, ""), orUnknown(e.t.Provider, session.ProviderOf(e.t.Model))
	}
	return model, orUnknown(session.ProviderOf(model), "")
}

func orUnknown(a, b string) string {
	switch {
	case a != "":
		return a
	case b != "":
		return b
	}
	return "unknown"
}

// add appends a part of the model's output to the reply, starting a new
// step where another usage begins.
func (e *Encoder) add(m *reply, en *session.Entry, ms int64, p any) {
	if en.Usage != nil && m.stepUsage != nil {
		e.endStep(m, ms)
		m.parts = append(m.parts, stepStart{partIDs: e.partIDs(m.info.ID, ms), Type: "step-start"})
	}
	if en.Usage != nil {
		u := *en.Usage
		m.stepUsage = &u
	}
	m.parts = append(m.parts, p)
	if ms > m.info.Time.Completed {
		m.info.Time.Completed = ms
	}
}

// endStep closes the current step with its usage.
func (e *Encoder) endStep(m *reply, ms int64) {
	reason := "stop"
	if m.stepTools {
		reason = "tool-calls"
	}
	var u session.Usage
	if m.stepUsage != nil {
		u = *m.stepUsage
		m.lastUsage = m.stepUsage
	}
	m.parts = append(m.parts, stepFinish{partIDs: e.partIDs(m.info.ID, ms), Type: "step-finish", Reason: reason, Tokens: tokensOf(u)})
	m.stepUsage, m.stepTools = nil, false
}

// tokensOf counts usage as OpenCode does: input without cache reads and
// writes (as the universal Input already is), output without reasoning.
func tokensOf(u session.Usage) tokensOut {
	var t tokensOut
	t.Input, t.Reasoning = u.Input, u.Reasoning
	t.Output = u.Output - u.Reasoning
	if t.Output < 0 {
		t.Output, t.Reasoning = u.Output, 0
	}
	t.Cache.Read, t.Cache.Write = u.CacheRead, u.CacheWrite
	t.Total = u.Total()
	return t
}

func (e *Encoder) assistant(en *session.Entry) {
	ms := e.at(en.Timestamp)
	m := e.reply(en)
	if en.Kind == session.KindSummary {
		m.info.Summary = true
	}
	span := &timeSpan{Start: ms, End: ms}
	for _, p := range e.reasoning(en, m.info.ID, ms) {
		e.add(m, en, ms, p)
	}
	if en.Content != "" {
		e.add(m, en, ms, textPart{partIDs: e.partIDs(m.info.ID, ms), Type: "text", Text: en.Content, Time: span,
			Metadata: nativeField(en, "text", "metadata")})
	}
	for _, a := range en.Attachments {
		if p, ok := e.filePart(en, a, m.info.ID, ms); ok {
			e.add(m, en, ms, p)
		}
	}
}

// reasoning writes an entry's thinking as reasoning parts. A part keeps
// what OpenCode passes back to the provider that made it: Anthropic's
// signature or redacted data (OpenCode sends reasoning back, as thinking
// to Anthropic or as reasoning_content to OpenAI-compatible providers,
// only to the model that wrote it; to any other model as plain text).
// OpenAI's encrypted reasoning is not carried: OpenCode would send it
// back by item id, which fails unless OpenAI stored the item.
func (e *Encoder) reasoning(en *session.Entry, msgID string, ms int64) []any {
	span := timeSpan{Start: ms, End: ms}
	if nativeType(en) == "reasoning" {
		// OpenCode's own reasoning, with its provider metadata as it was.
		return []any{reasoningPart{partIDs: e.partIDs(msgID, ms), Type: "reasoning", Text: en.Thinking,
			Metadata: nativeField(en, "reasoning", "metadata"), Time: span}}
	}
	var parts []any
	signedText := false
	for _, r := range en.Reasoning {
		var meta map[string]any
		switch {
		case r.Format == "anthropic" && r.Signature != "":
			meta = map[string]any{"anthropic": map[string]any{"signature": r.Signature}}
			signedText = true
		case r.Format == "anthropic-redacted" && r.Encrypted != "":
			meta = map[string]any{"anthropic": map[string]any{"redactedData": r.Encrypted}}
		default:
			if r.Encrypted != "" {
				e.lost(session.Loss{Entry: en.ID, What: session.LostReasoning, How: session.HandledDropped,
					Detail: "encrypted reasoning of another provider is not carried: OpenCode sends reasoning back by the provider's item id, which fails unless the provider stored the item; its text is kept"})
			}
			continue
		}
		b, _ := json.Marshal(meta)
		parts = append(parts, reasoningPart{partIDs: e.partIDs(msgID, ms), Type: "reasoning", Text: r.Text, Metadata: b, Time: span})
	}
	if en.Thinking != "" && !signedText {
		parts = append(parts, reasoningPart{partIDs: e.partIDs(msgID, ms), Type: "reasoning", Text: en.Thinking, Time: span})
	}
	if en.Thinking != "" && en.Native == nil && !e.warned["thinking"] {
		if model, provider := e.modelOf(en.Model); model != e.t.Model || provider != e.t.Provider {
			e.warned["thinking"] = true
			e.lost(session.Loss{Entry: en.ID, What: session.LostThinking, How: session.HandledWarned,
				Detail: fmt.Sprintf("thinking is kept as OpenCode reasoning; OpenCode sends reasoning back as such only to the model that wrote it (%s/%s), to %s as plain assistant text",
					provider, model, orUnknown(e.t.Provider, "")+"/"+orUnknown(e.t.Model, ""))})
		}
	}
	return parts
}

func (e *Encoder) call(en *session.Entry) {
	ms := e.at(en.Timestamp)
	m := e.reply(en)
	input := json.RawMessage(`{}`)
	if t := bytes.TrimSpace(en.Input); len(t) > 0 && t[0] == '{' {
		input = t
	} else if len(t) > 0 && string(t) != "null" {
		input, _ = json.Marshal(map[string]json.RawMessage{"input": t})
	}
	p := &toolPart{partIDs: e.partIDs(m.info.ID, ms), Type: "tool", CallID: e.callID(en.ID), Tool: en.OriginalTool,
		input: input, start: ms}
	if p.Tool == "" {
		p.Tool = string(en.Tool)
	}
	if st := nativeField(en, "tool", "state"); len(st) > 0 {
		json.Unmarshal(st, &p.native)
	}
	m.calls[en.ID] = p
	e.add(m, en, ms, p)
	m.stepTools, m.anyTools = true, true
}

func (e *Encoder) result(en *session.Entry) {
	m := e.cur
	var p *toolPart
	if m != nil {
		p = m.calls[en.CallID]
	}
	if p == nil || p.State != nil {
		e.lost(session.Loss{Entry: en.ID, What: session.LostResult, How: session.HandledDropped,
			Detail: "a tool result whose call is not in the model response being written"})
		return
	}
	m.done = true
	end := e.at(en.Timestamp)
	if end < p.start {
		end = p.start
	}
	span := timeSpan{Start: p.start, End: end}
	if end > m.info.Time.Completed {
		m.info.Time.Completed = end
	}
	if en.Kind != session.KindPlaceholder && en.Native != nil && p.native != nil {
		if st, ok := e.nativeState(p, span, m.info.ID); ok {
			p.State = st
			return
		}
	}
	switch {
	case en.Kind == session.KindPlaceholder:
		p.State = errorState{Status: "error", Input: p.input, Error: aborted, Metadata: map[string]any{"interrupted": true}, Time: span}
	case en.Success || en.Status == session.StatusOK:
		st := completedState{Status: "completed", Input: p.input, Output: en.Output, Title: title(p.Tool, p.input, e.t.Dir),
			Metadata: map[string]any{}, Time: span}
		// The TUI shows a command's output and a todo list from the
		// metadata.
		switch p.Tool {
		case "bash":
			st.Metadata["output"] = en.Output
		case "todowrite":
			var in struct {
				Todos json.RawMessage `json:"todos"`
			}
			if json.Unmarshal(p.input, &in) == nil && len(in.Todos) > 0 {
				st.Metadata["todos"] = in.Todos
			}
		}
		for _, a := range en.Attachments {
			if f, ok := e.filePart(en, a, m.info.ID, end); ok {
				st.Attachments = append(st.Attachments, f)
			}
		}
		p.State = st
	case en.Status == session.StatusInterrupted:
		msg := firstNonEmpty(en.Error, en.Output, aborted)
		p.State = errorState{Status: "error", Input: p.input, Error: msg, Metadata: map[string]any{"interrupted": true}, Time: span}
	default:
		p.State = errorState{Status: "error", Input: p.input, Error: firstNonEmpty(en.Error, en.Output, "error"), Time: span}
	}
	if _, ok := p.State.(errorState); ok && len(en.Attachments) > 0 {
		e.lost(session.Loss{Entry: en.ID, What: session.LostAttachment, How: session.HandledDropped,
			Detail: "OpenCode keeps attachments only on tool results that succeeded"})
	}
}

// nativeState returns the state OpenCode recorded for one of its own tool
// calls, finished, with the call's input and the new ids of its
// attachments.
func (e *Encoder) nativeState(p *toolPart, span timeSpan, msgID string) (map[string]json.RawMessage, bool) {
	st := map[string]json.RawMessage{}
	for k, v := range p.native {
		st[k] = v
	}
	var status string
	json.Unmarshal(st["status"], &status)
	if status != "completed" && status != "error" {
		return nil, false
	}
	st["input"] = p.input
	var t struct {
		Start int64 `json:"start"`
		End   int64 `json:"end"`
	}
	if json.Unmarshal(st["time"], &t) != nil || t.Start == 0 || t.End == 0 {
		st["time"], _ = json.Marshal(span)
	}
	if status == "completed" {
		for _, k := range []string{"output", "title"} {
			if _, ok := st[k]; !ok {
				st[k] = json.RawMessage(`""`)
			}
		}
		if _, ok := st["metadata"]; !ok {
			st["metadata"] = json.RawMessage(`{}`)
		}
	}
	if raw, ok := st["attachments"]; ok {
		var atts []map[string]json.RawMessage
		if json.Unmarshal(raw, &atts) == nil {
			for _, a := range atts {
				ids := e.partIDs(msgID, span.End)
				a["id"], _ = json.Marshal(ids.ID)
				a["sessionID"], _ = json.Marshal(ids.SessionID)
				a["messageID"], _ = json.Marshal(ids.MessageID)
			}
			st["attachments"], _ = json.Marshal(atts)
		}
	}
	return st, true
}

// flush writes the reply being held, giving a call still without a
// result OpenCode's own "aborted" error.
func (e *Encoder) flush() {
	m := e.cur
	if m == nil {
		return
	}
	e.cur = nil
	for _, p := range m.parts {
		if tp, ok := p.(*toolPart); ok && tp.State == nil {
			tp.State = errorState{Status: "error", Input: tp.input, Error: aborted, Metadata: map[string]any{"interrupted": true},
				Time: timeSpan{Start: tp.start, End: max(tp.start, m.info.Time.Completed)}}
		}
	}
	e.endStep(m, m.info.Time.Completed)
	if m.lastUsage != nil {
		m.info.Tokens = tokensOf(*m.lastUsage)
	}
	m.info.Finish = "stop"
	if m.anyTools {
		if _, isTool := lastContent(m.parts).(*toolPart); isTool {
			m.info.Finish = "tool-calls"
		}
	}
	e.message(m.info, m.parts)
}

// lastContent returns the last part that is not a step marker.
func lastContent(parts []any) any {
	for i := len(parts) - 1; i >= 0; i-- {
		switch parts[i].(type) {
		case stepStart, stepFinish:
			continue
		}
		return parts[i]
	}
	return nil
}

// message writes one element of the messages array.
func (e *Encoder) message(info any, parts []any) {
	var b bytes.Buffer
	if e.written > 0 {
		b.WriteByte(',')
	}
	b.WriteString(`{"info":`)
	e.encode(&b, info)
	b.WriteString(`,"parts":[`)
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		e.encode(&b, p)
	}
	b.WriteString("]}\n")
	e.written++
	e.write(b.Bytes())
}

// encode writes v as compact JSON, keeping text as it is (no HTML
// escapes).
func (e *Encoder) encode(b *bytes.Buffer, v any) {
	if e.err != nil {
		return
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		e.err = fmt.Errorf("opencode: %w", err)
		return
	}
	b.Truncate(b.Len() - 1) // the newline Encode adds
}

func (e *Encoder) write(b []byte) {
	if e.err != nil {
		return
	}
	_, e.err = e.w.Write(b)
}

func (e *Encoder) partIDs(msgID string, ms int64) partIDs {
	return partIDs{ID: e.ids.ascending("prt", ms), SessionID: e.t.ID, MessageID: msgID}
}

// filePart writes an attachment as a file part: its data as a data: URL,
// or its URL. One known only by its path is not carried (the model would
// get a file: URL it cannot open).
func (e *Encoder) filePart(en *session.Entry, a session.Attachment, msgID string, ms int64) (filePart, bool) {
	mime := a.MediaType
	if mime == "" {
		mime = "application/octet-stream"
	}
	p := filePart{partIDs: e.partIDs(msgID, ms), Type: "file", Mime: mime, Filename: firstNonEmpty(a.Name, filepath.Base(a.Path), "")}
	if p.Filename == "." {
		p.Filename = ""
	}
	switch {
	case a.Data != "":
		p.URL = "data:" + mime + ";base64," + a.Data
	case a.URL != "":
		p.URL = a.URL
	default:
		e.lost(session.Loss{Entry: en.ID, What: session.LostAttachment, How: session.HandledDropped,
			Detail: fmt.Sprintf("the %s %q has neither its data nor a URL", a.Type, firstNonEmpty(a.Name, a.Path, "attachment"))})
		return filePart{}, false
	}
	return p, true
}

// callID is the callID written for a source call id: the Anthropic API,
// which OpenCode may send the history to, takes only [A-Za-z0-9_-].
func (e *Encoder) callID(src string) string {
	if id, ok := e.callIDs[src]; ok {
		return id
	}
	var b strings.Builder
	for _, r := range src {
		if r < 128 && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	id := b.String()
	if id == "" || len(id) > 64 {
		id = fmt.Sprintf("call_stead_%d", len(e.callIDs)+1)
	}
	for e.usedIDs[id] {
		id += "_"
	}
	e.usedIDs[id] = true
	e.callIDs[src] = id
	return id
}

// nativePart returns the OpenCode part an entry was read from: the
// export's part object, or the data column of a database row.
func nativePart(en *session.Entry) map[string]json.RawMessage {
	if en.Native == nil || len(en.Native.Record) == 0 {
		return nil
	}
	var rec map[string]json.RawMessage
	if json.Unmarshal(en.Native.Record, &rec) != nil {
		return nil
	}
	if d, ok := rec["data"]; ok && len(rec["message_id"]) > 0 {
		rec = nil
		if json.Unmarshal(d, &rec) != nil {
			return nil
		}
	}
	return rec
}

// nativeType returns the type of the OpenCode part an entry was read
// from, or "".
func nativeType(en *session.Entry) string {
	var t string
	json.Unmarshal(nativePart(en)["type"], &t)
	return t
}

// nativeField returns an object field of the OpenCode part an entry was
// read from, when the part has the type typ.
func nativeField(en *session.Entry, typ, field string) json.RawMessage {
	rec := nativePart(en)
	var t string
	json.Unmarshal(rec["type"], &t)
	if t != typ {
		return nil
	}
	if v := bytes.TrimSpace(rec[field]); len(v) > 0 && v[0] == '{' {
		return v
	}
	return nil
}

// title is a finished tool call's title, as OpenCode's tools make them:
// the command, the file (relative to the project), the pattern, the URL
// or the task.
func title(tool string, input json.RawMessage, dir string) string {
	var in struct {
		Command     string `json:"command"`
		Description string `json:"description"`
		FilePath    string `json:"filePath"`
		Pattern     string `json:"pattern"`
		URL         string `json:"url"`
	}
	json.Unmarshal(input, &in)
	switch {
	case in.Command != "":
		return in.Command
	case in.FilePath != "":
		if rel, err := filepath.Rel(dir, in.FilePath); err == nil && filepath.IsAbs(in.FilePath) && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
		return in.FilePath
	case in.Pattern != "":
		return in.Pattern
	case in.URL != "":
		return in.URL
	}
	return firstNonEmpty(in.Description, tool, "")
}

// worktree returns the project root OpenCode records for dir: the
// directory holding the nearest .git, else "/".
func worktree(dir string) string {
	if dir == "" {
		return "/"
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return "/"
		}
	}
}

// relPath is dir relative to root, with slashes, as the session's path.
func relPath(root, dir string) string {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." {
		return ""
	}
	return filepath.ToSlash(rel)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
