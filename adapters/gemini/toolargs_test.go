package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/stead-dev/stead/session"
)

// jsonSchema is the part of JSON Schema Gemini CLI's tool declarations
// use.
type jsonSchema struct {
	Type                 string                 `json:"type"`
	Properties           map[string]*jsonSchema `json:"properties"`
	Required             []string               `json:"required"`
	Items                *jsonSchema            `json:"items"`
	Enum                 []string               `json:"enum"`
	Minimum              *float64               `json:"minimum"`
	AdditionalProperties *bool                  `json:"additionalProperties"`
}

// declarations reads the tool declarations Gemini CLI 0.61.0 sent the
// model (descriptions left out).
func declarations(t *testing.T) map[string]*jsonSchema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "write", "declarations-0.61.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	var decls []struct {
		Name       string      `json:"name"`
		Parameters *jsonSchema `json:"parameters"`
	}
	if err := json.Unmarshal(b, &decls); err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonSchema{}
	for _, d := range decls {
		out[d.Name] = d.Parameters
	}
	return out
}

// fits reports why v does not fit s, or "".
func fits(s *jsonSchema, v any, at string) string {
	switch s.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return at + ": not an object"
		}
		for _, r := range s.Required {
			if _, ok := m[r]; !ok {
				return at + ": lacks required " + r
			}
		}
		for k, x := range m {
			p, ok := s.Properties[k]
			if !ok {
				return at + ": has " + k + ", which the schema does not declare"
			}
			if why := fits(p, x, at+"."+k); why != "" {
				return why
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return at + ": not a string"
		}
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, str) {
			return at + ": " + str + " is not one of " + reflect.ValueOf(s.Enum).String()
		}
	case "integer":
		f, ok := v.(float64)
		if !ok || f != float64(int64(f)) {
			return at + ": not an integer"
		}
		if s.Minimum != nil && f < *s.Minimum {
			return at + ": below the minimum"
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return at + ": not a boolean"
		}
	case "array":
		l, ok := v.([]any)
		if !ok {
			return at + ": not an array"
		}
		for _, x := range l {
			if why := fits(s.Items, x, at+"[]"); why != "" {
				return why
			}
		}
	}
	return ""
}

