package adapters_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/session"
)

// uCall is a universal tool call.
type uCall struct {
	tool session.Tool
	args map[string]any
}

// refused stands, in the outcomes below, for a call the CLI cannot make:
// ToolCall returns false and the call is carried as text, its loss
// reported.
var refused = uCall{}

const quotedDir = "/p/it's a dir"

// fullCalls are universal calls of every universal tool, each argument it
// can carry set, the ways they reach a ToolCall: from another CLI's
// ToolArgs (numbers as float64) or from a Go caller (ints, json.Number).
var fullCalls = map[string]uCall{
	"bash":            {session.ToolBash, map[string]any{"command": "go test ./...", "description": "run tests", "timeout": 120000.0}},
	"bash, int":       {session.ToolBash, map[string]any{"command": "go test ./...", "timeout": 120000}},
	"read":            {session.ToolRead, map[string]any{"path": "/p/a.go", "offset": 10.0, "limit": 20.0}},
	"read, int":       {session.ToolRead, map[string]any{"path": "/p/a.go", "offset": 10, "limit": int64(20)}},
	"read, Number":    {session.ToolRead, map[string]any{"path": "/p/a.go", "offset": json.Number("10"), "limit": json.Number("20")}},
	"image":           {session.ToolImage, map[string]any{"path": "/p/a.png"}},
	"write":           {session.ToolWrite, map[string]any{"path": "/p/a.txt", "content": "one\ntwo\n"}},
	"write, empty":    {session.ToolWrite, map[string]any{"path": "/p/a.txt", "content": ""}},
	"edit":            {session.ToolEdit, map[string]any{"path": "/p/a.go", "old": "x := 1", "new": "x := 2"}},
	"edit, deletes":   {session.ToolEdit, map[string]any{"path": "/p/a.go", "old": "x := 1", "new": ""}},
	"edit, all":       {session.ToolEdit, map[string]any{"path": "/p/a.go", "old": "x", "new": "y", "replaceAll": true}},
	"edits, one":      {session.ToolEdit, map[string]any{"path": "/p/a.go", "edits": []any{edit("x", "y", false)}}},
	"edits, one, all": {session.ToolEdit, map[string]any{"path": "/p/a.go", "edits": []any{edit("x", "y", true)}}},
	"edits, two":      {session.ToolEdit, map[string]any{"path": "/p/a.go", "edits": []any{edit("a", "b", false), edit("c", "d", false)}}},
	"edits, two, all": {session.ToolEdit, map[string]any{"path": "/p/a.go", "edits": []any{edit("a", "b", false), edit("c", "d", true)}}},
	"patch":           {session.ToolEdit, map[string]any{"patch": "*** Begin Patch\n*** Delete File: /p/b.txt\n*** End Patch\n"}},
	"search":          {session.ToolSearch, map[string]any{"pattern": "TODO", "path": "/p", "glob": "*.go"}},
	"glob":            {session.ToolGlob, map[string]any{"pattern": "**/*.go", "path": "/p"}},
	"list":            {session.ToolList, map[string]any{"path": "/p"}},
	"list, quoted":    {session.ToolList, map[string]any{"path": quotedDir}},
	"web_fetch":       {session.ToolWebFetch, map[string]any{"url": "https://example.com/x"}},
	"web_fetch, ask":  {session.ToolWebFetch, map[string]any{"url": "https://example.com/x", "prompt": "summarise"}},
	"web_search":      {session.ToolWebSearch, map[string]any{"query": "go generics"}},
	"todo": {session.ToolTodo, map[string]any{"todos": []any{
		map[string]any{"content": "a", "status": "pending"},
		map[string]any{"content": "b", "status": "in_progress"},
		map[string]any{"content": "c", "status": "completed"},
	}}},
	"task":          {session.ToolTask, map[string]any{"prompt": "find it", "description": "look"}},
	"task, Explore": {session.ToolTask, map[string]any{"prompt": "find it", "description": "look", "agent": "Explore"}},
	"task, custom":  {session.ToolTask, map[string]any{"prompt": "find it", "description": "look", "agent": "security-reviewer"}},
}

func edit(old, nw string, all bool) map[string]any {
	e := map[string]any{"old": old, "new": nw}
	if all {
		e["replaceAll"] = true
	}
	return e
}

func bash(cmd string) uCall { return uCall{session.ToolBash, map[string]any{"command": cmd}} }

