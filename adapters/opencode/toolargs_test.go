package opencode

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/stead-dev/stead/session"
)

// toolSchema is a tool's parameters as OpenCode 1.18.33 declares them to
// the model (testdata/tools-1.18.33.json, from a real request).
type toolSchema struct {
	Properties map[string]struct {
		Type string   `json:"type"`
		Enum []string `json:"enum"`
	} `json:"properties"`
	Required []string `json:"required"`
}

func realSchemas(t *testing.T) map[string]toolSchema {
	t.Helper()
	b, err := os.ReadFile("testdata/tools-1.18.33.json")
	if err != nil {
		t.Fatal(err)
	}
	var tools []struct {
		Name       string     `json:"name"`
		Parameters toolSchema `json:"parameters"`
	}
	if err := json.Unmarshal(b, &tools); err != nil {
		t.Fatal(err)
	}
	out := map[string]toolSchema{}
	for _, tl := range tools {
		out[tl.Name] = tl.Parameters
	}
	return out
}

// fits reports why input does not fit the schema, or "".
func fits(s toolSchema, input json.RawMessage) string {
	var args map[string]any
	if err := json.Unmarshal(input, &args); err != nil {
		return "not an object"
	}
	for _, r := range s.Required {
		if _, ok := args[r]; !ok {
			return "lacks " + r
		}
	}
	for k, v := range args {
		p, ok := s.Properties[k]
		if !ok {
			return "has " + k + ", which the schema does not"
		}
		ok = true
		switch p.Type {
		case "string":
			_, ok = v.(string)
		case "integer":
			f, isNum := v.(float64)
			ok = isNum && f == float64(int64(f))
		case "number":
			_, ok = v.(float64)
		case "boolean":
			_, ok = v.(bool)
		case "array":
			_, ok = v.([]any)
		}
		if !ok {
			return k + " is not " + p.Type
		}
	}
	return ""
}

// universalCalls are universal calls of every tool OpenCode can make, and
// the native call each becomes.
var universalCalls = []struct {
	name string
	tool session.Tool
	args map[string]any
	want string // the native tool
	in   string // its input
}{
	{"bash", session.ToolBash, map[string]any{"command": "ls -la", "description": "List", "timeout": 60000.0}, "bash", `{"command":"ls -la","timeout":60000}`},
	{"read", session.ToolRead, map[string]any{"path": "/p/a.go", "offset": 10.0, "limit": 20.0}, "read", `{"filePath":"/p/a.go","limit":20,"offset":10}`},
	{"read, ints", session.ToolRead, map[string]any{"path": "/p/a.go", "offset": json.Number("10"), "limit": 20}, "read", `{"filePath":"/p/a.go","limit":20,"offset":10}`},
	{"read whole", session.ToolRead, map[string]any{"path": "/p/a.go"}, "read", `{"filePath":"/p/a.go"}`},
	{"write", session.ToolWrite, map[string]any{"path": "/p/a.go", "content": "package a\n"}, "write", `{"content":"package a\n","filePath":"/p/a.go"}`},
	{"edit", session.ToolEdit, map[string]any{"path": "/p/a.go", "old": "a", "new": "b", "replaceAll": true}, "edit", `{"filePath":"/p/a.go","newString":"b","oldString":"a","replaceAll":true}`},
	{"one edit of a list", session.ToolEdit, map[string]any{"path": "/p/a.go", "edits": []any{map[string]any{"old": "a", "new": "b"}}}, "edit", `{"filePath":"/p/a.go","newString":"b","oldString":"a"}`},
	{"search", session.ToolSearch, map[string]any{"pattern": "func ", "path": "/p", "glob": "*.go"}, "grep", `{"include":"*.go","path":"/p","pattern":"func "}`},
	{"glob", session.ToolGlob, map[string]any{"pattern": "**/*.go", "path": "/p"}, "glob", `{"path":"/p","pattern":"**/*.go"}`},
	{"list", session.ToolList, map[string]any{"path": "/p"}, "read", `{"filePath":"/p"}`},
	{"image", session.ToolImage, map[string]any{"path": "/p/shot.png"}, "read", `{"filePath":"/p/shot.png"}`},
	{"web fetch", session.ToolWebFetch, map[string]any{"url": "https://example.com"}, "webfetch", `{"url":"https://example.com"}`},
	{"todo", session.ToolTodo, map[string]any{"todos": []any{map[string]any{"content": "a", "status": "in_progress"}, map[string]any{"content": "b", "status": "odd"}}},
		"todowrite", `{"todos":[{"content":"a","priority":"medium","status":"in_progress"},{"content":"b","priority":"medium","status":"pending"}]}`},
	{"task", session.ToolTask, map[string]any{"prompt": "Write tests", "description": "tests", "agent": "general-purpose"}, "task", `{"description":"tests","prompt":"Write tests","subagent_type":"general"}`},
	{"task without agent", session.ToolTask, map[string]any{"prompt": "Look around"}, "task", `{"description":"Subagent task","prompt":"Look around","subagent_type":"general"}`},
}

