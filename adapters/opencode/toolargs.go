package opencode

import (
	"encoding/json"
	"strings"

	"github.com/stead-dev/stead/adapters/internal/toolarg"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/session"
)

// ToolArgs reads an OpenCode tool call into universal arguments
// (session.Arg*). ok is false for tools with no universal form (skill,
// question, plan_enter, plan_exit, todoread, MCP tools).
func ToolArgs(name string, input json.RawMessage) (session.Tool, map[string]any, bool) {
	var in struct {
		Command     *string  `json:"command"`
		Description string   `json:"description"`
		Timeout     float64  `json:"timeout"`
		Workdir     string   `json:"workdir"`
		FilePath    *string  `json:"filePath"`
		Offset      float64  `json:"offset"`
		Limit       float64  `json:"limit"`
		Content     *string  `json:"content"`
		OldString   *string  `json:"oldString"`
		NewString   *string  `json:"newString"`
		ReplaceAll  bool     `json:"replaceAll"`
		PatchText   *string  `json:"patchText"`
		Pattern     *string  `json:"pattern"`
		Path        string   `json:"path"`
		Include     string   `json:"include"`
		URL         *string  `json:"url"`
		Query       *string  `json:"query"`
		Prompt      *string  `json:"prompt"`
		Subagent    string   `json:"subagent_type"`
		Ignore      []string `json:"ignore"`
		Edits       []struct {
			OldString  string `json:"oldString"`
			NewString  string `json:"newString"`
			ReplaceAll bool   `json:"replaceAll"`
		} `json:"edits"`
		Todos []struct {
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
			if x <= 0 {
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
	case "bash":
		if in.Command == nil {
			return "", nil, false
		}
		cmd := *in.Command
		if in.Workdir != "" {
			// The universal call has no working directory: the
			// command changes to it itself.
			cmd = "cd " + safetext.Quote(in.Workdir) + " && " + cmd
		}
		a[session.ArgCommand] = cmd
		set(session.ArgDescription, in.Description)
		set(session.ArgTimeout, in.Timeout)
	case "read":
		if in.FilePath == nil {
			return "", nil, false
		}
		a[session.ArgPath] = *in.FilePath
		set(session.ArgOffset, in.Offset)
		set(session.ArgLimit, in.Limit)
	case "write":
		if in.FilePath == nil || in.Content == nil {
			return "", nil, false
		}
		a[session.ArgPath], a[session.ArgContent] = *in.FilePath, *in.Content
	case "edit":
		if in.FilePath == nil || in.OldString == nil || in.NewString == nil {
			return "", nil, false
		}
		a[session.ArgPath], a[session.ArgOld], a[session.ArgNew] = *in.FilePath, *in.OldString, *in.NewString
		set(session.ArgReplaceAll, in.ReplaceAll)
	case "multiedit":
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
	case "apply_patch", "patch":
		if in.PatchText == nil {
			return "", nil, false
		}
		t, pa := patchArgs(*in.PatchText)
		return t, pa, true
	case "grep", "glob":
		if in.Pattern == nil {
			return "", nil, false
		}
		a[session.ArgPattern] = *in.Pattern
		set(session.ArgPath, in.Path)
		if name == "grep" {
			set(session.ArgGlob, in.Include)
		}
	case "list", "ls":
		p := in.Path
		if p == "" {
			p = "."
		}
		a[session.ArgPath] = p
	case "webfetch":
		if in.URL == nil {
			return "", nil, false
		}
		a[session.ArgURL] = *in.URL
	case "websearch", "codesearch":
		if in.Query == nil {
			return "", nil, false
		}
		a[session.ArgQuery] = *in.Query
	case "todowrite":
		todos := make([]any, len(in.Todos))
		for i, t := range in.Todos {
			st := t.Status
			if st == "cancelled" {
				st = session.TodoCompleted // the universal list has no cancelled item
			}
			todos[i] = map[string]any{"content": t.Content, "status": st}
		}
		a[session.ArgTodos] = todos
	case "task":
		if in.Prompt == nil {
			return "", nil, false
		}
		a[session.ArgPrompt] = *in.Prompt
		set(session.ArgDescription, in.Description)
		set(session.ArgAgent, in.Subagent)
	default:
		return "", nil, false
	}
	return tool, a, true
}

// ToolCall writes a universal tool call as an OpenCode 1.18.33 one, its
// input fitting the schema OpenCode declares to the model
// (samples/run/request_tools_full.json): bash, read (also for listing a
// directory and viewing an image: OpenCode's read takes both), write,
// edit, grep, glob, webfetch, todowrite and task. ok is false when
// OpenCode has no tool for it: web searches (websearch is offered only
// with some providers), several edits in one call (1.18.33 offers no
// multiedit), patches (apply_patch is offered only to GPT models), web
// fetches that asked a question of the page (webfetch returns the page),
// and anything else.
func ToolCall(tool session.Tool, a map[string]any) (string, json.RawMessage, bool) {
	str := func(k string) (string, bool) { s, ok := a[k].(string); return s, ok }
	num := func(k string) (int64, bool) {
		f, ok := toolarg.Number(a, k)
		return int64(f), ok && f >= 1
	}
	out := map[string]any{}
	var name string
	switch tool {
	case session.ToolBash:
		cmd, ok := str(session.ArgCommand)
		if !ok {
			return "", nil, false
		}
		// 1.18.33's bash takes command, timeout and workdir; the
		// description older versions took is not part of its schema.
		name, out["command"] = "bash", cmd
		if n, ok := num(session.ArgTimeout); ok {
			out["timeout"] = n
		}
	case session.ToolRead, session.ToolImage, session.ToolList:
		p, ok := str(session.ArgPath)
		if !ok {
			return "", nil, false
		}
		name, out["filePath"] = "read", p
		if tool == session.ToolRead {
			if n, ok := num(session.ArgOffset); ok {
				out["offset"] = n
			}
			if n, ok := num(session.ArgLimit); ok {
				out["limit"] = n
			}
		}
	case session.ToolWrite:
		p, ok1 := str(session.ArgPath)
		c, ok2 := str(session.ArgContent)
		if !ok1 || !ok2 {
			return "", nil, false
		}
		name, out["filePath"], out["content"] = "write", p, c
	case session.ToolEdit:
		p, ok := str(session.ArgPath)
		if !ok {
			return "", nil, false
		}
		old, ok1 := str(session.ArgOld)
		nw, ok2 := str(session.ArgNew)
		all, _ := a[session.ArgReplaceAll].(bool)
		if edits, isList := a[session.ArgEdits].([]any); isList && len(edits) == 1 {
			m, _ := edits[0].(map[string]any)
			old, ok1 = m[session.ArgOld].(string)
			nw, ok2 = m[session.ArgNew].(string)
			all, _ = m[session.ArgReplaceAll].(bool)
		}
		if !ok1 || !ok2 {
			return "", nil, false
		}
		name, out["filePath"], out["oldString"], out["newString"] = "edit", p, old, nw
		if all {
			out["replaceAll"] = true
		}
	case session.ToolSearch:
		pat, ok := str(session.ArgPattern)
		if !ok {
			return "", nil, false
		}
		name, out["pattern"] = "grep", pat
		if p, ok := str(session.ArgPath); ok && p != "" {
			out["path"] = p
		}
		if g, ok := str(session.ArgGlob); ok && g != "" {
			out["include"] = g
		}
	case session.ToolGlob:
		pat, ok := str(session.ArgPattern)
		if !ok {
			return "", nil, false
		}
		name, out["pattern"] = "glob", pat
		if p, ok := str(session.ArgPath); ok && p != "" {
			out["path"] = p
		}
	case session.ToolWebFetch:
		u, ok := str(session.ArgURL)
		if p, _ := str(session.ArgPrompt); !ok || p != "" {
			// The result of a fetch with a prompt is an answer to it, not
			// the page webfetch would return.
			return "", nil, false
		}
		name, out["url"] = "webfetch", u
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
			case session.TodoPending, session.TodoInProgress, session.TodoCompleted, "cancelled":
			default:
				st = session.TodoPending
			}
			list = append(list, map[string]any{"content": c, "status": st, "priority": "medium"})
		}
		name, out["todos"] = "todowrite", list
	case session.ToolTask:
		p, ok := str(session.ArgPrompt)
		if !ok {
			return "", nil, false
		}
		d, _ := str(session.ArgDescription)
		if d == "" {
			d = "Subagent task"
		}
		name, out["prompt"], out["description"] = "task", p, d
		out["subagent_type"] = subagentType(a[session.ArgAgent])
	default:
		return "", nil, false
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", nil, false
	}
	return name, b, true
}

