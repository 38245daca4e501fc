package runs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/stead-dev/stead/live"
)

// The project follows a durable run: when its folder is in git, the run
// records the repository and commit it started from, and its worker keeps
// the working tree's changes against that commit on the bus. A worker
// continuing the run on a machine without the folder clones the
// repository, checks the commit out and applies the changes.

// maxProjectPatch bounds the patch of a project's changes kept on the bus
// (untracked build output not ignored by git can be large).
const maxProjectPatch = 64 << 20

// ProjectObject names the stored patch of a run's project.
func ProjectObject(run string) string { return "project-" + run }

// locateProject is dir's project as a git repository; nil when dir is
// not in one (or it has no commit yet).
func locateProject(dir string) *live.Project {
	top, err := Git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil
	}
	top = strings.TrimSpace(top)
	head, err := Git(dir, "rev-parse", "--verify", "-q", "HEAD")
	if err != nil || strings.TrimSpace(head) == "" {
		return nil
	}
	p := &live.Project{Repo: top, Commit: strings.TrimSpace(head)}
	if origin, err := Git(dir, "config", "--get", "remote.origin.url"); err == nil && strings.TrimSpace(origin) != "" {
		p.Repo = strings.TrimSpace(origin)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if sub, err := filepath.Rel(top, dir); err == nil && sub != "." && !strings.HasPrefix(sub, "..") {
		p.Sub = sub
	}
	return p
}

// projectChanges is the working tree of dir's repository against commit,
// as a binary patch: changed, added and deleted files, untracked ones
// included, ignored ones not. The repository's own index is not touched
// (a copy of it is staged into).
func projectChanges(dir, commit string) ([]byte, error) {
	top, err := Git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	top = strings.TrimSpace(top)
	index, err := Git(top, "rev-parse", "--git-path", "index")
	if err != nil {
		return nil, err
	}
	index = strings.TrimSpace(index)
	if !filepath.IsAbs(index) {
		index = filepath.Join(top, index)
	}
	tmp, err := os.CreateTemp("", "stead-index-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	// A copy of the index: only the files changed since it was written
	// are hashed again.
	if src, err := os.Open(index); err == nil {
		_, err = io.Copy(tmp, src)
		src.Close()
		if err != nil {
			tmp.Close()
			return nil, err
		}
	}
	tmp.Close()
	env := []string{"GIT_INDEX_FILE=" + tmp.Name()}
	if _, err := gitIn(top, env, nil, "add", "-A"); err != nil {
		return nil, err
	}
	out, err := gitIn(top, env, nil, "diff", "--cached", "--binary", "--full-index", commit)
	return []byte(out), err
}

// restoreProject rebuilds a run's project under into: the repository
// cloned, its commit checked out, the patch applied. It returns the run's
// folder there.
func restoreProject(p *live.Project, patch []byte, into string) (string, error) {
	if p == nil || p.Repo == "" || p.Commit == "" {
		return "", errors.New("the run names no git repository to rebuild its project from")
	}
	if err := os.MkdirAll(filepath.Dir(into), 0o700); err != nil {
		return "", err
	}
	// The repository's name comes from the bus: never a transport that
	// runs a command.
	if _, err := gitIn(filepath.Dir(into), nil, nil, "-c", "protocol.ext.allow=never", "clone", "-q", "--no-checkout", "--", p.Repo, into); err != nil {
		return "", fmt.Errorf("cloning the run's repository %s: %w", p.Repo, err)
	}
	if _, err := Git(into, "-c", "advice.detachedHead=false", "checkout", "-q", "--detach", p.Commit); err != nil {
		os.RemoveAll(into)
		return "", fmt.Errorf("checking out the run's commit %s: %w", p.Commit, err)
	}
	if len(bytes.TrimSpace(patch)) > 0 {
		if _, err := gitIn(into, nil, patch, "apply", "--binary", "--whitespace=nowarn", "-"); err != nil {
			os.RemoveAll(into)
			return "", fmt.Errorf("applying the run's changes to its project: %w", err)
		}
	}
	dir := filepath.Join(into, p.Sub)
	if rel, err := filepath.Rel(into, dir); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		// Sub comes from the bus: it never leads out of the clone.
		os.RemoveAll(into)
		return "", fmt.Errorf("the run's folder %q is not inside its repository", p.Sub)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, nil
}
