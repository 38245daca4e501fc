package runs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// write writes a file, making its directory.
func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestWorkspaces: a variant's copy of a git project is a worktree at the
// project's current state (uncommitted edits included), a project out of
// git is copied; either way the diff is the variant's changes only, and
// removing the copy leaves the project as it was.
func TestWorkspaces(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, inGit := range []bool{true, false} {
		name := map[bool]string{true: "git", false: "copy"}[inGit]
		t.Run(name, func(t *testing.T) {
			project := filepath.Join(t.TempDir(), "p")
			write(t, filepath.Join(project, "a.txt"), []byte("one\n"))
			os.Symlink("a.txt", filepath.Join(project, "link"))
			if inGit {
				gitInit(t, project)
			}
			write(t, filepath.Join(project, "a.txt"), []byte("one\ntwo\n")) // not committed
			ws, err := NewWorkspace(project, filepath.Join(t.TempDir(), "ab", "v1"))
			if err != nil {
				t.Fatal(err)
			}
			if ws.Worktree != inGit {
				t.Errorf("worktree %v, want %v", ws.Worktree, inGit)
			}
			if data, _ := os.ReadFile(filepath.Join(ws.Dir, "a.txt")); string(data) != "one\ntwo\n" {
				t.Errorf("the copy starts from %q, not the project as it is", data)
			}
			if target, _ := os.Readlink(filepath.Join(ws.Dir, "link")); target != "a.txt" {
				t.Errorf("the symlink became %q", target)
			}
			write(t, filepath.Join(ws.Dir, "new.txt"), []byte("x\ny\n"))
			os.Remove(filepath.Join(ws.Dir, "link"))
			c, err := ws.Changed()
			if err != nil {
				t.Fatal(err)
			}
			if c.Files != 2 || c.Insertions != 2 || c.Deletions != 1 || !strings.Contains(c.Diff, "+x") {
				t.Errorf("changes %+v", c)
			}
			if err := ws.Remove(project); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(ws.Dir); err == nil {
				t.Error("the copy is still there")
			}
			if data, _ := os.ReadFile(filepath.Join(project, "a.txt")); string(data) != "one\ntwo\n" {
				t.Errorf("the project changed: %q", data)
			}
			if _, err := os.Stat(filepath.Join(project, "new.txt")); err == nil {
				t.Error("the variant's file reached the project")
			}
		})
	}
}
