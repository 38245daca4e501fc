package opencode

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/stead-dev/stead/session"
)

// benchTurns is a long session: turns of a prompt, a reply with thinking
// and a shell call, its 2 KB result, and a final reply.
func benchTurns(n int) []session.Entry {
	at := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	out := make([]byte, 2048)
	for i := range out {
		out[i] = 'a' + byte(i%26)
	}
	var es []session.Entry
	for i := 0; i < n; i++ {
		ts := at.Add(time.Duration(i) * time.Second)
		id := fmt.Sprintf("c%d", i)
		es = append(es,
			session.Entry{Type: session.User, Timestamp: ts, Content: "Run the next step, please."},
			session.Entry{Type: session.Assistant, Timestamp: ts, MessageID: "m" + id, Thinking: "Thinking about it.", Content: "Running it.",
				Usage: &session.Usage{Input: 1000, Output: 50, CacheRead: 9000}},
			session.Entry{ID: id, Type: session.ToolCall, Timestamp: ts, MessageID: "m" + id, OriginalTool: "bash", Tool: session.ToolBash,
				Input: json.RawMessage(`{"command":"make step"}`)},
			session.Entry{Type: session.ToolResult, Timestamp: ts, CallID: id, Success: true, Status: session.StatusOK, Output: string(out)},
			session.Entry{Type: session.Assistant, Timestamp: ts, MessageID: "f" + id, Content: "Done.", Usage: &session.Usage{Input: 1100, Output: 5}},
		)
	}
	return es
}

// BenchmarkEncode measures writing the export of a 1000-turn session.
func BenchmarkEncode(b *testing.B) {
	es := benchTurns(1000)
	tg := writtenTarget()
	b.ReportAllocs()
	for b.Loop() {
		enc := NewEncoder(io.Discard, tg, nil)
		for i := range es {
			enc.Encode(&es[i])
		}
		enc.Close()
	}
}

// BenchmarkCommit measures installing a 1000-turn session (5000 entries,
// about 9000 rows) into an existing database.
func BenchmarkCommit(b *testing.B) {
	es := benchTurns(1000)
	home := b.TempDir()
	env := envFor(home, filepath.Join(home, "data"))
	first := writtenTarget()
	first.ID, first.Dir = "", home
	p, err := Place(env, &first)
	if err != nil {
		b.Fatal(err)
	}
	if err := Commit(env, p, first, writeExport(b, first, es[:5])); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		tg := writtenTarget()
		tg.ID, tg.Dir = "", home
		if _, err := Place(env, &tg); err != nil {
			b.Fatal(err)
		}
		export := writeExport(b, tg, es)
		b.StartTimer()
		if err := Commit(env, p, tg, export); err != nil {
			b.Fatal(err)
		}
	}
}
