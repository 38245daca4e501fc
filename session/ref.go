package session

import (
	"errors"
	"io/fs"
	"time"
)

// Ref names one native session file.
type Ref struct {
	CLI     string    `json:"cli"`
	ID      string    `json:"id"`
	Path    string    `json:"path"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"modTime"`
	// Parent is the id of the session that spawned this one, for a
	// subagent's file.
	Parent string `json:"parent,omitempty"`
	// Title is a title the CLI keeps outside the session file, if any.
	Title string `json:"title,omitempty"`
	// Inode is the file's inode number as Discover found it (0 when not
	// known): with Size and ModTime it tells a file that changed or was
	// replaced, without another look at the file.
	Inode uint64 `json:"-"`
}

// Env is what adapters may know of the environment when they look for a
// CLI's store: the home directory and environment variables. cmd builds it
// from the process; tests build it by hand.
type Env struct {
	Home string
	Vars map[string]string
	// Known, when set, says which session an earlier discovery found in
	// the file at ref.Path, while the file is as it was then (ref, whose
	// ID is not yet known, says the same size, modification time and
	// inode). An adapter that must open
	// a file to tell which session it holds asks Known first: the search
	// index sets it, so that a freshness pass opens no unchanged file.
	Known func(ref Ref) (id string, ok bool) `json:"-"`
	// Dirs, when set, lists a folder for an adapter's Discover in place of
	// os.ReadDir (same entries, same order, same errors): the search index
	// answers from what it listed before while the folder is unchanged.
	Dirs func(dir string) ([]fs.DirEntry, error) `json:"-"`
	// Unchanged, when set, answers an adapter's Discover for the sessions
	// of a file at path (a database, with its journals) that is now as
	// stamp says: the sessions Discover found in it the last time, and
	// true, when it has not changed since (the same stamp, taken long
	// enough after its last change to tell). Discover then does not read
	// it. The search index sets it, so that a freshness pass reads no
	// unchanged database, nor a file Discover must read to list its
	// session (OpenCode's old storage tree).
	Unchanged func(path string, stamp Stamp) ([]Ref, bool) `json:"-"`
}

// Stamp tells whether the files of a store changed: Key is the same while
// each file keeps its size, modification time and inode (or stays
// missing), and Newest is the latest of their modification times.
type Stamp struct {
	Key    string
	Newest time.Time
}

// Get returns the environment variable k, or "".
func (e Env) Get(k string) string { return e.Vars[k] }

// Sentinel errors adapters wrap.
var (
	// ErrNotFound means no session matched a reference.
	ErrNotFound = errors.New("session not found")
	// ErrAmbiguous means several sessions matched a reference.
	ErrAmbiguous = errors.New("ambiguous session reference")
	// ErrUnsupported means an adapter cannot do what was asked.
	ErrUnsupported = errors.New("not supported")
)
