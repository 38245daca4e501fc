package kimi

import (
	"bytes"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
)

// SessionID returns the id of the session a headless run (Argv) printed on
// its standard output: the session.resume_hint event's session_id. It is ""
// when the output names none.
func SessionID(out []byte) string {
	return jsonl.FirstString(out, "session.resume_hint", "session_id")
}

// Failure returns the error a failed headless run reported: Kimi Code
// prints "error: ..." on standard error.
func Failure(stdout, stderr []byte) string {
	for line := range bytes.Lines(stderr) {
		if m, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("error: ")); ok {
			return string(m)
		}
	}
	return jsonl.LastLine(stderr)
}
