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

// normalizer turns a session's timeline into what an encoder receives.
type normalizer struct {
	s        *session.Session
	r        Reader
	w        Writer
	fidelity Fidelity
	lost     func(session.Loss)
	emit     func(*session.Entry)

	entries  []session.Entry
	resultOf map[string]int // call id -> index of its first result
	consumed map[int]bool   // results already written, ahead of their place
	open     []string       // calls written whose results are not yet
	openMsg  string         // the model response the open calls belong to
	// conversational counts user and assistant messages written.
	conversational int
}

func (n *normalizer) run() {
	n.entries = n.mainLine()
	n.resultOf = map[string]int{}
	n.consumed = map[int]bool{}
	for i, e := range n.entries {
		if e.Type == session.ToolResult && e.CallID != "" {
			if _, seen := n.resultOf[e.CallID]; !seen {
				n.resultOf[e.CallID] = i
			}
		}
	}
	for i := range n.entries {
		if n.consumed[i] {
			continue
		}
		e := n.entries[i]
		switch e.Type {
		case session.ToolCall:
			n.call(i, e)
		case session.ToolResult:
			n.result(e)
		default:
			ne, ok := n.plain(e)
			if !ok {
				continue
			}
			sameResponse := ne.Type == session.Assistant && ne.MessageID != "" && ne.MessageID == n.openMsg
			if len(n.open) > 0 && !sameResponse {
				n.closeOpen(i)
			}
			n.conversational++
			n.emit(ne)
		}
	}
	n.closeOpen(len(n.entries))
}

// mainLine returns the entries of the conversation itself: subagent
// sidechains stay behind.
func (n *normalizer) mainLine() []session.Entry {
	out := make([]session.Entry, 0, len(n.s.Timeline))
	side := 0
	for _, e := range n.s.Timeline {
		if e.Sidechain {
			side++
			continue
		}
		if n.r.CLI != n.w.CLI {
			// Native records mean something only to their own CLI's
			// writer, which may reuse them.
			e.Native = nil
		}
		out = append(out, e)
	}
	if side > 0 {
		n.lost(session.Loss{What: session.LostBranch, How: session.HandledDropped,
			Detail: fmt.Sprintf("%d entries of subagent sidechains (a subagent's own run) are not part of the main conversation", side)})
	}
	return out
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
		case session.KindContext, session.KindInstructions, session.KindTurn:
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
func (n *normalizer) call(i int, e session.Entry) {
	name, input, ok := n.mapTool(e)
	if !ok {
		n.asText(i, e)
		return
	}
	ne := e
	ne.OriginalTool, ne.Input = name, input
	if len(n.open) > 0 && e.MessageID != n.openMsg {
		n.closeOpen(i)
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
	if n.r.CLI == n.w.CLI {
		return e.OriginalTool, input, true
	}
	if n.r.ToolArgs == nil || n.w.ToolCall == nil {
		return "", nil, false
	}
	tool, args, ok := n.r.ToolArgs(e.OriginalTool, input)
	if !ok {
		return "", nil, false
	}
	return n.w.ToolCall(tool, args)
}

// asText carries a call the target cannot make, with its result, as
// assistant text.
func (n *normalizer) asText(i int, e session.Entry) {
	var b strings.Builder
	fmt.Fprintf(&b, "[tool call: %s %s]", e.OriginalTool, compact(e.Input))
	if j, ok := n.resultAfter(e.ID, i); ok {
		n.consumed[j] = true
		r := n.entries[j]
		if r.Success || r.Status == session.StatusOK {
			fmt.Fprintf(&b, "\n[tool result]\n%s", r.Output)
		} else {
			fmt.Fprintf(&b, "\n[tool error]\n%s", firstNonEmpty(r.Error, r.Output))
		}
	} else {
		b.WriteString("\n[no result was recorded]")
	}
	how := "the target CLI has no tool for it"
	if n.fidelity == Text {
		how = "text fidelity"
	}
	n.lost(session.Loss{Entry: e.ID, What: session.LostTool, How: session.HandledText,
		Detail: fmt.Sprintf("%s call %s carried as text: %s", e.Tool, e.OriginalTool, how)})
	if len(n.open) > 0 && e.MessageID != n.openMsg {
		n.closeOpen(i)
	}
	n.conversational++
	n.emit(&session.Entry{ID: e.ID, Timestamp: e.Timestamp, Type: session.Assistant, Content: b.String(),
		MessageID: e.MessageID, Model: e.Model})
}

// result writes a result in its place, when its call is open.
func (n *normalizer) result(e session.Entry) {
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

// closeOpen gives every open call its result before entry i: the result
// from later in the session, or a placeholder.
func (n *normalizer) closeOpen(i int) {
	for _, id := range n.open {
		if j, ok := n.resultAfter(id, i-1); ok {
			n.consumed[j] = true
			r := n.entries[j]
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

// resultAfter finds the unwritten result of call id after index i.
func (n *normalizer) resultAfter(id string, i int) (int, bool) {
	j, ok := n.resultOf[id]
	if !ok || j <= i || n.consumed[j] {
		return 0, false
	}
	return j, true
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
