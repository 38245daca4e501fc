package kimi

import "github.com/stead-dev/stead/session"

// Tools maps Kimi Code's tool names (and the legacy kimi-cli's) to
// universal ones.
var Tools = map[string]session.Tool{
	"Bash":            session.ToolBash,
	"Shell":           session.ToolBash,
	"Read":            session.ToolRead,
	"ReadFile":        session.ToolRead,
	"Write":           session.ToolWrite,
	"WriteFile":       session.ToolWrite,
	"Edit":            session.ToolEdit,
	"StrReplaceFile":  session.ToolEdit,
	"Grep":            session.ToolSearch,
	"Glob":            session.ToolGlob,
	"FetchURL":        session.ToolWebFetch,
	"WebFetch":        session.ToolWebFetch,
	"SearchWeb":       session.ToolWebSearch,
	"WebSearch":       session.ToolWebSearch,
	"SetTodoList":     session.ToolTodo,
	"TodoWrite":       session.ToolTodo,
	"AskUserQuestion": session.ToolAsk,
	"Agent":           session.ToolTask,
	"Task":            session.ToolTask,
}
