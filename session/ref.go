package session

import (
	"errors"
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
}

// Env is what adapters may know of the environment when they look for a
// CLI's store: the home directory and environment variables. cmd builds it
// from the process; tests build it by hand.
type Env struct {
	Home string
	Vars map[string]string
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
