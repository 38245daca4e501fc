package claude

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/stead-dev/stead/adapters/internal/ids"
	"github.com/stead-dev/stead/session"
)

// WriteVersion is the Claude Code version written sessions claim: the one
// whose loading rules the writer follows (claude.md §6).
const WriteVersion = "2.1.330"

// interrupted is the result Claude Code records for a tool call the user
// interrupted.
const interrupted = "[Request interrupted by user for tool use]"

// largeFile is the size above which Claude Code loads a session only from
// its last compaction boundary.
const largeFile = 5 << 20

// Place chooses a new session's id (a random UUID; Claude Code takes only
// UUIDs) and its file: projects/<encoded cwd>/<id>.jsonl under the config
// directory. The cwd is the physical path, as the CLI records it. It also
// settles the model the session will continue with (the one asked for,
// else ConfiguredModel's), which the report names: Claude Code reads no
// model back from the file (its assistant records keep the model that
// wrote each message, as history).
func Place(env session.Env, t *session.Target) (session.Placement, error) {
	if t.ID == "" {
		t.ID = ids.UUID4()
	}
	if !ids.IsUUID(t.ID) {
		return session.Placement{}, fmt.Errorf("claude: session id %q is not a UUID, which Claude Code requires", t.ID)
	}
	if !filepath.IsAbs(t.Dir) {
		return session.Placement{}, fmt.Errorf("claude: project directory %q is not absolute", t.Dir)
	}
	if real, err := filepath.EvalSymlinks(t.Dir); err == nil {
		t.Dir = real
	}
	if t.Model == "" {
		t.Model, t.ModelFrom = ConfiguredModel(env, t.Dir)
	} else if full, ok := aliases[strings.ToLower(t.Model)]; ok {
		t.Model = full
	}
	t.Provider = "anthropic"
	root := Root(env)
	return session.Placement{
		Root:   root,
		Path:   filepath.Join(ProjectDir(root, t.Dir), t.ID+".jsonl"),
		Resume: []string{"claude", "--resume", t.ID},
	}, nil
}

// Encoder writes a Claude Code session file: compact JSON lines (the CLI
// finds a session from another cwd only in compact files), one linear
// parentUuid chain, a unique message.id per model response and a model on
// every assistant record, each tool_use followed by its tool_result
// (claude.md §6).
type Encoder struct {
	w    io.Writer
	t    session.Target
	lost func(session.Loss)

	parent  string            // uuid of the last record
	callRec map[string]string // tool call id -> uuid of its record
	callIDs map[string]string // source call id -> written tool_use id
	msgID   string            // message.id of the response being written
	reqID   string
	lastSrc string // source message id of the response being written
	inReply bool   // the last record was part of a model response
	n       int
	last    time.Time
	pending *session.Usage // usage of a response whose entry wrote nothing
	size    int64
	first   bool
	err     error
}

// NewEncoder returns an encoder of the session t to w; lost hears what
// Claude Code cannot hold.
func NewEncoder(w io.Writer, t session.Target, lost func(session.Loss)) *Encoder {
	if lost == nil {
		lost = func(session.Loss) {}
	}
	return &Encoder{w: w, t: t, lost: lost, callRec: map[string]string{}, callIDs: map[string]string{},
		first: true, last: t.Created}
}

// origin is the provenance kept on the first record of a written session.
type origin struct {
	CLI  string `json:"cli"`
	ID   string `json:"id"`
	Tool string `json:"tool,omitempty"`
	// Written is when stead wrote the session: the records timed at or
	// before it are the source's history (summaries count their usage
	// with the source).
	Written time.Time `json:"written,omitzero"`
}

type outRecord struct {
	ParentUUID  *string         `json:"parentUuid"`
	IsSidechain bool            `json:"isSidechain"`
	UserType    string          `json:"userType"`
	Cwd         string          `json:"cwd"`
	SessionID   string          `json:"sessionId"`
	Version     string          `json:"version"`
	GitBranch   string          `json:"gitBranch"`
	Type        string          `json:"type"`
	Message     any             `json:"message"`
	RequestID   string          `json:"requestId,omitempty"`
	UUID        string          `json:"uuid"`
	Timestamp   string          `json:"timestamp"`
	ToolResult  json.RawMessage `json:"toolUseResult,omitempty"`
	Denial      string          `json:"toolDenialKind,omitempty"`
	SourceTool  string          `json:"sourceToolAssistantUUID,omitempty"`
	SteadOrigin *origin         `json:"steadOrigin,omitempty"`
}

