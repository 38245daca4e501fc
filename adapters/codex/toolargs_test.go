package codex

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stead-dev/stead/session"
)

// TestToolArgsWorkdir checks that a shell call's working directory is
// kept, as the command changing to it, as Gemini CLI's, Kimi's and
// OpenCode's ToolArgs keep theirs: without it the command means something
// else in the target CLI, which runs it in the project directory.
func TestToolArgsWorkdir(t *testing.T) {
	for _, c := range []struct{ name, input, want string }{
		{"exec_command", `{"cmd":"go test ./...","workdir":"/home/dev/repo/sub"}`, "cd /home/dev/repo/sub && go test ./..."},
		{"shell", `{"command":["bash","-lc","go test ./..."],"workdir":"/home/dev/repo/sub"}`, "cd /home/dev/repo/sub && go test ./..."},
		{"shell_command", `{"command":"go test ./...","workdir":"/home/dev/repo/sub"}`, "cd /home/dev/repo/sub && go test ./..."},
		{"local_shell", `{"type":"exec","command":["go","test","./..."],"working_directory":"/home/dev/repo/sub"}`, "cd /home/dev/repo/sub && go test ./..."},
		{"local_shell", `{"action":{"type":"exec","command":["make"],"working_directory":"/w"}}`, "cd /w && make"},
		// A directory with a space or a quote stays one word.
		{"exec_command", `{"cmd":"make","workdir":"/home/dev/it's a dir"}`, `cd '/home/dev/it'\''s a dir' && make`},
		{"exec_command", `{"cmd":"make"}`, "make"},
	} {
		_, a, ok := ToolArgs(c.name, json.RawMessage(c.input))
		if !ok || a[session.ArgCommand] != c.want {
			t.Errorf("ToolArgs(%s, %s) = %v %v, want command %q", c.name, c.input, a, ok, c.want)
		}
	}
}

// TestToolCallReplaceAll checks that an edit replacing every occurrence
// is not written as an apply_patch hunk, which replaces one place: the
// history would show the model a different change from the one made.
func TestToolCallReplaceAll(t *testing.T) {
	for _, a := range []map[string]any{
		{session.ArgPath: "/p/a.go", session.ArgOld: "x", session.ArgNew: "y", session.ArgReplaceAll: true},
		{session.ArgPath: "/p/a.go", session.ArgEdits: []any{map[string]any{session.ArgOld: "x", session.ArgNew: "y", session.ArgReplaceAll: true}}},
	} {
		if name, in, ok := ToolCall(session.ToolEdit, a); ok {
			t.Errorf("ToolCall(edit, %v) = %s %s, which replaces one place", a, name, in)
		}
	}
}

// TestToolRoundTrip checks that a universal call written as a Codex call
// reads back as the same universal call, for the tools Codex has (patches
// and plans); the rest are shell commands.
func TestToolRoundTrip(t *testing.T) {
	same := []struct {
		tool session.Tool
		args map[string]any
	}{
		{session.ToolWrite, map[string]any{"path": "/p/a.txt", "content": "one\ntwo\n"}},
		{session.ToolEdit, map[string]any{"path": "/p/a.go", "old": "x := 1", "new": "x := 2"}},
		{session.ToolEdit, map[string]any{"path": "/p/a.go", "old": "a\nb", "new": "a\nc"}},
		{session.ToolEdit, map[string]any{"path": "/p/a.go", "edits": []any{map[string]any{"old": "a", "new": "b"}, map[string]any{"old": "c", "new": "d"}}}},
		{session.ToolEdit, map[string]any{"patch": "*** Begin Patch\n*** Delete File: /p/b.txt\n*** End Patch\n"}},
		{session.ToolTodo, map[string]any{"todos": []any{map[string]any{"content": "a", "status": "pending"}, map[string]any{"content": "b", "status": "completed"}}}},
		{session.ToolImage, map[string]any{"path": "/p/a.png"}},
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
	shell := []struct {
		tool session.Tool
		args map[string]any
		want string
	}{
		{session.ToolBash, map[string]any{"command": "go test ./..."}, "go test ./..."},
		{session.ToolRead, map[string]any{"path": "/p/a.go"}, "cat /p/a.go"},
		{session.ToolRead, map[string]any{"path": "/p/a.go", "offset": 10.0, "limit": 20.0}, "sed -n '10,29p' /p/a.go"},
		{session.ToolRead, map[string]any{"path": "/p/a.go", "limit": 20.0}, "sed -n '1,20p' /p/a.go"},
		// Numbers a Go caller passes as ints are numbers.
		{session.ToolRead, map[string]any{"path": "/p/a.go", "offset": 10, "limit": json.Number("20")}, "sed -n '10,29p' /p/a.go"},
		{session.ToolSearch, map[string]any{"pattern": "TODO", "path": "/p", "glob": "*.go"}, "rg -n TODO -g '*.go' /p"},
		{session.ToolGlob, map[string]any{"pattern": "**/*.go", "path": "/p"}, "rg --files -g '**/*.go' /p"},
		{session.ToolList, map[string]any{"path": "/p"}, "ls -la /p"},
	}
	for _, c := range shell {
		name, in, _ := ToolCall(c.tool, c.args)
		tool, back, ok := ToolArgs(name, in)
		if want := map[string]any{"command": c.want}; !ok || tool != session.ToolBash || !reflect.DeepEqual(back, want) {
			t.Errorf("%s %v -> %s %s -> %s %v %v, want bash %v", c.tool, c.args, name, in, tool, back, ok, want)
		}
	}
	for _, tool := range []session.Tool{session.ToolWebFetch, session.ToolWebSearch, session.ToolTask} {
		if name, in, ok := ToolCall(tool, map[string]any{"url": "https://x", "query": "q", "prompt": "p"}); ok {
			t.Errorf("ToolCall(%s) = %s %s, want no call", tool, name, in)
		}
	}
}
