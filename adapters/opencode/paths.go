package opencode

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// DataDir returns OpenCode's data directory: $XDG_DATA_HOME/opencode, or
// ~/.local/share/opencode (on every platform: OpenCode follows the XDG
// layout everywhere). It is "" when neither is known.
func DataDir(env session.Env) string {
	if d := env.Get("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "opencode")
	}
	if env.Home == "" {
		return ""
	}
	return filepath.Join(env.Home, ".local", "share", "opencode")
}

// Roots is where Discover looks without listing through env.Dirs: the
// data directory (its opencode*.db), $OPENCODE_DB, and the old storage/
// tree (it lists storage/session/ in it).
func Roots(env session.Env) []string {
	dir := DataDir(env)
	var db string
	if p := env.Get("OPENCODE_DB"); p != "" && p != ":memory:" {
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		if filepath.IsAbs(p) {
			db = p
		}
	}
	return storefile.Roots(dir, db, StorageDir(env))
}

// Databases returns the database files of the store env points at:
// $OPENCODE_DB when it is set (an absolute path, or one relative to the
// data directory; ":memory:" names none), else every opencode*.db in the
// data directory (opencode.db, and opencode-<channel>.db of other release
// channels), sorted. Only files that exist are returned.
func Databases(env session.Env) []string {
	dbs, _ := databases(env)
	return dbs
}

// databases is Databases also reporting the database paths that exist
// but are not regular files (a folder, a named pipe), which are skipped,
// never opened.
func databases(env session.Env) ([]string, []session.Warning) {
	dir := DataDir(env)
	var paths []string
	if p := env.Get("OPENCODE_DB"); p != "" {
		if p == ":memory:" {
			return nil, nil
		}
		if !filepath.IsAbs(p) {
			if dir == "" {
				return nil, nil
			}
			p = filepath.Join(dir, p)
		}
		paths = []string{p}
	} else if dir != "" {
		paths, _ = filepath.Glob(filepath.Join(dir, "opencode*.db"))
		sort.Strings(paths)
	}
	var dbs []string
	var warns []session.Warning
	for _, p := range paths {
		_, err := storefile.Check(p)
		switch {
		case err == nil:
			dbs = append(dbs, p)
		case errors.Is(err, storefile.ErrNotRegular):
			warns = append(warns, storefile.Skipped(p, err))
		}
	}
	return dbs, warns
}

// StorageDir returns the folder of the JSON tree OpenCode kept before its
// database (and still migrates from): <data dir>/storage.
func StorageDir(env session.Env) string {
	dir := DataDir(env)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "storage")
}

