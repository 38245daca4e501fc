package cusf_test

import (
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/cusf"
	"github.com/stead-dev/stead/session"
)

const largeModel = "claude-opus-4-5-20251101"

var (
	largeBase     = time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)
	largePrompt   = strings.Repeat("Please look at the <auth> module & fix it. ", 12)
	largeThinking = strings.Repeat("I should read the file before editing. ", 8)
	largeOutput   = strings.Repeat("func login(user, password string) error { return nil }\n", 18)
)

// largeMeta is the session of large and turns, without its timeline.
func largeMeta() *session.Session {
	return &session.Session{ID: "bench", Source: session.Source{CLI: session.Claude},
		Project: session.Project{Path: "/home/dev/project"}, Model: session.Model{Model: largeModel},
		Metadata: session.Metadata{Created: largeBase}}
}

// turns makes the timeline of a session of n turns of five entries on the
// fly: a prompt, an assistant message with thinking, a tool call, its
// result and the reply. Like a decoder reading a file, it reuses one entry
// (and its input and usage) from call to call.
type turns struct {
	n, i  int // turns, entries made
	e     session.Entry
	usage session.Usage
	input []byte
}

func (g *turns) Next() (*session.Entry, error) {
	if g.i >= 5*g.n {
		return nil, io.EOF
	}
	turn, k := g.i/5, g.i%5
	g.i++
	at := largeBase.Add(time.Duration(turn) * time.Minute)
	id := strconv.Itoa(turn)
	switch k {
	case 0:
		g.e = session.Entry{ID: "u" + id, Timestamp: at, Type: session.User, Content: largePrompt, ParentID: "r" + strconv.Itoa(turn-1)}
	case 1:
		g.usage = session.Usage{Input: 1200, Output: 80, CacheRead: 30000}
		g.e = session.Entry{ID: "a" + id, Timestamp: at.Add(time.Second), Type: session.Assistant, Content: "Reading it.", Thinking: largeThinking,
			Model: largeModel, MessageID: "msg_a" + id, Usage: &g.usage, ParentID: "u" + id}
	case 2:
		g.input = append(g.input[:0], `{"file_path":"/home/dev/project/auth/login.go","offset":1,"limit":200}`...)
		g.e = session.Entry{ID: "toolu_" + id, Timestamp: at.Add(2 * time.Second), Type: session.ToolCall, Tool: session.ToolRead, OriginalTool: "Read",
			Input: g.input, Model: largeModel, MessageID: "msg_a" + id, ParentID: "a" + id}
	case 3:
		g.e = session.Entry{ID: "t" + id, Timestamp: at.Add(3 * time.Second), Type: session.ToolResult, CallID: "toolu_" + id, Success: true, Output: largeOutput, ParentID: "toolu_" + id}
	case 4:
		g.usage = session.Usage{Input: 2400, Output: 40, CacheRead: 31000}
		g.e = session.Entry{ID: "r" + id, Timestamp: at.Add(4 * time.Second), Type: session.Assistant, Content: "The login function ignores the password; fixed.",
			Model: largeModel, MessageID: "msg_r" + id, Usage: &g.usage, ParentID: "t" + id}
	}
	return &g.e, nil
}

// large builds the session of n turns that turns makes, in memory.
func large(n int) *session.Session {
	s := largeMeta()
	g := &turns{n: n}
	for {
		e, err := g.Next()
		if err != nil {
			return s
		}
		c := *e
		c.Input = append([]byte(nil), e.Input...)
		if e.Usage != nil {
			u := *e.Usage
			c.Usage = &u
		}
		s.Timeline = append(s.Timeline, c)
	}
}

type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkEncode exports a session of 20,000 entries held in memory;
// MB/s is output.
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

// BenchmarkEncodeStream exports the same session with EncodeStream from
// entries made on the fly (their making included); MB/s is output.
func BenchmarkEncodeStream(b *testing.B) {
	var size counter
	if err := cusf.NewEncoder(&size, testOptions).EncodeStream(largeMeta(), &turns{n: 4000}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size.n)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := cusf.NewEncoder(io.Discard, testOptions).EncodeStream(largeMeta(), &turns{n: 4000}); err != nil {
			b.Fatal(err)
		}
	}
}
