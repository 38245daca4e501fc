package inject

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/stead-dev/stead/session"
)

// placeholder is the output of a tool call whose result the source never
// recorded (the turn was interrupted, or the session ends mid-call).
const placeholder = "[no result was recorded for this tool call; stead added this placeholder when converting the session]"

// The normaliser looks ahead this far for a call's result, and holds this
// many entries back so that updates (usage, status) can still reach them.
const (
	windowEntries = 1024
	windowBytes   = 4 << 20
)

// normalizer turns a session's timeline into what an encoder receives. It
// streams: entries come in with push (and changes to them with update),
// and leave, normalised, once they are far enough behind the newest entry
// that their results and updates have arrived.
type normalizer struct {
	sourceCLI string
	r         Reader
	w         Writer
	fidelity  Fidelity
	lost      func(session.Loss)
	emit      func(*session.Entry)

	buf      []session.Entry // the window: entries not yet written
	base     int             // absolute index of buf[0]
	bytes    int             // rough size of the window
	index    map[string]int  // entry id -> absolute index, for updates
	resultOf map[string]int  // call id -> absolute index of its first result
	consumed map[int]bool    // results already written, ahead of their place

	open    []string // calls written whose results are not yet
	openMsg string   // the model response the open calls belong to
	side    int      // sidechain entries left behind
	late    int      // updates that came after their entry was written
	// conversational counts user and assistant messages written.
	conversational int
}

func newNormalizer(r Reader, w Writer, fidelity Fidelity, lost func(session.Loss), emit func(*session.Entry)) *normalizer {
	return &normalizer{sourceCLI: r.CLI, r: r, w: w, fidelity: fidelity, lost: lost, emit: emit,
		index: map[string]int{}, resultOf: map[string]int{}, consumed: map[int]bool{}}
}

// run normalises a whole timeline.
func (n *normalizer) run(timeline []session.Entry) {
	for i := range timeline {
		n.push(timeline[i])
	}
	n.finish()
}

// push adds the next entry of the timeline.
func (n *normalizer) push(e session.Entry) {
	if e.Sidechain {
		n.side++
		return
	}
	if n.sourceCLI != n.w.CLI {
		// Native records mean something only to their own CLI's writer,
		// which may reuse them.
		e.Native = nil
	}
	abs := n.base + len(n.buf)
	if e.ID != "" {
		n.index[e.ID] = abs
	}
	if e.Type == session.ToolResult && e.CallID != "" {
		if _, seen := n.resultOf[e.CallID]; !seen {
			n.resultOf[e.CallID] = abs
		}
	}
	n.buf = append(n.buf, e)
	n.bytes += size(&e)
	for len(n.buf) > windowEntries || n.bytes > windowBytes {
		n.step()
	}
}

// update applies a change to an entry still in the window.
func (n *normalizer) update(u session.Update) {
	abs, ok := n.index[u.EntryID]
	if !ok || abs < n.base {
		n.late++
		return
	}
	e := &n.buf[abs-n.base]
	if u.Status != "" {
		e.Status = u.Status
	}
	if u.Usage != nil {
		e.Usage = u.Usage
	}
	if u.Model != "" {
		e.Model = u.Model
	}
}

// finish writes what is left and reports what was left behind.
func (n *normalizer) finish() {
	for len(n.buf) > 0 {
		n.step()
	}
	n.closeOpen()
	if n.side > 0 {
		n.lost(session.Loss{What: session.LostBranch, How: session.HandledDropped,
			Detail: fmt.Sprintf("%d entries of subagent sidechains (a subagent's own run) are not part of the main conversation", n.side)})
	}
	if n.late > 0 {
		n.lost(session.Loss{What: session.LostUsage, How: session.HandledDropped,
			Detail: fmt.Sprintf("%d updates (usage, status) arrived too long after their entry to be applied", n.late)})
	}
}

