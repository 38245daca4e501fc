package cusf_test

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/cusf"
	"github.com/stead-dev/stead/session"
)

// large builds a session of n turns of five entries: a prompt, an
// assistant message with thinking, a tool call, its result and the reply.
func large(n int) *session.Session {
	base := time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)
	const model = "claude-opus-4-5-20251101"
	prompt := strings.Repeat("Please look at the <auth> module & fix it. ", 12)
	thinking := strings.Repeat("I should read the file before editing. ", 8)
	output := strings.Repeat("func login(user, password string) error { return nil }\n", 18)
	s := &session.Session{ID: "bench", Source: session.Source{CLI: session.Claude},
		Project: session.Project{Path: "/home/dev/project"}, Model: session.Model{Model: model},
		Metadata: session.Metadata{Created: base}}
	for i := range n {
		at := base.Add(time.Duration(i) * time.Minute)
		id := fmt.Sprint(i)
		s.Timeline = append(s.Timeline,
			session.Entry{ID: "u" + id, Timestamp: at, Type: session.User, Content: prompt, ParentID: "r" + fmt.Sprint(i-1)},
			session.Entry{ID: "a" + id, Timestamp: at.Add(time.Second), Type: session.Assistant, Content: "Reading it.", Thinking: thinking,
				Model: model, MessageID: "msg_a" + id, Usage: &session.Usage{Input: 1200, Output: 80, CacheRead: 30000}, ParentID: "u" + id},
			session.Entry{ID: "toolu_" + id, Timestamp: at.Add(2 * time.Second), Type: session.ToolCall, Tool: session.ToolRead, OriginalTool: "Read",
				Input: json.RawMessage(`{"file_path":"/home/dev/project/auth/login.go","offset":1,"limit":200}`), Model: model, MessageID: "msg_a" + id, ParentID: "a" + id},
			session.Entry{ID: "t" + id, Timestamp: at.Add(3 * time.Second), Type: session.ToolResult, CallID: "toolu_" + id, Success: true, Output: output, ParentID: "toolu_" + id},
			session.Entry{ID: "r" + id, Timestamp: at.Add(4 * time.Second), Type: session.Assistant, Content: "The login function ignores the password; fixed.",
				Model: model, MessageID: "msg_r" + id, Usage: &session.Usage{Input: 2400, Output: 40, CacheRead: 31000}, ParentID: "t" + id},
		)
	}
	return s
}

type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkEncode exports a session of 20,000 entries; MB/s is output.
func BenchmarkEncode(b *testing.B) {
	s := large(4000)
	var size counter
	if err := cusf.NewEncoder(&size, testOptions).Encode(s); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size.n)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := cusf.NewEncoder(io.Discard, testOptions).Encode(s); err != nil {
			b.Fatal(err)
		}
	}
}