// annotations are the arguments that say nothing about what a call did
// or what its result means: a label for the user (a shell command's or a
// task's description) and a limit the result already reflects (a
// timeout). A CLI whose tool has no place for one may leave it out; any
// other argument it must carry or refuse the call.
var annotations = map[string]bool{session.ArgDescription: true, session.ArgTimeout: true}

// outcomes are, for each CLI, what its ToolCall makes of the calls whose
// round trip is not the call itself: refused, or the universal call its
// native call reads back as, with the reason it means the same. A CLI or
// a call not listed must read back unchanged.
var outcomes = map[string]map[string]uCall{
	session.Claude: {
		// Read views images; Claude Code 2.1.330 has no LS.
		"image":        {session.ToolRead, map[string]any{"path": "/p/a.png"}},
		"list":         bash("ls -la /p"),
		"list, quoted": bash("ls -la " + safetext.Quote(quotedDir)),
		// Edit takes one replacement, and nothing takes a patch.
		"edits, two": refused, "edits, two, all": refused, "patch": refused,
		// Agent requires a type: the general one.
		"task": {session.ToolTask, map[string]any{"prompt": "find it", "description": "look", "agent": "general-purpose"}},
	},
	session.Codex: {
		// Codex reads, searches and lists through its shell.
		"read":         bash("sed -n '10,29p' /p/a.go"),
		"read, int":    bash("sed -n '10,29p' /p/a.go"),
		"read, Number": bash("sed -n '10,29p' /p/a.go"),
		"search":       bash("rg -n TODO -g '*.go' /p"),
		"glob":         bash("rg --files -g '**/*.go' /p"),
		"list":         bash("ls -la /p"),
		"list, quoted": bash("ls -la " + safetext.Quote(quotedDir)),
		// A patch's hunk changes one place.
		"edit, all": refused, "edits, one, all": refused, "edits, two, all": refused,
		// No tools for these.
		"web_fetch": refused, "web_fetch, ask": refused, "web_search": refused,
		"task": refused, "task, Explore": refused, "task, custom": refused,
	},
	session.Gemini: {
		// read_file views images.
		"image": {session.ToolRead, map[string]any{"path": "/p/a.png"}},
		// replace changes one string.
		"edits, two": refused, "edits, two, all": refused, "patch": refused,
		// Gemini CLI's names for the agents.
		"task":          {session.ToolTask, map[string]any{"prompt": "find it", "agent": "generalist"}},
		"task, Explore": {session.ToolTask, map[string]any{"prompt": "find it", "agent": "codebase_investigator"}},
	},
	session.Kimi: {
		// Kimi Code lists through Bash.
		"list":         bash("ls -la /p"),
		"list, quoted": bash("ls -la " + safetext.Quote(quotedDir)),
		// Edit takes one replacement; FetchURL returns the page.
		"edits, two": refused, "edits, two, all": refused, "patch": refused,
		"web_fetch, ask": refused,
		// Kimi Code's name for the agent.
		"task, Explore": {session.ToolTask, map[string]any{"prompt": "find it", "description": "look", "agent": "explore"}},
	},
	session.OpenCode: {
		// read views images and lists directories.
		"image":        {session.ToolRead, map[string]any{"path": "/p/a.png"}},
		"list":         {session.ToolRead, map[string]any{"path": "/p"}},
		"list, quoted": {session.ToolRead, map[string]any{"path": quotedDir}},
		// edit takes one replacement (1.18.33 offers no multiedit, and
		// apply_patch only to GPT models); webfetch returns the page;
		// websearch is offered only with some providers.
		"edits, two": refused, "edits, two, all": refused, "patch": refused,
		"web_fetch, ask": refused, "web_search": refused,
		// task requires a type: OpenCode's names for the agents.
		"task":          {session.ToolTask, map[string]any{"prompt": "find it", "description": "look", "agent": "general"}},
		"task, Explore": {session.ToolTask, map[string]any{"prompt": "find it", "description": "look", "agent": "explore"}},
	},
}

