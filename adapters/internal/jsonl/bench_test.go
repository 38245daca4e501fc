package jsonl

import (
	"bytes"
	"strings"
	"testing"
)

// benchInput is records of the shape session files have: small keys and
// values around one large string with escapes.
func benchInput() []byte {
	big := strings.Repeat(`func main() {\n\tfmt.Println(\"hello, world\")\n}\n`, 200)
	line := `{"parentUuid":"a1","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"` + big + `","is_error":false}]},"uuid":"u2","timestamp":"2026-11-20T10:00:02.000Z","sessionId":"s"}` + "\n"
	return []byte(strings.Repeat(line, 2000))
}

// BenchmarkSkip walks every record, skipping every value.
func BenchmarkSkip(b *testing.B) {
	data := benchInput()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := NewScanner(bytes.NewReader(data), 0)
		for s.NextLine() {
			s.Skip()
		}
	}
}

// BenchmarkReader splits the same input into lines.
func BenchmarkReader(b *testing.B) {
	data := benchInput()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(data))
		for r.Next() {
		}
	}
}
