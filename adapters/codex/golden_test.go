package codex

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// homeOf returns the Codex home a testdata file was extracted into: the
// folder holding native/ in the archive.
func homeOf(path string) string {
	if i := strings.LastIndex(path, string(filepath.Separator)+"native"+string(filepath.Separator)); i >= 0 {
		return path[:i+len("/native")]
	}
	return filepath.Dir(path)
}

// TestGolden runs the shared golden checks over testdata/*.txtar. Each
// case's native/ folder is a Codex home, so forks find their parents.
func TestGolden(t *testing.T) {
	usftest.RunGolden(t, usftest.Adapter{
		CLI: session.Codex,
		Open: func(p string) (*session.Session, error) {
			return Open(session.Env{Vars: map[string]string{"CODEX_HOME": homeOf(p)}}, p)
		},
		SummarizeFile: SummarizeFile,
		RefID:         func(p string) string { return IDFromName(filepath.Base(p)) },
	})
}
