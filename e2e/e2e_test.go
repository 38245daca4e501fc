package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/adapters/claude"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/internal/clitest"
	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

// clis are the CLIs under test and the API each speaks.
var clis = []struct {
	name string
	api  modelstub.API
}{
	{session.Claude, modelstub.Anthropic},
	{session.Codex, modelstub.Responses},
	{session.Gemini, modelstub.Gemini},
	{session.OpenCode, modelstub.Chat},
	{session.Kimi, modelstub.Chat},
}

const (
	notes   = "the secret word is marmalade\n"
	final1  = "The command printed hello-from-42. STUB-FINAL-1"
	final2  = "The file said: the secret word is marmalade. STUB-FINAL-2"
	thinks1 = "The user wants the greeting command run first."
	thinks4 = "The file was read in the first turn."
)

// conversation is the script every CLI plays: two user turns, thinking, a
// shell command that really runs (printf fills in the 42), a file read,
// and final texts. Each turn reports its own token usage.
func conversation() *modelstub.Script {
	usage := func(i int64) *session.Usage {
		return &session.Usage{Input: 1000*i + 7, Output: 10*i + 3, CacheRead: 100 * i}
	}
	return &modelstub.Script{
		Prompts: []string{"Run the greeting command, then read notes.txt.", "What did the file say?"},
		Title:   "Greeting and notes",
		Turns: []modelstub.Turn{
			{Thinking: thinks1, Text: "Running the greeting command.", Usage: usage(1),
				Tools: []modelstub.ToolUse{{Tool: session.ToolBash, Args: map[string]any{"command": "printf 'hello-from-%d\\n' 42"}}}},
			{Text: "Now reading the file.", Usage: usage(2),
				Tools: []modelstub.ToolUse{{Tool: session.ToolRead, Args: map[string]any{"path": "notes.txt"}}}},
			{Text: final1, Usage: usage(3)},
			{Thinking: thinks4, Text: final2, Usage: usage(4)},
		},
	}
}

// TestConversation runs the conversation through each real CLI: the
// first prompt in one run, the second in a run resuming the session.
func TestConversation(t *testing.T) {
	// The homes outlive the subtests, so that stead can list the sessions
	// of every CLI together at the end.
	root := t.TempDir()
	stores := map[string]session.Env{}
	ids := map[string]string{}
	for _, c := range clis {
		t.Run(c.name, func(t *testing.T) {
			script := conversation()
			env := clitest.New(t, c.name, script, clitest.In(filepath.Join(root, c.name)))
			if err := os.WriteFile(filepath.Join(env.Dir, "notes.txt"), []byte(notes), 0o644); err != nil {
				t.Fatal(err)
			}

			r1 := env.Run(script.Prompts[0], "")
			succeeded(t, r1, final1)
			if r1.SessionID == "" {
				t.Fatalf("the first run printed no session id\n%s", r1.Explain())
			}
			r2 := env.Run(script.Prompts[1], r1.SessionID)
			succeeded(t, r2, final2)
			if r2.SessionID != r1.SessionID {
				t.Errorf("the resumed run used session %q, want %q", r2.SessionID, r1.SessionID)
			}

			checkRequests(t, env.Stub, c.api, script, "marmalade")
			if env.Adapter.Reads() {
				checkSession(t, env, r1.SessionID, script)
				stores[c.name], ids[c.name] = env.StoreEnv(), r1.SessionID
			} else {
				t.Logf("stead does not read %s sessions yet: checked the CLI's output and requests only", c.name)
			}
		})
	}
	if len(ids) > 0 {
		checkListing(t, stores, ids)
	}
}

// checkListing scans the stores of every CLI at once, as `stead session
// list` does, and looks for each CLI's session.
func checkListing(t *testing.T, stores map[string]session.Env, ids map[string]string) {
	t.Helper()
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{}}
	for _, st := range stores {
		for k, v := range st.Vars {
			if k != "HOME" && k != "PATH" {
				env.Vars[k] = v
			}
		}
	}
	res, err := catalog.Scan(context.Background(), catalog.Options{Env: env, Detail: session.DetailList})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		t.Errorf("listing: %v", w)
	}
	for cli, id := range ids {
		found := false
		for _, s := range res.Summaries {
			if s.CLI == cli && s.ID == id {
				found = true
				if s.Turns != 2 || s.Messages != 6 {
					t.Errorf("listing: %s:%s has %d turns and %d messages, want 2 and 6", cli, id, s.Turns, s.Messages)
				}
			}
		}
		if !found {
			t.Errorf("listing the stores of %d CLIs together does not show %s:%s", len(ids), cli, id)
		}
	}
	t.Logf("one listing shows %d sessions of %d CLIs", len(res.Summaries), len(ids))
}

