package opencode

import (
	"encoding/json"
	"strings"

	"github.com/stead-dev/stead/session"
)

// Tools maps OpenCode's tool names to universal ones: the ten tools 1.18.33
// offers a model (bash edit glob grep read skill task todowrite webfetch
// write), the ones it adds for some models, agents or settings (question,
// apply_patch, multiedit, websearch, codesearch, plan_enter, plan_exit) and
// those of older versions (list, patch, todoread).
var Tools = map[string]session.Tool{
	"bash":        session.ToolBash,
	"read":        session.ToolRead,
	"write":       session.ToolWrite,
	"edit":        session.ToolEdit,
	"multiedit":   session.ToolEdit,
	"patch":       session.ToolEdit,
	"apply_patch": session.ToolEdit,
	"grep":        session.ToolSearch,
	"glob":        session.ToolGlob,
	"list":        session.ToolList,
	"ls":          session.ToolList,
	"webfetch":    session.ToolWebFetch,
	"websearch":   session.ToolWebSearch,
	"codesearch":  session.ToolWebSearch,
	"todowrite":   session.ToolTodo,
	"todoread":    session.ToolTodo,
	"task":        session.ToolTask,
	"skill":       session.ToolSkill,
	"question":    session.ToolAsk,
	"plan_enter":  session.ToolPlan,
	"plan_exit":   session.ToolPlan,
}

// UniversalTool maps an OpenCode tool name to a universal one. OpenCode
// names an MCP server's tools <server>_<tool>, which cannot be told from
// other names, so unknown names map to ToolUnknown.
func UniversalTool(name string) session.Tool {
	if t, ok := Tools[name]; ok {
		return t
	}
	return session.ToolUnknown
}

// toolFiles returns the files a tool call writes or edits, as its input
// names them: filePath for write, edit and multiedit, and the files a
// patch adds, updates, deletes or moves to for apply_patch and patch.
func toolFiles(tool string, input json.RawMessage) []string {
	switch tool {
	case "write", "edit", "multiedit":
		var in struct {
			FilePath string `json:"filePath"`
		}
		if json.Unmarshal(input, &in) == nil && in.FilePath != "" {
			return []string{in.FilePath}
		}
	case "apply_patch", "patch":
		var in struct {
			PatchText string `json:"patchText"`
		}
		if json.Unmarshal(input, &in) == nil {
			return patchFiles(in.PatchText)
		}
	}
	return nil
}

// patchFiles returns the files of a patch in the "*** Begin Patch" format.
func patchFiles(patch string) []string {
	var files []string
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, prefix := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if f, ok := strings.CutPrefix(line, prefix); ok && strings.TrimSpace(f) != "" {
				files = append(files, strings.TrimSpace(f))
			}
		}
	}
	return files
}

// Calls names the tool a model calls, for each universal tool, when it
// drives OpenCode: the model stub plays scripted tool uses through it.
var Calls = map[session.Tool]string{
	session.ToolBash:     "bash",
	session.ToolRead:     "read",
	session.ToolWrite:    "write",
	session.ToolEdit:     "edit",
	session.ToolList:     "list",
	session.ToolGlob:     "glob",
	session.ToolSearch:   "grep",
	session.ToolWebFetch: "webfetch",
	session.ToolTask:     "task",
	session.ToolTodo:     "todowrite",
	session.ToolSkill:    "skill",
}
