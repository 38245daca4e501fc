package opencode

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// storeKind says what a file holds.
type storeKind int

const (
	kindExport storeKind = iota
	kindDB
	kindStorage
)

// fileKind tells a database from an export or a storage/ session file by
// the file's first bytes and place.
func fileKind(path string) (storeKind, error) {
	if path == "" {
		return 0, fmt.Errorf("opencode: no file named: %w", session.ErrNotFound)
	}
	f, err := storefile.Open(path)
	if err != nil {
		return 0, fmt.Errorf("opencode: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("opencode: %w", err)
	}
	if fi.IsDir() {
		return 0, fmt.Errorf("opencode: %s is a directory, not a database or an export", path)
	}
	head := make([]byte, len(sqliteMagic))
	n, _ := io.ReadFull(f, head)
	if bytes.Equal(head[:n], sqliteMagic) {
		return kindDB, nil
	}
	if strings.HasSuffix(path, ".db") {
		return 0, fmt.Errorf("opencode: %s is not a SQLite database (no SQLite header)", path)
	}
	if isStorageSessionFile(path) {
		return kindStorage, nil
	}
	return kindExport, nil
}

// Open decodes the session ref names. ref.Path is a database (with ref.ID
// the session; without one, the database must hold exactly one session),
// an export file, or a session file of the storage/ tree; a Ref with an ID
// and no Path is looked up in the store env points at. Subagent sessions
// are linked, not inlined: Session.Parent names a subagent's parent and
// Session.Subagents the sessions a session spawned.
func Open(env session.Env, ref session.Ref) (*session.Session, error) { return open(env, ref, true) }

// OpenConversation is Open without the native records of a session in a
// database: for the search index, which keeps only the conversation.
func OpenConversation(env session.Env, ref session.Ref) (*session.Session, error) {
	return open(env, ref, false)
}

func open(env session.Env, ref session.Ref, records bool) (*session.Session, error) {
	ref, kind, err := located(env, ref)
	if err != nil {
		return nil, err
	}
	return openAs(ref, kind, records)
}

// located is ref with its file (Locate finds it for a Ref of an ID
// alone), and what kind of file that is.
func located(env session.Env, ref session.Ref) (session.Ref, storeKind, error) {
	if ref.Path == "" {
		r, err := Locate(env, ref.ID)
		if err != nil {
			return ref, 0, err
		}
		ref = r
	}
	kind, err := fileKind(ref.Path)
	return ref, kind, err
}

// sessionOf is the id of the session a Ref of a database names: its ID,
// or the database's one session when it names none.
func sessionOf(ref session.Ref) (string, error) {
	if ref.ID != "" {
		return ref.ID, nil
	}
	return onlySession(ref.Path)
}

// openAs is open of ref's file, of kind.
func openAs(ref session.Ref, kind storeKind, records bool) (*session.Session, error) {
	switch kind {
	case kindDB:
		id, err := sessionOf(ref)
		if err != nil {
			return nil, err
		}
		return readDBKeeping(ref.Path, id, records, nil)
	case kindStorage:
		return readStorage(ref.Path)
	}
	f, err := storefile.Open(ref.Path)
	if err != nil {
		return nil, fmt.Errorf("opencode: %w", err)
	}
	defer f.Close()
	return readExport(f, ref.Path)
}

// ReadFile decodes the database, export or storage/ session file at path
// (see Open).
func ReadFile(path string) (*session.Session, error) {
	return Open(session.Env{}, session.Ref{CLI: session.OpenCode, Path: path})
}

// Sniff reports whether a line looks like OpenCode's: the first line of
// its database (the SQLite header), or a line of an export or storage/
// file (pretty-printed, as opencode export writes it, or compact).
func Sniff(line []byte) bool {
	if bytes.HasPrefix(line, sqliteMagic) {
		return true
	}
	t := bytes.TrimSpace(line)
	if bytes.HasPrefix(t, []byte(`{"info":{`)) && bytes.Contains(t, []byte(`"ses_`)) {
		return true // a compact export
	}
	for _, p := range sniffPrefixes {
		if bytes.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// sniffPrefixes start lines of a pretty-printed export or storage/ file.
var sniffPrefixes = [][]byte{
	[]byte(`"id": "ses_`), []byte(`"sessionID": "ses_`), []byte(`"messageID": "msg_`),
	[]byte(`"id": "msg_`), []byte(`"id": "prt_`), []byte(`"projectID": "`),
}
