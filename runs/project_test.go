package runs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectFollowsTheRun: a project in git is rebuilt on another
// machine from its origin, its commit and the patch of its working tree:
// changed, added (untracked), deleted and binary files, in the run's
// folder inside the repository; ignored files stay behind, and the
// project's own index is not touched.
func TestProjectFollowsTheRun(t *testing.T) {
	root := t.TempDir()
	origin := filepath.Join(root, "origin.git")
	mustGit(t, root, "init", "-q", "--bare", origin)
	work := filepath.Join(root, "work")
	mustGit(t, root, "clone", "-q", origin, work)
	write(t, filepath.Join(work, "README"), []byte("first\n"))
	write(t, filepath.Join(work, "app", "main.go"), []byte("package main\n"))
	write(t, filepath.Join(work, "app", "old.txt"), []byte("to delete\n"))
	write(t, filepath.Join(work, ".gitignore"), []byte("*.log\n"))
	mustGit(t, work, "add", "-A")
	mustGit(t, work, "commit", "-q", "-m", "first")
	mustGit(t, work, "push", "-q", "origin", "HEAD")
	indexBefore, _ := os.ReadFile(filepath.Join(work, ".git", "index"))

	dir := filepath.Join(work, "app")
	p := locateProject(dir)
	if p == nil || p.Repo != origin || p.Sub != "app" || len(p.Commit) != 40 {
		t.Fatalf("locateProject(%s) = %+v; want origin %s, sub app, a commit", dir, p, origin)
	}
	// The agent's work: a change, a new file, a deletion, a binary file,
	// and a log git ignores.
	write(t, filepath.Join(work, "README"), []byte("first\nsecond\n"))
	write(t, filepath.Join(dir, "new.go"), []byte("package main // NEW\n"))
	os.Remove(filepath.Join(dir, "old.txt"))
	write(t, filepath.Join(dir, "blob.bin"), []byte("\x00\x01\x02\xff"))
	write(t, filepath.Join(dir, "run.log"), []byte("ignored\n"))
	patch, err := projectChanges(dir, p.Commit)
	if err != nil {
		t.Fatal(err)
	}
	if indexAfter, _ := os.ReadFile(filepath.Join(work, ".git", "index")); string(indexAfter) != string(indexBefore) {
		t.Error("keeping the changes touched the project's index")
	}
	if st := mustGit(t, work, "status", "--porcelain"); !strings.Contains(st, "?? app/new.go") {
		t.Errorf("the project's status changed: %q", st)
	}

	elsewhere := filepath.Join(root, "other-machine", "run-1")
	got, err := restoreProject(p, patch, elsewhere)
	if err != nil {
		t.Fatal(err)
	}
	if got != filepath.Join(elsewhere, "app") {
		t.Errorf("the run's folder is %s; want %s", got, filepath.Join(elsewhere, "app"))
	}
	for name, want := range map[string]string{
		"README":       "first\nsecond\n",
		"app/new.go":   "package main // NEW\n",
		"app/main.go":  "package main\n",
		"app/blob.bin": "\x00\x01\x02\xff",
	} {
		if b, err := os.ReadFile(filepath.Join(elsewhere, name)); err != nil || string(b) != want {
			t.Errorf("%s rebuilt: %q, %v; want %q", name, b, err, want)
		}
	}
	for _, name := range []string{"app/old.txt", "app/run.log"} {
		if _, err := os.Stat(filepath.Join(elsewhere, name)); err == nil {
			t.Errorf("%s is in the rebuilt project", name)
		}
	}

	// Nothing changed: an empty patch, and the commit alone is rebuilt.
	if _, err := restoreProject(p, nil, filepath.Join(root, "other-machine", "run-2")); err != nil {
		t.Fatal(err)
	}
	// A folder that is not in git has no project; a repository name or
	// folder from the bus cannot lead anywhere else.
	if p := locateProject(t.TempDir()); p != nil {
		t.Errorf("a folder outside git: %+v", p)
	}
	bad := *p
	bad.Sub = "../../escape"
	if _, err := restoreProject(&bad, nil, filepath.Join(root, "other-machine", "run-3")); err == nil {
		t.Error("a folder outside the repository was taken")
	}
	bad = *p
	bad.Repo = "ext::sh -c touch% " + filepath.Join(root, "pwned")
	restoreProject(&bad, nil, filepath.Join(root, "other-machine", "run-4"))
	if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
		t.Error("a repository name from the bus ran a command")
	}
}

func mustGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := Git(dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
