package kimi

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/stead-dev/stead/adapters/internal/toolarg"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/session"
)

// toolInput is every argument stead reads from a Kimi tool call, of Kimi
// Code 2.1.0's tools and the legacy kimi-cli 1.49's (their parameters are
// in the tools' JSON Schemas each request declares, and kimi-cli's
// src/kimi_cli/tools/*).
type toolInput struct {
	Command     *string  `json:"command"`
	Cwd         string   `json:"cwd"`
	Timeout     float64  `json:"timeout"` // seconds
	Description string   `json:"description"`
	Path        *string  `json:"path"`
	LineOffset  float64  `json:"line_offset"`
	NLines      float64  `json:"n_lines"`
	Content     *string  `json:"content"`
	Mode        string   `json:"mode"`
	OldString   *string  `json:"old_string"`
	NewString   *string  `json:"new_string"`
	ReplaceAll  bool     `json:"replace_all"`
	Edit        jsonEdit `json:"edit"` // kimi-cli's StrReplaceFile: one edit or a list
	Pattern     *string  `json:"pattern"`
	Glob        string   `json:"glob"`
	Directory   string   `json:"directory"` // kimi-cli's Glob
	URL         *string  `json:"url"`
	Query       *string  `json:"query"`
	Todos       *[]struct {
		Title  string `json:"title"`
		Status string `json:"status"`
	} `json:"todos"`
	Prompt       *string `json:"prompt"`
	SubagentType string  `json:"subagent_type"`
	SubagentName string  `json:"subagent_name"` // kimi-cli's older Task
}

// jsonEdit is kimi-cli's StrReplaceFile edit: {old, new, replace_all} or a
// list of them.
type jsonEdit []strReplace

type strReplace struct {
	Old        string `json:"old"`
	New        string `json:"new"`
	ReplaceAll bool   `json:"replace_all"`
}

func (e *jsonEdit) UnmarshalJSON(b []byte) error {
	switch t := strings.TrimSpace(string(b)); {
	case t == "null":
		*e = nil
		return nil
	case strings.HasPrefix(t, "["):
		return json.Unmarshal(b, (*[]strReplace)(e))
	}
	var one strReplace
	if err := json.Unmarshal(b, &one); err != nil {
		return err
	}
	*e = jsonEdit{one}
	return nil
}

// ToolArgs reads a Kimi tool call, of Kimi Code or of the legacy
// kimi-cli, into universal arguments (session.Arg*). ok is false for tools
// with no universal form, and for calls whose meaning the universal form
// would change: a write that appends, a todo list call that only reads the
// list.
func ToolArgs(name string, input json.RawMessage) (session.Tool, map[string]any, bool) {
	var in toolInput
	if json.Unmarshal(input, &in) != nil {
		return "", nil, false
	}
	a := map[string]any{}
	str := func(k, v string) {
		if v != "" {
			a[k] = v
		}
	}
	num := func(k string, v float64) {
		if v > 0 {
			a[k] = v
		}
	}
	tool := UniversalTool(name)
	switch name {
	case "Bash", "Shell":
		if in.Command == nil || *in.Command == "" {
			return "", nil, false
		}
		cmd := *in.Command
		if in.Cwd != "" {
			// The universal form has no working directory: the command
			// changes to it itself.
			cmd = "cd " + safetext.Quote(in.Cwd) + " && " + cmd
		}
		a[session.ArgCommand] = cmd
		str(session.ArgDescription, in.Description)
		num(session.ArgTimeout, in.Timeout*1000)
	case "Read", "ReadFile":
		if in.Path == nil {
			return "", nil, false
		}
		a[session.ArgPath] = *in.Path
		if in.LineOffset > 1 {
			// A negative offset reads from the end, which the universal
			// form cannot say: the whole file is read instead.
			a[session.ArgOffset] = in.LineOffset
		}
		num(session.ArgLimit, in.NLines)
	case "ReadMediaFile":
		if in.Path == nil {
			return "", nil, false
		}
		a[session.ArgPath] = *in.Path
	case "Write", "WriteFile":
		if in.Path == nil || in.Content == nil || in.Mode == "append" {
			return "", nil, false
		}
		a[session.ArgPath], a[session.ArgContent] = *in.Path, *in.Content
	case "Edit":
		if in.Path == nil || in.OldString == nil || in.NewString == nil {
			return "", nil, false
		}
		a[session.ArgPath], a[session.ArgOld], a[session.ArgNew] = *in.Path, *in.OldString, *in.NewString
		if in.ReplaceAll {
			a[session.ArgReplaceAll] = true
		}
	case "StrReplaceFile":
		if in.Path == nil || len(in.Edit) == 0 {
			return "", nil, false
		}
		a[session.ArgPath] = *in.Path
		if len(in.Edit) == 1 {
			a[session.ArgOld], a[session.ArgNew] = in.Edit[0].Old, in.Edit[0].New
			if in.Edit[0].ReplaceAll {
				a[session.ArgReplaceAll] = true
			}
			break
		}
		edits := make([]any, len(in.Edit))
		for i, e := range in.Edit {
			m := map[string]any{session.ArgOld: e.Old, session.ArgNew: e.New}
			if e.ReplaceAll {
				m[session.ArgReplaceAll] = true
			}
			edits[i] = m
		}
		a[session.ArgEdits] = edits
	case "Grep":
		if in.Pattern == nil {
			return "", nil, false
		}
		a[session.ArgPattern] = *in.Pattern
		if in.Path != nil {
			str(session.ArgPath, *in.Path)
		}
		str(session.ArgGlob, in.Glob)
	case "Glob":
		if in.Pattern == nil {
			return "", nil, false
		}
		a[session.ArgPattern] = *in.Pattern
		if in.Path != nil {
			str(session.ArgPath, *in.Path)
		}
		str(session.ArgPath, in.Directory)
	case "FetchURL":
		if in.URL == nil {
			return "", nil, false
		}
		a[session.ArgURL] = *in.URL
	case "WebSearch", "SearchWeb":
		if in.Query == nil {
			return "", nil, false
		}
		a[session.ArgQuery] = *in.Query
	case "TodoList", "SetTodoList":
		if in.Todos == nil {
			return "", nil, false // reads the list, changes nothing
		}
		todos := make([]any, len(*in.Todos))
		for i, t := range *in.Todos {
			todos[i] = map[string]any{"content": t.Title, "status": universalTodoStatus(t.Status)}
		}
		a[session.ArgTodos] = todos
	case "Agent", "Task":
		if in.Prompt == nil {
			return "", nil, false
		}
		a[session.ArgPrompt] = *in.Prompt
		str(session.ArgDescription, in.Description)
		str(session.ArgAgent, in.SubagentType)
		str(session.ArgAgent, in.SubagentName)
	default:
		return "", nil, false
	}
	return tool, a, true
}