// TestFault makes the model answer the first turn with HTTP 500, every
// time: each CLI must fail, and say why.
func TestFault(t *testing.T) {
	for _, c := range clis {
		t.Run(c.name, func(t *testing.T) {
			// OpenCode retries a 500 five times whatever its config
			// says, with backoff (about a minute) unless the server says
			// when to retry.
			now := 0
			script := &modelstub.Script{Turns: []modelstub.Turn{{Fault: modelstub.Fault500, RetryAfterMs: &now}}}
			env := clitest.New(t, c.name, script)
			r := env.Run("Say hello.", "")
			if r.TimedOut || r.Code == 0 {
				t.Fatalf("the CLI did not fail on a 500\n%s", r.Explain())
			}
			if r.Failure == "" {
				t.Fatalf("the CLI failed without saying why\n%s", r.Explain())
			}
			reqs := env.Stub.MainRequests()
			if len(reqs) == 0 || reqs[0].Fault != modelstub.Fault500 || reqs[0].API != c.api {
				t.Fatalf("the stub served no 500 on the %s API: %d requests", c.api, len(reqs))
			}
			t.Logf("exit %d after %d requests: %s", r.Code, len(reqs), r.Failure)
		})
	}
}

func succeeded(t *testing.T, r clitest.Result, final string) {
	t.Helper()
	if r.Code != 0 || r.TimedOut {
		t.Fatalf("the CLI failed\n%s", r.Explain())
	}
	if !strings.Contains(r.Stdout, final) {
		t.Fatalf("the CLI did not print %q\n%s", final, r.Explain())
	}
}

// item is one element of a conversation as sent to the model.
type item struct{ kind, text string }

func (i item) String() string { return i.kind + ": " + clip(i.text) }

func flatten(msgs []modelstub.Message) []item {
	var out []item
	for _, m := range msgs {
		if m.Thinking != "" {
			out = append(out, item{"thinking", m.Thinking})
		}
		if m.Text != "" {
			out = append(out, item{m.Role, m.Text})
		}
		for _, c := range m.ToolCalls {
			out = append(out, item{"call", c.Name + " " + string(c.Args)})
		}
		for _, r := range m.ToolResults {
			out = append(out, item{"result", r.Output})
		}
	}
	return out
}

// inOrder reports the first of want not found, in order, in got: each
// want item must match an item of the same kind at or after the previous
// match (several may match one item, in order, as when a target merges
// the parts of one model response into one message).
func inOrder(got, want []item) (missing item, ok bool) {
	i, at := 0, 0 // the item and the offset in its text after the last match
	for _, w := range want {
		for ; i < len(got); i, at = i+1, 0 {
			if got[i].kind != w.kind {
				continue
			}
			if end, found := matchAt(got[i].text[at:], w.text); found {
				at += end
				break
			}
		}
		if i == len(got) {
			return w, false
		}
	}
	return item{}, true
}

// checkRequests checks the stub's request log: every turn was played on
// the CLI's API without guesses, and the last request (the second prompt)
// carried the whole conversation, tool results paired with their calls.
func checkRequests(t *testing.T, stub *modelstub.Stub, api modelstub.API, script *modelstub.Script, file string) {
	t.Helper()
	if n := stub.Played(); n != len(script.Turns) {
		t.Errorf("the CLI took %d of the script's %d turns", n, len(script.Turns))
	}
	var last *modelstub.Request
	var calls []modelstub.ToolCall
	for _, r := range stub.Requests() {
		for _, w := range r.Warnings {
			t.Errorf("request %d (turn %d): %s", r.Seq, r.Turn, w)
		}
		if r.Side {
			continue
		}
		if r.API != api {
			t.Errorf("request %d came in on the %s API, want %s", r.Seq, r.API, api)
		}
		calls = append(calls, r.Calls...)
		if r.Turn == len(script.Turns) {
			last = &r
		}
	}
	if last == nil {
		t.Fatal("no request took the last turn")
	}
	if len(calls) != 2 {
		t.Errorf("the stub answered with %d tool calls, want 2", len(calls))
	}
	want := []item{
		{"user", script.Prompts[0]},
		{"assistant", script.Turns[0].Text},
		{"result", "hello-from-42"},
		{"assistant", script.Turns[1].Text},
		{"result", file},
		{"assistant", final1},
		{"user", script.Prompts[1]},
	}
	got := flatten(last.Messages)
	if miss, ok := inOrder(got, want); !ok {
		t.Errorf("the second prompt's request lacks %v, in order; it carried:\n%s", miss, list(got))
	}
	// Each call the model made comes back with its result, by id.
	history := last.AllToolCalls()
	results := last.ToolResults()
	for _, c := range calls {
		found := false
		for _, h := range history {
			found = found || h.ID == c.ID || h.ID == "" && h.Name == c.Name
		}
		if !found {
			t.Errorf("the history lacks the call %s %s", c.ID, c.Name)
		}
		paired := false
		for _, r := range results {
			paired = paired || r.CallID == c.ID || r.CallID == "" && r.Name == c.Name
		}
		if !paired {
			t.Errorf("the history has no result for call %s %s; results: %+v", c.ID, c.Name, results)
		}
	}
}

