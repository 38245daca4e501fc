package kimi

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// hugeCode returns a Kimi Code journal whose tool result line is n bytes
// long.
func hugeCode(n int) []byte {
	out := strings.Repeat("x", n)
	var b bytes.Buffer
	b.WriteString(`{"type":"metadata","protocol_version":"1.5","created_at":1795290344152}` + "\n")
	b.WriteString(`{"type":"context.append_message","agentId":"main","message":{"role":"user","content":[{"type":"text","text":"cat the big file"}],"toolCalls":[],"origin":{"kind":"user"}},"time":1795290344200}` + "\n")
	b.WriteString(`{"type":"context.append_loop_event","agentId":"main","event":{"type":"step.begin","uuid":"s1","turnId":"0","step":1},"time":1795290344300}` + "\n")
	b.WriteString(`{"type":"llm.request","agentId":"main","kind":"loop","provider":"openai","model":"kimi-k2","time":1795290344301}` + "\n")
	b.WriteString(`{"type":"context.append_loop_event","agentId":"main","event":{"type":"tool.call","uuid":"c1","turnId":"0","step":1,"stepUuid":"s1","toolCallId":"Bash:0","name":"Bash","args":{"command":"cat big"}},"time":1795290344400}` + "\n")
	b.WriteString(`{"type":"context.append_loop_event","agentId":"main","event":{"type":"tool.result","parentUuid":"c1","toolCallId":"Bash:0","result":{"output":"` + out + `"}},"time":1795290344500}` + "\n")
	b.WriteString(`{"type":"context.append_loop_event","agentId":"main","event":{"type":"step.end","uuid":"s1","turnId":"0","step":1,"finishReason":"tool_use","usage":{"inputOther":7,"output":3,"inputCacheRead":0,"inputCacheCreation":0}},"time":1795290344600}` + "\n")
	b.WriteString(`{"type":"context.append_loop_event","agentId":"main","event":{"type":"step.begin","uuid":"s2","turnId":"0","step":2},"time":1795290344700}` + "\n")
	b.WriteString(`{"type":"context.append_loop_event","agentId":"main","event":{"type":"content.part","uuid":"p1","turnId":"0","step":2,"stepUuid":"s2","part":{"type":"text","text":"done"}},"time":1795290344800}` + "\n")
	b.WriteString(`{"type":"context.append_loop_event","agentId":"main","event":{"type":"step.end","uuid":"s2","turnId":"0","step":2,"finishReason":"end_turn","usage":{"inputOther":11,"output":5,"inputCacheRead":0,"inputCacheCreation":0}},"time":1795290344900}` + "\n")
	return b.Bytes()
}

// hugeLegacy returns a legacy wire file whose tool result line is n bytes
// long.
func hugeLegacy(n int) []byte {
	out := strings.Repeat("y", n)
	var b bytes.Buffer
	b.WriteString(wireHead + turnBegin)
	b.WriteString(`{"timestamp": 1784542500.1, "message": {"type": "StepBegin", "payload": {"n": 1}}}` + "\n")
	b.WriteString(`{"timestamp": 1784542500.2, "message": {"type": "ToolCall", "payload": {"type": "function", "id": "Shell:0", "function": {"name": "Shell", "arguments": "{\"command\": \"cat big\"}"}, "extras": null}}}` + "\n")
	b.WriteString(`{"timestamp": 1784542500.3, "message": {"type": "StatusUpdate", "payload": {"token_usage": {"input_other": 7, "output": 3, "input_cache_read": 0, "input_cache_creation": 0}, "message_id": null}}}` + "\n")
	b.WriteString(`{"timestamp": 1784542500.4, "message": {"type": "ToolResult", "payload": {"tool_call_id": "Shell:0", "return_value": {"is_error": false, "output": "` + out + `", "message": "", "display": [], "extras": null}}}}` + "\n")
	b.WriteString(`{"timestamp": 1784542500.5, "message": {"type": "TurnEnd", "payload": {}}}` + "\n")
	return b.Bytes()
}

func TestHugeLines(t *testing.T) {
	for name, tc := range map[string]struct {
		data        []byte
		input, msgs int64
	}{
		"kimi code": {hugeCode(12 << 20), 18, 2},
		"legacy":    {hugeLegacy(12 << 20), 7, 1},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := Read(bytes.NewReader(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Warnings) > 0 {
				t.Errorf("warnings: %v", s.Warnings)
			}
			var result *session.Entry
			for i := range s.Timeline {
				if s.Timeline[i].Type == session.ToolResult {
					result = &s.Timeline[i]
				}
			}
			if result == nil || len(result.Output) != 12<<20 || result.Status != session.StatusOK {
				t.Fatalf("the 12 MB tool result was not read whole")
			}
			if s.Metadata.Tokens == nil || s.Metadata.Tokens.Input != tc.input {
				t.Errorf("tokens = %+v, want input %d", s.Metadata.Tokens, tc.input)
			}
			sum, err := Summarize(bytes.NewReader(tc.data), session.DetailFull)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Usage.Input != tc.input || int64(sum.Messages) != tc.msgs || sum.Turns != 1 || sum.Skipped != 0 {
				t.Errorf("summary = %+v", sum)
			}
		})
	}
}