type outMessage struct {
	ID           string         `json:"id,omitempty"`
	Type         string         `json:"type,omitempty"`
	Role         string         `json:"role"`
	Model        string         `json:"model,omitempty"`
	Content      any            `json:"content"`
	StopReason   *string        `json:"stop_reason,omitempty"`
	StopSequence *string        `json:"stop_sequence,omitempty"`
	Usage        map[string]any `json:"usage,omitempty"`
}

// Encode writes one entry.
func (e *Encoder) Encode(en *session.Entry) error {
	if e.err != nil {
		return e.err
	}
	if !en.Timestamp.IsZero() && en.Timestamp.After(e.last) {
		e.last = en.Timestamp
	}
	switch en.Type {
	case session.User:
		e.inReply = false
		content := e.userContent(en)
		e.write(e.record("user", "", outMessage{Role: "user", Content: content}, nil))
	case session.Assistant:
		e.assistant(en)
	case session.ToolCall:
		e.startReply(en)
		id := e.callID(en.ID)
		blocks := []any{map[string]any{"type": "tool_use", "id": id, "name": en.OriginalTool, "input": rawOr(en.Input)}}
		rec := e.record("assistant", e.reqID, e.message(en, blocks), en.Usage)
		e.callRec[en.ID] = rec.UUID
		e.write(rec)
	case session.ToolResult:
		e.inReply = false
		e.result(en)
	}
	return e.err
}

func (e *Encoder) assistant(en *session.Entry) {
	var blocks []any
	signed := false
	for _, r := range en.Reasoning {
		switch {
		case r.Format == "anthropic" && r.Signature != "":
			blocks = append(blocks, map[string]any{"type": "thinking", "thinking": r.Text, "signature": r.Signature})
			signed = true
		case r.Format == "anthropic-redacted" && r.Encrypted != "":
			blocks = append(blocks, map[string]any{"type": "redacted_thinking", "data": r.Encrypted})
			signed = true
		}
	}
	if en.Thinking != "" && !signed {
		e.lost(session.Loss{Entry: en.ID, What: session.LostThinking, How: session.HandledDropped,
			Detail: "Anthropic's API takes back only thinking it signed; this thinking has no Anthropic signature"})
	} else if len(en.Reasoning) > 0 && !signed {
		e.lost(session.Loss{Entry: en.ID, What: session.LostReasoning, How: session.HandledDropped,
			Detail: "encrypted reasoning of another provider cannot be sent to Anthropic's API"})
	}
	if en.Content != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": en.Content})
	}
	for range en.Attachments {
		e.lost(session.Loss{Entry: en.ID, What: session.LostAttachment, How: session.HandledDropped,
			Detail: "Claude Code keeps no attachments on assistant messages"})
	}
	if len(blocks) == 0 {
		if en.Usage != nil {
			e.pending = en.Usage
		}
		return
	}
	e.startReply(en)
	e.write(e.record("assistant", e.reqID, e.message(en, blocks), en.Usage))
}

// startReply starts a new model response unless en continues the one
// being written.
func (e *Encoder) startReply(en *session.Entry) {
	if e.inReply && (en.MessageID == "" || en.MessageID == e.lastSrc) {
		return
	}
	e.n++
	e.msgID = fmt.Sprintf("msg_stead_%s_%d", strings.ReplaceAll(e.t.ID[:8], "-", ""), e.n)
	e.reqID = fmt.Sprintf("req_stead_%s_%d", strings.ReplaceAll(e.t.ID[:8], "-", ""), e.n)
	e.lastSrc = en.MessageID
	e.inReply = true
}

// message is an assistant record's message. Its model is history, the
// model that wrote it (the entry's, else the source session's), which
// Claude Code shows but never resumes with.
func (e *Encoder) message(en *session.Entry, blocks []any) outMessage {
	model := en.Model
	if model == "" {
		model = e.t.SourceModel
	}
	if model == "" {
		model = "unknown"
	}
	return outMessage{ID: e.msgID, Type: "message", Role: "assistant", Model: model, Content: blocks}
}

func (e *Encoder) result(en *session.Entry) {
	id, ok := e.callIDs[en.CallID]
	if !ok {
		id = e.callID(en.CallID)
	}
	text := en.Output
	isError := !(en.Success || en.Status == session.StatusOK)
	if isError && en.Error != "" {
		text = en.Error
	}
	if en.Kind == session.KindPlaceholder {
		text = interrupted // Claude Code's own text for a call cut short
	}
	var content any = text
	if len(en.Attachments) > 0 {
		blocks := []any{}
		if text != "" {
			blocks = append(blocks, map[string]any{"type": "text", "text": text})
		}
		blocks = append(blocks, e.attachments(en)...)
		content = blocks
	}
	block := map[string]any{"type": "tool_result", "tool_use_id": id, "content": content}
	if isError {
		block["is_error"] = true
	}
	rec := e.record("user", "", outMessage{Role: "user", Content: []any{block}}, nil)
	rec.SourceTool = e.callRec[en.CallID]
	switch en.Status {
	case session.StatusInterrupted:
		rec.ToolResult = json.RawMessage(`{"interrupted":true}`)
	case session.StatusDenied:
		rec.Denial = "user"
	}
	e.write(rec)
}

