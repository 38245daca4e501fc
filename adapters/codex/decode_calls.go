package codex

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/stead-dev/stead/session"
)

// A Codex tool call can be known from a response item (function_call and
// its output), from an event (mcp_tool_call_end, patch_apply_end, ...), or
// from both. Which one a rollout holds depends on the Codex version and on
// its event persistence mode: an MCP call of 0.169 is a function_call, an
// mcp_tool_call_end and a function_call_output; a shell command the user
// typed (!cmd) is only an exec_command_end; a web search is a
// web_search_call item (its id is never written) and a web_search_end
// event, the event first. calls pairs them, so that each call is counted
// once and its result carries the tool's real outcome: an event's outcome
// (exit code, success flag, MCP isError) is the result's status.
//
// The decoder and the summarizer share it, so that they agree on every
// count.
type calls struct {
	byID map[string]*callState
	ids  []string // keys of byID, oldest first, to bound it

	// Web searches have no id in their item; the event's call_id is the
	// item's unwritten id. They are paired in order within a turn.
	webItems  []*callState // known from an item, awaiting the event
	webEvents []*callState // known from an event, awaiting the item
	// Tool searches the server ran have no call_id: their output follows.
	searches []*callState
}

// maxCalls bounds how many call ids calls remembers, so that a summary's
// memory does not grow with the session. An event comes in the same turn
// as its call, rarely much later (a long-running command's end).
const maxCalls = 1 << 14

// callState is what is known of one tool call.
type callState struct {
	entry  string // the call entry's id (decoder only)
	result string // the result entry's id, once there is one (decoder only)

	hasResult bool
	status    session.ToolStatus // the result's status, once there is one
	// outcome is what an event said of the call before its result came.
	outcome session.ToolStatus
	// fromEvent marks a call made from an event: its result comes from an
	// event too.
	fromEvent bool
}

func (c *calls) get(id string) *callState {
	if id == "" || c.byID == nil {
		return nil
	}
	return c.byID[id]
}

func (c *calls) put(id string, st *callState) {
	if id == "" {
		return
	}
	if c.byID == nil {
		c.byID = make(map[string]*callState)
	}
	if _, ok := c.byID[id]; !ok {
		if len(c.ids) >= maxCalls {
			delete(c.byID, c.ids[0])
			c.ids = c.ids[1:]
		}
		c.ids = append(c.ids, id)
	}
	c.byID[id] = st
}

// item registers a call known from a response item. dup reports a call
// already known (from an event that came first): the item adds nothing.
func (c *calls) item(id string) (st *callState, dup bool) {
	if st := c.get(id); st != nil {
		return st, true
	}
	st = &callState{}
	c.put(id, st)
	return st, false
}

// output registers a call's result known from a response item, whose text
// says status. It returns the result's status: what an event said of the
// call, when one did. dup reports the result of a call an event already
// made whole: the item adds nothing.
func (c *calls) output(id string, status session.ToolStatus) (st *callState, final session.ToolStatus, dup bool) {
	st = c.get(id)
	if st == nil {
		st = &callState{}
		c.put(id, st)
	}
	if st.fromEvent && st.hasResult {
		return st, st.status, true
	}
	if st.outcome != "" {
		status = st.outcome
	}
	st.hasResult, st.status = true, status
	return st, status, false
}

// restate records that an item states the outcome of a call whose result
// an event made first. changed reports a status that changed; old is the
// one it had.
func (c *calls) restate(st *callState, status session.ToolStatus) (old session.ToolStatus, changed bool) {
	if !st.hasResult || st.status == status {
		return "", false
	}
	old, st.status = st.status, status
	return old, true
}

// What an event makes of a call.
type eventAction int

const (
	eventNothing eventAction = iota
	eventNew                 // a call not known yet: the event is the call (and its result)
	eventResult              // a call an event made: this event is its result
	eventLate                // the result came first and said otherwise: its status changes
)

// event registers what an event says of call id: its outcome ("" when the
// event says nothing of it), and whether the call ends with it (an _end
// event) or only starts (a _begin event). For eventLate, old is the status
// the result had.
func (c *calls) event(id string, outcome session.ToolStatus, ends bool) (st *callState, act eventAction, old session.ToolStatus) {
	st = c.get(id)
	switch {
	case st == nil:
		st = &callState{fromEvent: true}
		c.put(id, st)
		if ends {
			st.hasResult, st.status = true, okOr(outcome)
		}
		return st, eventNew, ""
	case !ends || outcome == "":
		return st, eventNothing, ""
	case !st.hasResult && st.fromEvent:
		st.hasResult, st.status = true, outcome
		return st, eventResult, ""
	case !st.hasResult:
		st.outcome = outcome
		return st, eventNothing, ""
	case st.status != outcome:
		old, st.status = st.status, outcome
		return st, eventLate, old
	}
	return st, eventNothing, ""
}

