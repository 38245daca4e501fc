package gemini

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/stead-dev/stead/adapters/internal/toolarg"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/session"
)

// ToolArgs reads a Gemini CLI tool call into universal arguments
// (session.Arg*). It reads the argument names of 0.61.0 (file_path,
// dir_path, start_line, include_pattern, ...) and those older versions
// wrote (absolute_path, path, offset, include, ...). ok is false for tools
// with no universal form.
func ToolArgs(name string, input json.RawMessage) (session.Tool, map[string]any, bool) {
	var in struct {
		Command     *string  `json:"command"`
		Description string   `json:"description"`
		Directory   string   `json:"directory"`
		FilePath    string   `json:"file_path"`
		AbsPath     string   `json:"absolute_path"`
		Path        string   `json:"path"`
		DirPath     string   `json:"dir_path"`
		Paths       []string `json:"paths"`
		StartLine   float64  `json:"start_line"`
		EndLine     float64  `json:"end_line"`
		Offset      *float64 `json:"offset"`
		Limit       float64  `json:"limit"`
		Content     *string  `json:"content"`
		OldString   *string  `json:"old_string"`
		NewString   *string  `json:"new_string"`
		AllowMulti  bool     `json:"allow_multiple"`
		Expected    float64  `json:"expected_replacements"`
		Pattern     *string  `json:"pattern"`
		Include     string   `json:"include_pattern"`
		IncludeOld  string   `json:"include"`
		Prompt      *string  `json:"prompt"`
		URL         string   `json:"url"`
		Query       *string  `json:"query"`
		AgentName   string   `json:"agent_name"`
		Todos       []struct {
			Description string `json:"description"`
			Status      string `json:"status"`
		} `json:"todos"`
	}
	if json.Unmarshal(input, &in) != nil {
		return "", nil, false
	}
	a := map[string]any{}
	setStr := func(k, v string) {
		if v != "" {
			a[k] = v
		}
	}
	file := firstOf(in.FilePath, firstOf(in.AbsPath, in.Path))
	dir := firstOf(in.DirPath, in.Path)
	switch name {
	case "run_shell_command":
		if in.Command == nil {
			return "", nil, false
		}
		cmd := *in.Command
		if d := firstOf(in.DirPath, in.Directory); d != "" {
			// The universal shell call has no working directory: the
			// command changes to it itself.
			cmd = "cd " + safetext.Quote(d) + " && " + cmd
		}
		a[session.ArgCommand] = cmd
		setStr(session.ArgDescription, in.Description)
	case "read_file", "read_many_files":
		if name == "read_many_files" {
			// One file named outright is a read; a list or a pattern has
			// no universal form.
			if len(in.Paths) != 1 || strings.ContainsAny(in.Paths[0], "*?[{") {
				return "", nil, false
			}
			file = in.Paths[0]
		}
		if file == "" {
			return "", nil, false
		}
		a[session.ArgPath] = file
		switch {
		case in.StartLine > 0 || in.EndLine > 0:
			start := max(in.StartLine, 1)
			a[session.ArgOffset] = start
			if in.EndLine >= start {
				a[session.ArgLimit] = in.EndLine - start + 1
			}
		case in.Offset != nil || in.Limit > 0:
			// Before start_line, offset counted lines from 0.
			if in.Offset != nil {
				a[session.ArgOffset] = *in.Offset + 1
			}
			if in.Limit > 0 {
				a[session.ArgLimit] = in.Limit
			}
		}
	case "write_file":
		if file == "" || in.Content == nil {
			return "", nil, false
		}
		a[session.ArgPath], a[session.ArgContent] = file, *in.Content
	case "replace":
		if file == "" || in.OldString == nil || in.NewString == nil {
			return "", nil, false
		}
		a[session.ArgPath], a[session.ArgOld], a[session.ArgNew] = file, *in.OldString, *in.NewString
		if in.AllowMulti || in.Expected > 1 {
			a[session.ArgReplaceAll] = true
		}
	case "grep_search", "search_file_content":
		if in.Pattern == nil {
			return "", nil, false
		}
		a[session.ArgPattern] = *in.Pattern
		setStr(session.ArgPath, dir)
		setStr(session.ArgGlob, firstOf(in.Include, in.IncludeOld))
	case "glob":
		if in.Pattern == nil {
			return "", nil, false
		}
		a[session.ArgPattern] = *in.Pattern
		setStr(session.ArgPath, dir)
	case "list_directory":
		if dir == "" {
			return "", nil, false
		}
		a[session.ArgPath] = dir
	case "web_fetch":
		prompt := ""
		if in.Prompt != nil {
			prompt = *in.Prompt
		}
		u, rest := splitURL(prompt)
		if in.URL != "" {
			u, rest = in.URL, prompt
		}
		if u == "" {
			return "", nil, false
		}
		a[session.ArgURL] = u
		setStr(session.ArgPrompt, rest)
	case "google_web_search":
		if in.Query == nil {
			return "", nil, false
		}
		a[session.ArgQuery] = *in.Query
	case "write_todos":
		todos := make([]any, len(in.Todos))
		for i, t := range in.Todos {
			content, status := t.Description, t.Status
			switch status {
			case session.TodoPending, session.TodoInProgress, session.TodoCompleted:
			case "cancelled":
				// The universal list knows three states: a cancelled
				// item is done with, and says so.
				content, status = content+" (cancelled)", session.TodoCompleted
			case "blocked":
				content, status = content+" (blocked)", session.TodoPending
			default:
				status = session.TodoPending
			}
			todos[i] = map[string]any{"content": content, "status": status}
		}
		a[session.ArgTodos] = todos
	case "invoke_agent":
		if in.Prompt == nil {
			return "", nil, false
		}
		a[session.ArgPrompt] = *in.Prompt
		setStr(session.ArgAgent, in.AgentName)
	default:
		return "", nil, false
	}
	return UniversalTool(name), a, true
}

