package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

var (
	t0     = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	target = session.Target{
		CLI: session.Gemini, ID: "0b5e7a43-1111-4222-8333-444455556666", Dir: "/home/dev/proj",
		Created: t0, Model: "gemini-2.5-flash", SourceModel: "gemini-2.5-flash", Title: "Fix the typo",
		Origin: session.Origin{CLI: session.Claude, ID: "c1a0de00-0000-4000-8000-000000000001", Tool: "stead test"},
	}
)

// smallSession is what the normaliser hands an encoder for a short
// session from another CLI: every call followed by its result.
func smallSession() []session.Entry {
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	return []session.Entry{
		{ID: "u1", Timestamp: at(1), Type: session.User, Content: "Fix the typo in notes.txt",
			Attachments: []session.Attachment{{Type: "image", MediaType: "image/png", Data: "iVBORw0KGgo="}}},
		{ID: "a1", Timestamp: at(2), Type: session.Assistant, MessageID: "m1", Model: "claude-sonnet-5",
			Thinking:  "**Planning** I read the file first.\n\nThen I fix it.",
			Reasoning: []session.Reasoning{{Format: "anthropic", Text: "...", Signature: "c2ln"}},
			Usage:     &session.Usage{Input: 100, Output: 25, CacheRead: 50, Reasoning: 5}},
		{ID: "a2", Timestamp: at(2), Type: session.Assistant, MessageID: "m1", Content: "Reading the file."},
		{ID: "call1", Timestamp: at(2), Type: session.ToolCall, MessageID: "m1", Tool: session.ToolRead,
			OriginalTool: "read_file", Input: json.RawMessage(`{"file_path":"/home/dev/proj/notes.txt"}`)},
		{ID: "call1:r", Timestamp: at(3), Type: session.ToolResult, CallID: "call1", Success: true, Status: session.StatusOK,
			Output: "the secret word is marmelade\n"},
		{ID: "a3", Timestamp: at(4), Type: session.Assistant, MessageID: "m2", Content: "Fixing it, and checking.",
			Usage: &session.Usage{Input: 10, Output: 8, CacheRead: 200, CacheWrite: 7}},
		{ID: "call2", Timestamp: at(4), Type: session.ToolCall, MessageID: "m2", Tool: session.ToolEdit, OriginalTool: "replace",
			Input: json.RawMessage(`{"file_path":"/home/dev/proj/notes.txt","instruction":"Fix it.","old_string":"marmelade","new_string":"marmalade"}`)},
		{ID: "call3", Timestamp: at(4), Type: session.ToolCall, MessageID: "m2", Tool: session.ToolBash, OriginalTool: "run_shell_command",
			Input: json.RawMessage(`{"command":"cat missing.txt"}`)},
		{ID: "call2:r", Timestamp: at(5), Type: session.ToolResult, CallID: "call2", Success: true, Output: "Edited notes.txt."},
		{ID: "call3:r", Timestamp: at(5), Type: session.ToolResult, CallID: "call3", Status: session.StatusError,
			Error: "Exit code 1\ncat: missing.txt: No such file or directory"},
		{ID: "call4", Timestamp: at(6), Type: session.ToolCall, MessageID: "m3", Tool: session.ToolBash, OriginalTool: "run_shell_command",
			Input: json.RawMessage(`{"command":"sleep 100"}`)},
		{ID: "call4:placeholder", Type: session.ToolResult, Kind: session.KindPlaceholder, CallID: "call4",
			Status: session.StatusInterrupted, Error: "[no result]"},
		{ID: "u2", Timestamp: at(7), Type: session.User, Content: "/etc/hosts: is that file involved?"},
		{ID: "a4", Timestamp: at(8), Type: session.Assistant, MessageID: "m4", Content: "No, only notes.txt."},
	}
}

