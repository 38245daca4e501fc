package opencode

import (
	"testing"

	"github.com/stead-dev/stead/internal/usftest"
)

// FuzzRead feeds arbitrary bytes, seeded with the start of every native
// file in testdata (exports, storage files, and the SQL of the database
// cases), to the export decoder and summarizer: they must never fail on
// content, and what they produce must encode, round-trip and match the
// schema.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"info":{"id":"ses_x","parentID":"ses_y","time":{"created":1.5e12}},"messages":[{"info":{"id":"msg_a","role":"assistant","tokens":{"input":-1,"output":"x","cache":{"read":1e300}}},"parts":[{"type":"tool","tool":"task","state":{"status":"error","input":[1],"metadata":{"sessionId":"ses_z","interrupted":true}}},{"type":"step-finish","tokens":{"input":3}}]}]}`))
	usftest.Fuzz(f, Read, Summarize)
}