// step writes the oldest entry of the window.
func (n *normalizer) step() {
	e := n.buf[0]
	abs := n.base
	n.buf[0] = session.Entry{}
	n.buf = n.buf[1:]
	n.base++
	n.bytes -= size(&e)
	if e.ID != "" && n.index[e.ID] == abs {
		delete(n.index, e.ID)
	}
	if e.Type == session.ToolResult && n.resultOf[e.CallID] == abs {
		delete(n.resultOf, e.CallID)
	}
	if n.consumed[abs] {
		delete(n.consumed, abs)
		return
	}
	switch e.Type {
	case session.ToolCall:
		n.call(e)
	case session.ToolResult:
		n.result(e)
	default:
		ne, ok := n.plain(e)
		if !ok {
			return
		}
		sameResponse := ne.Type == session.Assistant && ne.MessageID != "" && ne.MessageID == n.openMsg
		if len(n.open) > 0 && !sameResponse {
			n.closeOpen()
		}
		n.conversational++
		n.emit(ne)
	}
}

// size is a rough count of the bytes an entry holds.
func size(e *session.Entry) int {
	n := len(e.Content) + len(e.Thinking) + len(e.Input) + len(e.Output) + len(e.Error) + 256
	if e.Native != nil {
		n += len(e.Native.Record)
	}
	for _, a := range e.Attachments {
		n += len(a.Data)
	}
	return n
}

// plain filters and adapts an entry that is not a tool call or result. It
// returns false for entries that are not carried over.
func (n *normalizer) plain(e session.Entry) (*session.Entry, bool) {
	drop := func(detail string) (*session.Entry, bool) {
		n.lost(session.Loss{Entry: e.ID, What: session.LostEntry, How: session.HandledDropped, Detail: detail})
		return nil, false
	}
	switch e.Type {
	case session.User:
		switch e.Kind {
		case session.KindMeta, session.KindInterrupt:
			return nil, false // the CLI's own notes, not the user's words
		case session.KindCommand:
			return drop("a slash command (" + clip(e.Content) + ") means nothing to another CLI")
		}
		if strings.TrimSpace(e.Content) == "" && len(e.Attachments) == 0 {
			return nil, false
		}
	case session.Assistant:
		if e.Kind == session.KindError {
			return drop("an API error message (" + clip(e.Content) + ")")
		}
		if n.fidelity == Text && (e.Thinking != "" || len(e.Reasoning) > 0) {
			if e.Thinking != "" {
				n.lost(session.Loss{Entry: e.ID, What: session.LostThinking, How: session.HandledDropped, Detail: "text fidelity carries no thinking"})
			}
			e.Thinking, e.Reasoning = "", nil
		}
		if e.Content == "" && e.Thinking == "" && len(e.Reasoning) == 0 {
			return nil, false
		}
	case session.System:
		switch e.Kind {
		case session.KindContext, session.KindInstructions, session.KindTurn, session.KindInterrupt:
			return nil, false // each CLI supplies its own
		case session.KindCompaction, session.KindSummary:
			if strings.TrimSpace(e.Content) == "" {
				return nil, false
			}
			n.lost(session.Loss{Entry: e.ID, What: session.LostEntry, How: session.HandledText,
				Detail: "a summary of earlier conversation is carried as a user message"})
			return &session.Entry{ID: e.ID, Timestamp: e.Timestamp, Type: session.User,
				Content: "[Summary of the earlier conversation]\n\n" + e.Content}, true
		}
		if strings.TrimSpace(e.Content) == "" {
			return nil, false
		}
		return drop("a " + kindOr(e.Kind, "system") + " message (" + clip(e.Content) + ")")
	default:
		return nil, false
	}
	return &e, true
}

// call writes a tool call as the target's own call, or as text.
func (n *normalizer) call(e session.Entry) {
	name, input, ok := n.mapTool(e)
	if !ok {
		n.asText(e)
		return
	}
	ne := e
	ne.OriginalTool, ne.Input = name, input
	if len(n.open) > 0 && e.MessageID != n.openMsg {
		n.closeOpen()
	}
	n.open = append(n.open, e.ID)
	n.openMsg = e.MessageID
	n.emit(&ne)
}

