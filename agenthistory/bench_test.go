package agenthistory_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stead-dev/stead/agenthistory"
	"github.com/stead-dev/stead/session"
)

// bigSession is a Claude Code-like session of about n entries, in turns of
// a prompt, a reply with a shell call, its result and a closing reply,
// each entry with its native record, as the adapter keeps them: about
// 1.2 KB of export per entry.
func bigSession(id, n int) *session.Session {
	s := &session.Session{
		ID:       fmt.Sprintf("00000000-0000-4000-8000-%012d", id),
		Version:  session.Version,
		Source:   session.Source{CLI: session.Claude, Path: fmt.Sprintf("/home/u/.claude/projects/-home-u-p/%d.jsonl", id), Version: "2.1.3"},
		Project:  session.Project{Path: "/home/u/p", Git: &session.Git{Branch: "main"}},
		Model:    session.Model{Provider: "anthropic", Model: "claude-sonnet-4-5-20250929"},
		Metadata: session.Metadata{Created: t0, LastModified: at(n)},
		Timeline: make([]session.Entry, 0, n),
	}
	prompt := strings.Repeat("Please look at the parser and fix the failing test. ", 3)
	reply := strings.Repeat("I will run the tests first to see what fails, then read the code. ", 4)
	output := strings.Repeat("--- FAIL: TestParse (0.00s)\n    parse_test.go:42: got 3, want 4\n", 10)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	qPrompt, qReply, qOutput := q(prompt), q(reply), q(output)
	native := func(format string, args ...any) *session.Native {
		return &session.Native{Record: fmt.Appendf(nil, format, args...)}
	}
	parent := ""
	add := func(e session.Entry) {
		e.ParentID = parent
		e.Timestamp = at(len(s.Timeline))
		e.Native.Line = len(s.Timeline) + 1
		s.Timeline = append(s.Timeline, e)
		parent = e.ID
	}
	for k := 0; len(s.Timeline) < n; k++ {
		u, a, c, r, f := fmt.Sprintf("u%d", k), fmt.Sprintf("a%d", k), fmt.Sprintf("toolu_%d", k), fmt.Sprintf("r%d", k), fmt.Sprintf("f%d", k)
		msg := fmt.Sprintf("msg_%d", k)
		input := json.RawMessage(fmt.Sprintf(`{"command":"go test ./parser/... -run TestParse -count=%d","description":"Run the parser tests"}`, k))
		add(session.Entry{ID: u, Type: session.User, Content: prompt,
			Native: native(`{"type":"user","uuid":%q,"message":{"role":"user","content":%s}}`, u, qPrompt)})
		add(session.Entry{ID: a, Type: session.Assistant, Content: reply, MessageID: msg, Model: s.Model.Model,
			Usage:  &session.Usage{Input: 12, Output: 300, CacheRead: 20000, CacheWrite: 500},
			Native: native(`{"type":"assistant","uuid":%q,"message":{"id":%q,"role":"assistant","content":[{"type":"text","text":%s}]}}`, a, msg, qReply)})
		add(session.Entry{ID: c, Type: session.ToolCall, Tool: session.ToolBash, OriginalTool: "Bash", Input: input, MessageID: msg, Model: s.Model.Model,
			Native: native(`{"type":"assistant","uuid":"%sb","message":{"id":%q,"content":[{"type":"tool_use","id":%q,"name":"Bash","input":%s}]}}`, a, msg, c, input)})
		add(session.Entry{ID: r, Type: session.ToolResult, CallID: c, Output: output, Success: false, Status: session.StatusError,
			Native: native(`{"type":"user","uuid":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":%s,"is_error":true}]}}`, r, c, qOutput)})
		add(session.Entry{ID: f, Type: session.Assistant, Content: "The test fails on line 42.", MessageID: msg + "f", Model: s.Model.Model,
			Usage:  &session.Usage{Input: 3, Output: 20, CacheRead: 21000},
			Native: native(`{"type":"assistant","uuid":%q,"message":{"id":"%sf","role":"assistant","content":"The test fails on line 42."}}`, f, msg)})
	}
	return s
}

type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkWrite writes sessions of 2,000 entries one after another into
// one export; an op is one session.
func BenchmarkWrite(b *testing.B) {
	ss := make([]*session.Session, 4)
	for i := range ss {
		ss[i] = bigSession(i, 2000)
	}
	var c counter
	w, err := agenthistory.NewWriter(&c, agenthistory.Header{SessionCount: len(ss)})
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range ss { // one round to size the ops
		if err := w.Write(s); err != nil {
			b.Fatal(err)
		}
	}
	w.Close()
	b.SetBytes(c.n / int64(len(ss)))
	w, _ = agenthistory.NewWriter(io.Discard, agenthistory.Header{})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := w.Write(ss[i%len(ss)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRead reads back what BenchmarkWrite writes; an op is one
// session.
func BenchmarkRead(b *testing.B) {
	ss := make([]*session.Session, 4)
	for i := range ss {
		ss[i] = bigSession(i, 2000)
	}
	data := export(b, ss)
	b.SetBytes(int64(len(data) / len(ss)))
	b.ReportAllocs()
	b.ResetTimer()
	var r *agenthistory.Reader
	for b.Loop() {
		if r == nil {
			var err error
			if r, err = agenthistory.NewReader(bytes.NewReader(data), "bench.ndjson"); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := r.Next(); err == io.EOF {
			r = nil
		} else if err != nil {
			b.Fatal(err)
		}
	}
}
