package opencode

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/stead-dev/stead/adapters/internal/storefile"
)

// globalProject is the project of every directory outside a git
// repository.
const globalProject = "global"

// project is the OpenCode project a directory belongs to.
type project struct {
	id       string
	worktree string
	vcs      string // "git", or "" for the global project
}

// gitTimeout bounds each git command resolveProject runs.
const gitTimeout = 10 * time.Second

// resolveProject finds the project OpenCode 1.18.33 resolves dir to
// (Project.resolve, opencode.md §3): outside a git repository, the global
// project; inside one, an id made from the origin remote
// (sha1("git-remote:" + host/path)), else the id OpenCode cached in the
// repository's common directory (its "opencode" file), else the repository's
// first root commit; its worktree is the repository's top level. Like
// OpenCode it asks git, and like OpenCode it falls back to the global
// project when git is not installed or the repository has no commit.
func resolveProject(dir string) project {
	global := project{id: globalProject, worktree: "/"}
	start := ""
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			start = d
			break
		}
		if filepath.Dir(d) == d {
			return global
		}
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return global
	}
	run := func(args ...string) (string, bool) {
		ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, git, args...)
		cmd.Dir = start
		cmd.Stdin = nil
		out, err := cmd.Output()
		if err != nil {
			return "", false
		}
		return strings.TrimRight(string(out), "\r\n"), true
	}
	resolve := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(start, p)
	}
	top, ok1 := run("rev-parse", "--show-toplevel")
	common, ok2 := run("rev-parse", "--git-common-dir")
	if !ok2 {
		return global
	}
	wt := start
	if ok1 && top != "" {
		wt = resolve(top)
	}
	p := project{worktree: wt, vcs: "git"}
	if remote, ok := run("remote", "get-url", "origin"); ok {
		p.id = remoteID(remote)
	}
	if p.id == "" {
		if b, err := storefile.ReadFile(filepath.Join(resolve(common), "opencode")); err == nil {
			p.id = strings.TrimSpace(string(b))
		}
	}
	if p.id == "" {
		if roots, ok := run("rev-list", "--max-parents=0", "HEAD"); ok {
			var ids []string
			for _, l := range strings.Split(roots, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					ids = append(ids, l)
				}
			}
			sort.Strings(ids)
			if len(ids) > 0 {
				p.id = ids[0]
			}
		}
	}
	if p.id == "" {
		return global
	}
	return p
}

var scpRemote = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([^@/:]+@)?([^/:]+):(.+)$`) })

// remoteID is the project id OpenCode makes from a remote URL, or "".
func remoteID(remote string) string {
	r := strings.TrimSpace(remote)
	if r == "" {
		return ""
	}
	var host, path string
	if u, err := url.Parse(r); err == nil && u.Scheme != "" {
		// A URL, as JavaScript's URL parses it: one without a host
		// (file:, or host:path read as a scheme) names no project.
		if u.Scheme == "file" {
			return ""
		}
		host, path = u.Hostname(), u.Path
	} else if m := scpRemote().FindStringSubmatch(r); m != nil {
		host, path = m[2], m[3]
	} else {
		return ""
	}
	path = strings.TrimLeft(path, "/")
	path = strings.TrimSuffix(strings.TrimSuffix(path, "/"), ".git")
	path = strings.TrimRight(path, "/")
	if host == "" || path == "" {
		return ""
	}
	sum := sha1.Sum([]byte("git-remote:" + strings.ToLower(host) + "/" + path))
	return hex.EncodeToString(sum[:])
}