// checkSession reads the session the CLI wrote with stead's reader and
// compares it with the script.
func checkSession(t *testing.T, env *clitest.Env, id string, script *modelstub.Script) {
	t.Helper()
	var ref *session.Ref
	refs := env.Sessions()
	for i := range refs {
		if refs[i].ID == id {
			ref = &refs[i]
		}
	}
	if ref == nil {
		t.Fatalf("stead found no session %s in the CLI's store; found %+v", id, refs)
	}
	s, err := env.Adapter.Open(env.StoreEnv(), *ref)
	if err != nil {
		t.Fatalf("reading %s: %v", ref.Path, err)
	}
	usftest.ValidateSession(t, s)
	for _, w := range s.Warnings {
		t.Errorf("reader warning: %v", w)
	}

	var got []item
	calls := map[string]session.Entry{}
	var usage session.Usage
	for _, e := range s.Timeline {
		if e.Usage != nil {
			usage.Add(*e.Usage)
		}
		switch e.Type {
		case session.User:
			if e.Kind == "" {
				got = append(got, item{"user", e.Content})
			}
		case session.Assistant:
			if e.Thinking != "" {
				got = append(got, item{"thinking", e.Thinking})
			}
			if e.Content != "" {
				got = append(got, item{"assistant", e.Content})
			}
		case session.ToolCall:
			calls[e.ID] = e
			got = append(got, item{"call", string(e.Tool)})
		case session.ToolResult:
			c, ok := calls[e.CallID]
			if !ok {
				t.Errorf("result %s pairs with no call", e.CallID)
			}
			if !e.Success || e.Status != session.StatusOK {
				t.Errorf("result of %s %s: success %v, status %q", c.Tool, e.CallID, e.Success, e.Status)
			}
			got = append(got, item{"result", "[" + string(c.Tool) + "] " + e.Output})
		}
	}
	// The file is read with the CLI's read tool, or its shell (Codex).
	var readTool session.Tool
	for _, r := range env.Stub.MainRequests() {
		if r.Turn == 2 && len(r.Calls) == 1 {
			readTool = env.Adapter.Tools[r.Calls[0].Name]
		}
	}
	want := []item{
		{"user", script.Prompts[0]},
		{"thinking", thinks1},
		{"assistant", script.Turns[0].Text},
		{"call", "bash"},
		{"result", "[bash] …hello-from-42"},
		{"assistant", script.Turns[1].Text},
		{"call", string(readTool)},
		{"result", "[" + string(readTool) + "] …marmalade"},
		{"assistant", final1},
		{"user", script.Prompts[1]},
		{"thinking", thinks4},
		{"assistant", final2},
	}
	if miss, ok := inOrder(got, want); !ok {
		t.Errorf("the session lacks %v, in order; it holds:\n%s", miss, list(got))
	}

	model := env.Stub.MainRequests()[0].Model
	if s.Model.Model != model {
		t.Errorf("session model %q, want %q (the model the CLI asked for)", s.Model.Model, model)
	}
	var want4 session.Usage
	for _, turn := range script.Turns {
		want4.Add(*turn.Usage)
	}
	if usage.Input != want4.Input || usage.Output != want4.Output || usage.CacheRead != want4.CacheRead {
		t.Errorf("session usage %+v, want the script's %+v", usage, want4)
	}
}

