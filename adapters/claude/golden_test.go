package claude

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

// TestGolden runs the shared golden checks over testdata/*.txtar.
func TestGolden(t *testing.T) {
	usftest.RunGolden(t, usftest.Adapter{
		CLI:           session.Claude,
		Open:          func(p string) (*session.Session, error) { return Open(session.Env{}, p) },
		SummarizeFile: SummarizeFile,
		RefID:         func(p string) string { return strings.TrimSuffix(filepath.Base(p), ".jsonl") },
	})
}

// TestTitles checks that a listing names each testdata session as show
// does: by its title, or else by its first prompt (never a subagent's
// prompt, nor a command, nor what the CLI injected).
func TestTitles(t *testing.T) {
	cases, _ := filepath.Glob("testdata/*.txtar")
	for _, path := range cases {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			main := layout(t, path)
			s, err := Open(session.Env{}, main)
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
		if e.Type == session.User && e.Kind == "" && strings.TrimSpace(e.Content) != "" {
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
