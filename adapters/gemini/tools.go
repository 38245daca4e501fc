package gemini

import (
	"strings"

	"github.com/stead-dev/stead/session"
)

// Tools maps Gemini CLI's tool names to universal ones: the built-in tools
// of 0.61.0 (and names older versions used). MCP tools are named
// mcp_<server>_<tool> and map to session.ToolMCP without being listed.
//
// Tools that only resemble a universal one stay out (they read as
// ToolUnknown): list_background_processes and read_background_output are
// not a shell, the tracker_* task tools not a todo list.
var Tools = map[string]session.Tool{
	"run_shell_command":   session.ToolBash,
	"read_file":           session.ToolRead,
	"read_many_files":     session.ToolRead,
	"write_file":          session.ToolWrite,
	"replace":             session.ToolEdit,
	"grep_search":         session.ToolSearch,
	"search_file_content": session.ToolSearch,
	"glob":                session.ToolGlob,
	"list_directory":      session.ToolList,
	"web_fetch":           session.ToolWebFetch,
	"google_web_search":   session.ToolWebSearch,
	"write_todos":         session.ToolTodo,
	"enter_plan_mode":     session.ToolPlan,
	"exit_plan_mode":      session.ToolPlan,
	"ask_user":            session.ToolAsk,
	"invoke_agent":        session.ToolTask,
	"activate_skill":      session.ToolSkill,
	"list_mcp_resources":  session.ToolMCP,
	"read_mcp_resource":   session.ToolMCP,
}

// UniversalTool maps a Gemini CLI tool name to a universal tool name.
func UniversalTool(name string) session.Tool {
	if t, ok := Tools[name]; ok {
		return t
	}
	if strings.HasPrefix(name, "mcp_") {
		return session.ToolMCP
	}
	return session.ToolUnknown
}

// modifiesFiles reports whether a tool writes or edits the file its
// file_path argument names.
func modifiesFiles(name string) bool {
	return name == "write_file" || name == "replace"
}

// Calls names the tool a model calls, for each universal tool, when it
// drives Gemini CLI: the model stub plays scripted tool uses through it.
var Calls = map[session.Tool]string{
	session.ToolBash:      "run_shell_command",
	session.ToolRead:      "read_file",
	session.ToolWrite:     "write_file",
	session.ToolEdit:      "replace",
	session.ToolList:      "list_directory",
	session.ToolGlob:      "glob",
	session.ToolSearch:    "grep_search",
	session.ToolWebFetch:  "web_fetch",
	session.ToolWebSearch: "google_web_search",
	session.ToolTodo:      "write_todos",
	session.ToolTask:      "invoke_agent",
	session.ToolSkill:     "activate_skill",
}