// encode writes entries with a fixed clock and ids.
func encode(t *testing.T, tg session.Target, entries []session.Entry) ([]byte, []session.Loss) {
	t.Helper()
	var buf bytes.Buffer
	var losses []session.Loss
	enc := NewEncoder(&buf, tg, func(l session.Loss) { losses = append(losses, l) })
	enc.now = func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }
	n := 0
	enc.newID = func() string { n++; return fmt.Sprintf("msg-%02d", n) }
	for i := range entries {
		if err := enc.Encode(&entries[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), losses
}

// TestEncodeGolden writes a small session and compares it with the golden
// file, then checks what Gemini CLI needs of every line and reads it back.
func TestEncodeGolden(t *testing.T) {
	out, losses := encode(t, target, smallSession())
	usftest.Golden(t, filepath.Join("testdata", "write", "small.jsonl"), out)
	checkLoadable(t, out)

	var what []string
	for _, l := range losses {
		what = append(what, l.What+"/"+l.How+"/"+l.Entry)
	}
	want := "reasoning/dropped/a1 entry/changed/u2 usage/changed/"
	if got := strings.Join(what, " "); got != want {
		t.Errorf("losses %s, want %s", got, want)
	}

	s, err := Read(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) > 0 {
		t.Errorf("reading back: %v", s.Warnings)
	}
	if s.ID != target.ID || s.Title != target.Title {
		t.Errorf("read back id %q title %q", s.ID, s.Title)
	}
	var got []string
	for _, e := range s.Timeline {
		line := string(e.Type)
		switch e.Type {
		case session.User, session.Assistant:
			line += " " + e.Content
			if e.Thinking != "" {
				line += " thinking=" + e.Thinking
			}
		case session.ToolCall:
			line += " " + e.OriginalTool
		case session.ToolResult:
			line += fmt.Sprintf(" %s %s%s", e.Status, e.Output, e.Error)
		}
		if e.Usage != nil {
			line += fmt.Sprintf(" usage=%+v", *e.Usage)
		}
		if len(e.Attachments) > 0 {
			line += fmt.Sprintf(" atts=%d", len(e.Attachments))
		}
		got = append(got, line)
	}
	wantLines := []string{
		"user Fix the typo in notes.txt atts=1",
		"assistant Reading the file. thinking=**Planning** I read the file first.\n\nThen I fix it. usage={Input:100 Output:25 CacheRead:50 CacheWrite:0 Reasoning:5}",
		"tool_call read_file",
		"tool_result ok the secret word is marmelade\n",
		"assistant Fixing it, and checking. usage={Input:17 Output:8 CacheRead:200 CacheWrite:0 Reasoning:0}",
		"tool_call replace",
		"tool_result ok Edited notes.txt.",
		"tool_call run_shell_command",
		"tool_result error Exit code 1\ncat: missing.txt: No such file or directory",
		"tool_call run_shell_command",
		"tool_result interrupted " + cancelled,
		"user \u200b/etc/hosts: is that file involved?",
		"assistant No, only notes.txt.",
	}
	if strings.Join(got, "\n|") != strings.Join(wantLines, "\n|") {
		t.Errorf("read back:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
	}
}

// checkLoadable checks what Gemini CLI 0.61.0 needs to list and resume a
// file (gemini.md §5.3): a first line with a non-empty sessionId and
// projectHash, an id on every message, a result and status on every tool
// call, and tool results only inside toolCalls, never repeated as a user
// functionResponse message (which a resume would send twice).
func checkLoadable(t *testing.T, out []byte) {
	t.Helper()
	lines := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
	var m struct {
		SessionID   string `json:"sessionId"`
		ProjectHash string `json:"projectHash"`
	}
	if err := json.Unmarshal(lines[0], &m); err != nil || m.SessionID == "" || m.ProjectHash == "" {
		t.Fatalf("first line %s: want sessionId and projectHash (%v)", lines[0], err)
	}
	if len(lines[0]) >= 4096 {
		t.Errorf("the metadata line is %d bytes: the CLI's cleanup reads a session id from the first 4 KiB", len(lines[0]))
	}
	ids := map[string]bool{}
	for i, l := range lines[1:] {
		var msg struct {
			ID        *string         `json:"id"`
			Type      string          `json:"type"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID     string          `json:"id"`
				Result json.RawMessage `json:"result"`
				Status string          `json:"status"`
			} `json:"toolCalls"`
		}
		if err := json.Unmarshal(l, &msg); err != nil {
			t.Fatalf("line %d: %v", i+2, err)
		}
		if msg.ID == nil || *msg.ID == "" || ids[*msg.ID] {
			t.Errorf("line %d has no id of its own: %s", i+2, l)
		} else {
			ids[*msg.ID] = true
		}
		if msg.Type == "user" && bytes.Contains(msg.Content, []byte("functionResponse")) {
			t.Errorf("line %d repeats a tool result as a user message: %s", i+2, l)
		}
		for _, c := range msg.ToolCalls {
			if c.ID == "" || !hasResult(c.Result) || c.Status == "" {
				t.Errorf("line %d: call %q lacks an id, a result or a status", i+2, c.ID)
			}
		}
	}
}

// TestEncodeParallelNative keeps a Gemini CLI message's parallel calls in
// one message when it is written back to Gemini CLI, and starts a new one
// for a call another CLI's model made after a result.
func TestEncodeParallelNative(t *testing.T) {
	call := func(id string, native bool) session.Entry {
		e := session.Entry{ID: id, Type: session.ToolCall, MessageID: "g1", OriginalTool: "read_file", Input: json.RawMessage(`{"file_path":"a"}`)}
		if native {
			e.Native = &session.Native{Line: 3, Part: 1}
		}
		return e
	}
	res := func(id string) session.Entry {
		return session.Entry{ID: id + ":r", Type: session.ToolResult, CallID: id, Success: true, Output: "x"}
	}
	for _, native := range []bool{true, false} {
		entries := []session.Entry{{ID: "u", Type: session.User, Content: "go"}, call("c1", native), res("c1"), call("c2", native), res("c2")}
		out, _ := encode(t, target, entries)
		checkLoadable(t, out)
		want := 2
		if native {
			want = 1
		}
		if n := bytes.Count(out, []byte(`"type":"gemini"`)); n != want {
			t.Errorf("native=%v: %d gemini messages, want %d:\n%s", native, n, want, out)
		}
	}
}

// TestEncodeShellExitCode writes a failed shell command of Gemini CLI as
// the CLI does (a success whose output ends with the exit code), and
// another CLI's failure as an error.
func TestEncodeShellExitCode(t *testing.T) {
	gem := "Output: x\nExit Code: 2\nProcess Group PGID: 7"
	entries := []session.Entry{
		{ID: "u", Type: session.User, Content: "go"},
		{ID: "c1", Type: session.ToolCall, MessageID: "g1", OriginalTool: "run_shell_command", Input: json.RawMessage(`{"command":"false"}`)},
		{ID: "c1:r", Type: session.ToolResult, CallID: "c1", Status: session.StatusError, Error: gem},
		{ID: "c2", Type: session.ToolCall, MessageID: "g2", OriginalTool: "run_shell_command", Input: json.RawMessage(`{"command":"false"}`)},
		{ID: "c2:r", Type: session.ToolResult, CallID: "c2", Status: session.StatusDenied, Error: "The user refused."},
	}
	out, _ := encode(t, target, entries)
	for _, want := range []string{
		`"response":{"output":"Output: x\nExit Code: 2\nProcess Group PGID: 7"}}}],"status":"success"`,
		`"response":{"error":"The user refused."}}}],"status":"cancelled"`,
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	s, err := Read(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range s.Timeline {
		if e.ID == "c1:result" && e.Status != session.StatusError {
			t.Errorf("the failed command reads back as %s", e.Status)
		}
	}
}

// TestEncodeSizeWarning warns when Gemini CLI will compress the history
// on its first request.
func TestEncodeSizeWarning(t *testing.T) {
	big := strings.Repeat("word ", (compressAt*charsPerToken)/5+10)
	_, losses := encode(t, target, []session.Entry{{ID: "u", Type: session.User, Content: big}})
	if len(losses) != 1 || losses[0].What != session.LostSize || losses[0].How != session.HandledWarned {
		t.Errorf("losses %+v, want one size warning", losses)
	}
	_, losses = encode(t, target, []session.Entry{{ID: "u", Type: session.User, Content: "small"}})
	if len(losses) != 0 {
		t.Errorf("losses %+v for a small session", losses)
	}
}

// TestThoughts splits thinking into thoughts that read back as the same
// text.
func TestThoughts(t *testing.T) {
	for _, s := range []string{
		"plain thinking",
		"**Subject** description",
		"**Subject**",
		"**A** one\n\n**B** two\n\nmore of two",
		"first\n\n**B** two",
		"**not a subject**\nnext line",
		"**a*b** c",
		"**S** ",
	} {
		var parts []string
		for _, th := range thoughts(s) {
			if txt := (thought{Subject: th.Subject, Description: th.Description}).text(); txt != "" {
				parts = append(parts, txt)
			}
		}
		if got := strings.Join(parts, "\n\n"); got != s {
			t.Errorf("thoughts(%q) read back as %q", s, got)
		}
	}
	if th := thoughts("**Planning** the work"); len(th) != 1 || th[0].Subject != "Planning" || th[0].Description != "the work" {
		t.Errorf("thoughts: %+v", th)
	}
}
