package kimi

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/stead-dev/stead/session"
)

// schemaNode is the part of a JSON Schema the fit check reads.
type schemaNode struct {
	Type                 string                `json:"type"`
	Properties           map[string]schemaNode `json:"properties"`
	Required             []string              `json:"required"`
	AdditionalProperties *bool                 `json:"additionalProperties"`
	Items                *schemaNode           `json:"items"`
	Enum                 []any                 `json:"enum"`
	MinLength            *int                  `json:"minLength"`
	AnyOf                []schemaNode          `json:"anyOf"`
	Minimum              *float64              `json:"minimum"`
	ExclusiveMinimum     *float64              `json:"exclusiveMinimum"`
}

// kimiTools reads the tool declarations Kimi Code 2.1.0 sent in a real
// request (descriptions dropped), plus ReadMediaFile and WebSearch, which
// that run did not declare, from their zod schemas.
func kimiTools(t *testing.T) map[string]schemaNode {
	t.Helper()
	b, err := os.ReadFile("testdata/write/tools-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		Name       string     `json:"name"`
		Parameters schemaNode `json:"parameters"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	m := map[string]schemaNode{}
	for _, x := range list {
		m[x.Name] = x.Parameters
	}
	return m
}

// fits reports why v does not fit the schema s, or "".
func fits(s schemaNode, v any) string {
	if len(s.AnyOf) > 0 {
		for _, alt := range s.AnyOf {
			if fits(alt, v) == "" {
				return ""
			}
		}
		return "fits no alternative"
	}
	if len(s.Enum) > 0 {
		found := false
		for _, e := range s.Enum {
			if reflect.DeepEqual(e, v) {
				found = true
			}
		}
		if !found {
			return "not in the enum"
		}
	}
	switch s.Type {
	case "object":
		o, ok := v.(map[string]any)
		if !ok {
			return "not an object"
		}
		for _, r := range s.Required {
			if _, ok := o[r]; !ok {
				return "lacks " + r
			}
		}
		for k, x := range o {
			p, ok := s.Properties[k]
			if !ok {
				if s.AdditionalProperties != nil && !*s.AdditionalProperties {
					return "has " + k + ", which the schema does not allow"
				}
				continue
			}
			if why := fits(p, x); why != "" {
				return k + ": " + why
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return "not a string"
		}
		if s.MinLength != nil && len(str) < *s.MinLength {
			return "too short"
		}
	case "integer", "number":
		f, ok := v.(float64)
		if !ok || s.Type == "integer" && f != float64(int64(f)) {
			return "not an " + s.Type
		}
		if s.Minimum != nil && f < *s.Minimum || s.ExclusiveMinimum != nil && f <= *s.ExclusiveMinimum {
			return "too small"
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return "not a boolean"
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return "not an array"
		}
		if s.Items != nil {
			for _, x := range a {
				if why := fits(*s.Items, x); why != "" {
					return "item: " + why
				}
			}
		}
	}
	return ""
}

func decode(t *testing.T, b json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("input %s: %v", b, err)
	}
	return m
}

// TestToolCallFitsKimiCode writes every universal tool Kimi Code has as a
// call and checks the input against the schema Kimi Code declares, then
// reads the call back to the same universal arguments.
func TestToolCallFitsKimiCode(t *testing.T) {
	schemas := kimiTools(t)
	// The check is not vacuous: another CLI's arguments do not fit.
	for name, in := range map[string]string{"Read": `{"file_path":"/w/a"}`, "Edit": `{"path":"/w/a","old_string":"","new_string":"b"}`,
		"Bash": `{"command":"ls","timeout":1.5}`, "TodoList": `{"todos":[{"title":"a","status":"completed"}]}`} {
		if fits(schemas[name], decode(t, json.RawMessage(in))) == "" {
			t.Errorf("%s %s fits Kimi Code's schema", name, in)
		}
	}
	todos := []any{
		map[string]any{"content": "read the code", "status": "completed"},
		map[string]any{"content": "fix it", "status": "in_progress"},
		map[string]any{"content": "test it", "status": "pending"},
	}
	tests := []struct {
		tool  session.Tool
		args  map[string]any
		name  string
		input string
		// back is what ToolArgs reads, when not args.
		back map[string]any
	}{
		{session.ToolBash, map[string]any{"command": "ls -la", "description": "List files", "timeout": 120000.0}, "Bash",
			`{"command":"ls -la","description":"List files","timeout":120}`, nil},
		{session.ToolBash, map[string]any{"command": "sleep 999", "timeout": 3600000.0}, "Bash",
			`{"command":"sleep 999","timeout":300}`, map[string]any{"command": "sleep 999", "timeout": 300000.0}},
		{session.ToolRead, map[string]any{"path": "/w/a.go"}, "Read", `{"path":"/w/a.go"}`, nil},
		{session.ToolRead, map[string]any{"path": "/w/a.go", "offset": 10.0, "limit": 20.0}, "Read",
			`{"line_offset":10,"n_lines":20,"path":"/w/a.go"}`, nil},
		{session.ToolImage, map[string]any{"path": "/w/cat.png"}, "ReadMediaFile", `{"path":"/w/cat.png"}`, nil},
		{session.ToolWrite, map[string]any{"path": "/w/b.txt", "content": "hi\n"}, "Write", `{"content":"hi\n","path":"/w/b.txt"}`, nil},
		{session.ToolEdit, map[string]any{"path": "/w/a.go", "old": "a := 1", "new": "a := 2", "replaceAll": true}, "Edit",
			`{"new_string":"a := 2","old_string":"a := 1","path":"/w/a.go","replace_all":true}`, nil},
		// A list of one edit is one replacement.
		{session.ToolEdit, map[string]any{"path": "/w/a.go", "edits": []any{map[string]any{"old": "a", "new": "b", "replaceAll": true}}}, "Edit",
			`{"new_string":"b","old_string":"a","path":"/w/a.go","replace_all":true}`,
			map[string]any{"path": "/w/a.go", "old": "a", "new": "b", "replaceAll": true}},
		{session.ToolSearch, map[string]any{"pattern": "func main", "path": "/w", "glob": "*.go"}, "Grep",
			`{"glob":"*.go","path":"/w","pattern":"func main"}`, nil},
		{session.ToolGlob, map[string]any{"pattern": "**/*.go", "path": "/w"}, "Glob", `{"path":"/w","pattern":"**/*.go"}`, nil},
		{session.ToolList, map[string]any{"path": "/w/it's"}, "Bash", `{"command":"ls -la '/w/it'\\''s'"}`,
			map[string]any{"command": `ls -la '/w/it'\''s'`}},
		{session.ToolWebFetch, map[string]any{"url": "https://example.com"}, "FetchURL", `{"url":"https://example.com"}`, nil},
		{session.ToolWebSearch, map[string]any{"query": "kimi code"}, "WebSearch", `{"query":"kimi code"}`, nil},
		{session.ToolTodo, map[string]any{"todos": todos}, "TodoList",
			`{"todos":[{"status":"done","title":"read the code"},{"status":"in_progress","title":"fix it"},{"status":"pending","title":"test it"}]}`, nil},
		{session.ToolTask, map[string]any{"prompt": "find the bug", "description": "Find bug", "agent": "Explore"}, "Agent",
			`{"description":"Find bug","prompt":"find the bug","subagent_type":"explore"}`,
			map[string]any{"prompt": "find the bug", "description": "Find bug", "agent": "explore"}},
		{session.ToolTask, map[string]any{"prompt": "do it"}, "Agent", `{"description":"Subagent task","prompt":"do it"}`,
			map[string]any{"prompt": "do it", "description": "Subagent task"}},
		// An agent Kimi Code has no type for keeps its name.
		{session.ToolTask, map[string]any{"prompt": "review", "description": "Review", "agent": "security-reviewer"}, "Agent",
			`{"description":"Review","prompt":"review","subagent_type":"security-reviewer"}`, nil},
		// Numbers a Go caller passes as ints are numbers.
		{session.ToolRead, map[string]any{"path": "/w/a.go", "offset": 10, "limit": int64(20)}, "Read",
			`{"line_offset":10,"n_lines":20,"path":"/w/a.go"}`, map[string]any{"path": "/w/a.go", "offset": 10.0, "limit": 20.0}},
		{session.ToolBash, map[string]any{"command": "make", "timeout": json.Number("30000")}, "Bash",
			`{"command":"make","timeout":30}`, map[string]any{"command": "make", "timeout": 30000.0}},
	}
	for _, tt := range tests {
		t.Run(string(tt.tool)+"/"+tt.name, func(t *testing.T) {
			name, input, ok := ToolCall(tt.tool, tt.args)
			if !ok || name != tt.name {
				t.Fatalf("ToolCall = %q, %v; want %q", name, ok, tt.name)
			}
			if got, want := decode(t, input), decode(t, json.RawMessage(tt.input)); !reflect.DeepEqual(got, want) {
				t.Errorf("input %s, want %s", input, tt.input)
			}
			s, ok := schemas[name]
			if !ok {
				t.Fatalf("no schema for %s", name)
			}
			if why := fits(s, decode(t, input)); why != "" {
				t.Errorf("%s %s does not fit Kimi Code's schema: %s", name, input, why)
			}
			tool, back, ok := ToolArgs(name, input)
			want := tt.back
			if want == nil {
				want = tt.args
			}
			wantTool := tt.tool
			if tt.tool == session.ToolList {
				wantTool = session.ToolBash
			}
			if !ok || tool != wantTool || !reflect.DeepEqual(back, want) {
				t.Errorf("ToolArgs = %s %v %v, want %s %v", tool, back, ok, wantTool, want)
			}
		})
	}
}