// subagentType names OpenCode's subagent for another CLI's: its general
// agent for a general-purpose one (Claude Code's general-purpose), its
// explore agent for an exploring one, else the name as it was.
func subagentType(v any) string {
	s, _ := v.(string)
	switch strings.ToLower(s) {
	case "", "general-purpose", "general", "default":
		return "general"
	case "explore", "explorer":
		return "explore"
	}
	return s
}

// patchArgs reads an apply_patch patch ("*** Begin Patch" format, as
// Codex writes them) into universal arguments: a single added file is a
// write, a single updated file an edit; anything else stays a patch.
func patchArgs(patch string) (session.Tool, map[string]any) {
	op, ok := singlePatchOp(patch)
	if ok {
		switch {
		case op.kind == "add":
			content := strings.Join(op.lines, "\n")
			if len(op.lines) > 0 {
				content += "\n"
			}
			return session.ToolWrite, map[string]any{session.ArgPath: op.path, session.ArgContent: content}
		case op.kind == "update" && len(op.hunks) == 1:
			h := op.hunks[0]
			return session.ToolEdit, map[string]any{session.ArgPath: op.path,
				session.ArgOld: strings.Join(h[0], "\n"), session.ArgNew: strings.Join(h[1], "\n")}
		case op.kind == "update":
			edits := make([]any, len(op.hunks))
			for i, h := range op.hunks {
				edits[i] = map[string]any{session.ArgOld: strings.Join(h[0], "\n"), session.ArgNew: strings.Join(h[1], "\n")}
			}
			return session.ToolEdit, map[string]any{session.ArgPath: op.path, session.ArgEdits: edits}
		}
	}
	return session.ToolEdit, map[string]any{session.ArgPatch: patch}
}

