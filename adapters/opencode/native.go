package opencode

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/stead-dev/stead/adapters/internal/jsonread"
	"github.com/stead-dev/stead/session"
)

// The native records, as OpenCode 1.18.33 writes them (opencode.md §3).
// The database keeps a message's or part's JSON in its data column without
// the id fields; the export and the storage/ tree keep the same objects
// with their ids. Only the fields stead reads are declared: the records
// themselves are kept verbatim in Native and Records.

// millis is a time in milliseconds since the epoch. Any other JSON value
// reads as 0, so an odd time never makes a whole record unreadable.
type millis int64

func (m *millis) UnmarshalJSON(b []byte) error {
	*m = 0
	if n := number(b); n <= maxMillis {
		*m = millis(n)
	}
	return nil
}

// maxMillis is the last millisecond of the year 9999: later times cannot
// be written as RFC 3339.
const maxMillis = 253402300799999

// number reads a JSON number literal as a non-negative integer below
// 2^53, or 0 for anything else.
func number(b []byte) int64 {
	if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		if n > 0 && n < 1<<53 {
			return n
		}
		return 0
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || !(f > 0 && f < 1<<53) {
		return 0
	}
	return int64(f)
}

// count is a token count: negative or non-numeric values read as 0.
type count int64

func (c *count) UnmarshalJSON(b []byte) error {
	*c = count(number(b))
	return nil
}

// sessionInfo is a session's info: the export's "info", a storage/
// session file, or the session table's columns.
type sessionInfo struct {
	ID        string        `json:"id"`
	Slug      string        `json:"slug"`
	ProjectID string        `json:"projectID"`
	ParentID  string        `json:"parentID"`
	Directory string        `json:"directory"`
	Title     string        `json:"title"`
	Version   string        `json:"version"`
	Model     *sessionModel `json:"model"`
	Time      sessionTime   `json:"time"`
	// Metadata is a free-form record; stead keeps a written session's
	// provenance in it as steadOrigin.
	Metadata json.RawMessage `json:"metadata"`
}

// sessionModel is the model a session was last asked to use.
type sessionModel struct {
	ID         string `json:"id"`
	ProviderID string `json:"providerID"`
}

// sessionTime is when a session was created and last updated.
type sessionTime struct {
	Created millis `json:"created"`
	Updated millis `json:"updated"`
}

// steadOrigin returns the provenance stead keeps in the metadata of a
// session it wrote, or nil.
func (s *sessionInfo) steadOrigin() *session.Origin {
	if len(s.Metadata) == 0 {
		return nil
	}
	var m struct {
		SteadOrigin *session.Origin `json:"steadOrigin"`
	}
	if json.Unmarshal(s.Metadata, &m) != nil {
		return nil
	}
	return m.SteadOrigin
}

// tokens is OpenCode's token count of a model response. OpenCode takes
// cache reads and writes out of input and reasoning out of output (its
// getUsage in 1.18.33), so input is already what USF calls Input and
// output must have reasoning added back.
type tokens struct {
	Input     count       `json:"input"`
	Output    count       `json:"output"`
	Reasoning count       `json:"reasoning"`
	Cache     cacheTokens `json:"cache"`
}

// cacheTokens is a response's cache reads and writes.
type cacheTokens struct {
	Read  count `json:"read"`
	Write count `json:"write"`
}

func (t *tokens) usage() session.Usage {
	if t == nil {
		return session.Usage{}
	}
	return session.Usage{
		Input:      int64(t.Input),
		Output:     int64(t.Output) + int64(t.Reasoning),
		Reasoning:  int64(t.Reasoning),
		CacheRead:  int64(t.Cache.Read),
		CacheWrite: int64(t.Cache.Write),
	}
}

// apiError is an error as messages and retry parts hold it:
// {"name","data":{"message",…}}.
type apiError struct {
	Name string    `json:"name"`
	Data errorData `json:"data"`
}

// errorData is the data of an apiError.
type errorData struct {
	Message string `json:"message"`
}

func (e *apiError) text() string {
	switch {
	case e == nil:
		return ""
	case e.Data.Message == "":
		return e.Name
	case e.Name == "":
		return e.Data.Message
	}
	return e.Name + ": " + e.Data.Message
}

// messageInfo is a message's info.
type messageInfo struct {
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	ParentID   string          `json:"parentID"`
	ModelID    string          `json:"modelID"`
	ProviderID string          `json:"providerID"`
	Model      *messageModel   `json:"model"`
	Mode       string          `json:"mode"`
	Time       messageTime     `json:"time"`
	Cost       float64         `json:"cost"`
	Tokens     *tokens         `json:"tokens"`
	Error      *apiError       `json:"error"`
	Summary    json.RawMessage `json:"summary"` // true on a compaction summary
}

// messageModel is the model a user message asked for.
type messageModel struct {
	ProviderID string `json:"providerID"`
	ModelID    string `json:"modelID"`
}

// messageTime is when a message was created and, for a response,
// completed.
type messageTime struct {
	Created   millis `json:"created"`
	Completed millis `json:"completed"`
}

// model returns the model and provider that answered (assistant) or were
// asked for (user).
func (m *messageInfo) model() (model, provider string) {
	if m.ModelID != "" {
		return m.ModelID, m.ProviderID
	}
	if m.Model != nil {
		return m.Model.ModelID, m.Model.ProviderID
	}
	return "", ""
}