// TestToolCallRefuses checks the calls Kimi Code cannot express: they are
// carried as text.
func TestToolCallRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		tool session.Tool
		args map[string]any
	}{
		"several edits": {session.ToolEdit, map[string]any{"path": "/w/a", "edits": []any{map[string]any{"old": "a", "new": "b"}, map[string]any{"old": "c", "new": "d"}}}},
		"fetch, prompt": {session.ToolWebFetch, map[string]any{"url": "https://example.com", "prompt": "summarise"}},
		"patch":         {session.ToolEdit, map[string]any{"patch": "*** Begin Patch\n*** End Patch\n"}},
		"empty old":     {session.ToolEdit, map[string]any{"path": "/w/a", "old": "", "new": "b"}},
		"empty command": {session.ToolBash, map[string]any{"command": ""}},
		"no path":       {session.ToolRead, map[string]any{}},
		"question":      {session.ToolAsk, map[string]any{"question": "?"}},
		"skill":         {session.ToolSkill, map[string]any{"skill": "x"}},
		"mcp":           {session.ToolMCP, map[string]any{}},
		"no todos":      {session.ToolTodo, map[string]any{}},
	} {
		if n, in, ok := ToolCall(tc.tool, tc.args); ok {
			t.Errorf("%s: ToolCall = %s %s, want no call", name, n, in)
		}
	}
}