// ValidID reports whether id can name an OpenCode session: "ses_"
// followed by letters, digits and underscores, so that an id from input
// can neither reach outside the store nor act as a glob pattern.
func ValidID(id string) bool {
	if len(id) <= len("ses_") || len(id) > 128 || !strings.HasPrefix(id, "ses_") {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	return true
}

// Discover lists the sessions of every database of the store env points
// at, from the session table alone (no message is read), and the sessions
// of the old storage/ tree that no database holds. A session in a database
// is a Ref whose Path is the database and whose ID is the session's id;
// its Size is 0, since its rows share one file (SummarizeFile reports the
// size of its rows), and its ModTime is the session's time_updated.
// Databases or folders that cannot be read are reported as warnings; a
// missing store is not an error.
func Discover(env session.Env) ([]session.Ref, []session.Warning) {
	var refs []session.Ref
	seen := map[string]bool{}
	dbs, warns := databases(env)
	for _, db := range dbs {
		r, w, err := discoverDB(env, db)
		if err != nil {
			warns = append(warns, session.Warning{Path: db, Message: "cannot read: " + err.Error()})
			continue
		}
		if w != "" {
			warns = append(warns, session.Warning{Path: db, Message: w})
		}
		for _, ref := range r {
			seen[ref.ID] = true
		}
		refs = append(refs, r...)
	}
	r, w := discoverStorage(env, StorageDir(env), seen)
	return append(refs, r...), append(warns, w...)
}

// discoverDB lists the sessions of the database at path, unless env says
// they are as it found them the last time (env.Unchanged).
func discoverDB(env session.Env, path string) ([]session.Ref, string, error) {
	if env.Unchanged != nil {
		// Its files: a write goes to the write-ahead log, or through a
		// rollback journal to the database itself.
		if stamp, err := storefile.StampOf(path, path+"-wal", path+"-journal"); err == nil {
			if refs, ok := env.Unchanged(path, stamp); ok {
				return refs, "", nil
			}
		}
	}
	st, err := openStore(path)
	if err != nil {
		return nil, "", err
	}
	rows, err := st.query(`SELECT id, coalesce(parent_id, ''), title, time_updated FROM session ORDER BY time_updated DESC, id`)
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	var refs []session.Ref
	for rows.Next() {
		var id, parent, title string
		var updated int64
		if err := rows.Scan(&id, &parent, &title, &updated); err != nil {
			return nil, "", st.wrap("read sessions of", err)
		}
		refs = append(refs, session.Ref{
			CLI: session.OpenCode, ID: id, Path: path, ModTime: msTime(updated),
			Parent: parent, Title: realTitle(title),
		})
	}
	if err := rows.Err(); err != nil {
		return nil, "", st.wrap("read sessions of", err)
	}
	return refs, st.warning, nil
}

// storageSessionFiles lists storage/session/<project>/ses_*.json, sorted,
// as filepath.Glob would, its folders through env.Dirs (the search index
// watches the folders Discover lists).
func storageSessionFiles(env session.Env, dir string) []string {
	if dir == "" {
		return nil
	}
	var files []string
	root := filepath.Join(dir, "session")
	projects, _ := storefile.ReadDir(env, root)
	for _, p := range projects {
		if !p.IsDir() && p.Type()&fs.ModeSymlink == 0 {
			continue
		}
		sessions, _ := storefile.ReadDir(env, filepath.Join(root, p.Name()))
		for _, f := range sessions {
			if ok, _ := filepath.Match("ses_*.json", f.Name()); ok {
				files = append(files, filepath.Join(root, p.Name(), f.Name()))
			}
		}
	}
	sort.Strings(files)
	return files
}

func discoverStorage(env session.Env, dir string, skip map[string]bool) ([]session.Ref, []session.Warning) {
	var refs []session.Ref
	var warns []session.Warning
	for _, f := range storageSessionFiles(env, dir) {
		id := strings.TrimSuffix(filepath.Base(f), ".json")
		if !ValidID(id) || skip[id] {
			continue
		}
		in, err := storefile.Check(f)
		if err != nil {
			warns = append(warns, storefile.Skipped(f, err))
			continue
		}
		if env.Unchanged != nil {
			// Read only when it changed since the last listing.
			if was, ok := env.Unchanged(f, in.Stamp()); ok && len(was) == 1 && was[0].ID == id {
				refs = append(refs, was[0])
				continue
			}
		}
		info, err := readStorageInfo(f)
		if err != nil {
			warns = append(warns, session.Warning{Path: f, Message: "cannot read: " + err.Error()})
			continue
		}
		mod := msTime(int64(info.Time.Updated))
		if mod.IsZero() {
			mod = in.ModTime
		}
		refs = append(refs, session.Ref{
			CLI: session.OpenCode, ID: id, Path: f, Size: in.Size, ModTime: mod, Inode: in.Inode,
			Parent: info.ParentID, Title: realTitle(info.Title),
		})
	}
	return refs, warns
}

// Locate finds the session with the given id: in a database of the store
// env points at (the Ref's Path is the database), else in the old
// storage/ tree (its session file). Ids that are not "ses_…" are not
// found.
func Locate(env session.Env, id string) (session.Ref, error) {
	if !ValidID(id) {
		return session.Ref{}, fmt.Errorf("opencode: invalid session id %q (want ses_…): %w", id, session.ErrNotFound)
	}
	dir := DataDir(env)
	if dir == "" && env.Get("OPENCODE_DB") == "" {
		return session.Ref{}, fmt.Errorf("opencode: no data directory (set XDG_DATA_HOME, OPENCODE_DB or HOME): %w", session.ErrNotFound)
	}
	var errs []error
	for _, db := range Databases(env) {
		ref, err := locateDB(db, id)
		if err == nil {
			return ref, nil
		}
		if !errors.Is(err, session.ErrNotFound) {
			errs = append(errs, err)
		}
	}
	if sd := StorageDir(env); sd != "" {
		matches, _ := filepath.Glob(filepath.Join(sd, "session", "*", id+".json"))
		for _, m := range matches {
			in, err := storefile.Check(m)
			if err == nil {
				return session.Ref{CLI: session.OpenCode, ID: id, Path: m, Size: in.Size, ModTime: in.ModTime}, nil
			}
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		// A store that could not be read may hold it: that is what went
		// wrong, not that there is no such session.
		return session.Ref{}, fmt.Errorf("opencode: session %s: %w", id, errors.Join(errs...))
	}
	where := dir
	if where == "" {
		where = env.Get("OPENCODE_DB")
	}
	return session.Ref{}, fmt.Errorf("opencode: session %s in %s: %w", id, where, session.ErrNotFound)
}

func locateDB(path, id string) (session.Ref, error) {
	st, err := openStore(path)
	if err != nil {
		return session.Ref{}, err
	}
	rows, err := st.query(`SELECT coalesce(parent_id, ''), title, time_updated FROM session WHERE id = ?`, id)
	if err != nil {
		return session.Ref{}, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return session.Ref{}, st.wrap("look up session in", err)
		}
		return session.Ref{}, fmt.Errorf("opencode: session %s in %s: %w", id, path, session.ErrNotFound)
	}
	var parent, title string
	var updated int64
	if err := rows.Scan(&parent, &title, &updated); err != nil {
		return session.Ref{}, st.wrap("look up session in", err)
	}
	return session.Ref{CLI: session.OpenCode, ID: id, Path: path, ModTime: msTime(updated), Parent: parent, Title: realTitle(title)}, nil
}

// isStorageSessionFile reports whether path is a session file of the
// storage/ tree: storage/session/<project>/<id>.json.
func isStorageSessionFile(path string) bool {
	dir := filepath.Dir(path)
	return filepath.Base(filepath.Dir(dir)) == "session" &&
		filepath.Base(filepath.Dir(filepath.Dir(dir))) == "storage" &&
		ValidID(strings.TrimSuffix(filepath.Base(path), ".json")) && strings.HasSuffix(path, ".json")
}
