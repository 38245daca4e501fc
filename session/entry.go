package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// EntryType is the kind of a timeline entry, as in seed 001.
type EntryType string

// Entry types.
const (
	User       EntryType = "user"
	Assistant  EntryType = "assistant"
	ToolCall   EntryType = "tool_call"
	ToolResult EntryType = "tool_result"
	System     EntryType = "system"
)

// Valid reports whether t is one of the five entry types.
func (t EntryType) Valid() bool {
	switch t {
	case User, Assistant, ToolCall, ToolResult, System:
		return true
	}
	return false
}

// Kinds refine an entry's type. An empty kind is the plain case: a prompt the
// user typed, an assistant reply, a system message.
const (
	// KindMeta marks a user entry the CLI injected rather than the user
	// typed (caveats, command output, reminders).
	KindMeta = "meta"
	// KindCommand marks a user entry that is a slash command.
	KindCommand = "command"
	// KindInterrupt marks the point where the user interrupted a turn.
	KindInterrupt = "interrupt"
	// KindContext marks a system entry carrying context the CLI injected
	// for the model (environment, instructions, listings, snapshots).
	KindContext = "context"
	// KindInstructions marks a system or developer prompt.
	KindInstructions = "instructions"
	// KindCompaction marks a compaction boundary: history before it was
	// summarised.
	KindCompaction = "compaction"
	// KindSummary marks a summary of earlier conversation.
	KindSummary = "summary"
	// KindError marks an API or CLI error.
	KindError = "error"
	// KindTurn marks the end of a turn (durations, counts).
	KindTurn = "turn"
	// KindPlaceholder marks a tool result a conversion made up for a
	// call the source never saw finish; writers use the target CLI's own
	// text for an aborted call.
	KindPlaceholder = "placeholder"
)

// ToolStatus is the outcome of a tool call.
type ToolStatus string

// Tool statuses. A call whose result is missing is pending.
const (
	StatusOK          ToolStatus = "ok"
	StatusError       ToolStatus = "error"
	StatusDenied      ToolStatus = "denied"
	StatusInterrupted ToolStatus = "interrupted"
	StatusPending     ToolStatus = "pending"
)

// Entry is one item of a session's timeline. Which fields are meaningful
// depends on Type, as in seed 001: user, assistant and system entries have
// Content (assistant also Thinking); tool_call entries have Tool, Input and
// OriginalTool; tool_result entries have CallID, Success, Output and Error.
// The remaining fields are stead's optional extensions.
type Entry struct {
	ID        string
	Timestamp time.Time
	Type      EntryType

	Content  string
	Thinking string

	Tool         Tool
	Input        json.RawMessage
	OriginalTool string

	CallID  string
	Success bool
	Output  string
	Error   string

	// ParentID is the entry this one follows in the conversation tree.
	ParentID string
	// Sidechain marks entries of a side branch (a subagent run inside the
	// main file).
	Sidechain bool
	// Kind refines Type (see the Kind constants).
	Kind string
	// Status is a tool call's or result's outcome.
	Status ToolStatus
	// Model is the model that produced an assistant or tool_call entry.
	Model string
	// MessageID is the API message id; entries from one model response
	// share it.
	MessageID string
	// Usage is the token usage of the model response this entry belongs
	// to. It is set on one entry per response so sums count it once.
	Usage *Usage
	// Reasoning keeps thinking and reasoning blocks, including opaque
	// signatures and encrypted content that cannot be re-created.
	Reasoning []Reasoning
	// Attachments keeps images and files sent with the entry.
	Attachments []Attachment
	// Subagent links a tool call or result to the subagent session it
	// started.
	Subagent *Link
	// Origin is the id of the session this entry was copied from, when a
	// fork copied it.
	Origin string
	// CLI is the CLI that produced the entry, when it differs from the
	// session's source (sessions chained across CLIs).
	CLI string
	// Native is the native record behind the entry.
	Native *Native
}

// Tool is a universal tool name.
type Tool string

