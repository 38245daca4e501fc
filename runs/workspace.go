package runs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// A Workspace is a variant's own copy of the project: a git worktree of
// it, or, for a project that is not in git, a copy made into a repository
// of its own. Either way its base commit is what the variant started
// from, and git tells what it changed.
type Workspace struct {
	Dir  string `json:"dir"`
	Base string `json:"base"`
	// Worktree is set when Dir is a worktree of the project's repository
	// (removed with git worktree remove).
	Worktree bool `json:"worktree"`
}

// Git runs git in dir and returns its output.
func Git(dir string, args ...string) (string, error) { return gitIn(dir, nil, nil, args...) }

// gitIn runs git in dir with env added to its environment and stdin (nil:
// none), and returns its output.
func gitIn(dir string, env []string, stdin []byte, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_AUTHOR_NAME=stead", "GIT_AUTHOR_EMAIL=stead@localhost",
		"GIT_COMMITTER_NAME=stead", "GIT_COMMITTER_EMAIL=stead@localhost"), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("git is not installed: stead keeps a project's changes in git: %w", err)
		}
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
	}
	return out.String(), nil
}

// NewWorkspace makes dst a Workspace of project: a detached worktree at
// the project's current state (uncommitted changes to tracked files
// included) when the project is in git, else a copy.
func NewWorkspace(project, dst string) (Workspace, error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return Workspace{}, err
	}
	if head, err := Git(project, "rev-parse", "--verify", "-q", "HEAD"); err == nil && strings.TrimSpace(head) != "" {
		base := strings.TrimSpace(head)
		// The working tree's state as a commit, without touching it.
		if st, err := Git(project, "stash", "create"); err == nil && strings.TrimSpace(st) != "" {
			base = strings.TrimSpace(st)
		}
		if _, err := Git(project, "worktree", "add", "--detach", dst, base); err != nil {
			return Workspace{}, err
		}
		return Workspace{Dir: dst, Base: base, Worktree: true}, nil
	}
	if err := copyTree(project, dst); err != nil {
		os.RemoveAll(dst)
		return Workspace{}, fmt.Errorf("copying the project: %w", err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "--allow-empty", "-m", "stead: the project before the variant ran"}} {
		if _, err := Git(dst, args...); err != nil {
			os.RemoveAll(dst)
			return Workspace{}, err
		}
	}
	base, err := Git(dst, "rev-parse", "HEAD")
	if err != nil {
		return Workspace{}, err
	}
	return Workspace{Dir: dst, Base: strings.TrimSpace(base)}, nil
}

// Changes is what a variant changed in its workspace.
type Changes struct {
	Files      int    `json:"files"`
	Insertions int    `json:"insertions"`
	Deletions  int    `json:"deletions"`
	Diff       string `json:"diff,omitempty"`
}

// Changed stages everything in the workspace and diffs it with its base.
func (w Workspace) Changed() (Changes, error) {
	var c Changes
	if _, err := Git(w.Dir, "add", "-A"); err != nil {
		return c, err
	}
	num, err := Git(w.Dir, "diff", "--cached", "--numstat", w.Base)
	if err != nil {
		return c, err
	}
	for line := range strings.SplitSeq(strings.TrimSpace(num), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		c.Files++
		ins, _ := strconv.Atoi(f[0]) // "-" for a binary file
		del, _ := strconv.Atoi(f[1])
		c.Insertions += ins
		c.Deletions += del
	}
	c.Diff, err = Git(w.Dir, "diff", "--cached", "--binary", w.Base)
	return c, err
}

// Remove deletes the workspace (and its worktree record in the project).
func (w Workspace) Remove(project string) error {
	if w.Worktree {
		if _, err := Git(project, "worktree", "remove", "--force", w.Dir); err == nil {
			return nil
		}
	}
	return os.RemoveAll(w.Dir)
}

// copyTree copies the directory src to the new directory dst: regular
// files, directories and symbolic links, with their modes.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case info.Mode().IsRegular():
			in, err := os.Open(p)
			if err != nil {
				return err
			}
			defer in.Close()
			out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, in); err != nil {
				out.Close()
				return err
			}
			return out.Close()
		}
		return nil // sockets, devices: not part of a project
	})
}
