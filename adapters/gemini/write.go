package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stead-dev/stead/adapters/internal/ids"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/session"
)

// WriteVersion is the Gemini CLI version whose loading rules the writer
// follows (gemini.md §4.2, §4.3, §5.3).
const WriteVersion = "0.61.0"

// cancelled is the error Gemini CLI records for a tool call the user
// cancelled: a placeholder result for a call that never finished says it
// in the CLI's own words.
const cancelled = "[Operation Cancelled] Reason: Operation cancelled by user"

// Limits of what Gemini CLI loads as it is.
const (
	// compressAt is the estimated size of history, in tokens, from which
	// Gemini CLI compresses (summarises) the older part before its first
	// request: half of the 1,048,576-token window of its Gemini models.
	compressAt = 1 << 19
	// charsPerToken is the CLI's own estimate.
	charsPerToken = 4
	// displayMax is the longest resultDisplay written: it is only shown in
	// the terminal, the model gets the whole result.
	displayMax = 4 << 10
	// metaMax bounds the strings of the metadata line: the CLI's retention
	// cleanup reads a session's id from the first 4 KiB of its file.
	metaMax = 1 << 10
)

// Encoder writes a Gemini CLI session file as 0.61.0 loads it (gemini.md
// §4.2, §5.3): a metadata line with a non-empty sessionId and projectHash,
// then one line per message, each with an id. A model turn is one gemini
// message: its thoughts, its text, then its tool calls, each with its
// result in toolCalls[].result only (the CLI's own files also repeat it as
// a user functionResponse message, which a resume then sends twice) and a
// status. The encoder holds a turn back until its results have arrived.
//
// Thinking becomes the message's thoughts ({subject, description}, from
// "**subject** description"), as the CLI keeps its own: it shows them on
// resume and, as with its own, does not send them back to the model.
// Signatures and encrypted reasoning of other providers have no place and
// are reported dropped. Usage goes in tokens as the CLI records the API's
// usageMetadata (input with cached tokens, output without thoughts).
type Encoder struct {
	w    io.Writer
	t    session.Target
	lost func(session.Loss)
	err  error
	buf  bytes.Buffer
	enc  *json.Encoder

	// now and newID are the clock and the message id source (fixed in
	// tests).
	now   func() time.Time
	newID func() string

	started bool
	last    time.Time
	pending []*geminiMsg        // model turns not yet written, in order
	cur     *geminiMsg          // the turn entries still join, if any
	curSrc  string              // the source response cur belongs to
	calls   map[string]*callOut // source call id -> call awaiting its result
	callIDs map[string]bool     // call ids written

	orphanUsage *session.Usage // of a response that wrote nothing yet
	chars       int64          // of the history the model is sent
	cacheWrite  int64          // cache-write tokens counted as plain input
}

// NewEncoder returns an encoder of the session t to w; lost hears what
// Gemini CLI cannot hold.
func NewEncoder(w io.Writer, t session.Target, lost func(session.Loss)) *Encoder {
	if lost == nil {
		lost = func(session.Loss) {}
	}
	e := &Encoder{w: w, t: t, lost: lost, now: time.Now, newID: ids.UUID4, last: t.Created,
		calls: map[string]*callOut{}, callIDs: map[string]bool{}}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false) // as the CLI's JSON.stringify
	return e
}

// meta is the metadata line. SteadOrigin is provenance: the CLI merges the
// line into its metadata and ignores fields it does not know.
type meta struct {
	SessionID   string  `json:"sessionId"`
	ProjectHash string  `json:"projectHash"`
	StartTime   string  `json:"startTime"`
	LastUpdated string  `json:"lastUpdated"`
	Kind        string  `json:"kind"`
	Summary     string  `json:"summary,omitempty"`
	SteadOrigin *origin `json:"steadOrigin,omitempty"`
}

type origin struct {
	CLI     string `json:"cli"`
	ID      string `json:"id"`
	Tool    string `json:"tool,omitempty"`
	Version string `json:"geminiVersion"`
	// Written is when stead wrote the session: the messages timed at or
	// before it are the source's history (summaries count their usage
	// with the source).
	Written time.Time `json:"written,omitzero"`
}

