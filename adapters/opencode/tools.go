package opencode

import "github.com/stead-dev/stead/session"

// Tools maps OpenCode's tool names to universal ones.
var Tools = map[string]session.Tool{
	"bash":      session.ToolBash,
	"read":      session.ToolRead,
	"write":     session.ToolWrite,
	"edit":      session.ToolEdit,
	"patch":     session.ToolEdit,
	"grep":      session.ToolSearch,
	"glob":      session.ToolGlob,
	"list":      session.ToolList,
	"webfetch":  session.ToolWebFetch,
	"websearch": session.ToolWebSearch,
	"todowrite": session.ToolTodo,
	"todoread":  session.ToolTodo,
	"task":      session.ToolTask,
	"skill":     session.ToolSkill,
}
