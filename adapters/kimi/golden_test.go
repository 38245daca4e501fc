package kimi

import (
	"testing"

	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// TestGolden runs the shared golden checks over testdata/*.txtar. Each
// case's native/ folder is a Kimi Code home or a kimi-cli share dir, laid
// out as the CLI lays it out, so Open finds state.json, kimi.json,
// session_index.jsonl, context.jsonl and subagent files beside the session.
func TestGolden(t *testing.T) {
	usftest.RunGolden(t, usftest.Adapter{
		CLI:           session.Kimi,
		Open:          func(p string) (*session.Session, error) { return Open(session.Env{}, session.Ref{Path: p}) },
		SummarizeFile: SummarizeFile,
		RefID:         func(p string) string { return placeOf(p).id() },
	})
}