// TestToolCallRoundTrip writes each universal tool as Gemini CLI's call,
// checks it fits the schema 0.61.0 declares (as the model stub demands),
// and reads it back.
func TestToolCallRoundTrip(t *testing.T) {
	decls := declarations(t)
	todos := []any{
		map[string]any{"content": "Read the code", "status": "completed"},
		map[string]any{"content": "Fix the bug", "status": "in_progress"},
		map[string]any{"content": "Test", "status": "pending"},
	}
	cases := []struct {
		tool     session.Tool
		args     map[string]any
		name     string
		native   string
		back     map[string]any // when reading back differs from args
		backTool session.Tool
	}{
		{session.ToolBash, map[string]any{"command": "go test ./...", "description": "Run the tests"},
			"run_shell_command", `{"command":"go test ./...","description":"Run the tests"}`, nil, ""},
		{session.ToolRead, map[string]any{"path": "/p/a.go"},
			"read_file", `{"file_path":"/p/a.go"}`, nil, ""},
		{session.ToolRead, map[string]any{"path": "/p/a.go", "offset": 10.0, "limit": 5.0},
			"read_file", `{"end_line":14,"file_path":"/p/a.go","start_line":10}`, nil, ""},
		// Numbers a Go caller passes as ints are numbers.
		{session.ToolRead, map[string]any{"path": "/p/a.go", "offset": 10, "limit": json.Number("5")},
			"read_file", `{"end_line":14,"file_path":"/p/a.go","start_line":10}`, map[string]any{"path": "/p/a.go", "offset": 10.0, "limit": 5.0}, ""},
		{session.ToolRead, map[string]any{"path": "/p/a.go", "limit": 5.0},
			"read_file", `{"end_line":5,"file_path":"/p/a.go","start_line":1}`, map[string]any{"path": "/p/a.go", "offset": 1.0, "limit": 5.0}, ""},
		{session.ToolImage, map[string]any{"path": "/p/shot.png"},
			"read_file", `{"file_path":"/p/shot.png"}`, nil, session.ToolRead},
		{session.ToolWrite, map[string]any{"path": "/p/n.txt", "content": "hi\n"},
			"write_file", `{"content":"hi\n","file_path":"/p/n.txt"}`, nil, ""},
		{session.ToolWrite, map[string]any{"path": "/p/empty.txt", "content": ""},
			"write_file", `{"content":"","file_path":"/p/empty.txt"}`, nil, ""},
		{session.ToolEdit, map[string]any{"path": "/p/a.go", "old": "x := 1", "new": "x := 2"},
			"replace", `{"file_path":"/p/a.go","instruction":"Replace the given text in /p/a.go.","new_string":"x := 2","old_string":"x := 1"}`, nil, ""},
		{session.ToolEdit, map[string]any{"path": "/p/a.go", "old": "a", "new": "b", "replaceAll": true},
			"replace", `{"allow_multiple":true,"file_path":"/p/a.go","instruction":"Replace the given text in /p/a.go.","new_string":"b","old_string":"a"}`, nil, ""},
		{session.ToolEdit, map[string]any{"path": "/p/a.go", "edits": []any{map[string]any{"old": "a", "new": "b"}}},
			"replace", `{"file_path":"/p/a.go","instruction":"Replace the given text in /p/a.go.","new_string":"b","old_string":"a"}`,
			map[string]any{"path": "/p/a.go", "old": "a", "new": "b"}, ""},
		{session.ToolSearch, map[string]any{"pattern": "func main", "path": "/p", "glob": "*.go"},
			"grep_search", `{"dir_path":"/p","include_pattern":"*.go","pattern":"func main"}`, nil, ""},
		{session.ToolGlob, map[string]any{"pattern": "**/*.go", "path": "/p"},
			"glob", `{"dir_path":"/p","pattern":"**/*.go"}`, nil, ""},
		{session.ToolList, map[string]any{"path": "/p"},
			"list_directory", `{"dir_path":"/p"}`, nil, ""},
		{session.ToolWebFetch, map[string]any{"url": "https://example.com/a"},
			"web_fetch", `{"prompt":"https://example.com/a"}`, nil, ""},
		{session.ToolWebFetch, map[string]any{"url": "https://example.com/a", "prompt": "Summarise it"},
			"web_fetch", `{"prompt":"https://example.com/a\n\nSummarise it"}`, nil, ""},
		{session.ToolWebSearch, map[string]any{"query": "gemini cli"},
			"google_web_search", `{"query":"gemini cli"}`, nil, ""},
		{session.ToolTodo, map[string]any{"todos": todos},
			"write_todos", `{"todos":[{"description":"Read the code","status":"completed"},{"description":"Fix the bug","status":"in_progress"},{"description":"Test","status":"pending"}]}`, nil, ""},
		{session.ToolTask, map[string]any{"prompt": "Find the parser", "agent": "Explore", "description": "Find it"},
			"invoke_agent", `{"agent_name":"codebase_investigator","prompt":"Find the parser"}`,
			map[string]any{"prompt": "Find the parser", "agent": "codebase_investigator"}, ""},
		{session.ToolTask, map[string]any{"prompt": "Do it"},
			"invoke_agent", `{"agent_name":"generalist","prompt":"Do it"}`,
			map[string]any{"prompt": "Do it", "agent": "generalist"}, ""},
	}
	for _, c := range cases {
		name, input, ok := ToolCall(c.tool, c.args)
		if !ok || name != c.name || string(input) != c.native {
			t.Errorf("ToolCall(%s, %v) = %s %s %v, want %s %s", c.tool, c.args, name, input, ok, c.name, c.native)
			continue
		}
		var v any
		if err := json.Unmarshal(input, &v); err != nil {
			t.Fatal(err)
		}
		sch, declared := decls[name]
		if !declared {
			t.Errorf("%s is not a tool Gemini CLI 0.61.0 declares", name)
		} else if why := fits(sch, v, name); why != "" {
			t.Errorf("%s %s does not fit the declared schema: %s", name, input, why)
		}
		tool, args, ok := ToolArgs(name, input)
		wantTool, want := c.tool, c.args
		if c.backTool != "" {
			wantTool = c.backTool
		}
		if c.back != nil {
			want = c.back
		}
		if c.tool == session.ToolBash || c.tool == session.ToolTask {
			// description has no place in invoke_agent
			if c.tool == session.ToolTask {
				delete(want, "description")
			}
		}
		if !ok || tool != wantTool || !reflect.DeepEqual(args, want) {
			t.Errorf("ToolArgs(%s, %s) = %s %v %v, want %s %v", name, input, tool, args, ok, wantTool, want)
		}
	}
}

// TestToolCallCannot covers calls Gemini CLI has no tool for: they go as
// text.
func TestToolCallCannot(t *testing.T) {
	cases := []struct {
		tool session.Tool
		args map[string]any
	}{
		{session.ToolEdit, map[string]any{"patch": "*** Begin Patch\n*** Update File: a\n@@\n-a\n+b\n*** End Patch\n"}},
		{session.ToolEdit, map[string]any{"path": "/p/a", "edits": []any{map[string]any{"old": "a", "new": "b"}, map[string]any{"old": "c", "new": "d"}}}},
		{session.ToolBash, map[string]any{}},
		{session.ToolRead, map[string]any{"offset": 3.0}},
		{session.ToolWebFetch, map[string]any{"prompt": "no url"}},
		{session.ToolPlan, map[string]any{}},
		{session.ToolAsk, map[string]any{}},
		{session.ToolNotebook, map[string]any{"path": "/p/a.ipynb"}},
		{session.ToolSkill, map[string]any{}},
		{session.ToolMCP, map[string]any{}},
		{session.ToolUnknown, map[string]any{}},
	}
	for _, c := range cases {
		if name, input, ok := ToolCall(c.tool, c.args); ok {
			t.Errorf("ToolCall(%s, %v) = %s %s, want no call", c.tool, c.args, name, input)
		}
	}
}