// Universal tool names: seed 001's table, extended where the real CLIs need
// it.
const (
	ToolRead      Tool = "read"
	ToolWrite     Tool = "write"
	ToolEdit      Tool = "edit"
	ToolBash      Tool = "bash"
	ToolSearch    Tool = "search"
	ToolGlob      Tool = "glob"
	ToolList      Tool = "list"
	ToolAsk       Tool = "ask"
	ToolTask      Tool = "task"
	ToolWebFetch  Tool = "web_fetch"
	ToolWebSearch Tool = "web_search"
	// ToolTodo maintains a todo list or plan (TodoWrite, update_plan).
	ToolTodo Tool = "todo"
	// ToolPlan leaves or presents a plan mode (ExitPlanMode).
	ToolPlan Tool = "plan"
	// ToolNotebook edits a Jupyter notebook.
	ToolNotebook Tool = "notebook"
	// ToolImage views an image.
	ToolImage Tool = "image"
	// ToolSkill invokes a skill.
	ToolSkill Tool = "skill"
	// ToolMCP is a tool served by an MCP server.
	ToolMCP     Tool = "mcp"
	ToolUnknown Tool = "unknown"
)

// Tools lists every universal tool name.
var Tools = []Tool{
	ToolRead, ToolWrite, ToolEdit, ToolBash, ToolSearch, ToolGlob, ToolList,
	ToolAsk, ToolTask, ToolWebFetch, ToolWebSearch, ToolTodo, ToolPlan,
	ToolNotebook, ToolImage, ToolSkill, ToolMCP, ToolUnknown,
}

// Reasoning is one thinking or reasoning block. Signature and Encrypted are
// opaque: they are kept so the same provider can verify or reuse them, and
// never interpreted.
type Reasoning struct {
	// Format says whose block this is: "anthropic" (thinking),
	// "anthropic-redacted" (redacted_thinking) or "openai" (reasoning item).
	Format    string `json:"format,omitempty"`
	ID        string `json:"id,omitempty"`
	Text      string `json:"text,omitempty"`
	Signature string `json:"signature,omitempty"`
	Encrypted string `json:"encrypted,omitempty"`
}

// Attachment is an image, document or file carried by an entry.
type Attachment struct {
	// Type is "image", "document", "file" or "audio".
	Type      string `json:"type"`
	MediaType string `json:"mediaType,omitempty"`
	Name      string `json:"name,omitempty"`
	Path      string `json:"path,omitempty"`
	URL       string `json:"url,omitempty"`
	// Data is the content, base64-encoded, when it was embedded.
	Data string `json:"data,omitempty"`
}

// Native locates the native record behind an entry. One record can produce
// several entries (a message with text and tool calls); the record is kept
// on the first (Part 0) and the others only point at its line.
type Native struct {
	Line   int             `json:"line"`
	Part   int             `json:"part,omitempty"`
	Record json.RawMessage `json:"record,omitempty"`
	// Path is the file holding the record when it is not the session's
	// own file (history a fork reads from its parent's file).
	Path string `json:"path,omitempty"`
}

