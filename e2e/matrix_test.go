package e2e

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/inject"
	"github.com/stead-dev/stead/internal/clitest"
	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

const (
	typoNotes    = "the secret word is marmelade\n"
	fixedNotes   = "the secret word is marmalade\n"
	matrixFinal1 = "The file does not exist. MATRIX-FINAL-1"
	matrixFinal2 = "The file now says: the secret word is marmalade. MATRIX-FINAL-2"
	resumed      = "MATRIX-RESUMED"
	matrixPrompt = "Continue: what did we do so far? MATRIX-3"
)

// matrixScript is the conversation every source CLI records: two user
// turns, thinking, a shell call, a file read, a file edit, a tool call
// that fails, and final texts. The edit replaces a whole line, which
// Codex's line-based patches can express as well as the others' string
// replacements.
func matrixScript() *modelstub.Script {
	usage := func(i int64) *session.Usage {
		return &session.Usage{Input: 1000*i + 11, Output: 10*i + 5, CacheRead: 100 * i}
	}
	return &modelstub.Script{
		Prompts: []string{
			"Run the greeting command, read notes.txt, fix its typo, then show missing.txt.",
			"What does the file say now?",
		},
		Title: "Matrix conversation",
		Turns: []modelstub.Turn{
			{Thinking: thinks1, Text: "Running the greeting command.", Usage: usage(1),
				Tools: []modelstub.ToolUse{{Tool: session.ToolBash, Args: map[string]any{"command": "printf 'hello-from-%d\\n' 42"}}}},
			{Text: "Now reading the file.", Usage: usage(2),
				Tools: []modelstub.ToolUse{{Tool: session.ToolRead, Args: map[string]any{"path": "notes.txt"}}}},
			{Text: "Fixing the typo.", Usage: usage(3),
				Tools: []modelstub.ToolUse{{Tool: session.ToolEdit, Args: map[string]any{"path": "notes.txt", "old": strings.TrimSpace(typoNotes), "new": strings.TrimSpace(fixedNotes)}}}},
			{Text: "Showing the missing file.", Usage: usage(4),
				Tools: []modelstub.ToolUse{{Tool: session.ToolBash, Args: map[string]any{"command": "cat missing.txt"}}}},
			{Text: matrixFinal1, Usage: usage(5)},
			{Thinking: thinks4, Text: matrixFinal2, Usage: usage(6)},
		},
	}
}

// markers are what each tool call's result holds, in order: the greeting,
// the file before the fix, the edit's (CLI-specific) confirmation, the
// failing command's error.
var markers = []string{"hello-from-42", "marmelade", "", "missing.txt"}

// recordSource runs the matrix conversation through a real CLI and reads
// back the session it wrote.
func recordSource(t *testing.T, cli, dir string) *session.Session {
	t.Helper()
	script := matrixScript()
	env := clitest.New(t, cli, script, clitest.In(dir))
	notes := filepath.Join(env.Dir, "notes.txt")
	if err := os.WriteFile(notes, []byte(typoNotes), 0o644); err != nil {
		t.Fatal(err)
	}
	r1 := env.Run(script.Prompts[0], "")
	succeeded(t, r1, matrixFinal1)
	succeeded(t, env.Run(script.Prompts[1], r1.SessionID), matrixFinal2)
	if b, _ := os.ReadFile(notes); string(b) != fixedNotes {
		t.Fatalf("the edit did not run: notes.txt holds %q", b)
	}
	for _, ref := range env.Sessions() {
		if ref.ID == r1.SessionID {
			s, err := env.Adapter.Open(env.StoreEnv(), ref)
			if err != nil {
				t.Fatal(err)
			}
			usftest.ValidateSession(t, s)
			return s
		}
	}
	t.Fatalf("stead found no session %s", r1.SessionID)
	return nil
}

// TestResumeMatrix converts a session each real CLI recorded into every
// CLI stead writes, installs it, resumes it with the real target CLI and
// checks, from the stub's request log, that the target's model received
// the whole conversation: every user and assistant text in order, and
// every tool call with its result as a tool turn of the target's API (or
// as text where the loss report says so).
func TestResumeMatrix(t *testing.T) {
	root := t.TempDir()
	sources := map[string]*session.Session{}
	var names []string
	for _, c := range clis {
		names = append(names, c.name)
	}
	for _, c := range clis {
		t.Run("record/"+c.name, func(t *testing.T) {
			sources[c.name] = recordSource(t, c.name, filepath.Join(root, "source-"+c.name))
		})
	}
	cells := map[[2]string]string{}
	for _, src := range names {
		for _, dst := range clis {
			key := [2]string{src, dst.name}
			a, _ := adapters.Lookup(dst.name)
			switch {
			case sources[src] == nil:
				cells[key] = "no source"
				continue
			case !a.Writes():
				cells[key] = "not written"
				continue
			}
			// A same-CLI cell installs into the store the source
			// session lives in, beside the sessions the CLI wrote.
			var in []clitest.Option
			if src == dst.name {
				in = append(in, clitest.In(filepath.Join(root, "source-"+src)))
			}
			ok := t.Run(src+"->"+dst.name, func(t *testing.T) {
				resumeIn(t, sources[src], src, dst.name, dst.api, in...)
			})
			cells[key] = map[bool]string{true: "ok", false: "FAIL"}[ok]
		}
	}
	// The matrix, as a Markdown table: rows are sources, columns targets.
	var b strings.Builder
	b.WriteString("resume matrix (rows: source, columns: target)\n| source \\ target |")
	for _, n := range names {
		fmt.Fprintf(&b, " %s |", n)
	}
	b.WriteString("\n|---|")
	for range names {
		b.WriteString("---|")
	}
	for _, src := range names {
		fmt.Fprintf(&b, "\n| %s |", src)
		for _, dst := range names {
			fmt.Fprintf(&b, " %s |", cells[[2]string{src, dst}])
		}
	}
	t.Log(b.String())
}