type userMsg struct {
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Content   []any  `json:"content"`
}

type geminiMsg struct {
	ID        string       `json:"id"`
	Timestamp string       `json:"timestamp"`
	Type      string       `json:"type"`
	Content   any          `json:"content"`
	Thoughts  []thoughtOut `json:"thoughts"`
	Tokens    *tokens      `json:"tokens,omitempty"`
	Model     string       `json:"model,omitempty"`
	ToolCalls []*callOut   `json:"toolCalls,omitempty"`

	text     []string
	atts     []any
	answered bool // a result of its calls has arrived: the turn is over
}

type thoughtOut struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
	Timestamp   string `json:"timestamp"`
}

type callOut struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	Args          json.RawMessage `json:"args"`
	Result        []any           `json:"result,omitempty"`
	Status        string          `json:"status,omitempty"`
	Timestamp     string          `json:"timestamp"`
	ResultDisplay string          `json:"resultDisplay,omitempty"`
	DisplayName   string          `json:"displayName,omitempty"`
	Description   string          `json:"description,omitempty"`

	done bool
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// Encode writes one entry.
func (e *Encoder) Encode(en *session.Entry) error {
	e.start()
	if !en.Timestamp.IsZero() && en.Timestamp.After(e.last) {
		e.last = en.Timestamp
	}
	switch en.Type {
	case session.User:
		e.flush()
		e.user(en)
	case session.Assistant:
		e.assistant(en)
	case session.ToolCall:
		e.call(en)
	case session.ToolResult:
		e.result(en)
	}
	return e.err
}

func (e *Encoder) start() {
	if e.started {
		return
	}
	e.started = true
	// Now (when stead writes the session, as the provenance records
	// it), not when the source last changed: session retention (30 days
	// by default) deletes a session whose lastUpdated is older, at the
	// CLI's next start.
	updated := e.t.Origin.Written
	if updated.IsZero() {
		updated = e.now()
	}
	m := meta{
		SessionID:   e.t.ID,
		ProjectHash: projectHash(e.t.Dir),
		StartTime:   stamp(e.t.Created),
		LastUpdated: stamp(updated),
		Kind:        "main",
		Summary:     safetext.CutBytes(e.t.Title, metaMax),
	}
	if o := e.t.Origin; o.CLI != "" || o.ID != "" {
		m.SteadOrigin = &origin{CLI: safetext.CutBytes(o.CLI, metaMax/4), ID: safetext.CutBytes(o.ID, metaMax/4), Tool: safetext.CutBytes(o.Tool, metaMax/4), Version: WriteVersion, Written: o.Written}
	}
	e.put(m)
}

// user writes a user message: its text, then its images and files.
func (e *Encoder) user(en *session.Entry) {
	var content []any
	text := en.Content
	if lead := ignored(text); lead != "" {
		// Gemini CLI leaves a user message out of the model's history
		// when its text starts like a command or its own context.
		text = "\u200b" + text
		e.lost(session.Loss{Entry: en.ID, What: session.LostEntry, How: session.HandledChanged,
			Detail: "the message starts with " + lead + ", which Gemini CLI takes for a command or its own context and leaves out of the model's history on resume; a zero-width space now precedes it"})
	}
	if strings.TrimSpace(text) != "" {
		content = append(content, map[string]string{"text": text})
		e.chars += int64(utf8.RuneCountInString(text))
	}
	content = append(content, e.attachments(en)...)
	if len(content) == 0 {
		content = []any{map[string]string{"text": text}}
	}
	e.put(userMsg{ID: e.newID(), Timestamp: stamp(e.last), Type: "user", Content: content})
}

// ignored returns the start that makes Gemini CLI skip a user message of
// this text when it rebuilds the model's history (isIgnoredUserContent),
// or "".
func ignored(text string) string {
	t := strings.TrimSpace(text)
	for _, p := range []string{"/", "?", "<session_context>", "<hook_context>"} {
		if strings.HasPrefix(t, p) {
			return `"` + p + `"`
		}
	}
	return ""
}

