package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/adapters/internal/jsonread"
	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// Root returns Codex's home: $CODEX_HOME, or ~/.codex.
func Root(env session.Env) string {
	if d := env.Get("CODEX_HOME"); d != "" {
		return d
	}
	if env.Home == "" {
		return ""
	}
	return filepath.Join(env.Home, ".codex")
}

// storeDirs are the folders under the home that hold rollouts.
var storeDirs = []string{"sessions", "archived_sessions"}

// IDFromName returns the thread id in a rollout file name
// (rollout-<time>-<uuid>.jsonl), or "" when the name is not a rollout's.
func IDFromName(name string) string {
	if !strings.HasPrefix(name, "rollout-") || !strings.HasSuffix(name, ".jsonl") {
		return ""
	}
	stem := strings.TrimSuffix(name, ".jsonl")
	if len(stem) >= len("rollout-")+36 {
		if id := stem[len(stem)-36:]; isUUID(id) {
			return id
		}
	}
	return strings.TrimPrefix(stem, "rollout-")
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// Roots is where Discover looks without listing through env.Dirs: the
// home (session_index.jsonl, and the sessions folders it lists).
func Roots(env session.Env) []string { return storefile.Roots(Root(env)) }

// Discover lists Codex rollouts under sessions/ and archived_sessions/, with
// the thread names the TUI recorded in session_index.jsonl as titles.
// Folders it cannot read are reported as warnings; a missing home is not an
// error.
func Discover(env session.Env) ([]session.Ref, []session.Warning) {
	root := Root(env)
	if root == "" {
		return nil, nil
	}
	w := walker{env: env}
	for _, dir := range storeDirs {
		w.walk(filepath.Join(root, dir), true)
	}
	refs, warns := w.refs, w.warns
	titles, iw := readIndex(filepath.Join(root, "session_index.jsonl"))
	warns = append(warns, iw...)
	if len(titles) > 0 {
		for i := range refs {
			refs[i].Title = titles[refs[i].ID]
		}
	}
	return refs, warns
}

// walker finds the rollouts under a folder, listing folders through
// env.Dirs: the search index answers a folder it listed before, unchanged
// since, from what it listed, and watches the folders it listed.
type walker struct {
	env   session.Env
	refs  []session.Ref
	warns []session.Warning
}

// walk finds the rollouts in dir and the folders below it, in name order;
// a folder it cannot read is a warning, a missing top folder is not.
// Links to folders are not followed below the top.
func (w *walker) walk(dir string, top bool) {
	entries, err := storefile.ReadDir(w.env, dir)
	if err != nil {
		if !top || !errors.Is(err, fs.ErrNotExist) {
			w.warns = append(w.warns, session.Warning{Path: dir, Message: "cannot read: " + err.Error()})
		}
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		id := IDFromName(e.Name())
		if id == "" {
			if e.IsDir() {
				w.walk(p, false)
			}
			continue
		}
		// A rollout that is not a regular file (a folder, a named pipe)
		// is reported and never opened; a link to one is followed.
		info, err := storefile.Check(p)
		if err != nil {
			w.warns = append(w.warns, storefile.Skipped(p, err))
			continue
		}
		w.refs = append(w.refs, storefile.RefAt(session.Codex, id, p, info))
	}
}

// readIndex reads session_index.jsonl: {"id","thread_name","updated_at"}
// per line, the last name for an id winning. A line that is not such a
// record is a warning naming it, and the rest is read.
func readIndex(path string) (map[string]string, []session.Warning) {
	f, err := storefile.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, []session.Warning{storefile.Skipped(path, err)}
	}
	defer f.Close()
	titles := make(map[string]string)
	var warns []session.Warning
	r := jsonl.NewReader(f)
	var p jsonread.Parser
	for r.Next() {
		var e threadName
		// The fast reader first: the file is read at every listing and
		// freshness check, a line for each thread (2,000 lines took
		// encoding/json 3 ms of a 38 ms check).
		if !p.Parse(r.Line(), &e) {
			e = threadName{}
			if err := json.Unmarshal(r.Line(), &e); err != nil {
				warns = append(warns, session.Warning{Path: path, Line: r.LineNo(), Message: "not a thread name record: " + err.Error()})
				continue
			}
		}
		if e.ID != "" && e.ThreadName != "" {
			titles[e.ID] = e.ThreadName
		}
	}
	if err := r.Err(); err != nil {
		warns = append(warns, session.Warning{Path: path, Message: "cannot read: " + err.Error()})
	}
	return titles, warns
}

// threadName is a record of session_index.jsonl: a thread's title.
type threadName struct {
	ID         string `json:"id"`
	ThreadName string `json:"thread_name"`
}

var threadNameNames = jsonread.Names(reflect.TypeFor[threadName]())

func (t *threadName) Names() map[string]bool { return threadNameNames }

func (t *threadName) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "id":
		p.Str(&t.ID)
		return 1
	case "thread_name":
		p.Str(&t.ThreadName)
		return 2
	}
	return 0
}

// ValidID reports whether id can name a thread: only the characters of a
// UUID and of plain names, so an id from input cannot reach outside the
// store or act as a glob pattern.
func ValidID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Locate finds the rollout of the thread with the given id, as Codex does
// for resume: any rollout-*<id>*.jsonl under sessions/ (or
// archived_sessions/).
func Locate(env session.Env, id string) (string, error) {
	if !ValidID(id) {
		return "", fmt.Errorf("codex: invalid thread id %q: %w", id, session.ErrNotFound)
	}
	root := Root(env)
	if root == "" {
		return "", fmt.Errorf("codex: no home directory (set CODEX_HOME or HOME): %w", session.ErrNotFound)
	}
	var found []string
	for _, dir := range storeDirs {
		_ = filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if IDFromName(d.Name()) == id {
				found = append(found, p)
			}
			return nil
		})
	}
	found, skipped := storefile.Regular(found)
	switch {
	case len(found) == 0 && skipped != nil:
		return "", fmt.Errorf("codex: thread %s: %w: %w", id, skipped, session.ErrNotFound)
	case len(found) == 0:
		return "", fmt.Errorf("codex: thread %s in %s: %w", id, root, session.ErrNotFound)
	case len(found) == 1:
		return found[0], nil
	}
	return "", fmt.Errorf("codex: thread %s matches %d files (%s): %w", id, len(found), strings.Join(found, ", "), session.ErrAmbiguous)
}
