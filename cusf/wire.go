package cusf

import (
	_ "embed"
	"encoding/json"

	"github.com/stead-dev/stead/session"
)

// Schema is the JSON Schema (draft 2020-12) of one CUSF 1.0.0 line, written
// from the tables of the standard's §3.2. It is shipped in the repository as
// cusf/schemas/cusf-v1.0.0.json.
//
//go:embed schemas/cusf-v1.0.0.json
var Schema []byte

// Format and Version are what the _meta line of a file this package writes
// says.
const (
	Format  = "cusf"
	Version = "1.0.0"
)

// Line types.
const (
	TypeSessionStart = "session_start"
	TypeMessage      = "message"
	TypeToolUse      = "tool_use"
	TypeToolResult   = "tool_result"
	TypeSessionEnd   = "session_end"
)

// LLM sources (session_start.llm_source).
const (
	SourceClaude = "claude"
	SourceCodex  = "codex"
	SourceGemini = "gemini"
	SourceKimi   = "kimi"
	SourceGPT    = "gpt"
	SourceOther  = "other"
)

// Stop reasons (message.stop_reason).
const (
	StopEndTurn   = "end_turn"
	StopMaxTokens = "max_tokens"
	StopToolUse   = "tool_use"
	StopError     = "error"
)

// End reasons (session_end.end_reason).
const (
	EndUserExit     = "user_exit"
	EndExport       = "export"
	EndContextLimit = "context_limit"
	EndError        = "error"
	EndTimeout      = "timeout"
)

// The lines as the encoder writes them, fields in the order of the
// standard's examples.

type metaLine struct {
	Meta meta `json:"_meta"`
}

type meta struct {
	Format     string `json:"format"`
	Version    string `json:"version"`
	ExportedAt string `json:"exported_at"`
	Exporter   string `json:"exporter"`
}

type startLine struct {
	Type        string `json:"type"`
	SessionID   string `json:"session_id"`
	LLMSource   string `json:"llm_source"`
	LLMModel    string `json:"llm_model,omitempty"`
	StartedAt   string `json:"started_at"`
	ProjectPath string `json:"project_path,omitempty"`
	GitBranch   string `json:"git_branch,omitempty"`
	Cwd         string `json:"cwd,omitempty"`
	MachineID   string `json:"machine_id,omitempty"`
	TenantID    string `json:"tenant_id,omitempty"`
	UserID      string `json:"user_id,omitempty"`
}

type messageLine struct {
	Type       string     `json:"type"`
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Timestamp  string     `json:"timestamp"`
	ParentID   *string    `json:"parent_id"`
	MessageID  string     `json:"message_id"`
	Model      string     `json:"model,omitempty"`
	Usage      *usageJSON `json:"usage,omitempty"`
	Thinking   string     `json:"thinking,omitempty"`
	StopReason string     `json:"stop_reason,omitempty"`
}

type usageJSON struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cache_read,omitempty"`
	CacheWrite int64 `json:"cache_write,omitempty"`
}

type toolUseLine struct {
	Type      string          `json:"type"`
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input,omitempty"`
	ToolID    string          `json:"tool_id"`
	Timestamp string          `json:"timestamp"`
	ParentID  string          `json:"parent_id,omitempty"`
}

type toolResultLine struct {
	Type         string  `json:"type"`
	ToolID       string  `json:"tool_id"`
	Result       *string `json:"result,omitempty"`
	IsError      bool    `json:"is_error"`
	ErrorMessage string  `json:"error_message,omitempty"`
	Timestamp    string  `json:"timestamp"`
	Truncated    *bool   `json:"truncated,omitempty"`
}

type endLine struct {
	Type          string      `json:"type"`
	SessionID     string      `json:"session_id"`
	EndedAt       string      `json:"ended_at"`
	TotalMessages *int64      `json:"total_messages,omitempty"`
	TotalTokens   *tokensJSON `json:"total_tokens,omitempty"`
	EndReason     string      `json:"end_reason,omitempty"`
}