// TestToolCall checks each universal call becomes the OpenCode call it
// should, with an input that fits the schema OpenCode 1.18.33 declares.
func TestToolCall(t *testing.T) {
	schemas := realSchemas(t)
	for _, c := range universalCalls {
		t.Run(c.name, func(t *testing.T) {
			name, in, ok := ToolCall(c.tool, c.args)
			if !ok || name != c.want || string(in) != c.in {
				t.Fatalf("ToolCall = %s %s %v, want %s %s", name, in, ok, c.want, c.in)
			}
			s, declared := schemas[name]
			if !declared {
				t.Fatalf("OpenCode 1.18.33 declares no tool %s", name)
			}
			if why := fits(s, in); why != "" {
				t.Errorf("%s %s does not fit the real schema: %s", name, in, why)
			}
		})
	}
}

// TestToolCallNone checks the calls OpenCode 1.18.33 cannot make.
func TestToolCallNone(t *testing.T) {
	for name, c := range map[string]struct {
		tool session.Tool
		args map[string]any
	}{
		"web search":    {session.ToolWebSearch, map[string]any{"query": "go"}},
		"several edits": {session.ToolEdit, map[string]any{"path": "/p/a", "edits": []any{map[string]any{"old": "a", "new": "b"}, map[string]any{"old": "c", "new": "d"}}}},
		"patch":         {session.ToolEdit, map[string]any{"patch": "*** Begin Patch\n*** Delete File: a\n*** End Patch\n"}},
		"ask":           {session.ToolAsk, map[string]any{}},
		"skill":         {session.ToolSkill, map[string]any{"name": "x"}},
		"no command":    {session.ToolBash, map[string]any{}},
		"no path":       {session.ToolRead, map[string]any{}},
		"no content":    {session.ToolWrite, map[string]any{"path": "/p/a"}},
		"no url":        {session.ToolWebFetch, map[string]any{}},
		"no prompt":     {session.ToolTask, map[string]any{}},

		// webfetch returns the page; the result of a fetch with a prompt
		// is an answer to it.
		"fetch with a prompt": {session.ToolWebFetch, map[string]any{"url": "https://example.com", "prompt": "summarise"}},
	} {
		if n, in, ok := ToolCall(c.tool, c.args); ok {
			t.Errorf("%s: ToolCall = %s %s, want none", name, n, in)
		}
	}
}