// webItem registers a web_search_call item with no id. dup reports one
// whose event came first.
func (c *calls) webItem() (st *callState, dup bool) {
	if len(c.webEvents) > 0 {
		st, c.webEvents = c.webEvents[0], c.webEvents[1:]
		return st, true
	}
	st = &callState{}
	c.webItems = append(c.webItems, st)
	return st, false
}

// webEvent registers a web_search_end: the call of an id-less item that
// came first, or a new call.
func (c *calls) webEvent(id string) (st *callState, isNew bool) {
	if st := c.get(id); st != nil {
		return st, false
	}
	if len(c.webItems) > 0 {
		st, c.webItems = c.webItems[0], c.webItems[1:]
		c.put(id, st)
		return st, false
	}
	st = &callState{fromEvent: true, hasResult: true, status: session.StatusOK}
	c.put(id, st)
	c.webEvents = append(c.webEvents, st)
	return st, true
}

// search registers a tool_search_call; one without a call_id waits for
// the next output without one.
func (c *calls) search(id string) (st *callState, dup bool) {
	if id != "" {
		return c.item(id)
	}
	st = &callState{}
	c.searches = append(c.searches, st)
	return st, false
}

// searchOutput registers a tool_search_output.
func (c *calls) searchOutput(id string, status session.ToolStatus) (st *callState, final session.ToolStatus, dup bool) {
	if id == "" && len(c.searches) > 0 {
		st, c.searches = c.searches[0], c.searches[1:]
		st.hasResult, st.status = true, status
		return st, status, false
	}
	return c.output(id, status)
}

// turnEnd forgets the calls that are paired by order: a turn's searches
// never pair with another's.
func (c *calls) turnEnd() {
	c.webItems, c.webEvents, c.searches = c.webItems[:0], c.webEvents[:0], c.searches[:0]
}

func okOr(s session.ToolStatus) session.ToolStatus {
	if s == "" {
		return session.StatusOK
	}
	return s
}

// toolEnd is what an event that ends (or starts) a tool call says of it,
// as the decoder and the summarizer read it.
type toolEnd struct {
	kind     string // the event type
	callID   string
	hasExit  bool
	exit     int64
	success  int8   // 0 unsaid, 1 true, -1 false
	status   string // a status string, or the tag of a collab AgentStatus
	mcpError bool   // an MCP result that is Err, or Ok with isError
}

// toolEvents maps the event types that end or start a tool call to the
// Codex tool they stand for.
var toolEvents = map[string]string{
	"mcp_tool_call_end":              "", // named by its invocation
	"web_search_end":                 "web_search",
	"patch_apply_end":                "apply_patch",
	"exec_command_end":               "shell",
	"view_image_tool_call":           "view_image",
	"image_generation_end":           "image_generation",
	"dynamic_tool_call_response":     "", // named by its tool
	"collab_agent_spawn_begin":       "spawn_agent",
	"collab_agent_spawn_end":         "spawn_agent",
	"collab_agent_interaction_begin": "send_input",
	"collab_agent_interaction_end":   "send_input",
	"collab_waiting_begin":           "wait_agent",
	"collab_waiting_end":             "wait_agent",
	"collab_close_begin":             "close_agent",
	"collab_close_end":               "close_agent",
	"collab_resume_begin":            "resume_agent",
	"collab_resume_end":              "resume_agent",
}

// eventKinds maps each event type of toolEvents to itself, so that a
// summary finds the type's string without making one.
var eventKinds = func() map[string]string {
	m := make(map[string]string, len(toolEvents))
	for k := range toolEvents {
		m[k] = k
	}
	return m
}()

// ends reports whether the event ends its call (else it starts it).
func (t *toolEnd) ends() bool { return !strings.HasSuffix(t.kind, "_begin") }

// outcome is the call's status as the event states it, or "" when it
// states none (a start, a web search).
func (t *toolEnd) outcome() session.ToolStatus {
	if !t.ends() {
		return ""
	}
	switch t.kind {
	case "mcp_tool_call_end":
		if t.mcpError {
			return session.StatusError
		}
	case "exec_command_end", "patch_apply_end":
		switch t.status {
		case "declined":
			return session.StatusDenied
		case "failed":
			return session.StatusError
		}
		if (t.hasExit && t.exit != 0) || t.success < 0 {
			return session.StatusError
		}
	case "image_generation_end", "dynamic_tool_call_response":
		if t.status == "failed" || t.success < 0 {
			return session.StatusError
		}
	case "web_search_end":
		return ""
	default: // collab_*_end: the other agent's status
		switch t.status {
		case "errored", "not_found":
			return session.StatusError
		}
	}
	return session.StatusOK
}

