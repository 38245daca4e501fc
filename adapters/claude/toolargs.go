package claude

import (
	"encoding/json"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/session"
)

// ToolArgs reads a Claude Code tool call into universal arguments
// (session.Arg*). ok is false for tools with no universal form.
func ToolArgs(name string, input json.RawMessage) (session.Tool, map[string]any, bool) {
	in, ok := jsonl.ReadObject(input) // a Write's content can be huge
	if !ok {
		return "", nil, false
	}
	str := func(k string) (string, bool) { s, ok := in[k].(string); return s, ok }
	a := map[string]any{}
	// copyIf copies a present, non-empty value under the universal key.
	copyIf := func(from, to string) {
		switch v := in[from].(type) {
		case string:
			if v != "" {
				a[to] = v
			}
		case float64:
			if v != 0 {
				a[to] = v
			}
		case bool:
			if v {
				a[to] = v
			}
		}
	}
	need := func(from, to string) bool {
		v, ok := str(from)
		if ok {
			a[to] = v
		}
		return ok
	}
	switch name {
	case "Bash":
		if !need("command", session.ArgCommand) {
			return "", nil, false
		}
		copyIf("description", session.ArgDescription)
		copyIf("timeout", session.ArgTimeout)
	case "Read":
		if !need("file_path", session.ArgPath) {
			return "", nil, false
		}
		copyIf("offset", session.ArgOffset)
		copyIf("limit", session.ArgLimit)
	case "Write":
		if !need("file_path", session.ArgPath) || !need("content", session.ArgContent) {
			return "", nil, false
		}
	case "Edit":
		if !need("file_path", session.ArgPath) || !need("old_string", session.ArgOld) || !need("new_string", session.ArgNew) {
			return "", nil, false
		}
		copyIf("replace_all", session.ArgReplaceAll)
	case "MultiEdit":
		list, _ := in["edits"].([]any)
		if !need("file_path", session.ArgPath) || len(list) == 0 {
			return "", nil, false
		}
		edits := make([]any, 0, len(list))
		for _, x := range list {
			m, _ := x.(map[string]any)
			old, _ := m["old_string"].(string)
			nw, _ := m["new_string"].(string)
			e := map[string]any{session.ArgOld: old, session.ArgNew: nw}
			if all, _ := m["replace_all"].(bool); all {
				e[session.ArgReplaceAll] = true
			}
			edits = append(edits, e)
		}
		a[session.ArgEdits] = edits
	case "Grep", "Glob":
		if !need("pattern", session.ArgPattern) {
			return "", nil, false
		}
		copyIf("path", session.ArgPath)
		if name == "Grep" {
			copyIf("glob", session.ArgGlob)
		}
	case "LS":
		if p, _ := str("path"); p == "" {
			return "", nil, false
		}
		need("path", session.ArgPath)
	case "WebFetch":
		if !need("url", session.ArgURL) {
			return "", nil, false
		}
		copyIf("prompt", session.ArgPrompt)
	case "WebSearch":
		if !need("query", session.ArgQuery) {
			return "", nil, false
		}
	case "TodoWrite":
		list, _ := in["todos"].([]any)
		todos := make([]any, 0, len(list))
		for _, x := range list {
			m, _ := x.(map[string]any)
			c, _ := m["content"].(string)
			st, _ := m["status"].(string)
			todos = append(todos, map[string]any{"content": c, "status": st})
		}
		a[session.ArgTodos] = todos
	case "Task", "Agent":
		if !need("prompt", session.ArgPrompt) {
			return "", nil, false
		}
		copyIf("description", session.ArgDescription)
		copyIf("subagent_type", session.ArgAgent)
	default:
		return "", nil, false
	}
	return UniversalTool(name), a, true
}