// matches reports whether text holds the parts of pattern, separated by
// "…", in order.
func matches(text, pattern string) bool {
	_, ok := matchAt(text, pattern)
	return ok
}

// matchAt finds the parts of pattern in text, in order, and returns where
// the match ends.
func matchAt(text, pattern string) (int, bool) {
	end := 0
	for _, part := range strings.Split(pattern, "…") {
		i := strings.Index(text[end:], part)
		if i < 0 {
			return 0, false
		}
		end += i + len(part)
	}
	return end, true
}

func list(items []item) string {
	var b strings.Builder
	for _, i := range items {
		fmt.Fprintf(&b, "  %v\n", i)
	}
	return b.String()
}

func clip(s string) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	if len(s) > 160 {
		return s[:157] + "..."
	}
	return s
}

// TestReplay records the conversation with Claude Code, reads the session
// back with stead, derives a script from it and replays that through each
// other CLI: the same prompts get the same answers, with the tool calls
// re-run for real in a new project.
func TestReplay(t *testing.T) {
	script := conversation()
	rec := clitest.New(t, session.Claude, script)
	if err := os.WriteFile(filepath.Join(rec.Dir, "notes.txt"), []byte(notes), 0o644); err != nil {
		t.Fatal(err)
	}
	r1 := rec.Run(script.Prompts[0], "")
	succeeded(t, r1, final1)
	succeeded(t, rec.Run(script.Prompts[1], r1.SessionID), final2)
	var recorded *session.Session
	for _, ref := range rec.Sessions() {
		if ref.ID == r1.SessionID {
			s, err := rec.Adapter.Open(rec.StoreEnv(), ref)
			if err != nil {
				t.Fatal(err)
			}
			recorded = s
		}
	}
	if recorded == nil {
		t.Fatalf("stead found no session %s", r1.SessionID)
	}
	replay := modelstub.FromSession(recorded)
	if len(replay.Prompts) != 2 || len(replay.Turns) != len(script.Turns) {
		t.Fatalf("derived %d prompts and %d turns, want 2 and %d", len(replay.Prompts), len(replay.Turns), len(script.Turns))
	}

	for _, c := range clis[1:] {
		t.Run(c.name, func(t *testing.T) {
			env := clitest.New(t, c.name, replay)
			// A different file: the replayed read must happen here.
			if err := os.WriteFile(filepath.Join(env.Dir, "notes.txt"), []byte("replayed notes\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r1 := env.Run(replay.Prompts[0], "")
			succeeded(t, r1, final1)
			succeeded(t, env.Run(replay.Prompts[1], r1.SessionID), final2)
			// The shell command ran again, and the read read this
			// project's file.
			checkRequests(t, env.Stub, c.api, replay, "replayed notes")
		})
	}
}

// TestClaudeLongProjectPath runs Claude Code in a project whose path is
// over 200 characters, where Claude cuts the folder name and appends a
// hash: stead must compute the same folder and find the session.
func TestClaudeLongProjectPath(t *testing.T) {
	long := strings.Repeat("a-rather-long-folder-name/", 9) + "project.with.dots"
	script := &modelstub.Script{Turns: []modelstub.Turn{{Text: "Hello from a long path. STUB-LONG"}}}
	env := clitest.New(t, session.Claude, script, clitest.Project(long))
	if len(env.Dir) <= 200 {
		t.Fatalf("project path %d characters long, want over 200", len(env.Dir))
	}
	r := env.Run("Say hello.", "")
	succeeded(t, r, "STUB-LONG")
	root := claude.Root(env.StoreEnv())
	want := claude.ProjectDir(root, env.Dir)
	entries, err := os.ReadDir(filepath.Join(root, "projects"))
	if err != nil {
		t.Fatal(err)
	}
	var made []string
	for _, e := range entries {
		made = append(made, e.Name())
	}
	if len(made) != 1 || filepath.Join(root, "projects", made[0]) != want {
		t.Fatalf("Claude Code made project folders %q; stead computes %s", made, filepath.Base(want))
	}
	found, err := env.Adapter.Locate(env.StoreEnv(), r.SessionID)
	if err != nil || filepath.Dir(found.Path) != want {
		t.Fatalf("Locate(%s) = %s, %v; want a file in %s", r.SessionID, found.Path, err, want)
	}
	t.Logf("%d-character project path, folder %s", len(env.Dir), made[0])
}
