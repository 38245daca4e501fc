package claude

import (
	"reflect"
	"testing"

	"github.com/stead-dev/stead/session"
)

// TestToolRoundTrip checks that a universal call written as a Claude Code
// call reads back as the same universal call, for every universal tool
// whose arguments Claude Code's tools keep whole; and what the others
// become.
func TestToolRoundTrip(t *testing.T) {
	same := []struct {
		tool session.Tool
		args map[string]any
	}{
		{session.ToolBash, map[string]any{"command": "go test ./...", "description": "run tests", "timeout": 120000.0}},
		{session.ToolRead, map[string]any{"path": "/p/a.go", "offset": 10.0, "limit": 20.0}},
		{session.ToolWrite, map[string]any{"path": "/p/a.txt", "content": "one\ntwo\n"}},
		{session.ToolEdit, map[string]any{"path": "/p/a.go", "old": "x := 1", "new": "x := 2"}},
		{session.ToolEdit, map[string]any{"path": "/p/a.go", "old": "x", "new": "y", "replaceAll": true}},
		{session.ToolSearch, map[string]any{"pattern": "TODO", "path": "/p", "glob": "*.go"}},
		{session.ToolGlob, map[string]any{"pattern": "**/*.go", "path": "/p"}},
		{session.ToolWebFetch, map[string]any{"url": "https://example.com/x", "prompt": "summarise"}},
		{session.ToolWebSearch, map[string]any{"query": "go generics"}},
		{session.ToolTodo, map[string]any{"todos": []any{map[string]any{"content": "a", "status": "pending"}, map[string]any{"content": "b", "status": "completed"}}}},
		{session.ToolTask, map[string]any{"prompt": "find it", "description": "look", "agent": "Explore"}},
	}
	for _, c := range same {
		name, in, ok := ToolCall(c.tool, c.args)
		if !ok {
			t.Errorf("ToolCall(%s, %v): no call", c.tool, c.args)
			continue
		}
		tool, back, ok := ToolArgs(name, in)
		if !ok || tool != c.tool || !reflect.DeepEqual(back, c.args) {
			t.Errorf("%s %v -> %s %s -> %s %v %v", c.tool, c.args, name, in, tool, back, ok)
		}
	}
	changed := []struct {
		tool     session.Tool
		args     map[string]any
		wantTool session.Tool
		want     map[string]any
	}{
		// Claude Code 2.1.330 has no LS: a listing is a shell call.
		{session.ToolList, map[string]any{"path": "/p"}, session.ToolBash, map[string]any{"command": "ls -la /p"}},
		// Read views images.
		{session.ToolImage, map[string]any{"path": "/p/a.png"}, session.ToolRead, map[string]any{"path": "/p/a.png"}},
		// Edit takes one replacement, and a list of one is one.
		{session.ToolEdit, map[string]any{"path": "/p/a.go", "edits": []any{map[string]any{"old": "x", "new": "y", "replaceAll": true}}},
			session.ToolEdit, map[string]any{"path": "/p/a.go", "old": "x", "new": "y", "replaceAll": true}},
		// Agent requires a description and a type.
		{session.ToolTask, map[string]any{"prompt": "p"}, session.ToolTask, map[string]any{"prompt": "p", "description": "Subagent task", "agent": "general-purpose"}},
	}
	for _, c := range changed {
		name, in, _ := ToolCall(c.tool, c.args)
		tool, back, ok := ToolArgs(name, in)
		if !ok || tool != c.wantTool || !reflect.DeepEqual(back, c.want) {
			t.Errorf("%s %v -> %s %s -> %s %v %v, want %s %v", c.tool, c.args, name, in, tool, back, ok, c.wantTool, c.want)
		}
	}
}