// universalTodoStatus maps a Kimi todo status (pending, in_progress,
// done) to a universal one.
func universalTodoStatus(s string) string {
	switch s {
	case "done":
		return session.TodoCompleted
	case "in_progress":
		return session.TodoInProgress
	}
	return session.TodoPending
}

// kimiTodoStatus maps a universal todo status to Kimi's.
func kimiTodoStatus(s string) string {
	switch s {
	case session.TodoCompleted, "done":
		return "done"
	case session.TodoInProgress:
		return "in_progress"
	}
	return "pending"
}

// maxForegroundTimeout is the longest timeout, in seconds, Kimi Code's
// Bash accepts for a command in the foreground.
const maxForegroundTimeout = 300

// ToolCall writes a universal tool call as a Kimi Code 2.1.0 one: its tool
// name and input, fitting the tool's JSON Schema (every one of them
// rejects properties it does not list). ok is false when Kimi Code has no
// tool for it: an edit of several places or a patch (Edit takes one
// replacement), an edit with nothing to replace, a web fetch that asked a
// question of the page (FetchURL takes a URL alone, and returns the page),
// a question, a skill.
func ToolCall(tool session.Tool, a map[string]any) (string, json.RawMessage, bool) {
	str := func(k string) (string, bool) { s, ok := a[k].(string); return s, ok }
	num := func(k string) float64 { f, _ := toolarg.Number(a, k); return f }
	out := map[string]any{}
	var name string
	switch tool {
	case session.ToolBash:
		cmd, _ := str(session.ArgCommand)
		if cmd == "" {
			return "", nil, false
		}
		name, out["command"] = "Bash", cmd
		if ms := num(session.ArgTimeout); ms > 0 {
			out["timeout"] = min(max(int(math.Ceil(ms/1000)), 1), maxForegroundTimeout)
		}
		if d, _ := str(session.ArgDescription); d != "" {
			out["description"] = d
		}
	case session.ToolRead:
		p, _ := str(session.ArgPath)
		if p == "" {
			return "", nil, false
		}
		name, out["path"] = "Read", p
		if off := num(session.ArgOffset); off >= 1 {
			out["line_offset"] = int(off)
		}
		if lim := num(session.ArgLimit); lim >= 1 {
			out["n_lines"] = int(lim)
		}
	case session.ToolImage:
		p, _ := str(session.ArgPath)
		if p == "" {
			return "", nil, false
		}
		name, out["path"] = "ReadMediaFile", p
	case session.ToolWrite:
		p, ok1 := str(session.ArgPath)
		c, ok2 := str(session.ArgContent)
		if p == "" || !ok1 || !ok2 {
			return "", nil, false
		}
		name, out["path"], out["content"] = "Write", p, c
	case session.ToolEdit:
		p, _ := str(session.ArgPath)
		old, ok1 := str(session.ArgOld)
		nw, ok2 := str(session.ArgNew)
		ra, _ := a[session.ArgReplaceAll].(bool)
		if edits, isList := a[session.ArgEdits].([]any); isList && !ok1 && len(edits) == 1 {
			// Edit takes one replacement, and a list of one is one.
			m, _ := edits[0].(map[string]any)
			old, ok1 = m[session.ArgOld].(string)
			nw, ok2 = m[session.ArgNew].(string)
			ra, _ = m[session.ArgReplaceAll].(bool)
		}
		if p == "" || !ok1 || !ok2 || old == "" {
			return "", nil, false
		}
		name, out["path"], out["old_string"], out["new_string"] = "Edit", p, old, nw
		if ra {
			out["replace_all"] = true
		}
	case session.ToolSearch:
		pat, _ := str(session.ArgPattern)
		if pat == "" {
			return "", nil, false
		}
		name, out["pattern"] = "Grep", pat
		if p, _ := str(session.ArgPath); p != "" {
			out["path"] = p
		}
		if g, _ := str(session.ArgGlob); g != "" {
			out["glob"] = g
		}
	case session.ToolGlob:
		pat, _ := str(session.ArgPattern)
		if pat == "" {
			return "", nil, false
		}
		name, out["pattern"] = "Glob", pat
		if p, _ := str(session.ArgPath); p != "" {
			out["path"] = p
		}
	case session.ToolList:
		// Kimi Code lists directories through Bash (its Read and Glob
		// take no directory listing).
		p, _ := str(session.ArgPath)
		if p == "" {
			return "", nil, false
		}
		name, out["command"] = "Bash", "ls -la "+safetext.Quote(p)
	case session.ToolWebFetch:
		u, _ := str(session.ArgURL)
		if p, _ := str(session.ArgPrompt); u == "" || p != "" {
			// The result of a fetch with a prompt is an answer to it, not
			// the page FetchURL would return.
			return "", nil, false
		}
		name, out["url"] = "FetchURL", u
	case session.ToolWebSearch:
		q, _ := str(session.ArgQuery)
		if q == "" {
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
			if strings.TrimSpace(c) == "" {
				continue // a title must not be empty
			}
			list = append(list, map[string]any{"title": c, "status": kimiTodoStatus(st)})
		}
		name, out["todos"] = "TodoList", list
	case session.ToolTask:
		p, _ := str(session.ArgPrompt)
		if p == "" {
			return "", nil, false
		}
		d, _ := str(session.ArgDescription)
		if d == "" {
			d = "Subagent task"
		}
		name, out["prompt"], out["description"] = "Agent", p, d
		if t := kimiSubagentType(a[session.ArgAgent]); t != "" {
			out["subagent_type"] = t
		}
	default:
		return "", nil, false
	}
	b, err := session.MarshalCompact(out)
	if err != nil {
		return "", nil, false
	}
	return name, b, true
}