// turn returns the model turn en belongs to: the current one while it
// lasts (the same response, no result back yet, since a model continues
// only in a new response once it has one, and, for text, no tool call
// yet, as a message's text goes before its calls), or a new one.
func (e *Encoder) turn(en *session.Entry, text bool) *geminiMsg {
	c := e.cur
	// A Gemini CLI message read back (Native is set only for the CLI's
	// own entries) lists its parallel calls each with its result: they
	// stay one turn.
	own := en.Native != nil && en.MessageID != ""
	if c != nil && (!c.answered || own) && (en.MessageID == "" || en.MessageID == e.curSrc) && !(text && len(c.ToolCalls) > 0) {
		return c
	}
	if len(e.calls) == 0 {
		e.flush() // the turns held back are complete
	}
	m := &geminiMsg{ID: e.newID(), Timestamp: stamp(e.last), Type: "gemini", Thoughts: []thoughtOut{}}
	if e.orphanUsage != nil {
		e.usage(m, e.orphanUsage)
		e.orphanUsage = nil
	}
	e.pending = append(e.pending, m)
	e.cur, e.curSrc = m, en.MessageID
	return m
}

func (e *Encoder) assistant(en *session.Entry) {
	thinking := en.Thinking
	opaque := false
	for _, r := range en.Reasoning {
		if thinking == "" && en.Thinking == "" && r.Text != "" {
			thinking = r.Text // a summary of reasoning, kept as a thought
		}
		opaque = opaque || r.Signature != "" || r.Encrypted != ""
	}
	if opaque {
		e.lost(session.Loss{Entry: en.ID, What: session.LostReasoning, How: session.HandledDropped,
			Detail: "a signature or encrypted reasoning of another provider cannot be sent to the Gemini API; Gemini CLI keeps thoughts as text"})
	}
	atts := e.attachments(en)
	if en.Content == "" && thinking == "" && len(atts) == 0 {
		// Nothing to write (reasoning only): its usage goes with the
		// turn it belongs to.
		switch {
		case en.Usage == nil:
		case e.cur != nil && (en.MessageID == "" || en.MessageID == e.curSrc):
			e.usage(e.cur, en.Usage)
		default:
			e.orphanUsage = en.Usage
		}
		return
	}
	m := e.turn(en, en.Content != "" || len(atts) > 0)
	if en.Content != "" {
		m.text = append(m.text, en.Content)
		e.chars += int64(utf8.RuneCountInString(en.Content))
	}
	m.atts = append(m.atts, atts...)
	for _, th := range thoughts(thinking) {
		th.Timestamp = stamp(e.last)
		m.Thoughts = append(m.Thoughts, th)
	}
	e.model(m, en)
	e.usage(m, en.Usage)
}

func (e *Encoder) call(en *session.Entry) {
	m := e.turn(en, false)
	args := en.Input
	if len(bytes.TrimSpace(args)) == 0 || args[0] != '{' {
		args = json.RawMessage(`{}`)
	}
	c := &callOut{ID: e.callID(en.ID), Name: en.OriginalTool, Args: args, Timestamp: stamp(e.last),
		DisplayName: displayNames[en.OriginalTool], Description: callDescription(en.OriginalTool, args)}
	m.ToolCalls = append(m.ToolCalls, c)
	e.calls[en.ID] = c
	e.chars += int64(len(args))
	e.model(m, en)
	e.usage(m, en.Usage)
}

