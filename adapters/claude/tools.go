package claude

import (
	"strings"

	"github.com/stead-dev/stead/session"
)

// Tools maps Claude Code's tool names to universal ones.
var Tools = map[string]session.Tool{
	"Read":            session.ToolRead,
	"NotebookRead":    session.ToolRead,
	"Write":           session.ToolWrite,
	"Edit":            session.ToolEdit,
	"MultiEdit":       session.ToolEdit,
	"NotebookEdit":    session.ToolNotebook,
	"Bash":            session.ToolBash,
	"BashOutput":      session.ToolBash,
	"KillShell":       session.ToolBash,
	"KillBash":        session.ToolBash,
	"Grep":            session.ToolSearch,
	"Glob":            session.ToolGlob,
	"LS":              session.ToolList,
	"AskUserQuestion": session.ToolAsk,
	"Task":            session.ToolTask,
	"Agent":           session.ToolTask,
	"WebFetch":        session.ToolWebFetch,
	"WebSearch":       session.ToolWebSearch,
	"web_search":      session.ToolWebSearch, // server tool
	"web_fetch":       session.ToolWebFetch,  // server tool
	"TodoWrite":       session.ToolTodo,
	"TodoRead":        session.ToolTodo,
	"ExitPlanMode":    session.ToolPlan,
	"EnterPlanMode":   session.ToolPlan,
	"Skill":           session.ToolSkill,
	"SlashCommand":    session.ToolSkill,
}

// UniversalTool maps a Claude Code tool name to a universal tool name.
func UniversalTool(name string) session.Tool {
	if t, ok := Tools[name]; ok {
		return t
	}
	if strings.HasPrefix(name, "mcp__") {
		return session.ToolMCP
	}
	return session.ToolUnknown
}

// modifiesFiles reports which input key names the file a tool modifies.
func modifiesFiles(name string) string {
	switch name {
	case "Write", "Edit", "MultiEdit":
		return "file_path"
	case "NotebookEdit":
		return "notebook_path"
	}
	return ""
}

// Calls names the tool a model calls, for each universal tool, when it
// drives Claude Code: the model stub plays scripted tool uses through it.
var Calls = map[session.Tool]string{
	session.ToolBash:      "Bash",
	session.ToolRead:      "Read",
	session.ToolWrite:     "Write",
	session.ToolEdit:      "Edit",
	session.ToolGlob:      "Glob",
	session.ToolSearch:    "Grep",
	session.ToolWebFetch:  "WebFetch",
	session.ToolWebSearch: "WebSearch",
	session.ToolTask:      "Agent",
	session.ToolTodo:      "TodoWrite",
	session.ToolNotebook:  "NotebookEdit",
	session.ToolSkill:     "Skill",
}