// eventTool is the Codex tool an event's call stands for.
func eventTool(kind, server, tool string) string {
	switch kind {
	case "mcp_tool_call_end":
		return "mcp__" + server + "__" + tool
	case "dynamic_tool_call_response":
		return tool
	}
	return toolEvents[kind]
}

// itemStatus is a call's outcome as an item's status states it.
func itemStatus(s string) session.ToolStatus {
	switch s {
	case "failed":
		return session.StatusError
	case "incomplete":
		return session.StatusInterrupted
	}
	return session.StatusOK
}

// qualifiedName is a function call's tool name: its namespace (an MCP
// server's, mcp__docs__) joined to its name, as Codex itself joins them.
func qualifiedName(namespace, name []byte) string {
	if len(namespace) == 0 {
		return string(name)
	}
	return string(namespace) + string(name)
}

// contextCwd reads the working directory an <environment_context> message
// states: <cwd>DIR</cwd>, or the oldest "Current working directory: DIR"
// line.
func contextCwd(text []byte) string {
	if i := bytes.Index(text, []byte("<cwd>")); i >= 0 {
		rest := text[i+len("<cwd>"):]
		if j := bytes.Index(rest, []byte("</cwd>")); j >= 0 {
			return string(bytes.TrimSpace(rest[:j]))
		}
		return ""
	}
	const label = "Current working directory:"
	if i := bytes.Index(text, []byte(label)); i >= 0 {
		rest := text[i+len(label):]
		if j := bytes.IndexByte(rest, '\n'); j >= 0 {
			rest = rest[:j]
		} else if j := bytes.Index(rest, []byte("</environment_context>")); j >= 0 {
			rest = rest[:j]
		} else {
			return "" // cut before its end
		}
		return string(bytes.TrimSpace(rest))
	}
	return ""
}

// statusTag reads a status that is a string, or a collab AgentStatus: a
// string ("running") or an object keyed by its state ({"completed": msg}).
func statusTag(raw json.RawMessage) (tag, text string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", ""
	}
	if raw[0] == '"' {
		return jsonString(raw), ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return "", ""
	}
	for k, v := range m {
		var s string
		_ = json.Unmarshal(v, &s)
		return k, s
	}
	return "", ""
}