// kimiSubagentType returns the Kimi Code subagent type (coder, explore,
// plan) another CLI's agent name stands for; any other name as it is (the
// call is history: no agent runs), as Gemini CLI's and OpenCode's
// ToolCall keep it; "" when none is named, for the default.
func kimiSubagentType(v any) string {
	s, _ := v.(string)
	switch strings.ToLower(s) {
	case "coder", "general-purpose", "general":
		return "coder"
	case "explore", "explorer":
		return "explore"
	case "plan", "planner":
		return "plan"
	}
	return s
}

// legacyCall writes a universal tool call as a legacy kimi-cli 1.49 one:
// Shell, ReadFile, WriteFile, StrReplaceFile (which takes several edits),
// Glob, Grep, FetchURL, SearchWeb, SetTodoList and Agent.
func legacyCall(tool session.Tool, a map[string]any) (string, json.RawMessage, bool) {
	str := func(k string) string { s, _ := a[k].(string); return s }
	num := func(k string) float64 { f, _ := toolarg.Number(a, k); return f }
	out := map[string]any{}
	var name string
	switch tool {
	case session.ToolBash, session.ToolList:
		cmd := str(session.ArgCommand)
		if tool == session.ToolList && str(session.ArgPath) != "" {
			cmd = "ls -la " + safetext.Quote(str(session.ArgPath))
		}
		if cmd == "" {
			return "", nil, false
		}
		name, out["command"] = "Shell", cmd
		if ms := num(session.ArgTimeout); ms > 0 {
			out["timeout"] = min(max(int(math.Ceil(ms/1000)), 1), maxForegroundTimeout)
		}
	case session.ToolRead:
		if str(session.ArgPath) == "" {
			return "", nil, false
		}
		name, out["path"] = "ReadFile", str(session.ArgPath)
		if off := num(session.ArgOffset); off >= 1 {
			out["line_offset"] = int(off)
		}
		if lim := num(session.ArgLimit); lim >= 1 {
			out["n_lines"] = int(lim)
		}
	case session.ToolWrite:
		if _, ok := a[session.ArgContent].(string); !ok || str(session.ArgPath) == "" {
			return "", nil, false
		}
		name, out["path"], out["content"] = "WriteFile", str(session.ArgPath), str(session.ArgContent)
	case session.ToolEdit:
		if str(session.ArgPath) == "" {
			return "", nil, false
		}
		var edits []any
		if list, ok := a[session.ArgEdits].([]any); ok {
			for _, x := range list {
				m, _ := x.(map[string]any)
				o, _ := m[session.ArgOld].(string)
				n, _ := m[session.ArgNew].(string)
				ra, _ := m[session.ArgReplaceAll].(bool)
				edits = append(edits, map[string]any{"old": o, "new": n, "replace_all": ra})
			}
		} else if old, ok := a[session.ArgOld].(string); ok && old != "" {
			ra, _ := a[session.ArgReplaceAll].(bool)
			edits = []any{map[string]any{"old": old, "new": str(session.ArgNew), "replace_all": ra}}
		}
		if len(edits) == 0 {
			return "", nil, false
		}
		name, out["path"] = "StrReplaceFile", str(session.ArgPath)
		if len(edits) == 1 {
			out["edit"] = edits[0]
		} else {
			out["edit"] = edits
		}
	case session.ToolSearch:
		if str(session.ArgPattern) == "" {
			return "", nil, false
		}
		name, out["pattern"] = "Grep", str(session.ArgPattern)
		if p := str(session.ArgPath); p != "" {
			out["path"] = p
		}
		if g := str(session.ArgGlob); g != "" {
			out["glob"] = g
		}
	case session.ToolGlob:
		if str(session.ArgPattern) == "" {
			return "", nil, false
		}
		name, out["pattern"] = "Glob", str(session.ArgPattern)
		if p := str(session.ArgPath); p != "" {
			out["directory"] = p
		}
	case session.ToolWebFetch:
		if str(session.ArgURL) == "" || str(session.ArgPrompt) != "" {
			return "", nil, false // as ToolCall
		}
		name, out["url"] = "FetchURL", str(session.ArgURL)
	case session.ToolWebSearch:
		if str(session.ArgQuery) == "" {
			return "", nil, false
		}
		name, out["query"] = "SearchWeb", str(session.ArgQuery)
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
			if strings.TrimSpace(c) != "" {
				list = append(list, map[string]any{"title": c, "status": kimiTodoStatus(st)})
			}
		}
		name, out["todos"] = "SetTodoList", list
	case session.ToolTask:
		if str(session.ArgPrompt) == "" {
			return "", nil, false
		}
		d := str(session.ArgDescription)
		if d == "" {
			d = "Subagent task"
		}
		t := kimiSubagentType(a[session.ArgAgent])
		if t == "" {
			t = "coder"
		}
		name, out["description"], out["prompt"], out["subagent_type"] = "Agent", d, str(session.ArgPrompt), t
	default:
		return "", nil, false
	}
	b, err := session.MarshalCompact(out)
	if err != nil {
		return "", nil, false
	}
	return name, b, true
}

// legacyTools are the names of the legacy kimi-cli's own tools: a call of
// one is written to a kimi-cli session as it is. Glob is not among them:
// Kimi Code's takes a path where kimi-cli's takes a directory.
var legacyTools = wordSet(`Shell ReadFile ReadMediaFile WriteFile StrReplaceFile Grep FetchURL
	SearchWeb SetTodoList Agent Task CreateSubagent Think SendDMail AskUserQuestion
	EnterPlanMode ExitPlanMode TaskList TaskOutput TaskStop`)

// legacyToolCall rewrites a Kimi Code tool call (what the conversion
// chose) as the legacy kimi-cli's, when kimi-cli has a tool for it; other
// calls, and calls of kimi-cli's own tools, stay as they are.
func legacyToolCall(name string, input json.RawMessage) (string, json.RawMessage) {
	if legacyTools[name] {
		return name, input
	}
	tool, a, ok := ToolArgs(name, input)
	if !ok {
		return name, input
	}
	if n, in, ok := legacyCall(tool, a); ok {
		return n, in
	}
	return name, input
}