// part is a message part.
type part struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Synthetic bool            `json:"synthetic"`
	Metadata  json.RawMessage `json:"metadata"`
	Time      span            `json:"time"`
	// tool
	Tool   string     `json:"tool"`
	CallID string     `json:"callID"`
	State  *toolState `json:"state"`
	// file
	Mime     string `json:"mime"`
	Filename string `json:"filename"`
	URL      string `json:"url"`
	// step-finish
	Tokens *tokens `json:"tokens"`
	Cost   float64 `json:"cost"`
	// subtask
	Prompt      string `json:"prompt"`
	Description string `json:"description"`
	// retry
	Attempt int       `json:"attempt"`
	Error   *apiError `json:"error"`
}

// toolState is a tool part's state: pending, running, completed or error.
type toolState struct {
	Status      string          `json:"status"`
	Input       json.RawMessage `json:"input"`
	Output      string          `json:"output"`
	Error       string          `json:"error"`
	Metadata    json.RawMessage `json:"metadata"`
	Time        span            `json:"time"`
	Attachments []part          `json:"attachments"`
}

// span is when a part or a tool call started and ended.
type span struct {
	Start millis `json:"start"`
	End   millis `json:"end"`
}

// parseJSON decodes a record's JSON object into v, a zero value. A record
// that is not a JSON object, or whose fields have the wrong types, is an
// error. The record types read their own members (fastrecord.go), several
// times faster than encoding/json, which reads what they give up on.
func parseJSON[T any, P interface {
	*T
	jsonread.Object
}](data []byte, v P) error {
	d := bytes.TrimSpace(data)
	if len(d) == 0 || d[0] != '{' {
		return errNotObject
	}
	if jsonread.Parse(d, v) {
		return nil
	}
	var zero T
	*v = zero
	return json.Unmarshal(d, v)
}

type notObject struct{}

func (notObject) Error() string { return "not a JSON object" }

var errNotObject error = notObject{}

// Part types stead knows. Those that make no entry are kept in Records.
var partTypes = map[string]bool{
	"text": true, "reasoning": true, "tool": true, "file": true, "subtask": true,
	"compaction": true, "retry": true,
	"step-start": true, "step-finish": true, "snapshot": true, "patch": true, "agent": true,
}

// isPrompt reports whether a text part of a message with role is a prompt
// the user typed: a non-empty text in a user message that OpenCode did not
// add itself (synthetic). Summaries count these as turns, as the decoder
// makes them user entries without a kind.
func isPrompt(role string, p *part) bool {
	return role == "user" && p.Type == "text" && !p.Synthetic && p.Text != ""
}

// isReply reports whether a text part is an assistant reply.
func isReply(role string, p *part) bool {
	return role != "user" && p.Type == "text" && p.Text != ""
}

// toolStatus maps a tool state to the outcome of its call, and whether the
// call has a result yet. OpenCode marks a call cut short by an abort as an
// error "Tool execution aborted" (metadata.interrupted), and a call the user
// refused as an error naming the rejection.
func toolStatus(s *toolState) (session.ToolStatus, bool) {
	if s == nil {
		return session.StatusPending, false
	}
	switch s.Status {
	case "completed":
		return session.StatusOK, true
	case "error":
		switch {
		case s.Error == "Tool execution aborted" || metaBool(s.Metadata, "interrupted"):
			return session.StatusInterrupted, true
		case strings.Contains(s.Error, "rejected permission") || strings.Contains(s.Error, "specified a rule") ||
			strings.Contains(s.Error, "QuestionRejectedError") || strings.Contains(s.Error, "user dismissed"):
			return session.StatusDenied, true
		}
		return session.StatusError, true
	}
	return session.StatusPending, false
}

// metaBool reads a boolean field of a metadata object.
func metaBool(meta json.RawMessage, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(meta, &m) != nil {
		return false
	}
	return string(m[key]) == "true"
}

// metaString reads a string field of a metadata object.
func metaString(meta json.RawMessage, key string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(meta, &m) != nil {
		return ""
	}
	var s string
	json.Unmarshal(m[key], &s)
	return s
}

// realTitle returns title, or "" for the placeholder title OpenCode
// gives a session until its title is generated: "New session - " or
// "Child session - " and a time such as 2026-11-21T19:28:41.556Z. (A
// regular expression's match of every session's title was most of what
// Discover cost beside its query.)
func realTitle(title string) string {
	stamp, ok := strings.CutPrefix(title, "New session - ")
	if !ok {
		stamp, ok = strings.CutPrefix(title, "Child session - ")
	}
	const layout = "dddd-dd-ddTdd:dd:dd.dddZ"
	if !ok || len(stamp) != len(layout) {
		return title
	}
	for i := range len(layout) {
		if c := stamp[i]; layout[i] == 'd' && (c < '0' || c > '9') || layout[i] != 'd' && c != layout[i] {
			return title
		}
	}
	return ""
}

// isSummary reports whether an assistant message is a compaction summary.
func (m *messageInfo) isSummary() bool {
	return string(m.Summary) == "true" || m.Mode == "compaction"
}

// msTime converts milliseconds since the epoch to a time: the zero time
// for 0, negative values and times past the year 9999.
func msTime(ms int64) time.Time {
	if ms <= 0 || ms > maxMillis {
		return time.Time{}
	}
	return session.UnixMilli(ms)
}
