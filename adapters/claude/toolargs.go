package claude

import (
	"encoding/json"

	"github.com/stead-dev/stead/session"
)

// ToolArgs reads a Claude Code tool call into universal arguments
// (session.Arg*). ok is false for tools with no universal form.
func ToolArgs(name string, input json.RawMessage) (session.Tool, map[string]any, bool) {
	var in struct {
		Command     *string `json:"command"`
		Description string  `json:"description"`
		Timeout     float64 `json:"timeout"`
		FilePath    *string `json:"file_path"`
		Offset      float64 `json:"offset"`
		Limit       float64 `json:"limit"`
		Content     *string `json:"content"`
		OldString   *string `json:"old_string"`
		NewString   *string `json:"new_string"`
		ReplaceAll  bool    `json:"replace_all"`
		Edits       []struct {
			OldString  string `json:"old_string"`
			NewString  string `json:"new_string"`
			ReplaceAll bool   `json:"replace_all"`
		} `json:"edits"`
		Pattern      *string `json:"pattern"`
		Path         string  `json:"path"`
		Glob         string  `json:"glob"`
		URL          *string `json:"url"`
		Prompt       *string `json:"prompt"`
		Query        *string `json:"query"`
		SubagentType string  `json:"subagent_type"`
		Todos        []struct {
			Content string `json:"content"`
			Status  string `json:"status"`
		} `json:"todos"`
	}
	if json.Unmarshal(input, &in) != nil {
		return "", nil, false
	}
	a := map[string]any{}
	set := func(k string, v any) {
		switch x := v.(type) {
		case string:
			if x == "" {
				return
			}
		case float64:
			if x == 0 {
				return
			}
		case bool:
			if !x {
				return
			}
		}
		a[k] = v
	}
	tool := UniversalTool(name)
	switch name {
	case "Bash":
		if in.Command == nil {
			return "", nil, false
		}
		a[session.ArgCommand] = *in.Command
		set(session.ArgDescription, in.Description)
		set(session.ArgTimeout, in.Timeout)
	case "Read":
		if in.FilePath == nil {
			return "", nil, false
		}
		a[session.ArgPath] = *in.FilePath
		set(session.ArgOffset, in.Offset)
		set(session.ArgLimit, in.Limit)
	case "Write":
		if in.FilePath == nil || in.Content == nil {
			return "", nil, false
		}
		a[session.ArgPath], a[session.ArgContent] = *in.FilePath, *in.Content
	case "Edit":
		if in.FilePath == nil || in.OldString == nil || in.NewString == nil {
			return "", nil, false
		}
		a[session.ArgPath], a[session.ArgOld], a[session.ArgNew] = *in.FilePath, *in.OldString, *in.NewString
		set(session.ArgReplaceAll, in.ReplaceAll)
	case "MultiEdit":
		if in.FilePath == nil || len(in.Edits) == 0 {
			return "", nil, false
		}
		edits := make([]any, len(in.Edits))
		for i, e := range in.Edits {
			m := map[string]any{session.ArgOld: e.OldString, session.ArgNew: e.NewString}
			if e.ReplaceAll {
				m[session.ArgReplaceAll] = true
			}
			edits[i] = m
		}
		a[session.ArgPath], a[session.ArgEdits] = *in.FilePath, edits
	case "Grep", "Glob":
		if in.Pattern == nil {
			return "", nil, false
		}
		a[session.ArgPattern] = *in.Pattern
		set(session.ArgPath, in.Path)
		if name == "Grep" {
			set(session.ArgGlob, in.Glob)
		}
	case "LS":
		if in.Path == "" {
			return "", nil, false
		}
		a[session.ArgPath] = in.Path
	case "WebFetch":
		if in.URL == nil {
			return "", nil, false
		}
		a[session.ArgURL] = *in.URL
		if in.Prompt != nil {
			set(session.ArgPrompt, *in.Prompt)
		}
	case "WebSearch":
		if in.Query == nil {
			return "", nil, false
		}
		a[session.ArgQuery] = *in.Query
	case "TodoWrite":
		todos := make([]any, len(in.Todos))
		for i, t := range in.Todos {
			todos[i] = map[string]any{"content": t.Content, "status": t.Status}
		}
		a[session.ArgTodos] = todos
	case "Task", "Agent":
		if in.Prompt == nil {
			return "", nil, false
		}
		a[session.ArgPrompt] = *in.Prompt
		set(session.ArgDescription, in.Description)
		set(session.ArgAgent, in.SubagentType)
	default:
		return "", nil, false
	}
	return tool, a, true
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
		if !ok || !ok1 || !ok2 {
			// Several edits, or a patch: Claude Code 2.1.330 has no tool
			// that takes them.
			return "", nil, false
		}
		name, out["file_path"], out["old_string"], out["new_string"] = "Edit", p, old, nw
		copyIf(session.ArgReplaceAll, "replace_all")
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
		name, out["command"] = "Bash", "ls -la "+shellQuote(p)
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

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	q := "'"
	for _, r := range s {
		if r == '\'' {
			q += `'\''`
		} else {
			q += string(r)
		}
	}
	return q + "'"
}
