package gemini

import (
	"testing"

	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// TestGolden runs the shared golden checks over testdata/*.txtar. Each
// case's native/ folder is a home: native/.gemini is the store, so the
// project folder's .project_root and projects.json name the project, and
// subagent files sit where the CLI puts them.
func TestGolden(t *testing.T) {
	usftest.RunGolden(t, usftest.Adapter{
		CLI: session.Gemini,
		Open: func(p string) (*session.Session, error) {
			return Open(session.Env{}, session.Ref{CLI: session.Gemini, ID: IDOf(p), Path: p})
		},
		SummarizeFile: SummarizeFile,
		RefID:         IDOf,
	})
}