// TestToolArgs reads calls of both CLIs' tools, including the forms only
// one of them has.
func TestToolArgs(t *testing.T) {
	tests := []struct {
		name, input string
		tool        session.Tool
		want        map[string]any // nil: no universal form
	}{
		{"Bash", `{"command":"make","cwd":"/w/sub","timeout":30}`, session.ToolBash, map[string]any{"command": "cd /w/sub && make", "timeout": 30000.0}},
		{"Bash", `{"command":""}`, "", nil},
		{"Shell", `{"command":"echo hello","timeout":60}`, session.ToolBash, map[string]any{"command": "echo hello", "timeout": 60000.0}},
		{"Read", `{"path":"a.txt","line_offset":-100}`, session.ToolRead, map[string]any{"path": "a.txt"}},
		{"ReadFile", `{"path":"/w/a","line_offset":5,"n_lines":10}`, session.ToolRead, map[string]any{"path": "/w/a", "offset": 5.0, "limit": 10.0}},
		{"Write", `{"path":"/w/a","content":"x","mode":"append"}`, "", nil},
		{"WriteFile", `{"path":"/w/a","content":"x","mode":"overwrite"}`, session.ToolWrite, map[string]any{"path": "/w/a", "content": "x"}},
		{"StrReplaceFile", `{"path":"/w/a","edit":{"old":"a","new":"b","replace_all":true}}`, session.ToolEdit,
			map[string]any{"path": "/w/a", "old": "a", "new": "b", "replaceAll": true}},
		{"StrReplaceFile", `{"path":"/w/a","edit":[{"old":"a","new":"b"},{"old":"c","new":"d"}]}`, session.ToolEdit,
			map[string]any{"path": "/w/a", "edits": []any{map[string]any{"old": "a", "new": "b"}, map[string]any{"old": "c", "new": "d"}}}},
		{"StrReplaceFile", `{"path":"/w/a","edit":null}`, "", nil},
		{"Glob", `{"pattern":"*.py","directory":"/w"}`, session.ToolGlob, map[string]any{"pattern": "*.py", "path": "/w"}},
		{"SearchWeb", `{"query":"go generics","limit":5}`, session.ToolWebSearch, map[string]any{"query": "go generics"}},
		{"SetTodoList", `{"todos":[{"title":"a","status":"done"}]}`, session.ToolTodo, map[string]any{"todos": []any{map[string]any{"content": "a", "status": "completed"}}}},
		{"TodoList", `{}`, "", nil},
		{"Task", `{"description":"d","subagent_name":"coder","prompt":"p"}`, session.ToolTask, map[string]any{"prompt": "p", "description": "d", "agent": "coder"}},
		{"AskUserQuestion", `{"questions":[]}`, "", nil},
		{"Bash", `not json`, "", nil},
	}
	for _, tt := range tests {
		tool, got, ok := ToolArgs(tt.name, json.RawMessage(tt.input))
		if tt.want == nil {
			if ok {
				t.Errorf("ToolArgs(%s, %s) = %s %v, want no universal form", tt.name, tt.input, tool, got)
			}
			continue
		}
		if !ok || tool != tt.tool || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ToolArgs(%s, %s) = %s %v %v, want %s %v", tt.name, tt.input, tool, got, ok, tt.tool, tt.want)
		}
	}
}