// userContent is a user message's content: its text, and images as
// blocks.
func (e *Encoder) userContent(en *session.Entry) any {
	if len(en.Attachments) == 0 {
		return en.Content
	}
	blocks := e.attachments(en)
	if en.Content != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": en.Content})
	}
	return blocks
}

// attachments writes the images and documents Claude Code can hold: with
// their data, or a URL.
func (e *Encoder) attachments(en *session.Entry) []any {
	var out []any
	for _, a := range en.Attachments {
		typ := a.Type
		if typ != "image" && typ != "document" {
			typ = "document"
		}
		var src map[string]any
		switch {
		case a.Data != "" && a.MediaType != "":
			src = map[string]any{"type": "base64", "media_type": a.MediaType, "data": a.Data}
		case a.URL != "":
			src = map[string]any{"type": "url", "url": a.URL}
		default:
			e.lost(session.Loss{Entry: en.ID, What: session.LostAttachment, How: session.HandledDropped,
				Detail: fmt.Sprintf("the %s %q has neither its data nor a URL", a.Type, firstOf(a.Name, a.Path))})
			continue
		}
		out = append(out, map[string]any{"type": typ, "source": src})
	}
	return out
}

// callID is the tool_use id written for a source call id: the Messages
// API takes only [A-Za-z0-9_-].
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
		id = fmt.Sprintf("toolu_stead_%d", len(e.callIDs)+1)
	}
	for taken := true; taken; {
		taken = false
		for _, v := range e.callIDs {
			if v == id {
				taken = true
				id += "_"
				break
			}
		}
	}
	e.callIDs[src] = id
	return id
}

func (e *Encoder) record(typ, req string, msg outMessage, u *session.Usage) *outRecord {
	if u == nil && typ == "assistant" && e.pending != nil {
		u, e.pending = e.pending, nil
	}
	if u != nil {
		msg.Usage = map[string]any{
			"input_tokens":                u.Input,
			"output_tokens":               u.Output,
			"cache_read_input_tokens":     u.CacheRead,
			"cache_creation_input_tokens": u.CacheWrite,
		}
		if u.Reasoning > 0 {
			msg.Usage["output_tokens_details"] = map[string]any{"thinking_tokens": u.Reasoning}
		}
	}
	rec := &outRecord{
		UserType: "external", Cwd: e.t.Dir, SessionID: e.t.ID, Version: WriteVersion,
		Type: typ, Message: msg, RequestID: req, UUID: ids.UUID4(),
		Timestamp: e.last.UTC().Format("2006-01-02T15:04:05.000Z"),
	}
	if e.parent != "" {
		p := e.parent
		rec.ParentUUID = &p
	}
	if e.first {
		rec.SteadOrigin = &origin{CLI: e.t.Origin.CLI, ID: e.t.Origin.ID, Tool: e.t.Origin.Tool, Written: e.t.Origin.Written}
		e.first = false
	}
	return rec
}

func (e *Encoder) write(v any) {
	if e.err != nil {
		return
	}
	b, err := json.Marshal(v) // compact, as Claude Code needs
	if err != nil {
		e.err = err
		return
	}
	b = append(b, '\n')
	n, err := e.w.Write(b)
	e.size += int64(n)
	e.err = err
	if rec, ok := v.(*outRecord); ok {
		e.parent = rec.UUID
	}
}

// Close writes the title, if any, and reports a size Claude Code treats
// differently.
func (e *Encoder) Close() error {
	if e.err == nil && e.t.Title != "" {
		e.write(map[string]string{"type": "custom-title", "customTitle": e.t.Title, "sessionId": e.t.ID})
	}
	if e.size > largeFile {
		e.lost(session.Loss{What: session.LostSize, How: session.HandledWarned, Detail: fmt.Sprintf(
			"the session is %.1f MiB: Claude Code loads files over 5 MiB only from their last compaction boundary; "+
				"stead writes none, so the whole history loads, but it may not fit the model's context window", float64(e.size)/(1<<20))})
	}
	return e.err
}

func rawOr(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage(`{}`)
	}
	return b
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
