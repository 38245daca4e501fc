package agenthistory

import (
	"bytes"
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/stead-dev/stead/session"
)

// The wire form of a session line. Field order is the seed's; everything
// stead adds sits under a "stead" object (session.stead and
// messages[].metadata.stead), which other readers ignore.

type sessionJSON struct {
	ID               string      `json:"id"`
	Agent            string      `json:"agent"`
	Workspace        string      `json:"workspace"`
	WorkspaceEncoded string      `json:"workspace_encoded"`
	StartedAt        *string     `json:"started_at"`
	EndedAt          *string     `json:"ended_at"`
	Source           sourceJSON  `json:"source"`
	IsAgentSession   bool        `json:"is_agent_session"`
	ParentSessionID  *string     `json:"parent_session_id"`
	AgentID          *string     `json:"agent_id"`
	Stead            *sessionExt `json:"stead,omitempty"`
}

type sourceJSON struct {
	Type string  `json:"type"`
	Host *string `json:"host"`
	Path string  `json:"path"`
}

// sessionExt is what a USF session holds beyond the seed's session object.
type sessionExt struct {
	// Version is the USF version, when not session.Version.
	Version string `json:"version,omitempty"`
	// CLI is Source.CLI when the agent name does not give it back.
	CLI         string            `json:"cli,omitempty"`
	OriginalID  string            `json:"original_id,omitempty"`
	CLIVersion  string            `json:"cli_version,omitempty"`
	Format      string            `json:"format,omitempty"`
	ProjectName string            `json:"project_name,omitempty"`
	Git         *session.Git      `json:"git,omitempty"`
	Model       *modelJSON        `json:"model,omitempty"`
	Title       string            `json:"title,omitempty"`
	Tokens      *session.Usage    `json:"tokens,omitempty"`
	Cost        *float64          `json:"cost,omitempty"`
	Parent      *session.Link     `json:"parent,omitempty"`
	Subagents   []session.Link    `json:"subagents,omitempty"`
	Records     []recordJSON      `json:"records,omitempty"`
	Warnings    []session.Warning `json:"warnings,omitempty"`
}

type modelJSON struct {
	Provider   string          `json:"provider,omitempty"`
	Model      string          `json:"model,omitempty"`
	Config     json.RawMessage `json:"config,omitempty"`
	ConfigText *string         `json:"config_text,omitempty"`
}

// recordJSON is a session.Record. A record that is compact JSON is
// embedded as it is; any other (indented, or not JSON) is kept verbatim as
// a string in Text, so nothing about it changes.
type recordJSON struct {
	Line   int             `json:"line"`
	Record json.RawMessage `json:"record,omitempty"`
	Text   *string         `json:"text,omitempty"`
}

// nativeJSON is a session.Native, its record kept as recordJSON keeps one.
type nativeJSON struct {
	Line   int             `json:"line"`
	Part   int             `json:"part,omitempty"`
	Path   string          `json:"path,omitempty"`
	Record json.RawMessage `json:"record,omitempty"`
	Text   *string         `json:"text,omitempty"`
}

type messageJSON struct {
	Index      int           `json:"index"`
	UUID       *string       `json:"uuid"`
	ParentUUID *string       `json:"parent_uuid"`
	Role       string        `json:"role"`
	Timestamp  *string       `json:"timestamp"`
	Content    blocks        `json:"content"`
	Metadata   *metadataJSON `json:"metadata,omitempty"`
}

// blocks is a message's content: an array of blocks, or, as some writers
// of the format put a plain message, a string.
type blocks []blockJSON

func (b *blocks) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*b = blocks{{Type: "text", Text: &s}}
		return nil
	}
	return json.Unmarshal(data, (*[]blockJSON)(b))
}

type blockJSON struct {
	Type     string          `json:"type"`
	Text     *string         `json:"text,omitempty"`
	ToolID   *string         `json:"tool_id,omitempty"`
	ToolName *string         `json:"tool_name,omitempty"`
	Input    json.RawMessage `json:"input,omitempty"`
	Output   *string         `json:"output,omitempty"`
	IsError  *bool           `json:"is_error,omitempty"`
}

type metadataJSON struct {
	CWD          string          `json:"cwd,omitempty"`
	GitBranch    string          `json:"git_branch,omitempty"`
	AgentVersion string          `json:"agent_version,omitempty"`
	IsMeta       bool            `json:"is_meta,omitempty"`
	Model        *modelInfoJSON  `json:"model,omitempty"`
	TokenUsage   *tokenUsageJSON `json:"token_usage,omitempty"`
	Stead        *entryExt       `json:"stead,omitempty"`
}

type modelInfoJSON struct {
	Name string `json:"name"`
}