// TestLegacyToolCall rewrites Kimi Code calls as kimi-cli's for a legacy
// session, and leaves kimi-cli's own alone.
func TestLegacyToolCall(t *testing.T) {
	for _, tt := range []struct{ name, input, wantName, wantInput string }{
		{"Bash", `{"command":"ls","timeout":30}`, "Shell", `{"command":"ls","timeout":30}`},
		{"Read", `{"path":"/w/a","line_offset":3}`, "ReadFile", `{"line_offset":3,"path":"/w/a"}`},
		{"Write", `{"path":"/w/a","content":"x"}`, "WriteFile", `{"content":"x","path":"/w/a"}`},
		{"Edit", `{"path":"/w/a","old_string":"a","new_string":"b"}`, "StrReplaceFile", `{"edit":{"new":"b","old":"a","replace_all":false},"path":"/w/a"}`},
		{"Glob", `{"pattern":"*.go","path":"/w"}`, "Glob", `{"directory":"/w","pattern":"*.go"}`},
		{"TodoList", `{"todos":[{"title":"a","status":"done"}]}`, "SetTodoList", `{"todos":[{"status":"done","title":"a"}]}`},
		{"FetchURL", `{"url":"https://x"}`, "FetchURL", `{"url":"https://x"}`},
		{"Shell", `{"command":"ls"}`, "Shell", `{"command":"ls"}`},
		{"StrReplaceFile", `{"path":"/w/a","edit":[]}`, "StrReplaceFile", `{"path":"/w/a","edit":[]}`},
		{"Skill", `{"skill":"x"}`, "Skill", `{"skill":"x"}`},
	} {
		name, input := legacyToolCall(tt.name, json.RawMessage(tt.input))
		if name != tt.wantName || !reflect.DeepEqual(decode(t, input), decode(t, json.RawMessage(tt.wantInput))) {
			t.Errorf("legacyToolCall(%s, %s) = %s %s, want %s %s", tt.name, tt.input, name, input, tt.wantName, tt.wantInput)
		}
	}
}

// TestLegacyCallDropsNothing checks that legacyCall, like ToolCall, writes
// each argument of a universal call or refuses the call: what it writes
// reads back as the same universal call.
func TestLegacyCallDropsNothing(t *testing.T) {
	for _, c := range []struct {
		tool session.Tool
		args map[string]any
	}{
		{session.ToolBash, map[string]any{"command": "make", "timeout": 30000.0}},
		{session.ToolRead, map[string]any{"path": "/w/a", "offset": 10, "limit": json.Number("20")}},
		{session.ToolWrite, map[string]any{"path": "/w/a", "content": "x\n"}},
		{session.ToolEdit, map[string]any{"path": "/w/a", "old": "a", "new": "b", "replaceAll": true}},
		{session.ToolEdit, map[string]any{"path": "/w/a", "edits": []any{map[string]any{"old": "a", "new": "b"}, map[string]any{"old": "c", "new": "d", "replaceAll": true}}}},
		{session.ToolSearch, map[string]any{"pattern": "x", "path": "/w", "glob": "*.go"}},
		{session.ToolGlob, map[string]any{"pattern": "*.go", "path": "/w"}},
		{session.ToolWebFetch, map[string]any{"url": "https://x"}},
		{session.ToolWebFetch, map[string]any{"url": "https://x", "prompt": "summarise"}},
		{session.ToolWebSearch, map[string]any{"query": "q"}},
		{session.ToolTodo, map[string]any{"todos": []any{map[string]any{"content": "a", "status": "completed"}}}},
		{session.ToolTask, map[string]any{"prompt": "p", "description": "d", "agent": "explore"}},
		{session.ToolTask, map[string]any{"prompt": "p", "description": "d", "agent": "security-reviewer"}},
	} {
		name, in, ok := legacyCall(c.tool, c.args)
		if !ok {
			if c.tool != session.ToolWebFetch || c.args["prompt"] == nil {
				t.Errorf("legacyCall(%s, %v) refuses a call kimi-cli can make", c.tool, c.args)
			}
			continue
		}
		want := map[string]any{}
		for k, v := range c.args {
			switch n := v.(type) {
			case int:
				v = float64(n)
			case json.Number:
				v, _ = n.Float64()
			}
			want[k] = v
		}
		tool, back, ok := ToolArgs(name, in)
		if !ok || tool != c.tool || !reflect.DeepEqual(back, want) {
			t.Errorf("legacyCall(%s, %v) = %s %s, which reads back as %s %v %v", c.tool, c.args, name, in, tool, back, ok)
		}
	}
}
