package kimi

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/stead-dev/stead/session"
)

// The legacy kimi-cli's records (kimi.md §2.3, §2.4).

// wireMessage is a legacy wire record's message: a type (the Python class
// name) and its payload, every field present, nulls included.
type wireMessage struct {
	Type    string      `json:"type"`
	Payload wirePayload `json:"payload"`
}

// wirePayload holds the payload fields stead reads, of every type: a
// ContentPart's are a part's.
type wirePayload struct {
	part
	UserInput        json.RawMessage `json:"user_input"`
	N                int             `json:"n"`
	NextAttempt      int             `json:"next_attempt"`
	MaxAttempts      int             `json:"max_attempts"`
	ErrorType        string          `json:"error_type"`
	StatusCode       *int            `json:"status_code"`
	TokenUsage       *tokenUsage     `json:"token_usage"`
	ID               string          `json:"id"`
	Function         *toolFunction   `json:"function"`
	ToolCallID       string          `json:"tool_call_id"`
	ReturnValue      *returnValue    `json:"return_value"`
	RequestID        string          `json:"request_id"`
	Response         string          `json:"response"`
	ParentToolCallID string          `json:"parent_tool_call_id"`
	TaskToolCallID   string          `json:"task_tool_call_id"`
	AgentID          string          `json:"agent_id"`
}

type returnValue struct {
	IsError bool            `json:"is_error"`
	Output  json.RawMessage `json:"output"`
	Message string          `json:"message"`
}

// knownWire lists the legacy wire types that make no entry of their own
// (wire/types.py at protocol 1.10); others are reported once.
var knownWire = wordSet(`CompactionEnd ToolCallPart ApprovalRequest ApprovalResponse
		ApprovalRequestResolved QuestionRequest ToolCallRequest HookRequest HookTriggered
		HookResolved SubagentEvent Notification PlanDisplay BtwBegin BtwEnd MCPLoadingBegin
		MCPLoadingEnd`)

// wire converts a legacy wire record (kimi.md §2.9): its message raw, or
// m when the fast reader read it with the record.
func (d *Decoder) wire(raw json.RawMessage, m *wireMessage, ev *session.Event) []session.Entry {
	if m == nil {
		m = new(wireMessage)
		if !readMessage(d, raw, m, ev) {
			return nil
		}
	}
	p := &m.Payload // fields of other types read as zero
	switch m.Type {
	case "TurnBegin", "SteerInput":
		if m.Type == "TurnBegin" {
			d.step = step{}
			d.pending = d.pending[:0]
		}
		c := d.content(p.UserInput)
		e := session.Entry{Type: session.User, Content: c.text, Attachments: c.atts}
		if m.Type == "TurnBegin" && isSlashCommand(c.first) {
			e.Kind = session.KindCommand
		}
		return d.one(e)
	case "TurnEnd":
		d.step = step{}
		d.pending = d.pending[:0]
		return d.one(session.Entry{Type: session.System, Kind: session.KindTurn, Content: "Turn complete"})
	case "StepBegin":
		d.step = step{open: true}
	case "StepInterrupted":
		d.interrupt(ev)
		return d.one(session.Entry{Type: session.System, Kind: session.KindInterrupt, Content: "Step interrupted"})
	case "StepRetry":
		text := fmt.Sprintf("Retrying step %d (attempt %d of %d) after %s", p.N, p.NextAttempt, p.MaxAttempts, p.ErrorType)
		if p.StatusCode != nil {
			text += fmt.Sprintf(" (HTTP %d)", *p.StatusCode)
		}
		return d.one(session.Entry{Type: session.System, Kind: session.KindError, Content: text})
	case "CompactionBegin":
		return d.one(session.Entry{Type: session.System, Kind: session.KindCompaction, Content: "Context compacted"})
	case "StatusUpdate":
		return d.usage(ev, p.TokenUsage.universal())
	case "ContentPart":
		e, ok := d.partEntry(&p.part, "")
		if !ok {
			return nil
		}
		if !d.step.open {
			// Output of a slash command, outside any model step: a
			// notice, not model output.
			return d.one(session.Entry{Type: session.System, Content: joinNonEmpty(e.Thinking, e.Content), Attachments: e.Attachments})
		}
		d.stepEntry(&e, ev.Line)
		return d.one(e)
	case "ToolCall":
		var name string
		var args json.RawMessage
		if p.Function != nil {
			name, args = p.Function.Name, p.Function.Arguments
		}
		e := session.Entry{ID: p.ID, Type: session.ToolCall, Tool: UniversalTool(name), OriginalTool: name, Input: argsInput(args)}
		d.stepEntry(&e, ev.Line)
		return d.one(e)
	case "ToolResult":
		var ok = true
		var text, msg string
		var atts []session.Attachment
		if rv := p.ReturnValue; rv != nil {
			c := d.content(rv.Output)
			ok, text, msg, atts = !rv.IsError, c.text, rv.Message, c.atts
		}
		if !ok {
			text = joinNonEmpty(msg, text)
		}
		d.resolve(p.ToolCallID)
		return d.one(toolResultEntry(p.ToolCallID, ok, text, atts))
	case "ApprovalRequest":
		if p.ID != "" {
			d.asks[p.ID] = p.ToolCallID
		}
	case "ApprovalResponse", "ApprovalRequestResolved":
		if call := d.asks[p.RequestID]; call != "" && p.Response == "reject" {
			ev.Updates = append(ev.Updates, session.Update{EntryID: call, Status: session.StatusDenied})
		}
	case "SubagentEvent":
		call := p.ParentToolCallID
		if call == "" {
			call = p.TaskToolCallID
		}
		d.link(ev, p.AgentID, call)
	default:
		if !knownWire[m.Type] {
			d.warnOnce(ev, "wire/"+m.Type, fmt.Sprintf("unknown wire message %q kept verbatim", m.Type))
		}
	}
	return nil
}