// TestToolArgsNative reads calls as Gemini CLI recorded them, in 0.61.0
// and in older versions.
func TestToolArgsNative(t *testing.T) {
	cases := []struct {
		name, input string
		tool        session.Tool
		args        map[string]any
	}{
		{"run_shell_command", `{"command":"ls","description":"List","dir_path":"sub dir"}`, session.ToolBash,
			map[string]any{"command": "cd 'sub dir' && ls", "description": "List"}},
		{"read_file", `{"absolute_path":"/p/a.go","offset":0,"limit":20}`, session.ToolRead,
			map[string]any{"path": "/p/a.go", "offset": 1.0, "limit": 20.0}},
		{"read_file", `{"file_path":"a.go","start_line":3}`, session.ToolRead,
			map[string]any{"path": "a.go", "offset": 3.0}},
		{"read_many_files", `{"paths":["/p/a.go"]}`, session.ToolRead, map[string]any{"path": "/p/a.go"}},
		{"replace", `{"file_path":"/p/a","old_string":"a","new_string":"b","expected_replacements":3}`, session.ToolEdit,
			map[string]any{"path": "/p/a", "old": "a", "new": "b", "replaceAll": true}},
		{"search_file_content", `{"pattern":"TODO","path":"/p","include":"*.go"}`, session.ToolSearch,
			map[string]any{"pattern": "TODO", "path": "/p", "glob": "*.go"}},
		{"glob", `{"pattern":"*.md","path":"/p"}`, session.ToolGlob, map[string]any{"pattern": "*.md", "path": "/p"}},
		{"list_directory", `{"path":"/p"}`, session.ToolList, map[string]any{"path": "/p"}},
		{"web_fetch", `{"prompt":"Summarise https://example.com/x and list its links"}`, session.ToolWebFetch,
			map[string]any{"url": "https://example.com/x", "prompt": "Summarise https://example.com/x and list its links"}},
		{"write_todos", `{"todos":[{"description":"a","status":"cancelled"},{"description":"b","status":"blocked"}]}`, session.ToolTodo,
			map[string]any{"todos": []any{map[string]any{"content": "a (cancelled)", "status": "completed"}, map[string]any{"content": "b (blocked)", "status": "pending"}}}},
	}
	for _, c := range cases {
		tool, args, ok := ToolArgs(c.name, json.RawMessage(c.input))
		if !ok || tool != c.tool || !reflect.DeepEqual(args, c.args) {
			t.Errorf("ToolArgs(%s, %s) = %s %v %v, want %s %v", c.name, c.input, tool, args, ok, c.tool, c.args)
		}
	}
	for _, c := range []struct{ name, input string }{
		{"read_many_files", `{"paths":["a","b"]}`},
		{"read_many_files", `{"paths":["src/**/*.go"]}`},
		{"read_file", `{}`},
		{"run_shell_command", `{"description":"no command"}`},
		{"web_fetch", `{"prompt":"no url here"}`},
		{"enter_plan_mode", `{}`},
		{"activate_skill", `{"name":"x"}`},
		{"mcp_srv_tool", `{}`},
		{"read_file", `not json`},
	} {
		if tool, args, ok := ToolArgs(c.name, json.RawMessage(c.input)); ok {
			t.Errorf("ToolArgs(%s, %s) = %s %v, want no universal form", c.name, c.input, tool, args)
		}
	}
}

// TestToolCallFitsEveryDeclared checks the calls the model stub plays for
// Gemini CLI: every universal tool it can express, with every argument
// set, fits the declared schema.
func TestToolCallFitsEveryDeclared(t *testing.T) {
	decls := declarations(t)
	full := map[string]any{
		"command": "true", "description": "d", "timeout": 1000.0, "path": "/p/f", "offset": 2.0, "limit": 3.0,
		"content": "c", "old": "o", "new": "n", "replaceAll": true, "pattern": "p", "glob": "*.go",
		"url": "https://example.com", "prompt": "p", "query": "q", "agent": "a",
		"todos": []any{map[string]any{"content": "t", "status": "weird"}},
	}
	for _, tool := range session.Tools {
		name, input, ok := ToolCall(tool, full)
		if !ok {
			continue
		}
		var v any
		json.Unmarshal(input, &v)
		if why := fits(decls[name], v, name); decls[name] == nil || why != "" {
			t.Errorf("%s: %s %s does not fit: %s", tool, name, input, why)
		}
	}
}
