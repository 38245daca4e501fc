package gemini

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/stead-dev/stead/adapters/internal/ids"
	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// markerFile is the ownership marker of a project folder: it holds the
// project directory.
const markerFile = ".project_root"

// Place chooses a new session's id (a random UUID, as Gemini CLI makes)
// and its file: tmp/<slug>/chats/session-<UTC start, to the minute>-<tag>.jsonl
// under the store, in the folder Gemini CLI resolves for the project
// directory (the physical path, as its cwd is).
//
// The slug is found as the CLI finds it (ProjectRegistry.getShortId): the
// projects.json entry for the directory when the folders' markers agree,
// else the folder whose .project_root marker holds the directory, else a
// new slug claimed from the directory's base name (-1, -2, ... when
// taken). projects.json is never changed: the folder's .project_root
// markers are Placement.Files, created only where none exist, and the CLI
// finds a claimed folder through them and registers it itself on its next
// start.
// A directory the CLI has never seen but whose legacy folder
// (tmp/<sha256 of the directory>) exists gets its session there: the CLI
// copies that folder into the new slug's on its first start, and writing
// to the slug's folder first would stop that copy and hide the older
// sessions.
//
// The file name does not end in the first 8 characters of the session id,
// as the CLI's own names do, but in 8 others derived from it. Gemini CLI's
// session retention (on by default) deletes every file of a project whose
// name ends in the id8 of a session it finds unloadable, and each resume
// in a later minute leaves such a file behind under the resumed id's id8
// (gemini.md §5.4, §5.5): a converted session named like the CLI's would
// be deleted at the first start after its first resume. The CLI finds and
// resumes a session by the id inside the file, whatever the name, and
// --delete-session still works, as it derives the id8 from the name.
func Place(env session.Env, t *session.Target) (session.Placement, error) {
	if t.ID == "" {
		t.ID = ids.UUID4()
	} else if !ValidID(t.ID) {
		return session.Placement{}, fmt.Errorf("gemini: invalid session id %q", t.ID)
	} else if _, err := Locate(env, t.ID); !errors.Is(err, session.ErrNotFound) {
		// --resume would find two sessions, or the other one.
		return session.Placement{}, fmt.Errorf("gemini: a session %s exists already", t.ID)
	}
	if !filepath.IsAbs(t.Dir) {
		return session.Placement{}, fmt.Errorf("gemini: project directory %q is not absolute", t.Dir)
	}
	t.Dir = filepath.Clean(t.Dir)
	if real, err := filepath.EvalSymlinks(t.Dir); err == nil {
		t.Dir = real
	}
	// The model the session continues with, for the report: Gemini CLI
	// reads none back from the file (each message's model is history).
	if t.Model == "" {
		t.Model, t.ModelFrom = ConfiguredModel(env, t.Dir)
	}
	t.Provider = "google"
	root := Root(env)
	if root == "" {
		return session.Placement{}, fmt.Errorf("gemini: no home directory (set GEMINI_CLI_HOME or HOME)")
	}
	slug, claimed, err := resolveSlug(root, t.Dir)
	if err != nil {
		return session.Placement{}, err
	}
	p := session.Placement{Root: root, Resume: []string{"gemini", "--resume", t.ID}}
	folder := slug
	if legacy := projectHash(t.Dir); claimed && isDir(filepath.Join(root, "tmp", legacy)) && migrates(filepath.Join(root, "tmp", slug)) {
		folder = legacy
	} else {
		// The markers claim a new slug (the CLI adds projects.json's
		// entry when it next starts in the directory), or are the ones
		// the CLI itself adds where they are missing.
		for _, base := range []string{"tmp", "history"} {
			p.Files = append(p.Files, session.File{Path: filepath.Join(root, base, slug, markerFile), Data: []byte(t.Dir)})
		}
	}
	name := "session-" + t.Created.UTC().Format("2006-01-02T15-04") + "-" + fileTag(t.ID) + ".jsonl"
	p.Path = filepath.Join(root, "tmp", folder, "chats", name)
	return p, nil
}