// ToolCall writes a universal tool call as a Gemini CLI 0.61.0 one: its
// tool name and arguments, in the schemas the CLI declares to the model.
// ok is false when Gemini CLI has no tool that takes the call: an edit of
// several places or a patch (replace changes one string), and tools it
// lacks (plans, questions, notebooks, skills, MCP).
func ToolCall(tool session.Tool, a map[string]any) (string, json.RawMessage, bool) {
	str := func(k string) (string, bool) { s, ok := a[k].(string); return s, ok && s != "" }
	num := func(k string) int { return toolarg.Int(a, k) }
	out := map[string]any{}
	var name string
	switch tool {
	case session.ToolBash:
		cmd, ok := str(session.ArgCommand)
		if !ok {
			return "", nil, false
		}
		name, out["command"] = "run_shell_command", cmd
		if d, ok := str(session.ArgDescription); ok {
			out["description"] = d
		}
	case session.ToolRead, session.ToolImage:
		p, ok := str(session.ArgPath)
		if !ok {
			return "", nil, false
		}
		name, out["file_path"] = "read_file", p
		if tool == session.ToolRead {
			off, lim := num(session.ArgOffset), num(session.ArgLimit)
			if off > 0 || lim > 0 {
				start := max(off, 1)
				out["start_line"] = start
				if lim > 0 {
					out["end_line"] = start + lim - 1
				}
			}
		}
	case session.ToolWrite:
		p, ok := str(session.ArgPath)
		c, isStr := a[session.ArgContent].(string)
		if !ok || !isStr {
			return "", nil, false
		}
		name, out["file_path"], out["content"] = "write_file", p, c
	case session.ToolEdit:
		p, ok := str(session.ArgPath)
		if !ok {
			return "", nil, false
		}
		old, okOld := a[session.ArgOld].(string)
		nw, okNew := a[session.ArgNew].(string)
		all, _ := a[session.ArgReplaceAll].(bool)
		if edits, isList := a[session.ArgEdits].([]any); isList && !okOld {
			// replace changes one string: a single edit of a list fits.
			if len(edits) != 1 {
				return "", nil, false
			}
			m, _ := edits[0].(map[string]any)
			old, okOld = m[session.ArgOld].(string)
			nw, okNew = m[session.ArgNew].(string)
			all, _ = m[session.ArgReplaceAll].(bool)
		}
		if !okOld || !okNew {
			return "", nil, false // a patch, or nothing to replace
		}
		name = "replace"
		out["file_path"], out["old_string"], out["new_string"] = p, old, nw
		// The schema requires an instruction, written for the model that
		// made the call; none was recorded.
		out["instruction"] = "Replace the given text in " + p + "."
		if all {
			out["allow_multiple"] = true
		}
	case session.ToolSearch:
		pat, ok := str(session.ArgPattern)
		if !ok {
			return "", nil, false
		}
		name, out["pattern"] = "grep_search", pat
		if p, ok := str(session.ArgPath); ok {
			out["dir_path"] = p
		}
		if g, ok := str(session.ArgGlob); ok {
			out["include_pattern"] = g
		}
	case session.ToolGlob:
		pat, ok := str(session.ArgPattern)
		if !ok {
			return "", nil, false
		}
		name, out["pattern"] = "glob", pat
		if p, ok := str(session.ArgPath); ok {
			out["dir_path"] = p
		}
	case session.ToolList:
		p, ok := str(session.ArgPath)
		if !ok {
			return "", nil, false
		}
		name, out["dir_path"] = "list_directory", p
	case session.ToolWebFetch:
		// web_fetch takes one prompt that names the URLs to fetch.
		u, ok := str(session.ArgURL)
		if !ok {
			return "", nil, false
		}
		prompt := u
		if p, ok := str(session.ArgPrompt); ok {
			if strings.Contains(p, u) {
				prompt = p
			} else {
				prompt = u + "\n\n" + p
			}
		}
		name, out["prompt"] = "web_fetch", prompt
	case session.ToolWebSearch:
		q, ok := str(session.ArgQuery)
		if !ok {
			return "", nil, false
		}
		name, out["query"] = "google_web_search", q
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
			switch st {
			case session.TodoPending, session.TodoInProgress, session.TodoCompleted, "cancelled", "blocked":
			default:
				st = session.TodoPending
			}
			list = append(list, map[string]any{"description": c, "status": st})
		}
		name, out["todos"] = "write_todos", list
	case session.ToolTask:
		p, ok := str(session.ArgPrompt)
		if !ok {
			return "", nil, false
		}
		agent, _ := str(session.ArgAgent)
		name, out["prompt"], out["agent_name"] = "invoke_agent", p, agentName(agent)
	default:
		return "", nil, false
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", nil, false
	}
	return name, b, true
}

// agentName names Gemini CLI's subagent for another CLI's: its general
// agent for a general one, its codebase investigator for an explorer;
// any other name stays (the call is history: no agent runs).
func agentName(agent string) string {
	switch strings.ToLower(agent) {
	case "", "general-purpose", "general", "generalist", "task":
		return "generalist"
	case "explore", "explorer", "codebase_investigator":
		return "codebase_investigator"
	}
	return agent
}

var urlRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`https?://[^\s<>"'` + "`" + `)\]]+`) })

// splitURL finds the first URL of a web_fetch prompt, and the rest: the
// prompt without the URL when the prompt starts with it (as ToolCall
// writes it), else the whole prompt.
func splitURL(prompt string) (url, rest string) {
	url = urlRE().FindString(prompt)
	if url == "" {
		return "", ""
	}
	if after, ok := strings.CutPrefix(prompt, url); ok {
		return url, strings.TrimSpace(after)
	}
	return url, prompt
}
