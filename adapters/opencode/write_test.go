package opencode

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// counting is a deterministic stand-in for crypto/rand.
type counting struct{ n byte }

func (c *counting) Read(p []byte) (int, error) {
	for i := range p {
		c.n++
		p[i] = c.n
	}
	return len(p), nil
}

// deterministic makes ids and the clock repeatable for the test.
func deterministic(t *testing.T) {
	t.Helper()
	oldNow, oldRandom := now, random
	now = func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }
	random = &counting{}
	t.Cleanup(func() { now, random = oldNow, oldRandom })
}

// writtenTarget and writtenEntries are a session as the normaliser hands
// it to the encoder, converted from another CLI: thinking signed by
// Anthropic, an image, calls that succeed, fail and never finish, a call
// id the Anthropic API would refuse, usage on each model response, a
// response of another model with OpenAI's encrypted reasoning.
func writtenTarget() session.Target {
	return session.Target{CLI: session.OpenCode, ID: "ses_dfff00000000TestWrittenAAA", Dir: "/p",
		Created: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC), Model: "claude-sonnet-4-5", Provider: "anthropic",
		Title: "Typo fix", Origin: session.Origin{CLI: session.Claude, ID: "8d7c6b5a-0000-4000-8000-000000000001", Tool: "stead test"}}
}

func writtenEntries() []session.Entry {
	at := func(s int) time.Time { return time.Date(2026, 11, 21, 9, 0, s, 0, time.UTC) }
	input := func(s string) json.RawMessage { return json.RawMessage(s) }
	return []session.Entry{
		{ID: "u1", Timestamp: at(1), Type: session.User, Content: "Fix the typo in notes.txt, see the screenshot.",
			Attachments: []session.Attachment{{Type: "image", MediaType: "image/png", Name: "shot.png", Data: "iVBORw0KGgo="},
				{Type: "file", Path: "/p/only-a-path.txt"}}},
		{ID: "a1", Timestamp: at(2), Type: session.Assistant, Model: "claude-sonnet-4-5", MessageID: "m1",
			Thinking: "The file needs reading first.", Reasoning: []session.Reasoning{{Format: "anthropic", Text: "The file needs reading first.", Signature: "EqQBsig"}},
			Usage: &session.Usage{Input: 100, Output: 25, CacheRead: 1000, CacheWrite: 10, Reasoning: 5}},
		{ID: "a2", Timestamp: at(2), Type: session.Assistant, Model: "claude-sonnet-4-5", MessageID: "m1", Content: "Reading notes.txt."},
		{ID: "toolu_01", Timestamp: at(3), Type: session.ToolCall, Tool: session.ToolRead, OriginalTool: "read", MessageID: "m1",
			Model: "claude-sonnet-4-5", Input: input(`{"filePath":"/p/notes.txt"}`)},
		{ID: "r1", Timestamp: at(4), Type: session.ToolResult, CallID: "toolu_01", Success: true, Status: session.StatusOK,
			Output: "1: the secret word is marmelade"},
		{ID: "call|weird id", Timestamp: at(5), Type: session.ToolCall, Tool: session.ToolEdit, OriginalTool: "edit", MessageID: "m2",
			Model: "claude-sonnet-4-5", Input: input(`{"filePath":"/p/notes.txt","oldString":"marmelade","newString":"marmalade"}`),
			Usage: &session.Usage{Input: 200, Output: 30, CacheRead: 1100}},
		{ID: "r2", Timestamp: at(6), Type: session.ToolResult, CallID: "call|weird id", Status: session.StatusError,
			Error: "oldString not found in content"},
		{ID: "toolu_03", Timestamp: at(7), Type: session.ToolCall, Tool: session.ToolBash, OriginalTool: "bash", MessageID: "m3",
			Model: "claude-sonnet-4-5", Input: input(`{"command":"sleep 100"}`), Usage: &session.Usage{Input: 300, Output: 40}},
		{ID: "toolu_03:placeholder", Type: session.ToolResult, Kind: session.KindPlaceholder, CallID: "toolu_03",
			Status: session.StatusInterrupted, Error: "[no result was recorded]"},
		{ID: "a3", Timestamp: at(9), Type: session.Assistant, Model: "gpt-5", MessageID: "m4", Thinking: "Summarise.",
			Reasoning: []session.Reasoning{{Format: "openai", ID: "rs_1", Text: "Summarise.", Encrypted: "gAAAA"}},
			Usage:     &session.Usage{Input: 400, Output: 50, Reasoning: 10}},
		{ID: "a4", Timestamp: at(9), Type: session.Assistant, Model: "gpt-5", MessageID: "m4", Content: "The edit failed; the command was interrupted."},
		{ID: "u2", Timestamp: at(10), Type: session.User, Content: "Thanks <3 & bye"},
	}
}

