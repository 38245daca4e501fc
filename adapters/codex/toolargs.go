package codex

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/adapters/internal/toolarg"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/session"
)

// ToolArgs reads a Codex tool call into universal arguments
// (session.Arg*). A custom tool's input is the reader's {"input": text}.
// ok is false for tools with no universal form.
func ToolArgs(name string, input json.RawMessage) (session.Tool, map[string]any, bool) {
	var in struct {
		Cmd     *string         `json:"cmd"`
		Command json.RawMessage `json:"command"`
		Workdir string          `json:"workdir"`
		Input   *string         `json:"input"`
		Query   string          `json:"query"`
		// local_shell's action's working directory
		WorkingDir string `json:"working_directory"`
		Action     *struct {
			Type       string   `json:"type"`
			Command    []string `json:"command"`
			WorkingDir string   `json:"working_directory"`
			Query      string   `json:"query"`
		} `json:"action"`
		Plan []struct {
			Step   string `json:"step"`
			Status string `json:"status"`
		} `json:"plan"`
		Path string `json:"path"`
	}
	if json.Unmarshal(input, &in) != nil {
		return "", nil, false
	}
	switch name {
	case "exec_command", "shell", "shell_command", "container.exec", "unified_exec":
		var cmd string
		switch {
		case in.Cmd != nil:
			cmd = *in.Cmd
		case len(in.Command) > 0:
			var s string
			var argv []string
			if json.Unmarshal(in.Command, &s) == nil {
				cmd = s
			} else if json.Unmarshal(in.Command, &argv) == nil {
				cmd = commandLine(argv)
			}
		}
		if cmd == "" {
			return "", nil, false
		}
		return session.ToolBash, map[string]any{session.ArgCommand: inDir(in.Workdir, cmd)}, true
	case "local_shell":
		// The reader's input is the call's action ({"type":"exec",
		// "command":[...]}), or holds it under "action".
		var argv []string
		dir := in.WorkingDir
		if in.Action != nil {
			argv, dir = in.Action.Command, in.Action.WorkingDir
		} else {
			_ = json.Unmarshal(in.Command, &argv)
		}
		if len(argv) == 0 {
			return "", nil, false
		}
		return session.ToolBash, map[string]any{session.ArgCommand: inDir(dir, commandLine(argv))}, true
	case "apply_patch":
		if in.Input == nil {
			return "", nil, false
		}
		tool, a := patchArgs(*in.Input)
		return session.Tool(tool), a, true
	case "update_plan":
		todos := make([]any, len(in.Plan))
		for i, p := range in.Plan {
			todos[i] = map[string]any{"content": p.Step, "status": p.Status}
		}
		return session.ToolTodo, map[string]any{session.ArgTodos: todos}, true
	case "web_search":
		// The reader's input is the search's action ({"type":"search",
		// "query":...}), or holds it under "action".
		q := in.Query
		if in.Action != nil {
			q = in.Action.Query
		}
		if q == "" {
			return "", nil, false
		}
		return session.ToolWebSearch, map[string]any{session.ArgQuery: q}, true
	case "view_image":
		if in.Path == "" {
			return "", nil, false
		}
		return session.ToolImage, map[string]any{session.ArgPath: in.Path}, true
	}
	return "", nil, false
}

// inDir returns a command line that runs cmd in dir: the universal shell
// call has no working directory, so the command changes to it itself, as
// Gemini CLI's, Kimi's and OpenCode's ToolArgs write theirs. dir is quoted
// to stay one word.
func inDir(dir, cmd string) string {
	if dir == "" {
		return cmd
	}
	return "cd " + safetext.Quote(dir) + " && " + cmd
}

// commandLine turns an argv into a shell command line: the script of a
// "bash -lc SCRIPT" call, else the words quoted as needed.
func commandLine(argv []string) string {
	if len(argv) == 3 && (argv[0] == "bash" || argv[0] == "/bin/bash" || argv[0] == "sh" || argv[0] == "/bin/sh" || argv[0] == "zsh") &&
		(argv[1] == "-lc" || argv[1] == "-c") {
		return argv[2]
	}
	words := make([]string, len(argv))
	for i, w := range argv {
		words[i] = safetext.Quote(w)
	}
	return strings.Join(words, " ")
}