// ToolCall writes a universal tool call as a Claude Code one: its tool name
// and input. ok is false when Claude Code has no tool for it.
func ToolCall(tool session.Tool, a map[string]any) (string, json.RawMessage, bool) {
	str := func(k string) (string, bool) { s, ok := a[k].(string); return s, ok }
	out := map[string]any{}
	copyIf := func(from, to string) {
		if v, ok := a[from]; ok {
			out[to] = v
		}
	}
	var name string
	switch tool {
	case session.ToolBash:
		cmd, ok := str(session.ArgCommand)
		if !ok {
			return "", nil, false
		}
		name, out["command"] = "Bash", cmd
		copyIf(session.ArgDescription, "description")
		copyIf(session.ArgTimeout, "timeout")
	case session.ToolRead, session.ToolImage:
		p, ok := str(session.ArgPath)
		if !ok {
			return "", nil, false
		}
		name, out["file_path"] = "Read", p
		copyIf(session.ArgOffset, "offset")
		copyIf(session.ArgLimit, "limit")
	case session.ToolWrite:
		p, ok1 := str(session.ArgPath)
		c, ok2 := str(session.ArgContent)
		if !ok1 || !ok2 {
			return "", nil, false
		}
		name, out["file_path"], out["content"] = "Write", p, c
	case session.ToolEdit:
		p, ok := str(session.ArgPath)
		old, ok1 := str(session.ArgOld)
		nw, ok2 := str(session.ArgNew)
		all, _ := a[session.ArgReplaceAll].(bool)
		if edits, isList := a[session.ArgEdits].([]any); isList && !ok1 && len(edits) == 1 {
			// Edit takes one replacement, and a list of one is one (an
			// older MultiEdit's, or OpenCode's multiedit's).
			m, _ := edits[0].(map[string]any)
			old, ok1 = m[session.ArgOld].(string)
			nw, ok2 = m[session.ArgNew].(string)
			all, _ = m[session.ArgReplaceAll].(bool)
		}
		if !ok || !ok1 || !ok2 {
			// Several edits, or a patch: Claude Code 2.1.330 has no tool
			// that takes them.
			return "", nil, false
		}
		name, out["file_path"], out["old_string"], out["new_string"] = "Edit", p, old, nw
		if all {
			out["replace_all"] = true
		}
	case session.ToolSearch:
		pat, ok := str(session.ArgPattern)
		if !ok {
			return "", nil, false
		}
		name, out["pattern"] = "Grep", pat
		copyIf(session.ArgPath, "path")
		copyIf(session.ArgGlob, "glob")
	case session.ToolGlob:
		pat, ok := str(session.ArgPattern)
		if !ok {
			return "", nil, false
		}
		name, out["pattern"] = "Glob", pat
		copyIf(session.ArgPath, "path")
	case session.ToolList:
		p, ok := str(session.ArgPath)
		if !ok {
			return "", nil, false
		}
		name, out["command"] = "Bash", "ls -la "+safetext.Quote(p)
	case session.ToolWebFetch:
		u, ok := str(session.ArgURL)
		if !ok {
			return "", nil, false
		}
		name, out["url"] = "WebFetch", u
		out["prompt"], _ = str(session.ArgPrompt)
	case session.ToolWebSearch:
		q, ok := str(session.ArgQuery)
		if !ok {
			return "", nil, false
		}
		name, out["query"] = "WebSearch", q
	case session.ToolTodo:
		todos, ok := a[session.ArgTodos].([]any)
		if !ok {
			return "", nil, false
		}
		list := make([]any, 0, len(todos))
		for _, t := range todos {
			m, _ := t.(map[string]any)
			c, _ := m["content"].(string)
			st, _ := m["status"].(string)
			list = append(list, map[string]any{"content": c, "status": st, "activeForm": c})
		}
		name, out["todos"] = "TodoWrite", list
	case session.ToolTask:
		p, ok := str(session.ArgPrompt)
		if !ok {
			return "", nil, false
		}
		name, out["prompt"] = "Agent", p
		d, _ := str(session.ArgDescription)
		if d == "" {
			d = "Subagent task"
		}
		out["description"] = d
		agent, _ := str(session.ArgAgent)
		if agent == "" {
			agent = "general-purpose"
		}
		out["subagent_type"] = agent
	default:
		return "", nil, false
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", nil, false
	}
	return name, b, true
}