func (e *Encoder) result(en *session.Entry) {
	c, ok := e.calls[en.CallID]
	if !ok || c.done {
		e.lost(session.Loss{Entry: en.ID, What: session.LostResult, How: session.HandledDropped,
			Detail: "a tool result whose call is not in the conversation"})
		return
	}
	delete(e.calls, en.CallID)
	if e.cur != nil {
		for _, tc := range e.cur.ToolCalls {
			if tc == c {
				e.cur.answered = true
			}
		}
	}
	ok = en.Success || en.Status == session.StatusOK
	text := en.Output
	if !ok && en.Error != "" {
		text = en.Error
	}
	key, status := "output", "success"
	switch {
	case en.Kind == session.KindPlaceholder:
		text, key, status = cancelled, "error", "cancelled"
	case ok:
	case c.Name == "run_shell_command" && shellFailed([]byte(text)):
		// The CLI records a failed command as a success whose output
		// ends with its exit code, and reads it back so.
	case en.Status == session.StatusDenied || en.Status == session.StatusInterrupted:
		key, status = "error", "cancelled"
	default:
		key, status = "error", "error"
	}
	c.done = true
	c.Status = status
	if !en.Timestamp.IsZero() {
		c.Timestamp = stamp(en.Timestamp)
	}
	c.Result = append([]any{map[string]any{"functionResponse": map[string]any{
		"id": c.ID, "name": c.Name, "response": map[string]string{key: text}}}}, e.attachments(en)...)
	c.ResultDisplay = safetext.CutBytes(text, displayMax)
	e.chars += int64(utf8.RuneCountInString(text))
}

// model records the model that wrote the turn, as history: the entry's,
// or the source session's. Gemini CLI never resumes with it.
func (e *Encoder) model(m *geminiMsg, en *session.Entry) {
	if m.Model == "" {
		m.Model = firstOf(en.Model, e.t.SourceModel)
	}
}

// usage adds a response's usage to a turn's tokens, as Gemini CLI records
// the API's usageMetadata: input includes cached tokens, output excludes
// thoughts (the reader's inverse). A turn that holds several responses
// sums them.
func (e *Encoder) usage(m *geminiMsg, u *session.Usage) {
	if u == nil {
		return
	}
	if m.Tokens == nil {
		m.Tokens = &tokens{}
	}
	t := m.Tokens
	// Gemini's usage has no cache writes: they were input.
	t.Input += u.Input + u.CacheRead + u.CacheWrite
	t.Cached += u.CacheRead
	t.Thoughts += u.Reasoning
	t.Output += max(u.Output-u.Reasoning, 0)
	t.Total = t.Input + t.Output + t.Thoughts + t.Tool
	e.cacheWrite += u.CacheWrite
}

// flush writes the model turns held back, each call with its result: a
// call still without one (which the conversion never leaves) gets the
// CLI's cancellation.
func (e *Encoder) flush() {
	for _, m := range e.pending {
		for _, c := range m.ToolCalls {
			if !c.done {
				e.lost(session.Loss{Entry: c.ID, What: session.LostResult, How: session.HandledPlaceholder,
					Detail: "the tool call has no result; Gemini CLI's cancellation was recorded for it"})
				c.done, c.Status = true, "cancelled"
				c.Result = []any{map[string]any{"functionResponse": map[string]any{
					"id": c.ID, "name": c.Name, "response": map[string]string{"error": cancelled}}}}
				for id, pc := range e.calls {
					if pc == c {
						delete(e.calls, id)
					}
				}
			}
		}
		switch {
		case len(m.atts) > 0:
			parts := []any{}
			if len(m.text) > 0 {
				parts = append(parts, map[string]string{"text": strings.Join(m.text, "\n\n")})
			}
			m.Content = append(parts, m.atts...)
		default:
			m.Content = strings.Join(m.text, "\n\n")
		}
		e.put(m)
	}
	clear(e.pending)
	e.pending = e.pending[:0]
	e.cur, e.curSrc = nil, ""
}

// attachments writes an entry's images and files as inlineData (their
// data) or fileData (a URL) parts.
func (e *Encoder) attachments(en *session.Entry) []any {
	var out []any
	for _, a := range en.Attachments {
		mt := a.MediaType
		switch {
		case a.Data != "" && mt != "":
			out = append(out, map[string]any{"inlineData": map[string]string{"mimeType": mt, "data": a.Data}})
		case a.URL != "":
			fd := map[string]string{"fileUri": a.URL}
			if mt != "" {
				fd["mimeType"] = mt
			}
			if a.Name != "" {
				fd["displayName"] = a.Name
			}
			out = append(out, map[string]any{"fileData": fd})
		default:
			e.lost(session.Loss{Entry: en.ID, What: session.LostAttachment, How: session.HandledDropped,
				Detail: fmt.Sprintf("the %s %q has neither its data (with a media type) nor a URL", a.Type, firstOf(a.Name, a.Path))})
		}
	}
	return out
}