// fileTag is the 8 characters that end a session's file name: hex digits
// of a hash of its id, never its first 8 characters (see Place).
func fileTag(id string) string {
	for i := 0; ; i++ {
		sum := sha256.Sum256([]byte("stead:" + strconv.Itoa(i) + ":" + id))
		tag := hex.EncodeToString(sum[:4])
		if !strings.HasPrefix(id, tag) {
			return tag
		}
	}
}

// projectHash is Gemini CLI's projectHash of a directory, and the name of
// its legacy project folder.
func projectHash(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(sum[:])
}

// resolveSlug finds the project folder's slug for dir as Gemini CLI 0.61.0
// does; claimed is true for a new slug, whose markers do not exist yet.
func resolveSlug(root, dir string) (slug string, claimed bool, err error) {
	bases := []string{filepath.Join(root, "tmp"), filepath.Join(root, "history")}
	projects, err := readProjects(filepath.Join(root, "projects.json"))
	if err != nil {
		return "", false, err
	}
	if s := projects[dir]; s != "" {
		if !validSlug(s) {
			return "", false, fmt.Errorf("gemini: projects.json maps %s to %q, which is not a folder name", dir, s)
		}
		if owned(bases, s, dir) {
			return s, false, nil
		}
		delete(projects, dir) // the CLI drops an entry whose markers disagree
	}
	for _, base := range bases {
		entries, _ := os.ReadDir(base) // sorted, as the CLI's readdir
		for _, e := range entries {
			if owner, ok := readMarker(filepath.Join(base, e.Name(), markerFile)); ok && owner == dir && validSlug(e.Name()) {
				return e.Name(), false, nil
			}
		}
	}
	taken := make(map[string]bool, len(projects))
	for _, s := range projects {
		taken[s] = true
	}
	base := slugify(filepath.Base(dir))
	for n := 0; ; n++ {
		cand := base
		if n > 0 {
			cand = base + "-" + strconv.Itoa(n)
		}
		if taken[cand] {
			continue
		}
		collides := false
		for _, b := range bases {
			m := filepath.Join(b, cand, markerFile)
			if _, err := os.Lstat(m); err == nil {
				if owner, ok := readMarker(m); !ok || owner != dir {
					collides = true
				}
			}
		}
		if !collides {
			return cand, true, nil
		}
	}
}

// readProjects reads projects.json's map of directories to slugs; a file
// that is missing, corrupt or of another shape counts as empty, as the
// CLI treats it.
func readProjects(path string) (map[string]string, error) {
	b, err := storefile.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if json.Unmarshal(b, &reg) != nil || reg.Projects == nil {
		return map[string]string{}, nil
	}
	return reg.Projects, nil
}

// owned reports whether no marker of slug names another directory (the
// CLI's verifySlugOwnership: a missing marker is no objection).
func owned(bases []string, slug, dir string) bool {
	for _, b := range bases {
		m := filepath.Join(b, slug, markerFile)
		if _, err := os.Lstat(m); errors.Is(err, os.ErrNotExist) {
			continue
		}
		if owner, ok := readMarker(m); !ok || owner != dir {
			return false
		}
	}
	return true
}

// readMarker reads a .project_root marker: the directory it names,
// trimmed, and whether it could be read.
func readMarker(path string) (string, bool) {
	b, err := storefile.ReadFile(path)
	if err != nil {
		return "", false
	}
	return filepath.Clean(strings.TrimSpace(string(b))), true
}

// validSlug reports whether s names one folder inside the store.
func validSlug(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`) && !strings.ContainsRune(s, 0)
}

var nonSlug = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]+`) })

// slugify is the CLI's slug of a folder name: lower case, every run of
// other characters one '-', none at either end; "project" when nothing is
// left.
func slugify(name string) string {
	s := strings.Trim(nonSlug().ReplaceAllString(strings.ToLower(name), "-"), "-")
	if s == "" {
		return "project"
	}
	return s
}

// migrates reports whether Gemini CLI would copy a legacy folder into the
// slug folder dir: when dir is missing or holds only its marker.
func migrates(dir string) bool {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	return len(entries) == 0 || len(entries) == 1 && entries[0].Name() == markerFile
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}