type patchOp struct {
	kind, path string
	lines      []string      // an added file's lines
	hunks      [][2][]string // each hunk's old and new lines
}

// singlePatchOp parses a patch of exactly one file operation without a
// move; ok is false for anything else.
func singlePatchOp(patch string) (patchOp, bool) {
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(patch, "\r\n", "\n"), "\n"), "\n")
	if len(lines) < 3 || strings.TrimSpace(lines[0]) != "*** Begin Patch" || strings.TrimSpace(lines[len(lines)-1]) != "*** End Patch" {
		return patchOp{}, false
	}
	var op patchOp
	var h *[2][]string
	for _, l := range lines[1 : len(lines)-1] {
		switch {
		case strings.HasPrefix(l, "*** Add File: "), strings.HasPrefix(l, "*** Update File: "), strings.HasPrefix(l, "*** Delete File: "):
			if op.kind != "" {
				return patchOp{}, false // more than one file
			}
			k, p, _ := strings.Cut(strings.TrimPrefix(l, "*** "), " File: ")
			op.kind, op.path = strings.ToLower(k), strings.TrimSpace(p)
		case op.kind == "" || strings.HasPrefix(l, "*** Move to: "):
			return patchOp{}, false
		case l == "*** End of File":
		case op.kind == "add":
			if !strings.HasPrefix(l, "+") {
				return patchOp{}, false
			}
			op.lines = append(op.lines, l[1:])
		case op.kind == "update" && strings.HasPrefix(l, "@@"):
			op.hunks = append(op.hunks, [2][]string{})
			h = &op.hunks[len(op.hunks)-1]
		case op.kind == "update":
			if h == nil {
				op.hunks = append(op.hunks, [2][]string{})
				h = &op.hunks[len(op.hunks)-1]
			}
			switch {
			case strings.HasPrefix(l, "-"):
				h[0] = append(h[0], l[1:])
			case strings.HasPrefix(l, "+"):
				h[1] = append(h[1], l[1:])
			case strings.HasPrefix(l, " "), l == "":
				c := strings.TrimPrefix(l, " ")
				h[0], h[1] = append(h[0], c), append(h[1], c)
			default:
				return patchOp{}, false
			}
		default:
			return patchOp{}, false
		}
	}
	return op, op.kind == "add" || op.kind == "update" && len(op.hunks) > 0
}