// contextRow converts a legacy context.jsonl row: a marker row (role
// starting with "_") or a message.
func (d *Decoder) contextRow(role string, raw []byte, ev *session.Event) []session.Entry {
	switch role {
	case "_system_prompt":
		var r struct {
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(raw, &r)
		return d.one(session.Entry{Type: session.System, Kind: session.KindInstructions, Content: d.content(r.Content).text})
	case "_checkpoint", "_usage":
		// Checkpoints for D-Mail, and context sizes (not usage).
		return nil
	}
	if strings.HasPrefix(role, "_") {
		d.warnOnce(ev, "row/"+role, fmt.Sprintf("unknown marker row %q kept verbatim", role))
		return nil
	}
	d.in.contentOK = false
	m := &d.row // not a variable of its own, which Parse would move to the heap
	*m = contextMessage{in: &d.in}
	if !readMessage(d, raw, m, ev) {
		return nil
	}
	return d.message(m, ev, (*Decoder).contextUserKind)
}

// contextUserKind classifies a legacy context user row: a prompt, or one
// of the synthetic rows kimi-cli injects (kimi.md §2.3).
func (d *Decoder) contextUserKind(_ *contextMessage, first string) (session.EntryType, string) {
	return legacyUserKind(first)
}

func legacyUserKind(first string) (session.EntryType, string) {
	t := strings.TrimLeft(first, " \t\n")
	switch {
	case strings.HasPrefix(t, "<system>Previous context has been compacted"):
		return session.System, session.KindSummary
	case strings.HasPrefix(t, "<system-reminder>"), strings.HasPrefix(t, "<notification "), isCheckpoint(t):
		return session.User, session.KindMeta
	}
	return session.User, ""
}

// isCheckpoint reports whether t is a D-Mail checkpoint marker,
// "<system>CHECKPOINT <n></system>".
func isCheckpoint(t string) bool {
	n, ok := strings.CutPrefix(strings.TrimSpace(t), "<system>CHECKPOINT ")
	if !ok {
		return false
	}
	n, ok = strings.CutSuffix(n, "</system>")
	if !ok || n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		if n[i] < '0' || n[i] > '9' {
			return false
		}
	}
	return true
}

// isSlashCommand reports whether a prompt is a slash command (/clear,
// /compact …) rather than text that starts with a path.
func isSlashCommand(text string) bool {
	t := strings.TrimSpace(text)
	if len(t) < 2 || t[0] != '/' || !(t[1] >= 'a' && t[1] <= 'z' || t[1] >= 'A' && t[1] <= 'Z') {
		return false
	}
	word, _, _ := strings.Cut(t[1:], " ")
	return !strings.ContainsAny(word, "/\n")
}

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}
