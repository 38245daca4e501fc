package adapters_test

import (
	"encoding/json"
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/adapters/claude"
	"github.com/stead-dev/stead/adapters/opencode"
	"github.com/stead-dev/stead/session"
)

// TestToolCallOneEditOfAList checks that a list of one edit (OpenCode's
// multiedit, or Claude Code's MultiEdit, with a single replacement) is
// written as a call by every CLI, as the same edit given as old and new
// is: a list of one is not "several edits".
func TestToolCallOneEditOfAList(t *testing.T) {
	for _, c := range []struct {
		read        func(string, json.RawMessage) (session.Tool, map[string]any, bool)
		name, input string
	}{
		{opencode.ToolArgs, "multiedit", `{"filePath":"/p/a.go","edits":[{"oldString":"x","newString":"y"}]}`},
		{claude.ToolArgs, "MultiEdit", `{"file_path":"/p/a.go","edits":[{"old_string":"x","new_string":"y"}]}`},
	} {
		tool, args, ok := c.read(c.name, json.RawMessage(c.input))
		if !ok {
			t.Fatalf("%s %s does not read", c.name, c.input)
		}
		for _, a := range adapters.All {
			if _, _, ok := a.ToolCall(tool, args); !ok {
				t.Errorf("%s: %s %s (universal %v) is carried as text", a.Name, c.name, c.input, args)
			}
		}
	}
}