// mapTool returns the target's name and input for a call.
func (n *normalizer) mapTool(e session.Entry) (string, json.RawMessage, bool) {
	if n.fidelity == Text {
		return "", nil, false
	}
	input := e.Input
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	cli, toolArgs := n.r.toolArgs(e)
	if cli == n.w.CLI {
		return e.OriginalTool, input, true
	}
	if toolArgs == nil || n.w.ToolCall == nil {
		return "", nil, false
	}
	tool, args, ok := toolArgs(e.OriginalTool, input)
	if !ok {
		return "", nil, false
	}
	return n.w.ToolCall(tool, args)
}

// asText carries a call the target cannot make, with its result, as
// assistant text.
func (n *normalizer) asText(e session.Entry) {
	var b strings.Builder
	fmt.Fprintf(&b, "[tool call: %s %s]", e.OriginalTool, compact(e.Input))
	if r, ok := n.takeResult(e.ID); ok {
		if r.Success || r.Status == session.StatusOK {
			fmt.Fprintf(&b, "\n[tool result]\n%s", r.Output)
		} else {
			fmt.Fprintf(&b, "\n[tool error]\n%s", firstNonEmpty(r.Error, r.Output))
		}
	} else {
		b.WriteString("\n[no result was recorded]")
	}
	how := "the target CLI has no tool for it"
	cli, toolArgs := n.r.toolArgs(e)
	switch {
	case n.fidelity == Text:
		how = "text fidelity"
	case toolArgs == nil:
		how = "stead reads no tool arguments of " + cli
	default:
		if _, _, ok := toolArgs(e.OriginalTool, e.Input); !ok {
			how = "the tool has no universal form"
		}
	}
	n.lost(session.Loss{Entry: e.ID, What: session.LostTool, How: session.HandledText,
		Detail: fmt.Sprintf("%s call %s carried as text: %s", e.Tool, e.OriginalTool, how)})
	if len(n.open) > 0 && e.MessageID != n.openMsg {
		n.closeOpen()
	}
	n.conversational++
	n.emit(&session.Entry{ID: e.ID, Timestamp: e.Timestamp, Type: session.Assistant, Content: b.String(),
		MessageID: e.MessageID, Model: e.Model})
}

// result writes a result in its place, when its call is open.
func (n *normalizer) result(e session.Entry) {
	settle(&e)
	for k, id := range n.open {
		if id == e.CallID {
			n.open = append(n.open[:k], n.open[k+1:]...)
			n.emit(&e)
			return
		}
	}
	n.lost(session.Loss{Entry: e.ID, What: session.LostResult, How: session.HandledDropped,
		Detail: "a tool result whose call is not in the conversation"})
}

// closeOpen gives every open call its result before the entry being
// written: the result from further on in the window, or a placeholder.
func (n *normalizer) closeOpen() {
	for _, id := range n.open {
		if r, ok := n.takeResult(id); ok {
			settle(&r)
			n.emit(&r)
			continue
		}
		n.lost(session.Loss{Entry: id, What: session.LostResult, How: session.HandledPlaceholder,
			Detail: "the tool call has no recorded result; a placeholder result was added so the target's model API accepts the history"})
		n.emit(&session.Entry{ID: id + ":placeholder", Type: session.ToolResult, Kind: session.KindPlaceholder,
			CallID: id, Status: session.StatusInterrupted, Error: placeholder})
	}
	n.open = n.open[:0]
	n.openMsg = ""
}

// settle gives a result without a status the one its success says, as
// session.Pair does for a whole session.
func settle(e *session.Entry) {
	if e.Status == "" {
		e.Status = session.StatusError
		if e.Success {
			e.Status = session.StatusOK
		}
	}
}

// takeResult takes the unwritten result of call id out of the window.
func (n *normalizer) takeResult(id string) (session.Entry, bool) {
	abs, ok := n.resultOf[id]
	if !ok || abs < n.base || n.consumed[abs] {
		return session.Entry{}, false
	}
	n.consumed[abs] = true
	delete(n.resultOf, id)
	return n.buf[abs-n.base], true
}

func compact(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return s
}

func kindOr(kind, def string) string {
	if kind == "" {
		return def
	}
	return kind
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
