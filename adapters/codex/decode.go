package codex

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
	"github.com/stead-dev/stead/session"
)

type envelope struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	// The oldest rollouts have no envelope: the first line is the
	// session's meta and the others are bare response items.
	ID         string `json:"id"`
	RecordType string `json:"record_type"`
}

type meta struct {
	ID               string          `json:"id"`
	Timestamp        string          `json:"timestamp"`
	Cwd              string          `json:"cwd"`
	Originator       string          `json:"originator"`
	CLIVersion       string          `json:"cli_version"`
	Source           json.RawMessage `json:"source"`
	ModelProvider    string          `json:"model_provider"`
	Model            string          `json:"model"`
	HistoryMode      string          `json:"history_mode"`
	ForkedFromID     string          `json:"forked_from_id"`
	HistoryBase      *historyBase    `json:"history_base"`
	Instructions     string          `json:"instructions"`
	BaseInstructions *struct {
		Text string `json:"text"`
	} `json:"base_instructions"`
	Git *struct {
		CommitHash    string `json:"commit_hash"`
		Branch        string `json:"branch"`
		RepositoryURL string `json:"repository_url"`
	} `json:"git"`
}

// subagentParent reads the parent thread of a subagent from a meta's
// source ({"subagent":{"thread_spawn":{"parent_thread_id":...}}}).
func (m *meta) subagentParent() string {
	if len(m.Source) == 0 || m.Source[0] != '{' {
		return ""
	}
	var src struct {
		Subagent struct {
			ThreadSpawn struct {
				ParentThreadID string `json:"parent_thread_id"`
			} `json:"thread_spawn"`
		} `json:"subagent"`
	}
	_ = json.Unmarshal(m.Source, &src)
	return src.Subagent.ThreadSpawn.ParentThreadID
}

// historyBase is where a fork of a paginated thread takes its history
// from: the parent's rollout up to a byte offset.
type historyBase struct {
	ThreadID            string `json:"thread_id"`
	EndOrdinalExclusive int64  `json:"end_ordinal_exclusive"`
	EndByteOffset       int64  `json:"end_byte_offset"`
}

type item struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	Name             string          `json:"name"`
	Arguments        json.RawMessage `json:"arguments"`
	Input            json.RawMessage `json:"input"`
	CallID           string          `json:"call_id"`
	Output           json.RawMessage `json:"output"`
	Status           string          `json:"status"`
	Summary          json.RawMessage `json:"summary"`
	EncryptedContent string          `json:"encrypted_content"`
	Action           json.RawMessage `json:"action"`
	Message          string          `json:"message"`
	// A function call's namespace (an MCP server's tools).
	Namespace string `json:"namespace"`
	// A tool search's tools; an image generation's prompt and image.
	Tools         json.RawMessage `json:"tools"`
	RevisedPrompt string          `json:"revised_prompt"`
	Result        string          `json:"result"`
}

type part struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
	FileID   string `json:"file_id"`
	Filename string `json:"filename"`
	FileData string `json:"file_data"`
}