// TestToolArgs reads OpenCode's calls, as its tools record them, into
// universal arguments.
func TestToolArgs(t *testing.T) {
	for _, c := range []struct {
		name, in string
		tool     session.Tool
		want     map[string]any
	}{
		{"bash", `{"command":"go test","description":"Run tests","timeout":1000}`, session.ToolBash, map[string]any{"command": "go test", "description": "Run tests", "timeout": 1000.0}},
		{"bash", `{"command":"make","workdir":"/p/sub dir"}`, session.ToolBash, map[string]any{"command": "cd '/p/sub dir' && make"}},
		{"read", `{"filePath":"/p/a","offset":3,"limit":4}`, session.ToolRead, map[string]any{"path": "/p/a", "offset": 3.0, "limit": 4.0}},
		{"write", `{"filePath":"/p/a","content":"x"}`, session.ToolWrite, map[string]any{"path": "/p/a", "content": "x"}},
		{"edit", `{"filePath":"/p/a","oldString":"x","newString":"y","replaceAll":true}`, session.ToolEdit, map[string]any{"path": "/p/a", "old": "x", "new": "y", "replaceAll": true}},
		{"multiedit", `{"filePath":"/p/a","edits":[{"filePath":"/p/a","oldString":"x","newString":"y"}]}`, session.ToolEdit,
			map[string]any{"path": "/p/a", "edits": []any{map[string]any{"old": "x", "new": "y"}}}},
		{"apply_patch", `{"patchText":"*** Begin Patch\n*** Update File: a.txt\n@@\n keep\n-old\n+new\n*** End Patch"}`, session.ToolEdit,
			map[string]any{"path": "a.txt", "old": "keep\nold", "new": "keep\nnew"}},
		{"apply_patch", `{"patchText":"*** Begin Patch\n*** Add File: b.txt\n+one\n+two\n*** End Patch"}`, session.ToolWrite,
			map[string]any{"path": "b.txt", "content": "one\ntwo\n"}},
		{"apply_patch", `{"patchText":"*** Begin Patch\n*** Delete File: b.txt\n*** End Patch"}`, session.ToolEdit,
			map[string]any{"patch": "*** Begin Patch\n*** Delete File: b.txt\n*** End Patch"}},
		{"grep", `{"pattern":"x","path":"/p","include":"*.go"}`, session.ToolSearch, map[string]any{"pattern": "x", "path": "/p", "glob": "*.go"}},
		{"glob", `{"pattern":"*.go"}`, session.ToolGlob, map[string]any{"pattern": "*.go"}},
		{"list", `{}`, session.ToolList, map[string]any{"path": "."}},
		{"webfetch", `{"url":"https://x","format":"markdown"}`, session.ToolWebFetch, map[string]any{"url": "https://x"}},
		{"websearch", `{"query":"go"}`, session.ToolWebSearch, map[string]any{"query": "go"}},
		{"todowrite", `{"todos":[{"content":"a","status":"cancelled","priority":"high"}]}`, session.ToolTodo,
			map[string]any{"todos": []any{map[string]any{"content": "a", "status": "completed"}}}},
		{"task", `{"description":"d","prompt":"p","subagent_type":"explore"}`, session.ToolTask, map[string]any{"prompt": "p", "description": "d", "agent": "explore"}},
	} {
		tool, got, ok := ToolArgs(c.name, json.RawMessage(c.in))
		if !ok || tool != c.tool || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ToolArgs(%s, %s) = %s %v %v, want %s %v", c.name, c.in, tool, got, ok, c.tool, c.want)
		}
	}
	for _, c := range []struct{ name, in string }{
		{"skill", `{"name":"x"}`}, {"question", `{"questions":[]}`}, {"todoread", `{}`}, {"plan_exit", `{}`},
		{"mcpserver_lookup", `{}`}, {"bash", `{}`}, {"read", `"raw"`},
	} {
		if tool, a, ok := ToolArgs(c.name, json.RawMessage(c.in)); ok {
			t.Errorf("ToolArgs(%s, %s) = %s %v, want none", c.name, c.in, tool, a)
		}
	}
}

// TestToolRoundTrip checks a universal call made an OpenCode call reads
// back as the same universal call, where OpenCode's schema keeps it all.
func TestToolRoundTrip(t *testing.T) {
	for _, c := range universalCalls {
		name, in, _ := ToolCall(c.tool, c.args)
		tool, back, ok := ToolArgs(name, in)
		if !ok {
			t.Errorf("%s: %s %s does not read back", c.name, name, in)
			continue
		}
		again, in2, _ := ToolCall(tool, back)
		if again != name || string(in2) != string(in) {
			t.Errorf("%s: %s %s read back as %s %v, which writes %s %s", c.name, name, in, tool, back, again, in2)
		}
	}
}