// TestToolCallDropsNothing checks, for every CLI and every universal call
// in fullCalls, that ToolCall either refuses the call or writes one that
// the CLI's ToolArgs reads back as the same universal call (or as the
// call outcomes says it means): no argument is dropped silently. Only
// annotations may be missing from what is read back.
func TestToolCallDropsNothing(t *testing.T) {
	for cli := range outcomes {
		if !slices.ContainsFunc(adapters.All, func(a adapters.Adapter) bool { return a.Name == cli }) {
			t.Errorf("outcomes lists %s, which is not a CLI", cli)
		}
	}
	for _, a := range adapters.All {
		if a.ToolCall == nil || a.ToolArgs == nil {
			t.Errorf("%s: no ToolCall or ToolArgs", a.Name)
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(fullCalls)) {
			c := fullCalls[name]
			want, listed := outcomes[a.Name][name]
			if !listed {
				want = c
			}
			t.Run(a.Name+"/"+name, func(t *testing.T) {
				native, in, ok := a.ToolCall(c.tool, maps.Clone(c.args))
				if !ok {
					if want.tool != "" {
						t.Errorf("ToolCall(%s, %v) refuses a call %s can make", c.tool, c.args, a.Name)
					}
					return
				}
				if want.tool == "" {
					t.Fatalf("ToolCall(%s, %v) = %s %s, want a refusal", c.tool, c.args, native, in)
				}
				tool, back, ok := a.ToolArgs(native, in)
				if !ok {
					t.Fatalf("ToolCall(%s, %v) = %s %s, which ToolArgs does not read", c.tool, c.args, native, in)
				}
				w := canonical(want.args)
				for k := range w {
					if _, kept := back[k]; annotations[k] && !kept {
						delete(w, k) // the native tool has no place for it
					}
				}
				if got := canonical(back); tool != want.tool || !reflect.DeepEqual(got, w) {
					t.Errorf("%s %v\n\twritten %s %s\n\treads back %s %v\n\twant %s %v%s",
						c.tool, c.args, native, in, tool, got, want.tool, w, dropped(w, got))
				}
			})
		}
	}
}

// canonical returns a copy of universal arguments in one form for each
// meaning: numbers as float64, a list of one edit as that edit.
func canonical(a map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		switch n := v.(type) {
		case int:
			v = float64(n)
		case int64:
			v = float64(n)
		case json.Number:
			v, _ = n.Float64()
		}
		out[k] = v
	}
	if list, ok := out[session.ArgEdits].([]any); ok && len(list) == 1 {
		if e, ok := list[0].(map[string]any); ok {
			delete(out, session.ArgEdits)
			maps.Copy(out, e)
		}
	}
	return out
}

// dropped names the arguments of want that got lacks or changed.
func dropped(want, got map[string]any) string {
	var s string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if !reflect.DeepEqual(want[k], got[k]) {
			s += fmt.Sprintf("\n\t%s: %v, read back as %v", k, want[k], got[k])
		}
	}
	return s
}

// TestToolArgsWorkdir checks that every CLI whose shell call names a
// working directory keeps it, as the command changing to it (the
// universal shell call has none), and that a directory with a space or a
// quote stays one word.
func TestToolArgsWorkdir(t *testing.T) {
	want := `cd '/p/it'\''s a dir' && make`
	for _, c := range []struct{ cli, name, input string }{
		{session.Codex, "exec_command", `{"cmd":"make","workdir":"/p/it's a dir"}`},
		{session.Codex, "shell", `{"command":["bash","-lc","make"],"workdir":"/p/it's a dir"}`},
		{session.Codex, "shell_command", `{"command":"make","workdir":"/p/it's a dir"}`},
		{session.Codex, "local_shell", `{"type":"exec","command":["make"],"working_directory":"/p/it's a dir"}`},
		{session.Gemini, "run_shell_command", `{"command":"make","dir_path":"/p/it's a dir"}`},
		{session.Kimi, "Bash", `{"command":"make","cwd":"/p/it's a dir"}`},
		{session.OpenCode, "bash", `{"command":"make","workdir":"/p/it's a dir"}`},
	} {
		i := slices.IndexFunc(adapters.All, func(a adapters.Adapter) bool { return a.Name == c.cli })
		if i < 0 {
			t.Errorf("no CLI %s", c.cli)
			continue
		}
		tool, args, ok := adapters.All[i].ToolArgs(c.name, json.RawMessage(c.input))
		if !ok || tool != session.ToolBash || args[session.ArgCommand] != want {
			t.Errorf("%s: ToolArgs(%s, %s) = %s %v %v, want command %s", c.cli, c.name, c.input, tool, args, ok, want)
		}
	}
}