type event struct {
	Type       string          `json:"type"`
	ThreadID   string          `json:"thread_id"`
	TurnID     string          `json:"turn_id"`
	Info       *tokenInfo      `json:"info"`
	Message    string          `json:"message"`
	ThreadName string          `json:"thread_name"`
	CallID     string          `json:"call_id"`
	ExitCode   *int            `json:"exit_code"`
	DurationMs int64           `json:"duration_ms"`
	Reason     string          `json:"reason"`
	Item       json.RawMessage `json:"item"`

	// Events that end (or start) a tool call.
	Invocation *struct {
		Server    string          `json:"server"`
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"invocation"`
	Result           json.RawMessage `json:"result"`
	Query            string          `json:"query"`
	Action           json.RawMessage `json:"action"`
	Command          json.RawMessage `json:"command"`
	Cwd              string          `json:"cwd"`
	Stdout           string          `json:"stdout"`
	Stderr           string          `json:"stderr"`
	AggregatedOutput string          `json:"aggregated_output"`
	FormattedOutput  string          `json:"formatted_output"`
	Success          *bool           `json:"success"`
	Status           json.RawMessage `json:"status"`
	Changes          json.RawMessage `json:"changes"`
	RevisedPrompt    string          `json:"revised_prompt"`
	SavedPath        string          `json:"saved_path"`
	Path             string          `json:"path"`
	Prompt           string          `json:"prompt"`
	ReceiverThreadID string          `json:"receiver_thread_id"`
	NewThreadID      string          `json:"new_thread_id"`
	Tool             string          `json:"tool"`
	Arguments        json.RawMessage `json:"arguments"`
	ContentItems     json.RawMessage `json:"content_items"`
	Error            string          `json:"error"`
}

type tokenInfo struct {
	Total *tokenUsage `json:"total_token_usage"`
	Last  *tokenUsage `json:"last_token_usage"`
}

type tokenUsage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
	TotalTokens           int64 `json:"total_tokens"`
}

func (t tokenUsage) universal() session.Usage {
	in := t.InputTokens - t.CachedInputTokens
	if in < 0 {
		in = 0
	}
	return session.Usage{
		Input:      in,
		Output:     t.OutputTokens,
		CacheRead:  t.CachedInputTokens,
		CacheWrite: t.CacheWriteInputTokens,
		Reasoning:  t.ReasoningOutputTokens,
	}
}

func (t tokenUsage) minus(o tokenUsage) tokenUsage {
	return tokenUsage{
		InputTokens:           t.InputTokens - o.InputTokens,
		CachedInputTokens:     t.CachedInputTokens - o.CachedInputTokens,
		CacheWriteInputTokens: t.CacheWriteInputTokens - o.CacheWriteInputTokens,
		OutputTokens:          t.OutputTokens - o.OutputTokens,
		ReasoningOutputTokens: t.ReasoningOutputTokens - o.ReasoningOutputTokens,
		TotalTokens:           t.TotalTokens - o.TotalTokens,
	}
}

// usageCounter applies ccusage's rule to token_count events: an event whose
// running total did not change adds nothing; otherwise it adds its
// last_token_usage, or the change in the total when that is missing.
type usageCounter struct {
	prev tokenUsage
	seen bool
}

func (c *usageCounter) add(total, last *tokenUsage) (tokenUsage, bool) {
	if total == nil && last == nil {
		return tokenUsage{}, false
	}
	if total != nil {
		if c.seen && *total == c.prev {
			return tokenUsage{}, false
		}
		delta := total.minus(c.prev)
		c.prev, c.seen = *total, true
		if last == nil {
			return delta, true
		}
	}
	return *last, true
}

// Decoder reads Codex rollout records from a stream and yields universal
// events, one per record.
type Decoder struct {
	// Path names the file in warnings.
	Path string

	limited  bool // only the start of Path is read
	r        *jsonl.Reader
	id       string // the thread's id, from the first session_meta
	started  bool
	origin   string // id of the thread whose copied lines are being read
	last     string // id of the last entry, for linear parent links
	model    string // current model, from turn_context
	ids      session.IDs
	tokens   usageCounter
	modelOut string // last entry produced by the model, awaiting usage
	usageOn  string // entry that received the last usage
	usageAcc session.Usage
	pending  []string // tool calls of the current turn without output yet
	unknown  map[string]bool
	base     *historyBase
	calls    calls     // tool calls by id, from items and events
	binds    []binding // call states to learn the final ids of this record's entries
	cwdKnown bool      // the project directory is known
	fp       fastjson.Parser
	pre      predecoded
	env      envelope // the envelope decodeFast reads
}

// binding ties a call state to the entry of the current record that is
// its call or its result, whose id is final only once the record is done.
type binding struct {
	st     *callState
	i      int
	result bool
}

func (d *Decoder) bind(st *callState, i int, result bool) {
	d.binds = append(d.binds, binding{st, i, result})
}

// NewDecoder returns a decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: jsonl.NewReader(r), unknown: make(map[string]bool)}
}

// Decode returns the event for the next record, or io.EOF at the end. A
// record that cannot be parsed yields an event holding only a warning.
func (d *Decoder) Decode() (session.Event, error) {
	if fastDecode {
		return d.decodeFast()
	}
	var env envelope
	rec, err := d.r.Decode(&env)
	if err == io.EOF {
		return session.Event{}, io.EOF
	}
	if err != nil {
		return session.Event{}, fmt.Errorf("codex: read %s: %w", d.name(), err)
	}
	ev := session.Event{Line: rec.Line}
	if p := rec.Report(d.livePath()); p != "" {
		ev.Warning = d.warn(rec.Line, p)
	}
	if !rec.Skipped {
		d.convert(&env, rec.Raw, &ev)
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

func (d *Decoder) keep(ev *session.Event, raw []byte) {
	ev.Record = &session.Record{Line: ev.Line, Record: raw}
}

func (d *Decoder) convert(env *envelope, raw []byte, ev *session.Event) {
	ts, _ := session.ParseTime(env.Timestamp)
	typ, payload := env.Type, env.Payload
	// The oldest format: a bare meta line, bare items and state lines.
	if len(payload) == 0 {
		switch {
		case env.RecordType != "":
			d.keep(ev, raw)
			return
		case env.Type == "" && env.ID != "" && !d.started:
			typ, payload = "session_meta", raw
		case isItemType(env.Type):
			typ, payload = "response_item", raw
		}
	}
	var entries []session.Entry
	switch typ {
	case "session_meta":
		entries = d.sessionMeta(payload, ts, ev)
	case "response_item":
		entries = d.responseItem(payload, ev)
	case "event_msg":
		entries = d.eventMsg(payload, ev)
	case "turn_context":
		var tc struct {
			Model string `json:"model"`
			Cwd   string `json:"cwd"`
		}
		ok := false
		if pre := d.predecoded(typ, payload); pre != nil {
			tc.Model, tc.Cwd, ok = pre.strs[0], pre.strs[1], true
		} else {
			ok = fastDecode && d.fastStrings(payload, modelCwdKeys, []string{"model", "cwd"}, []*string{&tc.Model, &tc.Cwd})
		}
		if !ok {
			tc.Model, tc.Cwd = "", ""
			ok = json.Unmarshal(payload, &tc) == nil
		}
		if ok {
			if tc.Model != "" {
				d.model = tc.Model
				addInfo(ev).Model = tc.Model
			}
			d.learnCwd(tc.Cwd, ev)
		}
	case "token_usage_record":
		var r struct {
			ThreadID string `json:"thread_id"`
		}
		ok := false
		if pre := d.predecoded(typ, payload); pre != nil {
			r.ThreadID, ok = pre.strs[0], true
		} else {
			ok = fastDecode && d.fastStrings(payload, threadKeys, []string{"thread_id"}, []*string{&r.ThreadID})
		}
		if !ok {
			r.ThreadID = ""
			ok = json.Unmarshal(payload, &r) == nil
		}
		if ok && r.ThreadID == d.id {
			d.origin = ""
		}
	case "compacted":
		var c struct {
			Message string `json:"message"`
		}
		if pre := d.predecoded(typ, payload); pre != nil {
			c.Message = pre.strs[0]
		} else if !fastDecode || !d.fastStrings(payload, messageKeys, []string{"message"}, []*string{&c.Message}) {
			c.Message = ""
			_ = json.Unmarshal(payload, &c)
		}
		entries = []session.Entry{{Type: session.System, Kind: session.KindCompaction, Content: c.Message}}
	case "world_state", "inter_agent_communication", "inter_agent_communication_metadata":
		// State, and the messages between agents as delivered (each
		// is in the history too, as an agent_message item).
	default:
		if !d.unknown[typ] {
			d.unknown[typ] = true
			if ev.Warning == nil {
				ev.Warning = d.warn(ev.Line, fmt.Sprintf("unknown record type %q kept verbatim", typ))
			}
		}
	}
	if len(entries) == 0 {
		d.binds = d.binds[:0]
		d.keep(ev, raw)
		return
	}
	for i := range entries {
		e := &entries[i]
		e.ID = d.unique(e.ID, ev.Line, i)
		e.Timestamp = ts
		e.ParentID = d.last
		e.Origin = d.origin
		if e.Type == session.Assistant || e.Type == session.ToolCall {
			if e.Model == "" {
				e.Model = d.model
			}
			d.modelOut = e.ID
		}
		if e.Type == session.ToolCall && e.Status == "" {
			d.pending = append(d.pending, e.ID)
		}
		if i == 0 {
			e.Native = &session.Native{Line: ev.Line, Record: raw}
		} else {
			e.Native = &session.Native{Line: ev.Line, Part: i}
		}
		d.last = e.ID
	}
	for _, b := range d.binds {
		if b.result {
			b.st.result = entries[b.i].ID
		} else {
			b.st.entry = entries[b.i].ID
		}
	}
	d.binds = d.binds[:0]
	ev.Entries = entries
}

func (d *Decoder) unique(id string, line, part int) string {
	if id == "" {
		id = "L" + strconv.Itoa(line)
		if part > 0 {
			id += "." + strconv.Itoa(part)
		}
	}
	return d.ids.Unique(id)
}

func addInfo(ev *session.Event) *session.Info {
	if ev.Info == nil {
		ev.Info = &session.Info{}
	}
	return ev.Info
}

func (d *Decoder) sessionMeta(payload json.RawMessage, ts time.Time, ev *session.Event) []session.Entry {
	var m meta
	if pre := d.predecoded("session_meta", payload); pre != nil {
		m = pre.meta
	} else if !fastDecode || !d.fastMeta(payload, &m) {
		m = meta{}
		if err := json.Unmarshal(payload, &m); err != nil {
			ev.Warning = d.warn(ev.Line, "unreadable session_meta: "+err.Error())
			return nil
		}
	}
	if d.started {
		// A legacy fork copies its parent's lines, starting with the
		// parent's meta: what follows until the fork's own records came
		// from that thread.
		if m.ID != "" && m.ID != d.id {
			d.origin = m.ID
		}
		return nil
	}
	d.started = true
	d.id = m.ID
	d.base = m.HistoryBase
	in := addInfo(ev)
	in.ID = m.ID
	in.Path = m.Cwd
	d.cwdKnown = m.Cwd != ""
	in.Version = m.CLIVersion
	in.Provider = m.ModelProvider
	in.Model = m.Model
	if m.Model != "" {
		d.model = m.Model
	}
	in.Created, _ = session.ParseTime(m.Timestamp)
	if in.Created.IsZero() {
		in.Created = ts
	}
	in.Format = "codex-legacy"
	if m.HistoryMode == "paginated" {
		in.Format = "codex-paginated"
	}
	if m.Git != nil && (m.Git.Branch != "" || m.Git.CommitHash != "") {
		in.Git = &session.Git{Branch: m.Git.Branch, Commit: m.Git.CommitHash, Remote: m.Git.RepositoryURL}
	}
	if p := m.subagentParent(); p != "" {
		in.Parent = &session.Link{Kind: session.LinkSubagent, CLI: session.Codex, ID: p}
	} else if m.ForkedFromID != "" {
		in.Parent = &session.Link{Kind: session.LinkFork, CLI: session.Codex, ID: m.ForkedFromID}
	}
	text := m.Instructions
	if m.BaseInstructions != nil && m.BaseInstructions.Text != "" {
		text = m.BaseInstructions.Text
	}
	if text == "" {
		return nil
	}
	return []session.Entry{{Type: session.System, Kind: session.KindInstructions, Content: text}}
}

func isItemType(t string) bool {
	switch t {
	case "message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
		"custom_tool_call_output", "local_shell_call", "web_search_call", "compaction":
		return true
	}
	return false
}

// contextPrefixes start user messages that Codex injects for the model.
var contextPrefixes = []string{
	"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<INSTRUCTIONS>",
	"<turn_aborted>", "<user_shell_command>", "<skills_instructions>", "<permissions instructions>",
}

// IsContext reports whether a user message is context Codex injected rather
// than a prompt the user wrote.
func IsContext(text []byte) bool {
	t := bytes.TrimLeft(text, " \n\t")
	for _, p := range contextPrefixes {
		if bytes.HasPrefix(t, []byte(p)) {
			return true
		}
	}
	return false
}

func (d *Decoder) responseItem(payload json.RawMessage, ev *session.Event) []session.Entry {
	var it item
	if pre := d.predecoded("response_item", payload); pre != nil {
		it = pre.item
	} else if fastDecode && d.fastItem(payload, &it) {
		// read
	} else if err := json.Unmarshal(payload, resetItem(&it)); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			ev.Warning = d.warn(ev.Line, "unreadable response_item: "+err.Error())
			return nil
		}
	}
	switch it.Type {
	case "message":
		text, atts := contentText(it.Content)
		e := session.Entry{ID: it.ID, Content: text, Attachments: atts}
		switch it.Role {
		case "assistant":
			e.Type = session.Assistant
		case "developer", "system":
			e.Type, e.Kind = session.System, session.KindInstructions
		default:
			e.Type = session.User
			if IsContext([]byte(text)) {
				e.Type, e.Kind = session.System, session.KindContext
				if !d.cwdKnown && strings.HasPrefix(strings.TrimLeft(text, " \n\t"), "<environment_context>") {
					d.learnCwd(contextCwd([]byte(text)), ev)
				}
			}
		}
		return []session.Entry{e}
	case "agent_message":
		// A message another agent sent this one (multi-agent v2): the
		// CLI put it in the conversation, no user typed it.
		text, atts := contentText(it.Content)
		return []session.Entry{{ID: it.ID, Type: session.User, Kind: session.KindMeta, Content: text, Attachments: atts}}
	case "reasoning":
		var sum []part
		_ = json.Unmarshal(it.Summary, &sum)
		var texts []string
		for _, p := range sum {
			if p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
		if raw, _ := contentText(it.Content); raw != "" {
			texts = append(texts, raw)
		}
		thinking := strings.Join(texts, "\n\n")
		return []session.Entry{{
			ID: it.ID, Type: session.Assistant, Thinking: thinking,
			Reasoning: []session.Reasoning{{Format: "openai", ID: it.ID, Text: thinking, Encrypted: it.EncryptedContent}},
		}}
	case "function_call":
		args := jsonString(it.Arguments)
		name := qualifiedName([]byte(it.Namespace), []byte(it.Name))
		return d.itemCall(it.CallID, toolCall(it.CallID, it.ID, name, objectInput(args, "arguments")))
	case "custom_tool_call":
		input := jsonString(it.Input)
		b, _ := json.Marshal(map[string]string{"input": input})
		return d.itemCall(it.CallID, toolCall(it.CallID, it.ID, it.Name, b))
	case "local_shell_call":
		id := it.CallID
		if id == "" {
			id = it.ID
		}
		return d.itemCall(id, toolCall(it.CallID, it.ID, "local_shell", objectInput(string(it.Action), "action")))
	case "web_search_call":
		return d.webSearchItem(&it, ev)
	case "image_generation_call":
		return d.imageItem(&it, ev)
	case "tool_search_call":
		st, dup := d.calls.search(it.CallID)
		if dup {
			return nil
		}
		d.bind(st, 0, false)
		return []session.Entry{toolCall(it.CallID, "", "tool_search", objectInput(jsonString(it.Arguments), "arguments"))}
	case "tool_search_output":
		st, status, dup := d.calls.searchOutput(it.CallID, itemStatus(it.Status))
		if dup {
			return nil
		}
		callID := it.CallID
		if callID == "" {
			callID = st.entry
		}
		e := resultEntry(callID, compactJSON(it.Tools), status, nil)
		if it.CallID != "" {
			e.ID = it.CallID + ":output"
		}
		d.bind(st, 0, true)
		d.resolve(callID)
		return []session.Entry{e}
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		out, exit, atts := outputText(it.Output)
		status := outputStatus([]byte(out))
		if exit != nil {
			status = session.StatusOK
			if *exit != 0 {
				status = session.StatusError
			}
		}
		st, status, dup := d.calls.output(it.CallID, status)
		if dup {
			return nil
		}
		e := resultEntry(it.CallID, out, status, atts)
		if it.ID != "" {
			e.ID = it.ID
		} else if it.CallID != "" {
			e.ID = it.CallID + ":output"
		}
		d.bind(st, 0, true)
		d.resolve(it.CallID)
		return []session.Entry{e}
	case "compaction", "compaction_summary", "context_compaction":
		return []session.Entry{{
			ID: it.ID, Type: session.System, Kind: session.KindCompaction, Content: it.Message,
			Reasoning: []session.Reasoning{{Format: "openai-compaction", Encrypted: it.EncryptedContent}},
		}}
	case "ghost_snapshot", "additional_tools":
		return nil
	}
	k := "item/" + it.Type
	if !d.unknown[k] {
		d.unknown[k] = true
		if ev.Warning == nil {
			ev.Warning = d.warn(ev.Line, fmt.Sprintf("unknown response item %q kept verbatim", it.Type))
		}
	}
	return nil
}

// itemCall is the entry of a call known from a response item, unless an
// event made it first.
func (d *Decoder) itemCall(id string, e session.Entry) []session.Entry {
	st, dup := d.calls.item(id)
	if dup {
		return nil
	}
	d.bind(st, 0, false)
	return []session.Entry{e}
}

// webSearchItem reads a web_search_call: a search the model's provider ran.
// Codex never writes its id, so it pairs with its web_search_end by order.
func (d *Decoder) webSearchItem(it *item, ev *session.Event) []session.Entry {
	status := itemStatus(it.Status)
	var st *callState
	var dup bool
	if id := it.ID; id != "" {
		st, dup = d.calls.item(id)
	} else {
		st, dup = d.calls.webItem()
	}
	if dup {
		d.restate(st, status, ev)
		return nil
	}
	action := objectInput(string(it.Action), "action")
	call := toolCall(d.lineID(it.ID, ev), "", "web_search", action)
	call.Status = status
	st.hasResult, st.status = true, status
	d.bind(st, 0, false)
	d.bind(st, 1, true)
	res := resultEntry(call.ID, searchText(it.Action, ""), status, nil)
	res.ID = call.ID + ":output"
	return []session.Entry{call, res}
}

// imageItem reads an image_generation_call: an image the model's provider
// generated, kept as the result's attachment.
func (d *Decoder) imageItem(it *item, ev *session.Event) []session.Entry {
	status := itemStatus(it.Status)
	st, dup := d.calls.item(it.ID)
	if dup {
		d.restate(st, status, ev)
		return nil
	}
	input, _ := json.Marshal(map[string]string{"prompt": it.RevisedPrompt})
	call := toolCall(d.lineID(it.ID, ev), "", "image_generation", input)
	call.Status = status
	st.hasResult, st.status = true, status
	d.bind(st, 0, false)
	d.bind(st, 1, true)
	res := resultEntry(call.ID, "", status, imageAttachments(it.Result))
	res.ID = call.ID + ":output"
	return []session.Entry{call, res}
}

// lineID is id, or for a record without one the id its first entry gets
// from its line, for a result in the same record to name.
func (d *Decoder) lineID(id string, ev *session.Event) string {
	if id == "" {
		id = "L" + strconv.Itoa(ev.Line)
	}
	return id
}

// restate changes the status of a call an event made, when its item
// states another outcome.
func (d *Decoder) restate(st *callState, status session.ToolStatus, ev *session.Event) {
	if _, changed := d.calls.restate(st, status); changed {
		d.update(ev, st)
	}
}

// update gives a call and its result their new status.
func (d *Decoder) update(ev *session.Event, st *callState) {
	for _, id := range []string{st.entry, st.result} {
		if id != "" {
			ev.Updates = append(ev.Updates, session.Update{EntryID: id, Status: st.status})
		}
	}
}

// resultEntry is a tool result: its text is the output, or the error when
// the call failed.
func resultEntry(callID, text string, status session.ToolStatus, atts []session.Attachment) session.Entry {
	e := session.Entry{
		Type: session.ToolResult, CallID: callID, Success: status == session.StatusOK,
		Status: status, Attachments: atts,
	}
	if e.Success {
		e.Output = text
	} else {
		e.Error = text
	}
	return e
}

// learnCwd takes the project directory from a record that states the
// working directory, when the session's meta did not (the oldest rollouts).
func (d *Decoder) learnCwd(cwd string, ev *session.Event) {
	if d.cwdKnown || cwd == "" {
		return
	}
	d.cwdKnown = true
	addInfo(ev).Path = cwd
}

// searchText is what a web search did: its query, or the page it opened
// or searched.
func searchText(action json.RawMessage, query string) string {
	var a struct {
		Type    string   `json:"type"`
		Query   string   `json:"query"`
		Queries []string `json:"queries"`
		URL     string   `json:"url"`
		Pattern string   `json:"pattern"`
	}
	_ = json.Unmarshal(action, &a)
	switch {
	case a.Query != "":
		return a.Query
	case len(a.Queries) > 0:
		return strings.Join(a.Queries, "\n")
	case a.Pattern != "" && a.URL != "":
		return a.Pattern + " in " + a.URL
	case a.URL != "":
		return a.URL
	}
	return query
}

// imageAttachments holds a generated image (base64 PNG, as the Responses
// API returns it).
func imageAttachments(b64 string) []session.Attachment {
	if b64 == "" {
		return nil
	}
	if strings.HasPrefix(b64, "data:") {
		return []session.Attachment{imageAttachment(b64)}
	}
	return []session.Attachment{{Type: "image", MediaType: "image/png", Data: b64}}
}

func compactJSON(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func (d *Decoder) resolve(callID string) {
	for i, id := range d.pending {
		if id == callID {
			d.pending = append(d.pending[:i], d.pending[i+1:]...)
			return
		}
	}
}

func (d *Decoder) eventMsg(payload json.RawMessage, ev *session.Event) []session.Entry {
	var e event
	if pre := d.predecoded("event_msg", payload); pre != nil {
		e = pre.event
	} else if fastDecode && d.fastEvent(payload, &e) {
		// read
	} else if err := json.Unmarshal(payload, resetEvent(&e)); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			ev.Warning = d.warn(ev.Line, "unreadable event_msg: "+err.Error())
			return nil
		}
	}
	if e.ThreadID != "" && e.ThreadID == d.id {
		d.origin = ""
	}
	switch e.Type {
	case "token_count":
		if e.Info == nil {
			return nil
		}
		if u, ok := d.tokens.add(e.Info.Total, e.Info.Last); ok {
			d.attachUsage(ev, u.universal())
		}
	case "thread_name_updated":
		if e.ThreadName != "" {
			addInfo(ev).Title = e.ThreadName
		}
	case "task_started":
		d.calls.turnEnd()
	case "task_complete":
		msg := "Turn complete"
		if e.DurationMs > 0 {
			msg = fmt.Sprintf("Turn took %s", time.Duration(e.DurationMs)*time.Millisecond)
		}
		d.pending = d.pending[:0]
		d.calls.turnEnd()
		return []session.Entry{{Type: session.System, Kind: session.KindTurn, Content: msg}}
	case "turn_aborted":
		for _, id := range d.pending {
			ev.Updates = append(ev.Updates, session.Update{EntryID: id, Status: session.StatusInterrupted})
		}
		d.pending = d.pending[:0]
		d.calls.turnEnd()
		reason := e.Reason
		if reason == "" {
			reason = "interrupted"
		}
		return []session.Entry{{Type: session.System, Kind: session.KindInterrupt, Content: "Turn aborted: " + reason}}
	case "error":
		return []session.Entry{{Type: session.System, Kind: session.KindError, Content: e.Message}}
	case "item_completed":
		// A finished command of the app-server's thread items (0.169):
		// what exec_command_end says, under the call's id.
		var it struct {
			Type             string          `json:"type"`
			ID               string          `json:"id"`
			Status           json.RawMessage `json:"status"`
			ExitCode         *int            `json:"exit_code"`
			Command          json.RawMessage `json:"command"`
			Cwd              string          `json:"cwd"`
			AggregatedOutput string          `json:"aggregated_output"`
		}
		ok := fastDecode && d.fastObjectInto(e.Item, completedKeys, func(p *fastjson.Parser, k []byte) bool {
			switch string(k) {
			case "type":
				p.Intern(&it.Type)
			case "id":
				p.Str(&it.ID)
			case "status":
				it.Status = p.Raw()
			case "exit_code":
				if p.Null() {
					it.ExitCode = nil
				} else {
					if it.ExitCode == nil {
						it.ExitCode = new(int)
					}
					fastjson.Int(p, it.ExitCode)
				}
			case "command":
				it.Command = p.Raw()
			case "cwd":
				p.Str(&it.Cwd)
			case "aggregated_output":
				p.Str(&it.AggregatedOutput)
			default:
				return false
			}
			return true
		})
		if !ok {
			it.Type, it.ID, it.Status, it.ExitCode, it.Command, it.Cwd, it.AggregatedOutput = "", "", nil, nil, nil, "", ""
			ok = json.Unmarshal(e.Item, &it) == nil
		}
		if ok && it.Type == "CommandExecution" && it.ID != "" {
			x := event{Type: "exec_command_end", CallID: it.ID, ExitCode: it.ExitCode, Status: it.Status,
				Command: it.Command, Cwd: strings.TrimPrefix(it.Cwd, "file://"), AggregatedOutput: it.AggregatedOutput}
			return d.toolEvent(&x, ev)
		}
	default:
		if _, ok := toolEvents[e.Type]; ok {
			return d.toolEvent(&e, ev)
		}
	}
	return nil
}

// attachUsage puts a response's usage on the last entry the model produced.
// When no new entry arrived since the last usage, the usage adds to that
// entry.
func (d *Decoder) attachUsage(ev *session.Event, u session.Usage) {
	if d.modelOut != "" && d.modelOut != d.usageOn {
		d.usageOn, d.usageAcc = d.modelOut, u
	} else if d.usageOn != "" {
		d.usageAcc.Add(u)
	} else {
		// Usage before any model output (a copied history, say): keep it
		// with the last entry of any kind.
		if d.last == "" {
			return
		}
		d.usageOn, d.usageAcc = d.last, u
	}
	acc := d.usageAcc
	ev.Updates = append(ev.Updates, session.Update{EntryID: d.usageOn, Usage: &acc})
}

func toolCall(callID, itemID, name string, input json.RawMessage) session.Entry {
	id := callID
	if id == "" {
		id = itemID
	}
	return session.Entry{ID: id, Type: session.ToolCall, Tool: UniversalTool(name), Input: input, OriginalTool: name}
}

// jsonString returns raw as a string: decoded when it is a JSON string,
// verbatim otherwise.
func jsonString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' && fastDecode {
		if s, ok := fastString(raw); ok {
			return s
		}
	}
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// objectInput returns s as a tool input: as is when it is a JSON object,
// else wrapped as {key: s}.
func objectInput(s, key string) json.RawMessage {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") {
		var b bytes.Buffer
		if json.Compact(&b, []byte(t)) == nil {
			return b.Bytes()
		}
	}
	if t == "" || t == "null" {
		return json.RawMessage(`{}`)
	}
	var v any = s
	if json.Valid([]byte(t)) {
		v = json.RawMessage(t)
	}
	b, _ := json.Marshal(map[string]any{key: v})
	return b
}

// contentText flattens message content parts to text and attachments.
func contentText(raw json.RawMessage) (string, []session.Attachment) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		return jsonString(raw), nil
	}
	if fastDecode && raw[0] == '[' {
		if text, atts, ok := fastContentText(raw); ok {
			return text, atts
		}
	}
	var parts []part
	if json.Unmarshal(raw, &parts) != nil {
		return string(raw), nil
	}
	var texts []string
	var atts []session.Attachment
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text", "reasoning_text", "summary_text":
			texts = append(texts, p.Text)
		case "input_image":
			atts = append(atts, imageAttachment(p.ImageURL))
		case "input_file":
			a := session.Attachment{Type: "file", Name: p.Filename}
			if strings.HasPrefix(p.FileData, "data:") {
				a.MediaType, a.Data = splitDataURL(p.FileData)
			} else if p.FileID != "" {
				a.Name = p.FileID
			}
			atts = append(atts, a)
		}
	}
	return strings.Join(texts, "\n"), atts
}

func imageAttachment(url string) session.Attachment {
	a := session.Attachment{Type: "image"}
	if strings.HasPrefix(url, "data:") {
		a.MediaType, a.Data = splitDataURL(url)
	} else {
		a.URL = url
	}
	return a
}

// splitDataURL splits data:<type>;base64,<data>.
func splitDataURL(u string) (mediaType, data string) {
	rest := strings.TrimPrefix(u, "data:")
	head, data, ok := strings.Cut(rest, ",")
	if !ok {
		return "", rest
	}
	return strings.TrimSuffix(head, ";base64"), data
}

// outputText flattens a tool output (a string, or a list of content parts)
// to text, attachments and the exit code when the output states one.
// Older Codex wrapped command output as the JSON text of
// {"output": ..., "metadata": {"exit_code": ...}}; that is unwrapped.
func outputText(raw json.RawMessage) (string, *int, []session.Attachment) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", nil, nil
	}
	switch raw[0] {
	case '"':
		s := jsonString(raw)
		if out, exit, ok := unwrapOutput(s); ok {
			return out, exit, nil
		}
		return s, nil, nil
	case '[':
		text, atts := contentText(raw)
		return text, nil, atts
	case '{':
		if out, exit, ok := unwrapOutput(string(raw)); ok {
			return out, exit, nil
		}
	}
	return string(raw), nil, nil
}

// unwrapOutput reads {"output": "...", "metadata": {"exit_code": N}}.
func unwrapOutput(s string) (string, *int, bool) {
	if !strings.HasPrefix(s, `{"output"`) {
		return "", nil, false
	}
	var o struct {
		Output   *string `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if json.Unmarshal([]byte(s), &o) != nil || o.Output == nil {
		return "", nil, false
	}
	return *o.Output, o.Metadata.ExitCode, true
}

// Read decodes a whole Codex rollout from r. A fork's parent history is not
// included (see ReadFile).
func Read(r io.Reader) (*session.Session, error) {
	return read(NewDecoder(r), session.ReadOptions{})
}

func read(dec *Decoder, o session.ReadOptions) (*session.Session, error) {
	b := session.NewBuilder(session.Codex, dec.Path).With(o)
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
