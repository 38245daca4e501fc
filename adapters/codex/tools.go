package codex

import (
	"bufio"
	"regexp"
	"strconv"
	"strings"

	"github.com/stead-dev/stead/session"
)

// tools maps Codex tool names to universal ones. Codex has no file-read
// tool: reads go through the shell, edits through apply_patch.
var tools = map[string]session.Tool{
	"exec_command":       session.ToolBash,
	"shell":              session.ToolBash,
	"shell_command":      session.ToolBash,
	"local_shell":        session.ToolBash,
	"container.exec":     session.ToolBash,
	"unified_exec":       session.ToolBash,
	"write_stdin":        session.ToolBash,
	"apply_patch":        session.ToolEdit,
	"read_file":          session.ToolRead,
	"write_file":         session.ToolWrite,
	"edit_file":          session.ToolEdit,
	"list_dir":           session.ToolList,
	"ls":                 session.ToolList,
	"grep_files":         session.ToolSearch,
	"grep":               session.ToolSearch,
	"glob":               session.ToolGlob,
	"view_image":         session.ToolImage,
	"web_search":         session.ToolWebSearch,
	"web_fetch":          session.ToolWebFetch,
	"update_plan":        session.ToolTodo,
	"get_goal":           session.ToolTodo,
	"create_goal":        session.ToolTodo,
	"update_goal":        session.ToolTodo,
	"request_user_input": session.ToolAsk,
	"ask":                session.ToolAsk,
	"spawn_agent":        session.ToolTask,
	"send_input":         session.ToolTask,
	"wait_agent":         session.ToolTask,
	"close_agent":        session.ToolTask,
	"resume_agent":       session.ToolTask,
	"multi_agent_v1":     session.ToolTask,
	"call_agent":         session.ToolTask,
}

// UniversalTool maps a Codex tool name to a universal tool name.
func UniversalTool(name string) session.Tool {
	if t, ok := tools[name]; ok {
		return t
	}
	if strings.HasPrefix(name, "mcp__") {
		return session.ToolMCP
	}
	return session.ToolUnknown
}

// PatchFiles returns the files an apply_patch patch adds, updates, deletes
// or moves to, in order.
func PatchFiles(patch string) []string {
	var files []string
	sc := bufio.NewScanner(strings.NewReader(patch))
	sc.Buffer(make([]byte, 0, 4096), len(patch)+1)
	for sc.Scan() {
		l := sc.Text()
		for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if strings.HasPrefix(l, p) {
				if f := strings.TrimSpace(l[len(p):]); f != "" {
					files = append(files, f)
				}
			}
		}
	}
	return files
}

var exitRe = regexp.MustCompile(`(?:Process exited with code|Exit code:|"exit_code":)\s*(-?\d+)`)

// outputStatus reads a tool output's outcome from the texts Codex writes:
// the exit code of a command, and its fixed texts for rejections and
// aborts.
func outputStatus(out string) session.ToolStatus {
	head := out
	if len(head) > 4096 {
		head = head[:4096]
	}
	switch {
	case strings.Contains(head, "rejected by user"), strings.HasPrefix(head, "exec command rejected"),
		strings.HasPrefix(head, "patch rejected"):
		return session.StatusDenied
	case strings.HasPrefix(head, "aborted"), strings.Contains(head, "execution interrupted"):
		return session.StatusInterrupted
	}
	if m := exitRe.FindStringSubmatch(head); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n != 0 {
			return session.StatusError
		}
	}
	return session.StatusOK
}
