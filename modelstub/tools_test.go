package modelstub_test

import (
	"strings"
	"testing"

	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

// A Responses request declaring Codex's older tools: a shell taking argv
// and the freeform apply_patch.
const codexLegacyBody = `{"model":"fake-model","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}],
"tools":[{"type":"function","name":"shell","parameters":{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}},"workdir":{"type":"string"}},"required":["command"]}},
{"type":"custom","name":"apply_patch","description":"Use the apply_patch tool to edit files.","format":{"type":"grammar","syntax":"lark","definition":"start: begin_patch hunk+ end_patch"}}]}`

// TestToolMapping plays one scripted tool use against a captured request
// and checks the call the CLI gets.
func TestToolMapping(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string // a testdata body, or
		body    string // a literal one
		path    string
		read    func(*testing.T, []byte) answer
		names   func(session.Tool) []string
		dir     string
		use     modelstub.ToolUse
		want    call
		custom  string // for a freeform call, the input
		warning string // a substring of the warning the request must carry
	}{
		{
			name: "claude without ToolNames matches case-insensitively", file: "anthropic_main.json", path: anthropicPath,
			read: readAnthropicStream, dir: workDir,
			use:  modelstub.ToolUse{Tool: session.ToolRead, Args: map[string]any{"path": "x.txt"}},
			want: call{"Read", map[string]any{"file_path": workDir + "/x.txt"}},
		},
		{
			name: "claude edit", file: "anthropic_main.json", path: anthropicPath, read: readAnthropicStream,
			names: toolNames, dir: workDir,
			use:  modelstub.ToolUse{Tool: session.ToolEdit, Args: map[string]any{"path": "a.go", "old": "x", "new": "y"}},
			want: call{"Edit", map[string]any{"file_path": workDir + "/a.go", "old_string": "x", "new_string": "y"}},
		},
		{
			name: "opencode edit", file: "chat_opencode_main.json", path: chatPath, read: readChatStream,
			names: toolNames, dir: workDir,
			use:  modelstub.ToolUse{Tool: session.ToolEdit, Args: map[string]any{"path": "a.go", "old": "x", "new": "y"}},
			want: call{"edit", map[string]any{"filePath": workDir + "/a.go", "oldString": "x", "newString": "y"}},
		},
		{
			name: "gemini write", file: "gemini_main.json", path: geminiStream, read: readGeminiStream,
			names: toolNames, dir: workDir,
			use:  modelstub.ToolUse{Tool: session.ToolWrite, Args: map[string]any{"path": "n.txt", "content": "hi\n"}},
			want: call{"write_file", map[string]any{"file_path": workDir + "/n.txt", "content": "hi\n"}},
		},
		{
			name: "gemini list of the work dir", file: "gemini_main.json", path: geminiStream, read: readGeminiStream,
			names: toolNames, dir: workDir,
			use:  modelstub.ToolUse{Tool: session.ToolList, Args: map[string]any{"path": "."}},
			want: call{"list_directory", map[string]any{"dir_path": workDir}},
		},
		{
			// replace requires an instruction the script does not give:
			// the stub fills required strings so the CLI accepts the call.
			name: "required strings are filled", file: "gemini_main.json", path: geminiStream, read: readGeminiStream,
			names: toolNames, dir: workDir,
			use: modelstub.ToolUse{Tool: session.ToolEdit, Args: map[string]any{"path": "a.go", "old": "x", "new": "y"}},
			want: call{"replace", map[string]any{"file_path": workDir + "/a.go", "old_string": "x", "new_string": "y",
				"instruction": "stub instruction"}},
		},
		{
			name: "native arguments the schema lists are kept", file: "anthropic_main.json", path: anthropicPath, read: readAnthropicStream,
			names: toolNames,
			use:   modelstub.ToolUse{Tool: session.ToolBash, Args: map[string]any{"command": "ls", "timeout": 5000}},
			want:  call{"Bash", map[string]any{"command": "ls", "timeout": 5000}},
		},
		{
			// Claude's schemas say additionalProperties: false.
			name: "a closed schema drops unknown arguments", file: "anthropic_main.json", path: anthropicPath, read: readAnthropicStream,
			names: toolNames,
			use:   modelstub.ToolUse{Tool: session.ToolBash, Args: map[string]any{"command": "ls", "verbose": true}},
			want:  call{"Bash", map[string]any{"command": "ls"}},
		},
		{
			name: "an open schema keeps unknown arguments", file: "chat_opencode_main.json", path: chatPath, read: readChatStream,
			names: toolNames,
			use:   modelstub.ToolUse{Tool: session.ToolBash, Args: map[string]any{"command": "ls", "verbose": true}},
			want:  call{"bash", map[string]any{"command": "ls", "verbose": true}},
		},
		{
			// A Claude Bash call replayed in Codex: the command is renamed
			// and the description, which exec_command does not take,
			// dropped.
			name: "a Claude call replayed in Codex", file: "responses_main.json", path: responsesPath, read: readResponsesStream,
			names: toolNames,
			use:   modelstub.ToolUse{Tool: session.ToolBash, Name: "Bash", Args: map[string]any{"command": "ls", "description": "List files"}},
			want:  call{"exec_command", map[string]any{"cmd": "ls"}},
		},
		{
			name: "absolute paths are kept", file: "anthropic_main.json", path: anthropicPath, read: readAnthropicStream,
			names: toolNames, dir: workDir,
			use:  modelstub.ToolUse{Tool: session.ToolRead, Args: map[string]any{"path": "/etc/hosts"}},
			want: call{"Read", map[string]any{"file_path": "/etc/hosts"}},
		},
		{
			name: "relative paths stay relative without Dir", file: "anthropic_main.json", path: anthropicPath, read: readAnthropicStream,
			names: toolNames,
			use:   modelstub.ToolUse{Tool: session.ToolRead, Args: map[string]any{"path": "x.txt"}},
			want:  call{"Read", map[string]any{"file_path": "x.txt"}},
		},
		{
			// A native name the CLI declares is called with the arguments
			// as written, since they are already the tool's own; relative
			// paths are still made absolute.
			name: "a declared native name is called as is", file: "anthropic_main.json", path: anthropicPath,
			read: readAnthropicStream, names: toolNames, dir: workDir,
			use: modelstub.ToolUse{Tool: session.ToolEdit, Name: "Edit",
				Args: map[string]any{"file_path": "rel.go", "old_string": "a", "new_string": "b", "replace_all": true}},
			want: call{"Edit", map[string]any{"file_path": workDir + "/rel.go", "old_string": "a", "new_string": "b", "replace_all": true}},
		},
		{
			// Without the native name, the same native arguments are
			// mapped onto the declared schema.
			name: "native path names map across CLIs", file: "chat_opencode_main.json", path: chatPath,
			read: readChatStream, names: toolNames, dir: workDir,
			use:  modelstub.ToolUse{Tool: session.ToolRead, Name: "read_file", Args: map[string]any{"file_path": "x.txt"}},
			want: call{"read", map[string]any{"filePath": workDir + "/x.txt"}},
		},
		{
			name: "an undeclared native name falls back to the universal tool", file: "chat_opencode_main.json", path: chatPath,
			read: readChatStream, names: toolNames,
			use:  modelstub.ToolUse{Tool: session.ToolBash, Name: "Bash", Args: map[string]any{"command": "ls"}},
			want: call{"bash", map[string]any{"command": "ls"}},
		},
		{
			name: "a tool nobody declared is called as is, with a warning", file: "anthropic_main.json", path: anthropicPath,
			read: readAnthropicStream, names: toolNames,
			use:     modelstub.ToolUse{Tool: session.ToolWebFetch, Args: map[string]any{"url": "https://example.com"}},
			want:    call{"web_fetch", map[string]any{"url": "https://example.com"}},
			warning: `no declared tool for "web_fetch" (declared: Agent, Bash, Edit, Read, Write)`,
		},
		{
			name: "a shell taking argv", body: codexLegacyBody, path: responsesPath, read: readResponsesStream,
			names: toolNames,
			use:   modelstub.ToolUse{Tool: session.ToolBash, Args: map[string]any{"command": "ls -l"}},
			want:  call{"shell", map[string]any{"command": []any{"bash", "-lc", "ls -l"}}},
		},
		{
			name: "a freeform tool gets text input", body: codexLegacyBody, path: responsesPath, read: readResponsesStream,
			names:  toolNames,
			use:    modelstub.ToolUse{Name: "apply_patch", Args: map[string]any{"input": "*** Begin Patch\n*** End Patch\n"}},
			want:   call{name: "apply_patch"},
			custom: "*** Begin Patch\n*** End Patch\n",
		},
		{
			name: "kimi bash", file: "chat_kimi_main.json", path: chatPath, read: readChatStream, names: toolNames,
			use:  modelstub.ToolUse{Tool: session.ToolBash, Args: map[string]any{"command": "ls"}},
			want: call{"Bash", map[string]any{"command": "ls"}},
		},
		{
			// Options.ToolNames: "Nil falls back to the universal name and
			// to declared names that contain it."
			name: "gemini without ToolNames finds read_file", file: "gemini_main.json", path: geminiStream,
			read: readGeminiStream, dir: workDir,
			use:  modelstub.ToolUse{Tool: session.ToolRead, Args: map[string]any{"path": "x.txt"}},
			want: call{"read_file", map[string]any{"file_path": workDir + "/x.txt"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, modelstub.Options{Script: script(modelstub.Turn{Tools: []modelstub.ToolUse{tt.use}}),
				ToolNames: tt.names, Dir: tt.dir})
			body := []byte(tt.body)
			if tt.file != "" {
				body = load(t, tt.file)
			}
			a := tt.read(t, postOK(t, s, tt.path, body).body)
			if len(a.calls) != 1 {
				t.Fatalf("calls = %+v, want one", a.calls)
			}
			got := a.calls[0]
			if got.name != tt.want.name {
				t.Errorf("called %q, want %q", got.name, tt.want.name)
			}
			if tt.custom != "" {
				if !got.custom || got.input != tt.custom {
					t.Errorf("call = %+v, want a freeform call with input %q", got, tt.custom)
				}
			} else {
				sameArgs(t, got.name, got.args, tt.want.args)
			}
			warnings := last(t, s).Warnings
			switch {
			case tt.warning == "" && len(warnings) > 0:
				t.Errorf("warnings %q, want none", warnings)
			case tt.warning != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], tt.warning)):
				t.Errorf("warnings %q, want one containing %q", warnings, tt.warning)
			}
		})
	}
}