// TestEncoderGolden writes the session and compares the export with
// testdata/written.json (go test -update rewrites it), then reads it back.
func TestEncoderGolden(t *testing.T) {
	deterministic(t)
	var buf bytes.Buffer
	var losses []session.Loss
	enc := NewEncoder(&buf, writtenTarget(), func(l session.Loss) { losses = append(losses, l) })
	for _, e := range writtenEntries() {
		if err := enc.Encode(&e); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/written.json"
	if *usftest.Update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("the export differs from %s (check, then go test -update):\n%s", golden, firstDiff(want, buf.Bytes()))
	}
	if !json.Valid(buf.Bytes()) {
		t.Fatal("the export is not valid JSON")
	}

	var what []string
	for _, l := range losses {
		what = append(what, l.What+"/"+l.How+"/"+l.Entry)
	}
	if got, want := strings.Join(what, " "), "attachment/dropped/u1 reasoning/dropped/a3 thinking/warned/a3"; got != want {
		t.Errorf("losses %q, want %q", got, want)
	}

	back, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	usftest.ValidateSession(t, back)
	for _, w := range back.Warnings {
		t.Errorf("reading the export: %v", w)
	}
	var got []string
	for _, e := range back.Timeline {
		s := string(e.Type) + ":" + e.Kind
		switch e.Type {
		case session.User, session.Assistant:
			s += ":" + e.Content + e.Thinking
		case session.ToolCall:
			s += ":" + e.OriginalTool + ":" + e.ID
		case session.ToolResult:
			s += ":" + string(e.Status) + ":" + e.Output + e.Error
		}
		if e.Usage != nil {
			u := *e.Usage
			s += ":" + strings.Trim(strings.ReplaceAll(jsonString(u), `"`, ""), "{}")
		}
		if e.Model != "" {
			s += ":" + e.Model
		}
		got = append(got, s)
	}
	wantTimeline := []string{
		"user::Fix the typo in notes.txt, see the screenshot.",
		"user:meta:",
		"assistant::The file needs reading first.:input:100,output:25,cacheRead:1000,cacheWrite:10,reasoning:5:claude-sonnet-4-5",
		"assistant::Reading notes.txt.:claude-sonnet-4-5",
		"tool_call::read:toolu_01:claude-sonnet-4-5",
		"tool_result::ok:1: the secret word is marmelade",
		"tool_call::edit:call_weird_id:input:200,output:30,cacheRead:1100:claude-sonnet-4-5",
		"tool_result::error:oldString not found in content",
		"tool_call::bash:toolu_03:input:300,output:40:claude-sonnet-4-5",
		"tool_result::interrupted:Tool execution aborted",
		"assistant::Summarise.:input:400,output:50,reasoning:10:gpt-5",
		"assistant::The edit failed; the command was interrupted.:gpt-5",
		"user::Thanks <3 & bye",
	}
	if strings.Join(got, "\n") != strings.Join(wantTimeline, "\n") {
		t.Errorf("read back:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantTimeline, "\n"))
	}
	if back.ID != "ses_dfff00000000TestWrittenAAA" || back.Title != "Typo fix" || back.Project.Path != "/p" {
		t.Errorf("read back session %s %q in %s", back.ID, back.Title, back.Project.Path)
	}
	if back.Model.Model != "gpt-5" {
		t.Errorf("read back model %q, want the last reply's, gpt-5", back.Model.Model)
	}
	if r := back.Timeline[2].Reasoning; len(r) != 1 || r[0].Signature != "EqQBsig" {
		t.Errorf("the signed thinking read back with reasoning %+v", r)
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestEncoderStreams checks the encoder holds at most the reply being
// written: each earlier message is out once the next one starts.
func TestEncoderStreams(t *testing.T) {
	var buf bytes.Buffer
	enc := NewEncoder(&buf, writtenTarget(), nil)
	lines := 0
	for i := 0; i < 50; i++ {
		u := session.Entry{Type: session.User, Content: "prompt"}
		a := session.Entry{Type: session.Assistant, Content: "reply", MessageID: "m"}
		if err := enc.Encode(&u); err != nil {
			t.Fatal(err)
		}
		if err := enc.Encode(&a); err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(buf.Bytes(), []byte("\n")); n < lines+1 {
			t.Fatalf("after turn %d the output has %d lines, want the prompt written", i, n)
		} else {
			lines = n
		}
	}
	enc.Close()
	if !json.Valid(buf.Bytes()) {
		t.Fatal("not valid JSON")
	}
}

// TestEncoderModel checks what a session without a known model names,
// and that the losses say so.
func TestEncoderModel(t *testing.T) {
	tg := writtenTarget()
	tg.Model, tg.Provider = "", ""
	var buf bytes.Buffer
	var losses []session.Loss
	enc := NewEncoder(&buf, tg, func(l session.Loss) { losses = append(losses, l) })
	for _, e := range []session.Entry{{Type: session.User, Content: "hi"}, {Type: session.Assistant, Content: "hello"}} {
		enc.Encode(&e)
	}
	enc.Close()
	if !bytes.Contains(buf.Bytes(), []byte(`"model":{"providerID":"unknown","modelID":"unknown"}`)) {
		t.Errorf("the user message names no placeholder model:\n%s", buf.Bytes())
	}
	if len(losses) != 1 || losses[0].How != session.HandledWarned {
		t.Errorf("losses %+v, want one warning", losses)
	}
}
