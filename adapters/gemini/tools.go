package gemini

import "github.com/stead-dev/stead/session"

// Tools maps Gemini CLI's tool names to universal ones.
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
	"invoke_agent":        session.ToolTask,
	"activate_skill":      session.ToolSkill,
}