// mcpResult reads an mcp_tool_call_end's result: {"Ok": CallToolResult} or
// {"Err": message}.
type mcpResult struct {
	Ok *struct {
		Content           []mcpContent    `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	} `json:"Ok"`
	Err *string `json:"Err"`
}

type mcpContent struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
}

// toolEnd reads what the event says of its call.
func (e *event) toolEnd() toolEnd {
	t := toolEnd{kind: e.Type, callID: e.CallID}
	if e.ExitCode != nil {
		t.hasExit, t.exit = true, int64(*e.ExitCode)
	}
	if e.Success != nil {
		t.success = -1
		if *e.Success {
			t.success = 1
		}
	}
	t.status, _ = statusTag(e.Status)
	if e.Type == "mcp_tool_call_end" {
		var r mcpResult
		if json.Unmarshal(e.Result, &r) == nil {
			t.mcpError = r.Err != nil || (r.Ok != nil && r.Ok.IsError)
		}
	}
	return t
}

// toolEvent reads an event that ends or starts a tool call: the call and
// its result when no item holds them, else the outcome it states.
func (d *Decoder) toolEvent(e *event, ev *session.Event) []session.Entry {
	t := e.toolEnd()
	if t.callID == "" {
		return nil
	}
	var st *callState
	act := eventNothing
	if e.Type == "web_search_end" {
		var isNew bool
		if st, isNew = d.calls.webEvent(t.callID); isNew {
			act = eventNew
		}
	} else {
		st, act, _ = d.calls.event(t.callID, t.outcome(), t.ends())
	}
	if link := e.subagent(); link != nil && act != eventNew && st.entry != "" {
		ev.Updates = append(ev.Updates, session.Update{EntryID: st.entry, Subagent: link})
	}
	switch act {
	case eventNew:
		call := d.eventCall(e)
		d.bind(st, 0, false)
		if !t.ends() {
			return []session.Entry{call}
		}
		call.Status = st.status
		res := d.eventResult(e, call.ID, st.status)
		d.bind(st, 1, true)
		return []session.Entry{call, res}
	case eventResult:
		res := d.eventResult(e, st.entry, st.status)
		d.bind(st, 0, true)
		ev.Updates = append(ev.Updates, session.Update{EntryID: st.entry, Status: st.status})
		d.resolve(st.entry)
		return []session.Entry{res}
	case eventLate:
		d.update(ev, st)
	}
	return nil
}

// subagent is the thread a collab spawn started.
func (e *event) subagent() *session.Link {
	if e.Type != "collab_agent_spawn_end" || e.NewThreadID == "" {
		return nil
	}
	return &session.Link{Kind: session.LinkSubagent, CLI: session.Codex, ID: e.NewThreadID, CallID: e.CallID}
}

// eventCall is the call an event stands for, with the input it states.
func (d *Decoder) eventCall(e *event) session.Entry {
	var server, tool string
	input := map[string]any{}
	raw := func(k string, v json.RawMessage) {
		if v = bytes.TrimSpace(v); len(v) > 0 && string(v) != "null" && json.Valid(v) {
			input[k] = v
		}
	}
	str := func(k, v string) {
		if v != "" {
			input[k] = v
		}
	}
	var b []byte
	switch e.Type {
	case "mcp_tool_call_end":
		if e.Invocation != nil {
			server, tool = e.Invocation.Server, e.Invocation.Tool
			if args := bytes.TrimSpace(e.Invocation.Arguments); len(args) > 0 && args[0] == '{' {
				b = args
			}
		}
	case "dynamic_tool_call_response":
		tool = e.Tool
		if args := bytes.TrimSpace(e.Arguments); len(args) > 0 && args[0] == '{' {
			b = args
		}
	case "web_search_end":
		// The input is the search's action, as a web_search_call's is.
		if a := bytes.TrimSpace(e.Action); len(a) > 0 && a[0] == '{' {
			b = a
		} else {
			input["type"], input["query"] = "search", e.Query
		}
	case "patch_apply_end":
		raw("changes", e.Changes)
	case "exec_command_end":
		raw("command", e.Command)
		str("workdir", e.Cwd)
	case "view_image_tool_call":
		str("path", e.Path)
	case "image_generation_end":
		str("prompt", e.RevisedPrompt)
	default: // collab
		str("prompt", e.Prompt)
		str("receiver_thread_id", e.ReceiverThreadID)
	}
	if b == nil {
		b, _ = json.Marshal(input)
	}
	var c bytes.Buffer
	if json.Compact(&c, b) == nil {
		b = c.Bytes()
	}
	call := toolCall(e.CallID, "", eventTool(e.Type, server, tool), b)
	call.Subagent = e.subagent()
	return call
}

// eventResult is the result an event states.
func (d *Decoder) eventResult(e *event, callID string, status session.ToolStatus) session.Entry {
	var text string
	var atts []session.Attachment
	switch e.Type {
	case "mcp_tool_call_end":
		text, atts = e.mcpText()
	case "dynamic_tool_call_response":
		text = itemsText(e.ContentItems)
		if text == "" {
			text = e.Error
		}
	case "web_search_end":
		text = searchText(e.Action, e.Query)
	case "patch_apply_end":
		text = e.Stdout
		if status != session.StatusOK && e.Stderr != "" {
			text = e.Stderr
		}
	case "exec_command_end":
		switch {
		case e.AggregatedOutput != "":
			text = e.AggregatedOutput
		case e.Stdout != "" || e.Stderr != "":
			text = e.Stdout + e.Stderr
		default:
			text = e.FormattedOutput
		}
	case "view_image_tool_call":
		text = e.Path
	case "image_generation_end":
		text = e.SavedPath
		atts = imageAttachments(jsonString(e.Result))
	default: // collab: the other agent's status, and its last message
		tag, msg := statusTag(e.Status)
		text = msg
		if text == "" {
			text = tag
		}
	}
	res := resultEntry(callID, text, status, atts)
	res.ID = e.CallID + ":output"
	res.Subagent = e.subagent()
	return res
}

// mcpText flattens an MCP result: its text content, images as
// attachments, else its structured content; or the error.
func (e *event) mcpText() (string, []session.Attachment) {
	var r mcpResult
	if json.Unmarshal(e.Result, &r) != nil {
		return compactJSON(e.Result), nil
	}
	if r.Err != nil {
		return *r.Err, nil
	}
	if r.Ok == nil {
		return "", nil
	}
	var texts []string
	var atts []session.Attachment
	for _, c := range r.Ok.Content {
		switch c.Type {
		case "text":
			texts = append(texts, c.Text)
		case "image", "audio":
			atts = append(atts, session.Attachment{Type: c.Type, MediaType: c.MimeType, Data: c.Data})
		}
	}
	if len(texts) == 0 {
		return compactJSON(r.Ok.StructuredContent), atts
	}
	return strings.Join(texts, "\n"), atts
}

// itemsText joins the texts of content items.
func itemsText(raw json.RawMessage) string {
	var items []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &items)
	var texts []string
	for _, it := range items {
		if it.Text != "" {
			texts = append(texts, it.Text)
		}
	}
	return strings.Join(texts, "\n")
}
