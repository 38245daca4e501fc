package codex

import (
	"bytes"
	"strings"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/session"
)

// Tools maps Codex tool names to universal ones. Codex has no file-read
// tool: reads go through the shell, edits through apply_patch.
var Tools = map[string]session.Tool{
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
	if t, ok := Tools[name]; ok {
		return t
	}
	if strings.HasPrefix(name, "mcp__") {
		return session.ToolMCP
	}
	return session.ToolUnknown
}

// PatchFiles returns the files an apply_patch patch adds, updates, deletes
// or moves to, in order. The patch may also still be inside the JSON text
// of a function call's arguments ({"input":"*** Begin Patch\n..."}), where
// its lines end with the two characters \n: both forms are read.
func PatchFiles(patch []byte) []string {
	inJSON := bytes.HasPrefix(bytes.TrimSpace(patch), []byte("{"))
	var files []string
	for {
		i := bytes.Index(patch, []byte("*** "))
		if i < 0 {
			return files
		}
		patch = patch[i:]
		for _, h := range patchHeaders {
			rest, ok := bytes.CutPrefix(patch, h)
			if !ok {
				continue
			}
			end := len(rest)
		scan:
			for j := 0; j < len(rest); j++ {
				switch c := rest[j]; {
				case c == '\n':
					end = j
					break scan
				case inJSON && c == '"':
					end = j
					break scan
				case inJSON && c == '\\':
					if j+1 < len(rest) && rest[j+1] == 'n' {
						end = j
						break scan
					}
					j++ // an escaped character
				}
			}
			if f := bytes.TrimSpace(rest[:end]); len(f) > 0 {
				if inJSON {
					if u, ok := jsonl.Unquote(f); ok {
						f = u
					}
				}
				files = append(files, string(f))
			}
			break
		}
		patch = patch[4:]
	}
}

var patchHeaders = [][]byte{[]byte("*** Add File: "), []byte("*** Update File: "), []byte("*** Delete File: "), []byte("*** Move to: ")}

// statusHead is how much of a tool output outputStatus reads: Codex states
// the exit code in the first lines.
const statusHead = 512

// exitMarkers precede an exit code in an output: plain, JSON-wrapped, and
// JSON-wrapped as read still escaped.
var exitMarkers = [][]byte{[]byte("Process exited with code"), []byte("Exit code:"), []byte(`"exit_code":`), []byte(`\"exit_code\":`)}

// outputStatus reads a tool output's outcome from the texts Codex writes at
// its start: the exit code of a command, and its fixed texts for
// rejections and aborts. A command's own output, after the header's
// "Output:" line, is not read: a command that printed "Exit code: 1" did
// not fail by it, and one still running has no exit code yet.
func outputStatus(out []byte) session.ToolStatus {
	head := out
	if len(head) > statusHead {
		head = head[:statusHead]
	}
	// The header ends at its "Output:" line, in the text or, as the
	// summarizer reads it, still escaped.
	for _, sep := range [][]byte{[]byte("\nOutput:"), []byte(`\nOutput:`)} {
		if i := bytes.Index(head, sep); i >= 0 {
			head = head[:i]
		}
	}
	if bytes.HasPrefix(head, []byte("Output:")) {
		head = nil
	}
	for _, m := range exitMarkers {
		if i := bytes.Index(head, m); i >= 0 {
			if n, ok := leadingInt(bytes.TrimLeft(head[i+len(m):], " \t")); ok && n != 0 {
				return session.StatusError
			}
			return session.StatusOK
		}
	}
	switch {
	case bytes.Contains(head, []byte("rejected by user")), bytes.HasPrefix(head, []byte("exec command rejected")),
		bytes.HasPrefix(head, []byte("patch rejected")):
		return session.StatusDenied
	case bytes.HasPrefix(head, []byte("aborted")), bytes.Contains(head, []byte("execution interrupted")):
		return session.StatusInterrupted
	case bytes.HasPrefix(head, []byte("apply_patch verification failed")):
		return session.StatusError
	}
	return session.StatusOK
}

// leadingInt parses the integer at the start of b.
func leadingInt(b []byte) (int, bool) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	n, digits := 0, 0
	for _, c := range b {
		if c < '0' || c > '9' || digits > 9 {
			break
		}
		n = n*10 + int(c-'0')
		digits++
	}
	if neg {
		n = -n
	}
	return n, digits > 0
}

// Calls names the tool a model calls, for each universal tool, when it
// drives Codex: the model stub plays scripted tool uses through it.
var Calls = map[session.Tool]string{
	session.ToolBash:      "exec_command",
	session.ToolImage:     "view_image",
	session.ToolWebSearch: "web_search",
	session.ToolAsk:       "request_user_input",
}