// ToolCall writes a universal tool call as a Codex one: exec_command for
// the shell and for reading, searching and listing files (Codex has no
// tools of its own for those), apply_patch for writes and edits,
// update_plan for todo lists, view_image for images. ok is false when
// Codex has no tool for it (web fetches, web searches, whose results
// Codex does not keep, and subagent tasks), and for an edit that replaces
// every occurrence of a text: a patch's hunk changes one place, and which
// places the edit changed was not recorded.
func ToolCall(tool session.Tool, a map[string]any) (string, json.RawMessage, bool) {
	str := func(k string) string { s, _ := a[k].(string); return s }
	num := func(k string) int { return toolarg.Int(a, k) }
	exec := func(cmd string) (string, json.RawMessage, bool) {
		b, _ := json.Marshal(map[string]string{"cmd": cmd})
		return "exec_command", b, true
	}
	patch := func(p string) (string, json.RawMessage, bool) {
		b := make([]byte, 0, len(p)+len(p)/8+16)
		b = append(b, `{"input":`...)
		b = jsonl.AppendString(b, p)
		return "apply_patch", append(b, '}'), true
	}
	switch tool {
	case session.ToolBash:
		if cmd := str(session.ArgCommand); cmd != "" {
			return exec(cmd)
		}
	case session.ToolRead:
		p := str(session.ArgPath)
		if p == "" {
			break
		}
		off, lim := num(session.ArgOffset), num(session.ArgLimit)
		if off > 0 || lim > 0 {
			if off < 1 {
				off = 1
			}
			end := "$"
			if lim > 0 {
				end = strconv.Itoa(off + lim - 1)
			}
			return exec("sed -n '" + strconv.Itoa(off) + "," + end + "p' " + safetext.Quote(p))
		}
		return exec("cat " + safetext.Quote(p))
	case session.ToolWrite:
		if p := str(session.ArgPath); p != "" {
			return patch(addPatch(p, str(session.ArgContent)))
		}
	case session.ToolEdit:
		if p := str(session.ArgPatch); p != "" {
			return patch(p)
		}
		p := str(session.ArgPath)
		if p == "" {
			break
		}
		var edits [][2]string
		if list, ok := a[session.ArgEdits].([]any); ok {
			for _, x := range list {
				m, _ := x.(map[string]any)
				if all, _ := m[session.ArgReplaceAll].(bool); all {
					return "", nil, false
				}
				o, _ := m[session.ArgOld].(string)
				n, _ := m[session.ArgNew].(string)
				edits = append(edits, [2]string{o, n})
			}
		} else if _, ok := a[session.ArgOld].(string); ok {
			if all, _ := a[session.ArgReplaceAll].(bool); all {
				return "", nil, false
			}
			edits = [][2]string{{str(session.ArgOld), str(session.ArgNew)}}
		}
		if len(edits) > 0 {
			return patch(updatePatch(p, edits))
		}
	case session.ToolSearch:
		if pat := str(session.ArgPattern); pat != "" {
			cmd := "rg -n " + safetext.Quote(pat)
			if g := str(session.ArgGlob); g != "" {
				cmd += " -g " + safetext.Quote(g)
			}
			if p := str(session.ArgPath); p != "" {
				cmd += " " + safetext.Quote(p)
			}
			return exec(cmd)
		}
	case session.ToolGlob:
		if pat := str(session.ArgPattern); pat != "" {
			cmd := "rg --files -g " + safetext.Quote(pat)
			if p := str(session.ArgPath); p != "" {
				cmd += " " + safetext.Quote(p)
			}
			return exec(cmd)
		}
	case session.ToolList:
		if p := str(session.ArgPath); p != "" {
			return exec("ls -la " + safetext.Quote(p))
		}
	case session.ToolTodo:
		todos, ok := a[session.ArgTodos].([]any)
		if !ok {
			break
		}
		plan := make([]map[string]string, 0, len(todos))
		for _, t := range todos {
			m, _ := t.(map[string]any)
			c, _ := m["content"].(string)
			st, _ := m["status"].(string)
			plan = append(plan, map[string]string{"step": c, "status": st})
		}
		b, _ := json.Marshal(map[string]any{"plan": plan})
		return "update_plan", b, true
	case session.ToolImage:
		if p := str(session.ArgPath); p != "" {
			b, _ := json.Marshal(map[string]string{"path": p})
			return "view_image", b, true
		}
	}
	return "", nil, false
}
