package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/stead-dev/stead/adapters/internal/fastjson"
	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// record is the union of the fields stead reads from any Claude Code
// record. Unknown fields stay in the raw record kept on each entry.
type record struct {
	Type              string          `json:"type"`
	Subtype           string          `json:"subtype"`
	UUID              string          `json:"uuid"`
	ParentUUID        string          `json:"parentUuid"`
	LogicalParentUUID string          `json:"logicalParentUuid"`
	SessionID         string          `json:"sessionId"`
	AgentID           string          `json:"agentId"`
	Timestamp         string          `json:"timestamp"`
	Cwd               string          `json:"cwd"`
	GitBranch         string          `json:"gitBranch"`
	Version           string          `json:"version"`
	IsSidechain       bool            `json:"isSidechain"`
	IsMeta            bool            `json:"isMeta"`
	IsCompactSummary  bool            `json:"isCompactSummary"`
	IsAPIErrorMessage bool            `json:"isApiErrorMessage"`
	RequestID         string          `json:"requestId"`
	RequestSessionID  string          `json:"requestSessionId"`
	Message           json.RawMessage `json:"message"`
	ToolUseResult     json.RawMessage `json:"toolUseResult"`
	ToolDenialKind    json.RawMessage `json:"toolDenialKind"`
	Content           json.RawMessage `json:"content"`
	Level             string          `json:"level"`
	Error             json.RawMessage `json:"error"`
	RetryAttempt      int             `json:"retryAttempt"`
	MaxRetries        int             `json:"maxRetries"`
	DurationMs        int64           `json:"durationMs"`
	MessageCount      int             `json:"messageCount"`
	CompactMetadata   json.RawMessage `json:"compactMetadata"`
	Attachment        json.RawMessage `json:"attachment"`
	Rendered          json.RawMessage `json:"rendered"`
	Summary           string          `json:"summary"`
	LeafUUID          string          `json:"leafUuid"`
	CustomTitle       string          `json:"customTitle"`
	AITitle           string          `json:"aiTitle"`

	// Seed-era top-level tool records; a result's text is its content,
	// or its output.
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Output    json.RawMessage `json:"output"`

	// parsed is the message as the stream decoder read it.
	parsed *parsedMessage
	// interrupted and agentID are what the stream decoder read of
	// toolUseResult.
	interrupted, fastMeta bool
	agentID               string
	// att and rend are what the fast decoder read of attachment and
	// rendered.
	att  *attachmentFields
	rend *renderedFields
}

type message struct {
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Model      string          `json:"model"`
	Content    json.RawMessage `json:"content"`
	StopReason string          `json:"stop_reason"`
	Usage      *usage          `json:"usage"`
}

type usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	OutputTokensDetails      struct {
		ThinkingTokens int64 `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
}

func (u *usage) universal() session.Usage {
	return session.Usage{
		Input:      u.InputTokens,
		Output:     u.OutputTokens,
		CacheRead:  u.CacheReadInputTokens,
		CacheWrite: u.CacheCreationInputTokens,
		Reasoning:  u.OutputTokensDetails.ThinkingTokens,
	}
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    *source         `json:"source"`
	Title     string          `json:"title"`

	// A tool result's content as the stream decoder read it.
	resultRead bool
	resultText string
	resultAtts []session.Attachment
}

type source struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
	URL       string `json:"url"`
	FileID    string `json:"file_id"`
}

// bookkeeping lists record types that carry no conversation; they are kept
// verbatim in Session.Records.
var bookkeeping = map[string]bool{
	"file-history-snapshot": true, "queue-operation": true, "last-prompt": true,
	"api-request": true, "api-request-blob": true, "api-request-shape": true,
	"tools-used": true, "atis-latch": true, "mode": true, "permission-mode": true,
	"cost-state": true, "tag": true, "agent-name": true, "pr-link": true,
	"custom-title": true, "ai-title": true,
}

// Decoder reads Claude Code session records from a stream and yields
// universal events, one per record.
type Decoder struct {
	// Path names the file in warnings.
	Path string

	limited   bool // only the start of Path is read
	r         *jsonl.Reader
	alias     map[string]string // record uuid -> id of the last entry it produced
	usageSeen jsonl.Recent
	sessionID string
	started   bool
	cwdKnown  bool
	forked    bool
	unknown   map[string]bool
	sc        *jsonl.Scanner // set for a stream decoder (NewStreamDecoder)
	titled    bool           // a title or the first prompt was seen
	results   recentSet      // uuids of the tool result records read
	fp        fastjson.Parser
	rec       record // the record decodeFast reads
}

// NewDecoder returns a decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: jsonl.NewReader(r), alias: make(map[string]string), unknown: make(map[string]bool)}
}

// Decode returns the event for the next record, or io.EOF at the end. A
// record that cannot be parsed yields an event holding only a warning.
func (d *Decoder) Decode() (session.Event, error) {
	if d.sc != nil {
		return d.decodeStream()
	}
	if fastDecode {
		return d.decodeFast()
	}
	var r record
	line, err := d.r.Decode(&r)
	if err == io.EOF {
		return session.Event{}, io.EOF
	}
	if err != nil {
		return session.Event{}, fmt.Errorf("claude: read %s: %w", d.name(), err)
	}
	ev := session.Event{Line: line.Line}
	if p := line.Report(d.livePath()); p != "" {
		ev.Warning = d.warn(line.Line, p)
	}
	if !line.Skipped {
		d.convert(&r, line.Raw, &ev)
	}
	return ev, nil
}

// livePath is the file whose growth excuses an incomplete last line (see
// jsonl.Growing): Path, unless only the start of it is read, whose last
// line is cut by the limit, not by a writer at work.
func (d *Decoder) livePath() string {
	if d.limited {
		return ""
	}
	return d.Path
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

func (d *Decoder) convert(rec *record, raw []byte, ev *session.Event) {
	ts, _ := session.ParseTime(rec.Timestamp)
	d.info(rec, ev)

	var entries []session.Entry
	switch rec.Type {
	case "user":
		entries = d.user(rec, ts, ev)
	case "assistant":
		entries = d.assistant(rec, ts, ev)
	case "attachment":
		e, ok := session.Entry{}, false
		if fastDecode {
			e, ok = d.fastAttachmentEntry(rec)
		}
		if !ok {
			e = attachmentEntry(rec)
		}
		entries = []session.Entry{e}
	case "system":
		entries = []session.Entry{d.system(rec)}
	case "summary":
		entries = []session.Entry{{Type: session.System, Kind: session.KindSummary, Content: rec.Summary}}
	case "tool_use":
		entries = []session.Entry{toolCall(rec.ToolUseID, rec.Name, rec.Input)}
	case "tool_result":
		content := rec.Content
		if len(content) == 0 {
			content = rec.Output
		}
		text, atts := toolResultContent(content)
		entries = []session.Entry{resultEntry(rec.ToolUseID, text, rec.IsError, atts)}
	default:
		if rec.Type == "custom-title" && rec.CustomTitle != "" {
			addInfo(ev).Title = rec.CustomTitle
			d.titled = true
		}
		if rec.Type == "ai-title" && rec.AITitle != "" {
			addInfo(ev).Title = rec.AITitle
			d.titled = true
		}
		if !bookkeeping[rec.Type] && !d.unknown[rec.Type] {
			d.unknown[rec.Type] = true
			if ev.Warning == nil {
				ev.Warning = d.warn(ev.Line, fmt.Sprintf("unknown record type %q kept verbatim", rec.Type))
			}
		}
		ev.Record = &session.Record{Line: ev.Line, Record: raw}
		return
	}
	if len(entries) == 0 {
		ev.Record = &session.Record{Line: ev.Line, Record: raw}
		return
	}
	d.link(rec, ts, raw, ev.Line, entries)
	ev.Entries = entries
}

// info reports session-wide facts the record reveals.
func (d *Decoder) info(rec *record, ev *session.Event) {
	if !d.started {
		d.started = true
		in := addInfo(ev)
		in.Provider = "anthropic"
		in.Format = "claude-jsonl"
	}
	if d.sessionID == "" && rec.SessionID != "" {
		d.sessionID = rec.SessionID
		in := addInfo(ev)
		in.ID = rec.SessionID
		in.Version = rec.Version
		if rec.GitBranch != "" {
			in.Git = &session.Git{Branch: rec.GitBranch}
		}
		if rec.AgentID != "" {
			in.ID = "agent-" + rec.AgentID
			in.Parent = &session.Link{Kind: session.LinkSubagent, CLI: session.Claude, ID: rec.SessionID, AgentID: rec.AgentID}
			d.forked = true // a subagent is not also a fork
		}
	}
	if !d.cwdKnown && rec.Cwd != "" {
		// The first record may lack a cwd; take it from the first that
		// has one.
		d.cwdKnown = true
		addInfo(ev).Path = rec.Cwd
	}
	if !d.forked && rec.RequestSessionID != "" && rec.RequestSessionID != rec.SessionID {
		d.forked = true
		addInfo(ev).Parent = &session.Link{Kind: session.LinkFork, CLI: session.Claude, ID: rec.RequestSessionID}
	}
}

func addInfo(ev *session.Event) *session.Info {
	if ev.Info == nil {
		ev.Info = &session.Info{}
	}
	return ev.Info
}

// link fills what every entry of a record shares: ids, tree links,
// timestamps, sidechain flag and the native record.
func (d *Decoder) link(rec *record, ts time.Time, raw []byte, line int, entries []session.Entry) {
	base := rec.UUID
	if base == "" {
		base = "L" + strconv.Itoa(line)
	}
	parent := rec.ParentUUID
	if parent == "" {
		parent = rec.LogicalParentUUID
	}
	if a, ok := d.alias[parent]; ok {
		parent = a
	}
	origin := ""
	if rec.RequestSessionID != "" && rec.RequestSessionID != rec.SessionID {
		origin = rec.RequestSessionID
	}
	n := 0
	for i := range entries {
		e := &entries[i]
		if e.ID == "" {
			if n == 0 {
				e.ID = base
			} else {
				e.ID = base + "#" + strconv.Itoa(n+1)
			}
			n++
		}
		e.Timestamp = ts
		e.Sidechain = sidechain(rec.IsSidechain, rec.AgentID != "")
		e.Origin = origin
		if i == 0 {
			e.ParentID = parent
			e.Native = &session.Native{Line: line, Record: raw}
		} else {
			e.ParentID = entries[i-1].ID
			e.Native = &session.Native{Line: line, Part: i}
		}
	}
	if rec.UUID != "" {
		d.alias[rec.UUID] = entries[len(entries)-1].ID
	}
}

// parsedMessage is a message with its content decoded: from JSON
// (parseMessage) or by the scanner (the stream decoder).
type parsedMessage struct {
	message
	str    *string // content that is a plain string
	blocks []block
}

// parseMessage decodes a record's message. It reports a problem with the
// message, or with its content.
func parseMessage(raw json.RawMessage) (pm parsedMessage, msgErr, contentErr error) {
	if len(raw) > 0 && raw[0] == '"' {
		pm.Content = raw // plain-string message (seed form)
	} else if err := json.Unmarshal(raw, &pm.message); err != nil && len(raw) > 0 {
		msgErr = err
	}
	if s, ok := stringContent(pm.Content); ok {
		pm.str = &s
		return pm, msgErr, nil
	}
	pm.blocks, contentErr = blocksOf(pm.Content)
	return pm, msgErr, contentErr
}

func (d *Decoder) user(rec *record, ts time.Time, ev *session.Event) []session.Entry {
	pm := rec.parsed
	if pm == nil {
		p, merr, cerr := parseMessage(rec.Message)
		if merr != nil {
			ev.Warning = d.warn(ev.Line, "unreadable user message: "+merr.Error())
		}
		if cerr != nil {
			ev.Warning = d.warn(ev.Line, "unreadable user content: "+cerr.Error())
			return nil
		}
		pm = &p
	}
	kindOf := func(text string) string {
		switch {
		case rec.IsCompactSummary:
			return session.KindSummary
		case strings.HasPrefix(text, "[Request interrupted by user"):
			return session.KindInterrupt
		case strings.HasPrefix(text, "<command-name>") || strings.HasPrefix(text, "<command-message>"):
			return session.KindCommand
		case rec.IsMeta || strings.HasPrefix(text, "<local-command-") || strings.HasPrefix(text, "<bash-"):
			return session.KindMeta
		case sidechain(rec.IsSidechain, rec.AgentID != ""):
			// A Task subagent's prompt in the main file (Claude
			// Code 1.0): the model wrote it, not the user.
			return session.KindMeta
		}
		return ""
	}
	userEntry := func(text string, atts []session.Attachment) session.Entry {
		e := session.Entry{Type: session.User, Content: text, Attachments: atts, Kind: kindOf(text)}
		switch e.Kind {
		case session.KindSummary:
			e.Type = session.System
		case "":
			d.titled = d.titled || text != ""
		case session.KindCommand:
			// A slash command before any prompt names the session
			// by its arguments.
			if !d.titled && !rec.IsMeta {
				if t := commandTitle([]byte(text)); t != "" {
					addInfo(ev).Title = t
					d.titled = true
				}
			}
		}
		return e
	}

	if pm.str != nil {
		return []session.Entry{userEntry(*pm.str, nil)}
	}
	blocks := pm.blocks
	if rec.UUID != "" && hasResult(blocks) && d.results.seen([]byte(rec.UUID)) {
		// A copy of a tool result already read (a --continue wrote
		// the record again under its uuid): one result, not two.
		return nil
	}
	var entries []session.Entry
	var text []string
	var atts []session.Attachment
	flush := func() {
		if len(text) > 0 || len(atts) > 0 {
			entries = append(entries, userEntry(strings.Join(text, "\n\n"), atts))
			text, atts = nil, nil
		}
	}
	status, subagent := d.resultMeta(rec)
	for _, b := range blocks {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "image", "document":
			atts = append(atts, attachment(b))
		case "tool_result":
			flush()
			out, ratts := b.resultText, b.resultAtts
			if !b.resultRead {
				out, ratts = toolResultContent(b.Content)
			}
			e := resultEntry(b.ToolUseID, out, b.IsError, ratts)
			e.Status = resultStatus(out, b.IsError, status)
			if subagent != nil {
				l := *subagent
				l.CallID = b.ToolUseID
				e.Subagent = &l
				ev.Updates = append(ev.Updates, session.Update{EntryID: b.ToolUseID, Subagent: &l})
			}
			entries = append(entries, e)
		default:
			d.unknownBlock(ev, "user", b.Type)
		}
	}
	flush()
	return entries
}

// resultMeta reads what a tool result record says beyond its content: a
// denial or interruption, and the subagent a Task/Agent call ran.
func (d *Decoder) resultMeta(rec *record) (session.ToolStatus, *session.Link) {
	var status session.ToolStatus
	if len(rec.ToolDenialKind) > 0 && string(rec.ToolDenialKind) != "null" {
		status = session.StatusDenied
	}
	var tur struct {
		Interrupted bool   `json:"interrupted"`
		AgentID     string `json:"agentId"`
	}
	switch {
	case rec.fastMeta:
		tur.Interrupted, tur.AgentID = rec.interrupted, rec.agentID
	case len(rec.ToolUseResult) == 0 || rec.ToolUseResult[0] != '{':
		return status, nil
	case json.Unmarshal(rec.ToolUseResult, &tur) != nil:
		return status, nil
	}
	if tur.Interrupted && status == "" {
		status = session.StatusInterrupted
	}
	if tur.AgentID == "" {
		return status, nil
	}
	return status, &session.Link{Kind: session.LinkSubagent, CLI: session.Claude, ID: "agent-" + tur.AgentID, AgentID: tur.AgentID}
}

// resultStatus decides a tool result's status from what the record says and
// the CLI's fixed texts for denials and interruptions. Claude Code marks a
// denial's result is_error, so only an error's text is read for one: a
// file, a page or a command's output that holds "needs approval" is the
// tool's output, not a denial.
func resultStatus(out string, isError bool, meta session.ToolStatus) session.ToolStatus {
	switch {
	case meta != "":
		return meta
	case strings.HasPrefix(out, "[Request interrupted by user"):
		return session.StatusInterrupted
	case !isError:
		return session.StatusOK
	case strings.Contains(out, "The user doesn't want to proceed with this tool use"),
		strings.Contains(out, "doesn't want to take this action"),
		strings.HasPrefix(out, "Permission to use ") && strings.Contains(out, "denied"),
		strings.Contains(out, "needs approval"):
		return session.StatusDenied
	}
	return session.StatusError
}

func (d *Decoder) assistant(rec *record, ts time.Time, ev *session.Event) []session.Entry {
	pm := rec.parsed
	if pm == nil {
		p, merr, cerr := parseMessage(rec.Message)
		if merr != nil {
			ev.Warning = d.warn(ev.Line, "unreadable assistant message: "+merr.Error())
			return nil
		}
		if cerr != nil {
			ev.Warning = d.warn(ev.Line, "unreadable assistant content: "+cerr.Error())
		}
		pm = &p
	}
	msg := pm.message
	var entries []session.Entry
	var cur *session.Entry
	open := func() *session.Entry {
		if cur == nil {
			entries = append(entries, session.Entry{Type: session.Assistant})
			cur = &entries[len(entries)-1]
		}
		return cur
	}
	if pm.str != nil {
		open().Content = *pm.str
	} else {
		for _, b := range pm.blocks {
			switch b.Type {
			case "text":
				e := open()
				if e.Content != "" {
					e.Content += "\n\n"
				}
				e.Content += b.Text
			case "thinking":
				e := open()
				if e.Content != "" { // thinking after text starts a new entry
					cur = nil
					e = open()
				}
				if e.Thinking != "" {
					e.Thinking += "\n\n"
				}
				e.Thinking += b.Thinking
				e.Reasoning = append(e.Reasoning, session.Reasoning{Format: "anthropic", Text: b.Thinking, Signature: b.Signature})
			case "redacted_thinking":
				e := open()
				e.Reasoning = append(e.Reasoning, session.Reasoning{Format: "anthropic-redacted", Encrypted: b.Data})
			case "tool_use", "server_tool_use", "mcp_tool_use":
				cur = nil
				entries = append(entries, toolCall(b.ID, b.Name, b.Input))
			case "image", "document":
				e := open()
				e.Attachments = append(e.Attachments, attachment(b))
			default:
				if strings.HasSuffix(b.Type, "_tool_result") {
					cur = nil
					out := b.resultText
					if !b.resultRead {
						out = compactJSON(b.Content)
					}
					entries = append(entries, resultEntry(b.ToolUseID, out, b.IsError, nil))
					continue
				}
				d.unknownBlock(ev, "assistant", b.Type)
			}
		}
	}
	if len(entries) == 0 {
		// An empty response still happened: keep it as an empty reply
		// so its usage and place in the tree survive.
		open()
	}
	kind := ""
	if rec.IsAPIErrorMessage {
		kind = session.KindError
	}
	for i := range entries {
		entries[i].Model = msg.Model
		entries[i].MessageID = msg.ID
		if entries[i].Type == session.Assistant {
			entries[i].Kind = kind
		}
	}
	if msg.Usage != nil && msg.Model != "<synthetic>" {
		if msg.ID == "" || !d.usageSeen.Seen([]byte(msg.ID), []byte(rec.RequestID)) {
			u := msg.Usage.universal()
			entries[0].Usage = &u
		}
	}
	return entries
}

func (d *Decoder) unknownBlock(ev *session.Event, role, typ string) {
	k := role + "/" + typ
	if d.unknown[k] {
		return
	}
	d.unknown[k] = true
	if ev.Warning == nil {
		ev.Warning = d.warn(ev.Line, fmt.Sprintf("unknown %s content block %q kept in the native record", role, typ))
	}
}

func (d *Decoder) system(rec *record) session.Entry {
	e := session.Entry{Type: session.System}
	text, _ := stringContent(rec.Content)
	switch rec.Subtype {
	case "compact_boundary":
		e.Kind = session.KindCompaction
		if text == "" {
			text = "Conversation compacted"
		}
	case "turn_duration":
		e.Kind = session.KindTurn
		if text == "" {
			text = fmt.Sprintf("Turn took %s (%d messages)", time.Duration(rec.DurationMs)*time.Millisecond, rec.MessageCount)
		}
	case "api_error":
		e.Kind = session.KindError
		if text == "" {
			text = fmt.Sprintf("API error: %s (retry %d of %d)", errorText(rec.Error), rec.RetryAttempt, rec.MaxRetries)
		}
	default:
		if rec.Level == "error" {
			e.Kind = session.KindError
		}
		if text == "" {
			text = rec.Subtype
		}
	}
	e.Content = text
	return e
}

func errorText(raw json.RawMessage) string {
	if s, ok := stringContent(raw); ok {
		return s
	}
	var v struct {
		Message string `json:"message"`
		Error   struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &v) == nil {
		if v.Message != "" {
			return v.Message
		}
		if v.Error.Message != "" {
			return v.Error.Message
		}
	}
	return compactJSON(raw)
}

// attachmentEntry turns an attachment record (context the CLI injected for
// the model) into a system entry. A prompt snapshot is the system prompt.
func attachmentEntry(rec *record) session.Entry {
	var snap struct {
		Type         string   `json:"type"`
		SystemPrompt []string `json:"systemPrompt"`
	}
	if json.Unmarshal(rec.Attachment, &snap) == nil && snap.Type == "prompt_snapshot" && len(snap.SystemPrompt) > 0 {
		return session.Entry{Type: session.System, Kind: session.KindInstructions, Content: strings.Join(snap.SystemPrompt, "\n")}
	}
	return session.Entry{Type: session.System, Kind: session.KindContext, Content: renderedText(rec)}
}

// renderedText is what an attachment record showed the model.
func renderedText(rec *record) string {
	var rendered []struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(rec.Rendered, &rendered) == nil && len(rendered) > 0 {
		parts := make([]string, 0, len(rendered))
		for _, r := range rendered {
			if s, ok := stringContent(r.Content); ok {
				parts = append(parts, s)
			} else if len(r.Content) > 0 {
				parts = append(parts, compactJSON(r.Content))
			}
		}
		return strings.Join(parts, "\n")
	}
	var att struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(rec.Attachment, &att) == nil {
		if att.Text != "" {
			return att.Text
		}
		if s, ok := stringContent(att.Content); ok {
			return s
		}
		return att.Type
	}
	return ""
}

func toolCall(id, name string, input json.RawMessage) session.Entry {
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage(`{}`)
	}
	return session.Entry{
		ID:           id,
		Type:         session.ToolCall,
		Tool:         UniversalTool(name),
		Input:        input,
		OriginalTool: name,
	}
}

func resultEntry(callID, text string, isError bool, atts []session.Attachment) session.Entry {
	e := session.Entry{Type: session.ToolResult, CallID: callID, Success: !isError, Attachments: atts}
	if isError {
		e.Error = text
	} else {
		e.Output = text
	}
	return e
}

// toolResultContent flattens a tool_result's content (a string or a list of
// text and image blocks) to text and attachments.
func toolResultContent(raw json.RawMessage) (string, []session.Attachment) {
	if s, ok := stringContent(raw); ok {
		return s, nil
	}
	blocks, err := blocksOf(raw)
	if err != nil {
		return compactJSON(raw), nil
	}
	var parts []string
	var atts []session.Attachment
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "image", "document":
			atts = append(atts, attachment(b))
		}
	}
	return strings.Join(parts, "\n"), atts
}

func attachment(b block) session.Attachment {
	a := session.Attachment{Type: b.Type, Name: b.Title}
	if s := b.Source; s != nil {
		a.MediaType = s.MediaType
		switch s.Type {
		case "base64":
			a.Data = s.Data
		case "url":
			a.URL = s.URL
		case "text":
			a.Data = s.Data
		case "file":
			a.Name = s.FileID
		}
	}
	return a
}

// stringContent returns raw as a string when it is a JSON string.
func stringContent(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func blocksOf(raw json.RawMessage) ([]block, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var blocks []block
	if err := json.Unmarshal(raw, &blocks); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && blocks != nil {
			return blocks, nil
		}
		return nil, err
	}
	return blocks, nil
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// Read decodes a whole Claude Code session from r.
func Read(r io.Reader) (*session.Session, error) {
	return read(NewDecoder(r), session.ReadOptions{})
}

func read(dec *Decoder, o session.ReadOptions) (*session.Session, error) {
	b := session.NewBuilder(session.Claude, dec.Path).With(o)
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
	return readFile(path, session.ReadOptions{})
}

func readFile(path string, o session.ReadOptions) (*session.Session, error) {
	f, err := storefile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("claude: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if o.Limit > 0 {
		r = io.LimitReader(f, o.Limit)
	}
	dec := NewDecoder(r)
	dec.Path, dec.limited = path, o.Limit > 0
	return read(dec, o)
}
