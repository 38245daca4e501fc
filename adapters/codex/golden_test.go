package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
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

// TestTitles checks that a listing names each testdata session as show
// does: by its thread name, or else by its first prompt (not the context
// Codex injects, nor another agent's message).
func TestTitles(t *testing.T) {
	cases, _ := filepath.Glob("testdata/*.txtar")
	for _, path := range cases {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			main := layout(t, path)
			s, err := Open(session.Env{Vars: map[string]string{"CODEX_HOME": homeOf(main)}}, main)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range []session.Detail{session.DetailList, session.DetailFull} {
				sum, err := SummarizeFile(session.Ref{Path: main, ID: "x"}, d)
				if err != nil {
					t.Fatal(err)
				}
				if want := shownTitle(s); sum.Title != want {
					t.Errorf("summary title %q, session %q", sum.Title, want)
				}
				if sum.Project != s.Project.Path {
					t.Errorf("summary project %q, session %q", sum.Project, s.Project.Path)
				}
			}
		})
	}
}

// shownTitle is a session's title, or the start of its first prompt.
func shownTitle(s *session.Session) string {
	if s.Title != "" {
		return s.Title
	}
	for _, e := range s.Timeline {
		if e.Type == session.User && e.Kind == "" && strings.TrimSpace(e.Content) != "" && (e.Native == nil || e.Native.Path == "") {
			return jsonl.Title([]byte(e.Content)[:min(len(e.Content), TitleMax)])
		}
	}
	return ""
}

// layout writes a testdata case's native files to a new folder and
// returns the path of its session (the first of them).
func layout(t *testing.T, path string) string {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir, main := t.TempDir(), ""
	for _, f := range ar.Files {
		if !strings.HasPrefix(f.Name, "native/") {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		if main == "" {
			main = p
		}
	}
	return main
}