// entryJSON is the wire form of an Entry. Pointer fields are the ones seed
// 001 requires for some types and not others.
type entryJSON struct {
	ID           string          `json:"id"`
	Timestamp    string          `json:"timestamp"`
	Type         EntryType       `json:"type"`
	Content      *string         `json:"content,omitempty"`
	Thinking     string          `json:"thinking,omitempty"`
	Tool         Tool            `json:"tool,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	OriginalTool string          `json:"originalTool,omitempty"`
	CallID       *string         `json:"callId,omitempty"`
	Success      *bool           `json:"success,omitempty"`
	Output       *string         `json:"output,omitempty"`
	Error        string          `json:"error,omitempty"`

	ParentID    string       `json:"parentId,omitempty"`
	Sidechain   bool         `json:"sidechain,omitempty"`
	Kind        string       `json:"kind,omitempty"`
	Status      ToolStatus   `json:"status,omitempty"`
	Model       string       `json:"model,omitempty"`
	MessageID   string       `json:"messageId,omitempty"`
	Usage       *Usage       `json:"usage,omitempty"`
	Reasoning   []Reasoning  `json:"reasoning,omitempty"`
	Attachments []Attachment `json:"attachments,omitempty"`
	Subagent    *Link        `json:"subagent,omitempty"`
	Origin      string       `json:"origin,omitempty"`
	CLI         string       `json:"cli,omitempty"`
	Native      *Native      `json:"native,omitempty"`
}

var emptyObject = json.RawMessage(`{}`)

// MarshalJSON writes the entry in seed 001's shape for its type.
func (e Entry) MarshalJSON() ([]byte, error) {
	if !e.Type.Valid() {
		return nil, fmt.Errorf("session: entry %q has invalid type %q", e.ID, e.Type)
	}
	w := entryJSON{
		ID:          e.ID,
		Timestamp:   FormatTime(e.Timestamp),
		Type:        e.Type,
		ParentID:    e.ParentID,
		Sidechain:   e.Sidechain,
		Kind:        e.Kind,
		Status:      e.Status,
		Model:       e.Model,
		MessageID:   e.MessageID,
		Usage:       e.Usage,
		Reasoning:   e.Reasoning,
		Attachments: e.Attachments,
		Subagent:    e.Subagent,
		Origin:      e.Origin,
		CLI:         e.CLI,
		Native:      e.Native,
	}
	switch e.Type {
	case User, System:
		w.Content = &e.Content
	case Assistant:
		w.Content = &e.Content
		w.Thinking = e.Thinking
	case ToolCall:
		w.Tool = e.Tool
		if w.Tool == "" {
			w.Tool = ToolUnknown
		}
		w.Input = e.Input
		if len(w.Input) == 0 {
			w.Input = emptyObject
		}
		w.OriginalTool = e.OriginalTool
	case ToolResult:
		w.CallID = &e.CallID
		w.Success = &e.Success
		w.Output = &e.Output
		w.Error = e.Error
	}
	return MarshalCompact(w)
}

// UnmarshalJSON reads an entry written by MarshalJSON (or any USF 1.0
// entry).
func (e *Entry) UnmarshalJSON(b []byte) error {
	var w entryJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	ts, err := ParseTime(w.Timestamp)
	if err != nil {
		return fmt.Errorf("session: entry %q: %w", w.ID, err)
	}
	*e = Entry{
		ID:           w.ID,
		Timestamp:    ts,
		Type:         w.Type,
		Thinking:     w.Thinking,
		Tool:         w.Tool,
		Input:        w.Input,
		OriginalTool: w.OriginalTool,
		Error:        w.Error,
		ParentID:     w.ParentID,
		Sidechain:    w.Sidechain,
		Kind:         w.Kind,
		Status:       w.Status,
		Model:        w.Model,
		MessageID:    w.MessageID,
		Usage:        w.Usage,
		Reasoning:    w.Reasoning,
		Attachments:  w.Attachments,
		Subagent:     w.Subagent,
		Origin:       w.Origin,
		CLI:          w.CLI,
		Native:       w.Native,
	}
	if w.Content != nil {
		e.Content = *w.Content
	}
	if w.CallID != nil {
		e.CallID = *w.CallID
	}
	if w.Success != nil {
		e.Success = *w.Success
	}
	if w.Output != nil {
		e.Output = *w.Output
	}
	return nil
}

// InputText is a tool call's input as a person reads it: JSON, with the
// escapes of <, > and & undone.
func (e Entry) InputText() string { return PlainJSON(e.Input) }

// PlainJSON is raw JSON re-encoded without escaping <, > and &, as a
// person would write the text; raw as it is when it is not valid JSON.
func PlainJSON(raw json.RawMessage) string {
	if !bytes.ContainsAny(raw, `\`) {
		return string(raw)
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return string(raw)
	}
	return string(bytes.TrimSpace(b.Bytes()))
}

// SetStatus gives e a tool outcome. A result's Success and the place of
// its text follow it, as when the result was first read with it: Output
// when it succeeded, Error otherwise (a status an event states after the
// result, as Codex's exec_command_end does, reads like one stated
// before).
func (e *Entry) SetStatus(s ToolStatus) {
	e.Status = s
	switch {
	case e.Type != ToolResult:
		return
	case s == StatusOK, s == StatusError, s == StatusDenied, s == StatusInterrupted:
	default:
		return // pending, or a status stead does not know
	}
	ok := s == StatusOK
	switch {
	case ok && !e.Success && e.Output == "":
		e.Output, e.Error = e.Error, ""
	case !ok && e.Success && e.Error == "":
		e.Error, e.Output = e.Output, ""
	}
	e.Success = ok
}
