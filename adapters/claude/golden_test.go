package claude

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// TestGolden runs the shared golden checks over testdata/*.txtar.
func TestGolden(t *testing.T) {
	usftest.RunGolden(t, usftest.Adapter{
		CLI:           session.Claude,
		Open:          func(p string) (*session.Session, error) { return Open(session.Env{}, p) },
		SummarizeFile: SummarizeFile,
		RefID:         func(p string) string { return strings.TrimSuffix(filepath.Base(p), ".jsonl") },
	})
}