// TestSummarizeMemoryIndependentOfSize checks that a summary of a file with
// a 24 MB line allocates a small, bounded amount: the scanner never holds a
// whole record.
func TestSummarizeMemoryIndependentOfSize(t *testing.T) {
	for name, data := range map[string][]byte{"kimi code": hugeCode(24 << 20), "legacy": hugeLegacy(24 << 20)} {
		if _, err := Summarize(bytes.NewReader(data), session.DetailFull); err != nil { // warm the scanner pool
			t.Fatal(err)
		}
		alloc := usftest.Allocated(func() {
			if _, err := Summarize(bytes.NewReader(data), session.DetailFull); err != nil {
				t.Error(err)
			}
		})
		if alloc > 1<<20 {
			t.Errorf("%s: summarising a %d MB file allocated %d KB; want under 1 MB", name, len(data)>>20, alloc>>10)
		}
	}
}

func TestLineEndingsAndMissingNewline(t *testing.T) {
	for name, data := range map[string][]byte{"kimi code": hugeCode(10), "legacy": hugeLegacy(10)} {
		crlf := bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
		noNL := bytes.TrimSuffix(data, []byte("\n"))
		want, err := Read(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for variant, in := range map[string][]byte{"crlf": crlf, "no final newline": noNL} {
			s, err := Read(bytes.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Timeline) != len(want.Timeline) || len(s.Warnings) != 0 {
				t.Errorf("%s, %s: %d entries (want %d), warnings %v", name, variant, len(s.Timeline), len(want.Timeline), s.Warnings)
			}
			sum, err := Summarize(bytes.NewReader(in), session.DetailFull)
			if err != nil || sum.Skipped != 0 || sum.Usage != *want.Metadata.Tokens {
				t.Errorf("%s, %s: summary %+v, %v", name, variant, sum, err)
			}
		}
	}
}

// TestTruncatedLastLine checks that a record cut off by a crash mid-write
// costs only itself: a warning naming file and line, the rest read.
func TestTruncatedLastLine(t *testing.T) {
	data := hugeCode(10)
	cut := data[:len(data)-40]
	dec := NewDecoder(bytes.NewReader(cut))
	dec.Path = "wire.jsonl"
	s, err := read(dec)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || s.Warnings[0].Path != "wire.jsonl" || s.Warnings[0].Line != 10 || !strings.Contains(s.Warnings[0].Message, "skipped") {
		t.Errorf("warnings %v", s.Warnings)
	}
	sum, err := Summarize(bytes.NewReader(cut), session.DetailFull)
	if err != nil || sum.Skipped != 1 || sum.Warnings[0].Line != 10 {
		t.Errorf("summary %+v, %v", sum, err)
	}
}

// TestUsageCountedOnce checks the usage rules: a Kimi Code step's usage is
// its step.end's (usage.record repeats it) or, when step.end has none, its
// usage.record's; a usage.record outside any step (a compaction request)
// counts on its own; a legacy StatusUpdate counts once, null usage not at
// all.
func TestUsageCountedOnce(t *testing.T) {
	rec := func(s string) string { return s + "\n" }
	u := func(i, o int) string {
		return `{"inputOther":` + strconv.Itoa(i) + `,"output":` + strconv.Itoa(o) + `,"inputCacheRead":1,"inputCacheCreation":0}`
	}
	tests := []struct {
		name string
		data string
		want session.Usage
	}{
		{"step.end and usage.record", rec(`{"type":"context.append_loop_event","event":{"type":"step.begin","uuid":"s"},"time":1}`) +
			rec(`{"type":"usage.record","model":"m","usage":`+u(10, 2)+`,"time":2}`) +
			rec(`{"type":"context.append_loop_event","event":{"type":"content.part","uuid":"p","part":{"type":"text","text":"x"}},"time":3}`) +
			rec(`{"type":"context.append_loop_event","event":{"type":"step.end","uuid":"s","usage":`+u(10, 2)+`},"time":4}`),
			session.Usage{Input: 10, Output: 2, CacheRead: 1}},
		{"usage.record only", rec(`{"type":"context.append_loop_event","event":{"type":"step.begin","uuid":"s"},"time":1}`) +
			rec(`{"type":"usage.record","model":"m","usage":`+u(10, 2)+`,"time":2}`) +
			rec(`{"type":"context.append_loop_event","event":{"type":"step.end","uuid":"s"},"time":4}`),
			session.Usage{Input: 10, Output: 2, CacheRead: 1}},
		{"compaction request", rec(`{"type":"full_compaction.begin","source":"auto","time":1}`) +
			rec(`{"type":"usage.record","model":"m","usage":`+u(30, 3)+`,"usageScope":"session","time":2}`),
			session.Usage{Input: 30, Output: 3, CacheRead: 1}},
		{"legacy", rec(wireHead) + rec(`{"timestamp": 1.5, "message": {"type": "StepBegin", "payload": {"n": 1}}}`) +
			rec(`{"timestamp": 2.5, "message": {"type": "StatusUpdate", "payload": {"token_usage": {"input_other": 5, "output": 1, "input_cache_read": 2, "input_cache_creation": 3}}}}`) +
			rec(`{"timestamp": 3.5, "message": {"type": "StatusUpdate", "payload": {"token_usage": null, "plan_mode": true}}}`),
			session.Usage{Input: 5, Output: 1, CacheRead: 2, CacheWrite: 3}},
		{"negative numbers", rec(`{"type":"usage.record","usage":{"inputOther":-5,"output":2},"time":2}`),
			session.Usage{Output: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Read(strings.NewReader(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			var got session.Usage
			if s.Metadata.Tokens != nil {
				got = *s.Metadata.Tokens
			}
			if got != tt.want {
				t.Errorf("session tokens %+v, want %+v", got, tt.want)
			}
			sum, err := Summarize(strings.NewReader(tt.data), session.DetailFull)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Usage != tt.want {
				t.Errorf("summary usage %+v, want %+v", sum.Usage, tt.want)
			}
			usftest.ValidateSession(t, s)
		})
	}
}

// TestDecoderStreams checks the decoder yields one event per non-blank
// line, in order, then io.EOF, and keeps every line.
func TestDecoderStreams(t *testing.T) {
	data := append(hugeCode(10), "\n\n"...)
	dec := NewDecoder(bytes.NewReader(data))
	n := 0
	for {
		ev, err := dec.Decode()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		if ev.Line != n {
			t.Errorf("event %d has line %d", n, ev.Line)
		}
		if len(ev.Entries) == 0 && ev.Record == nil {
			t.Errorf("line %d neither made entries nor was kept", ev.Line)
		}
	}
	if n != 10 {
		t.Errorf("%d events, want 10", n)
	}
	if _, err := dec.Decode(); err != io.EOF {
		t.Errorf("after the end: %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, os.ErrPermission }

func TestReadError(t *testing.T) {
	if _, err := Read(errReader{}); err == nil || !strings.Contains(err.Error(), "kimi: read input") {
		t.Errorf("a failing reader: %v", err)
	}
	if _, err := Open(session.Env{}, session.Ref{Path: filepath.Join(t.TempDir(), "wire.jsonl")}); err == nil {
		t.Error("opening a missing file succeeded")
	}
}

func TestSniff(t *testing.T) {
	yes := []string{
		`{"type":"metadata","protocol_version":"1.5","created_at":1795290344152}`,
		`{"type": "metadata", "protocol_version": "1.10"}`,
		`{"type":"context.append_message","agentId":"main","message":{"role":"user"},"time":1}`,
		`{"type":"turn.prompt","agentId":"main","input":[],"time":1}`,
		`{"message":{"message":{}},"type":"agent.message.appended","time":1,"kind":"event"}`,
		`{"timestamp": 1784542500.0, "message": {"type": "TurnBegin", "payload": {"user_input": "hi"}}}`,
		`{"role": "_system_prompt", "content": "You are Kimi"}`,
		`{"role": "_checkpoint", "id": 0}`,
	}
	no := []string{
		`{"parentUuid":null,"type":"user","message":{"role":"user","content":"hi"},"sessionId":"x"}`,
		`{"timestamp":"2026-11-21T10:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user"}}`,
		`{"timestamp":"2026-11-21T10:00:00.000Z","type":"event_msg","payload":{"type":"agent_message","message":"hi"}}`,
		`{"role":"user","content":"plain"}`,
		`not json`,
		``,
	}
	for _, l := range yes {
		if !Sniff([]byte(l)) {
			t.Errorf("Sniff(%s) = false", l)
		}
	}
	for _, l := range no {
		if Sniff([]byte(l)) {
			t.Errorf("Sniff(%s) = true", l)
		}
	}
}

func FuzzRead(f *testing.F) { usftest.Fuzz(f, Read, Summarize) }