// resumeIn installs s into dst's store and resumes it with the real CLI.
func resumeIn(t *testing.T, s *session.Session, src, dst string, api modelstub.API, opts ...clitest.Option) {
	env := clitest.New(t, dst, &modelstub.Script{Turns: []modelstub.Turn{{Text: "I remember. " + resumed}}}, opts...)
	sa, _ := adapters.Lookup(src)
	da, _ := adapters.Lookup(dst)
	rep, err := inject.Install(s, inject.Reader{CLI: src, ToolArgs: sa.ToolArgs}, inject.Writer{
		CLI: dst, Place: da.Place, ToolCall: da.ToolCall, Commit: da.Commit,
		NewEncoder: func(w io.Writer, tg session.Target, lost func(session.Loss)) inject.Encoder {
			return da.NewEncoder(w, tg, lost)
		},
	}, inject.Options{Env: env.StoreEnv(), Dir: env.Dir, Tool: "stead e2e"})
	if err != nil {
		t.Fatalf("convert %s -> %s: %v", src, dst, err)
	}
	for _, l := range rep.Losses {
		t.Logf("loss: %s %s %s: %s", l.What, l.How, l.Entry, l.Detail)
	}
	r := env.Run(matrixPrompt, rep.Target.ID)
	succeeded(t, r, resumed)
	if r.SessionID != "" && r.SessionID != rep.Target.ID {
		t.Errorf("%s resumed session %s, want the installed %s", dst, r.SessionID, rep.Target.ID)
	}
	reqs := env.Stub.MainRequests()
	if len(reqs) == 0 {
		t.Fatal("the stub got no request")
	}
	req := reqs[0]
	if req.API != api {
		t.Errorf("the resume came in on the %s API, want %s", req.API, api)
	}
	checkHistory(t, req, s, rep)
}

// checkHistory checks that req carried the recorded conversation.
func checkHistory(t *testing.T, req modelstub.Request, s *session.Session, rep *inject.Report) {
	t.Helper()
	asText := map[string]bool{}
	for _, l := range rep.Losses {
		if l.What == session.LostTool && l.How == session.HandledText {
			asText[l.Entry] = true
		}
	}
	script := matrixScript()
	want := []item{{"user", script.Prompts[0]}}
	k := 0
	for _, turn := range script.Turns[:5] {
		want = append(want, item{"assistant", turn.Text})
		if len(turn.Tools) == 0 {
			continue
		}
		call := nthCall(s, k)
		switch {
		case call == "":
			t.Fatalf("the recorded session has no tool call #%d", k+1)
		case asText[call]:
			want = append(want, item{"assistant", "[tool call: …" + markers[k]})
		default:
			want = append(want, item{"result", markers[k]})
		}
		k++
	}
	want = append(want, item{"user", script.Prompts[1]}, item{"assistant", matrixFinal2}, item{"user", matrixPrompt})
	got := flatten(req.Messages)
	if miss, ok := inOrder(got, want); !ok {
		t.Errorf("the resumed request lacks %v, in order; it carried:\n%s", miss, list(got))
	}
	// Every result answers a call the history holds.
	calls := map[string]bool{}
	for _, c := range req.AllToolCalls() {
		calls[c.ID] = true
	}
	results := req.ToolResults()
	if len(results) < len(markers)-len(asText) {
		t.Errorf("the request carries %d tool results, want %d", len(results), len(markers)-len(asText))
	}
	for _, r := range results {
		if r.CallID != "" && !calls[r.CallID] {
			t.Errorf("tool result %s answers no call in the history", r.CallID)
		}
	}
}

// nthCall returns the id of the k-th tool call of s's main line.
func nthCall(s *session.Session, k int) string {
	for _, e := range s.Timeline {
		if e.Type == session.ToolCall && !e.Sidechain {
			if k == 0 {
				return e.ID
			}
			k--
		}
	}
	return ""
}
