package kimi

import (
	"strings"

	"github.com/stead-dev/stead/session"
)

// Tools maps Kimi Code's tool names (2.1.0's tool table) and the legacy
// kimi-cli's (1.49) to universal ones. Names no entry covers are unknown,
// except MCP tools (mcp__<server>__<tool>), which are mcp.
var Tools = map[string]session.Tool{
	// Kimi Code
	"Bash":            session.ToolBash,
	"Read":            session.ToolRead,
	"ReadMediaFile":   session.ToolImage,
	"Write":           session.ToolWrite,
	"Edit":            session.ToolEdit,
	"Grep":            session.ToolSearch,
	"Glob":            session.ToolGlob,
	"FetchURL":        session.ToolWebFetch,
	"WebFetch":        session.ToolWebFetch,
	"WebSearch":       session.ToolWebSearch,
	"TodoList":        session.ToolTodo,
	"TodoWrite":       session.ToolTodo,
	"CreateGoal":      session.ToolTodo,
	"GetGoal":         session.ToolTodo,
	"UpdateGoal":      session.ToolTodo,
	"SetGoalBudget":   session.ToolTodo,
	"AskUserQuestion": session.ToolAsk,
	"Agent":           session.ToolTask,
	"AgentSwarm":      session.ToolTask,
	"Task":            session.ToolTask,
	"TaskList":        session.ToolTask,
	"TaskOutput":      session.ToolTask,
	"TaskStop":        session.ToolTask,
	"WaitFor":         session.ToolTask,
	"EnterPlanMode":   session.ToolPlan,
	"ExitPlanMode":    session.ToolPlan,
	"Skill":           session.ToolSkill,
	// legacy kimi-cli
	"Shell":          session.ToolBash,
	"ReadFile":       session.ToolRead,
	"WriteFile":      session.ToolWrite,
	"StrReplaceFile": session.ToolEdit,
	"SearchWeb":      session.ToolWebSearch,
	"SetTodoList":    session.ToolTodo,
	"CreateSubagent": session.ToolTask,
}

// UniversalTool maps a Kimi tool name to a universal tool name.
func UniversalTool(name string) session.Tool {
	if t, ok := Tools[name]; ok {
		return t
	}
	if strings.HasPrefix(name, "mcp__") {
		return session.ToolMCP
	}
	return session.ToolUnknown
}

// modifiesFiles reports whether a tool writes or edits the file named by
// its "path" argument (the key both CLIs use).
func modifiesFiles(name string) bool {
	switch name {
	case "Write", "Edit", "WriteFile", "StrReplaceFile":
		return true
	}
	return false
}

// Calls names the tool a model calls, for each universal tool, when it
// drives Kimi Code: the model stub plays scripted tool uses through it.
var Calls = map[session.Tool]string{
	session.ToolBash:     "Bash",
	session.ToolRead:     "Read",
	session.ToolWrite:    "Write",
	session.ToolEdit:     "Edit",
	session.ToolGlob:     "Glob",
	session.ToolSearch:   "Grep",
	session.ToolWebFetch: "FetchURL",
	session.ToolTask:     "Agent",
	session.ToolAsk:      "AskUserQuestion",
	session.ToolSkill:    "Skill",
}