// callID is the id written for a source call id: unique in the session,
// and the same in the call and its response.
func (e *Encoder) callID(src string) string {
	id := src
	if id == "" || len(id) > 128 {
		id = fmt.Sprintf("stead_call_%d", len(e.callIDs)+1)
	}
	for e.callIDs[id] {
		id += "_"
	}
	e.callIDs[id] = true
	return id
}

func (e *Encoder) put(v any) {
	if e.err != nil {
		return
	}
	e.buf.Reset()
	if e.err = e.enc.Encode(v); e.err != nil {
		return
	}
	_, e.err = e.w.Write(e.buf.Bytes())
}

// Close writes the turns still held back and reports a history Gemini CLI
// will not load as it is.
func (e *Encoder) Close() error {
	e.start()
	e.flush()
	if e.cacheWrite > 0 {
		e.lost(session.Loss{What: session.LostUsage, How: session.HandledChanged, Detail: fmt.Sprintf(
			"Gemini CLI records no cache writes: %d cache-write tokens are counted as input", e.cacheWrite)})
	}
	if tok := e.chars / charsPerToken; tok >= compressAt {
		e.lost(session.Loss{What: session.LostSize, How: session.HandledWarned, Detail: fmt.Sprintf(
			"the history is about %d tokens: Gemini CLI compresses a history over half of its model's 1,048,576-token window "+
				"on its first request after the resume, so the model then sees a summary of the older part", tok)})
	}
	return e.err
}

// thoughts splits thinking into Gemini CLI's thoughts: a paragraph that
// starts "**subject** " is one thought with that subject (the form the
// model writes and the CLI parses), and the reader joins them back with
// blank lines, as it reads them.
func thoughts(thinking string) []thoughtOut {
	if thinking == "" {
		return nil
	}
	var out []thoughtOut
	for _, p := range strings.Split(thinking, "\n\n**") {
		if len(out) > 0 {
			p = "**" + p
		}
		th := thoughtOut{Description: p}
		if rest, ok := strings.CutPrefix(p, "**"); ok {
			if j := strings.Index(rest, "**"); j > 0 && !strings.ContainsAny(rest[:j], "\n") {
				after := rest[j+2:]
				switch {
				case after == "":
					th = thoughtOut{Subject: rest[:j]}
				case after[0] == ' ' && len(after) > 1:
					th = thoughtOut{Subject: rest[:j], Description: after[1:]}
				}
			}
		}
		if len(out) > 0 && th.Subject == "" {
			// Not a thought of its own: the previous one goes on.
			out[len(out)-1].Description += "\n\n" + p
			continue
		}
		out = append(out, th)
	}
	return out
}

// displayNames are the names Gemini CLI's terminal shows for its tools.
var displayNames = map[string]string{
	"run_shell_command": "Shell",
	"read_file":         "ReadFile",
	"read_many_files":   "ReadManyFiles",
	"write_file":        "WriteFile",
	"replace":           "Edit",
	"glob":              "FindFiles",
	"list_directory":    "ReadFolder",
	"grep_search":       "SearchText",
	"google_web_search": "GoogleSearch",
	"web_fetch":         "WebFetch",
}

// callDescription is the line the terminal shows for a call: a shell
// command, or the file or folder a tool works on.
func callDescription(name string, args json.RawMessage) string {
	var a struct {
		Command  string `json:"command"`
		FilePath string `json:"file_path"`
		DirPath  string `json:"dir_path"`
		Pattern  string `json:"pattern"`
	}
	if json.Unmarshal(args, &a) != nil {
		return ""
	}
	var d string
	switch name {
	case "run_shell_command":
		d = a.Command
	case "read_file", "write_file", "replace":
		d = a.FilePath
	case "list_directory":
		d = a.DirPath
	case "glob", "grep_search":
		d = a.Pattern
	}
	return safetext.CutBytes(d, displayMax)
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