type tokensJSON struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// record is any line as the decoder reads it. Pointers tell a field that is
// absent from one that is empty.
type record struct {
	Meta *meta  `json:"_meta"`
	Type string `json:"type"`

	SessionID   string  `json:"session_id"`
	LLMSource   string  `json:"llm_source"`
	LLMModel    *string `json:"llm_model"`
	StartedAt   string  `json:"started_at"`
	ProjectPath *string `json:"project_path"`
	GitBranch   string  `json:"git_branch"`
	Cwd         *string `json:"cwd"`
	MachineID   string  `json:"machine_id"`
	TenantID    string  `json:"tenant_id"`
	UserID      string  `json:"user_id"`

	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Timestamp  string     `json:"timestamp"`
	ParentID   *string    `json:"parent_id"`
	MessageID  string     `json:"message_id"`
	Model      string     `json:"model"`
	Usage      *usageJSON `json:"usage"`
	Thinking   string     `json:"thinking"`
	StopReason *string    `json:"stop_reason"`

	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
	ToolID    string          `json:"tool_id"`

	Result       *string `json:"result"`
	IsError      bool    `json:"is_error"`
	ErrorMessage *string `json:"error_message"`
	Truncated    *bool   `json:"truncated"`

	EndedAt       string      `json:"ended_at"`
	TotalMessages *int64      `json:"total_messages"`
	TotalTokens   *tokensJSON `json:"total_tokens"`
	EndReason     *string     `json:"end_reason"`
}

// LLMSource is the llm_source a session of the CLI cli is exported with:
// claude, codex, gemini and kimi as they are, anything else (OpenCode, a
// universal session) "other".
func LLMSource(cli string) string {
	switch cli {
	case session.Claude, session.Codex, session.Gemini, session.Kimi:
		return cli
	}
	return SourceOther
}

// CLI is the CLI a session with the llm_source src is imported as: claude,
// codex, gemini and kimi as they are; gpt, other and anything unknown are
// session.Universal, since nothing says which CLI wrote them.
func CLI(src string) string {
	switch src {
	case SourceClaude, SourceCodex, SourceGemini, SourceKimi:
		return src
	}
	return session.Universal
}

func validSource(src string) bool {
	switch src {
	case SourceClaude, SourceCodex, SourceGemini, SourceKimi, SourceGPT, SourceOther:
		return true
	}
	return false
}

func validStop(s string) bool {
	switch s {
	case StopEndTurn, StopMaxTokens, StopToolUse, StopError:
		return true
	}
	return false
}

func validEnd(s string) bool {
	switch s {
	case EndUserExit, EndExport, EndContextLimit, EndError, EndTimeout:
		return true
	}
	return false
}

// toolNames are the CUSF (Claude Code style) names of the universal tools.
var toolNames = map[session.Tool]string{
	session.ToolBash:      "Bash",
	session.ToolRead:      "Read",
	session.ToolWrite:     "Write",
	session.ToolEdit:      "Edit",
	session.ToolSearch:    "Grep",
	session.ToolGlob:      "Glob",
	session.ToolList:      "LS",
	session.ToolWebFetch:  "WebFetch",
	session.ToolWebSearch: "WebSearch",
	session.ToolTodo:      "TodoWrite",
	session.ToolTask:      "Task",
}

// toolsByName maps CUSF tool names back: the names above, a few more
// Claude Code names, and the universal names themselves (which an export
// writes for a call with no native name).
var toolsByName = func() map[string]session.Tool {
	m := map[string]session.Tool{
		"MultiEdit":       session.ToolEdit,
		"NotebookEdit":    session.ToolNotebook,
		"Agent":           session.ToolTask,
		"ExitPlanMode":    session.ToolPlan,
		"AskUserQuestion": session.ToolAsk,
		"Skill":           session.ToolSkill,
	}
	for t, name := range toolNames {
		m[name] = t
	}
	for _, t := range session.Tools {
		m[string(t)] = t
	}
	return m
}()

// ToolName is the CUSF tool_name of a tool call: the Claude Code style
// name of its universal tool (bash is Bash, search is Grep, list is LS,
// todo is TodoWrite, ...) when there is one, else the CLI's own name.
func ToolName(e *session.Entry) string {
	if name, ok := toolNames[e.Tool]; ok {
		return name
	}
	if e.OriginalTool != "" {
		return e.OriginalTool
	}
	if e.Tool != "" {
		return string(e.Tool)
	}
	return string(session.ToolUnknown)
}

// Tool is the universal tool a CUSF tool_name names, or session.ToolUnknown
// (mcp for an mcp__ name).
func Tool(name string) session.Tool {
	if t, ok := toolsByName[name]; ok {
		return t
	}
	if len(name) > 5 && name[:5] == "mcp__" {
		return session.ToolMCP
	}
	return session.ToolUnknown
}