type tokenUsageJSON struct {
	InputTokens         int64 `json:"input_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
	CacheCreationTokens int64 `json:"cache_creation_tokens"`
	CacheReadTokens     int64 `json:"cache_read_tokens"`
}

// entryExt is what a timeline entry holds beyond its content block and the
// message's seed fields. metadata.stead describes the message's first
// entry and the message as a whole; its Rest, in order, the entries of
// content[1:]. A field that the seed's fields already give is left out.
type entryExt struct {
	// Message-wide, on metadata.stead only.
	MessageID       string `json:"message_id,omitempty"`
	ReasoningTokens int64  `json:"reasoning_tokens,omitempty"`

	// Given by the block or the message for the first entry, and written
	// for a later one only when they do not give it: ID for a text block
	// (a tool block's is its tool_id), Timestamp when not the message's,
	// ParentID when not the previous entry, Model when not the message's,
	// Usage (the message's token_usage is the first entry's).
	ID        string         `json:"id,omitempty"`
	Timestamp *string        `json:"timestamp,omitempty"`
	ParentID  *string        `json:"parent_id,omitempty"`
	Model     *string        `json:"model,omitempty"`
	Usage     *session.Usage `json:"usage,omitempty"`

	Kind     string `json:"kind,omitempty"`
	Thinking string `json:"thinking,omitempty"`
	// Tool is the universal tool name; the block's tool_name is the
	// CLI's. OriginalTool is set (to "") only when the entry has no CLI
	// name and tool_name is the universal one.
	Tool         string  `json:"tool,omitempty"`
	OriginalTool *string `json:"original_tool,omitempty"`
	// InputText is the tool input verbatim when the block's input is not:
	// absent (""), indented, or not JSON.
	InputText   *string              `json:"input_text,omitempty"`
	Status      string               `json:"status,omitempty"`
	Error       string               `json:"error,omitempty"`
	Sidechain   bool                 `json:"sidechain,omitempty"`
	Reasoning   []session.Reasoning  `json:"reasoning,omitempty"`
	Attachments []session.Attachment `json:"attachments,omitempty"`
	Subagent    *session.Link        `json:"subagent,omitempty"`
	Origin      string               `json:"origin,omitempty"`
	CLI         string               `json:"cli,omitempty"`
	Native      *nativeJSON          `json:"native,omitempty"`

	Rest []*entryExt `json:"rest,omitempty"`
}

func (x *entryExt) empty() bool {
	return x.MessageID == "" && x.ReasoningTokens == 0 && x.ID == "" && x.Timestamp == nil &&
		x.ParentID == nil && x.Model == nil && x.Usage == nil && x.Kind == "" && x.Thinking == "" &&
		x.Tool == "" && x.OriginalTool == nil && x.InputText == nil && x.Status == "" && x.Error == "" &&
		!x.Sidechain && len(x.Reasoning) == 0 && len(x.Attachments) == 0 && x.Subagent == nil &&
		x.Origin == "" && x.CLI == "" && x.Native == nil && x.Rest == nil
}

type graphJSON struct {
	IsLinear   bool       `json:"is_linear"`
	ForkPoints []forkJSON `json:"fork_points"`
	ActivePath []string   `json:"active_path"`
}

type forkJSON struct {
	UUID     string       `json:"uuid"`
	Index    int          `json:"index"`
	Branches []branchJSON `json:"branches"`
}

type branchJSON struct {
	UUID  string `json:"uuid"`
	Index int    `json:"index"`
}

var yes, no = true, false

func strPtr(s *string) *string {
	if *s == "" {
		return nil
	}
	return s
}

// timePtr formats t, or is nil (null) for the zero time.
func timePtr(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := session.FormatTime(t)
	return &s
}

// raw splits a raw JSON value the way recordJSON keeps it. Unless strict,
// a value that looks compact is trusted to be valid JSON: the encoder
// checks it, and the caller encodes again, strict, when it is not.
func raw(b []byte, strict bool) (json.RawMessage, *string) {
	if len(b) == 0 {
		return nil, nil
	}
	b = validUTF8(b)
	if looksCompact(b) && (!strict || json.Valid(b)) {
		return b, nil
	}
	s := string(b)
	return nil, &s
}

// unraw is the inverse of raw.
func unraw(r json.RawMessage, text *string) json.RawMessage {
	if text != nil {
		return json.RawMessage(*text)
	}
	if len(r) == 0 {
		return nil
	}
	return r
}

// inputValue returns the block's input for a tool call's input, and the
// input verbatim when the block's is not it (strict as for raw).
func inputValue(in json.RawMessage, strict bool) (json.RawMessage, *string) {
	if len(in) == 0 {
		empty := ""
		return json.RawMessage(`{}`), &empty
	}
	in = validUTF8(in)
	if looksCompact(in) && (!strict || json.Valid(in)) {
		return in, nil
	}
	text := string(in)
	var buf bytes.Buffer
	if json.Compact(&buf, in) == nil {
		return buf.Bytes(), &text
	}
	b, _ := session.MarshalCompact(text)
	return b, &text
}

// looksCompact reports whether b, if it is JSON, is compact: nothing but
// strings, and no whitespace outside them. Such a value goes into a line
// unchanged (the encoder does not escape <, > and &).
func looksCompact(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if in {
			switch c {
			case '\\':
				i++
			case '"':
				in = false
			}
			continue
		}
		switch c {
		case '"':
			in = true
		case ' ', '\t', '\n', '\r':
			return false
		}
	}
	return true
}

// validUTF8 returns b with each run of bytes that is not UTF-8 replaced by
// U+FFFD, as a line of the format (UTF-8) can hold it. Deciding how to
// write a value on the replaced bytes keeps a second export like the first.
func validUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return bytes.ToValidUTF8(b, []byte("\uFFFD"))
}
