package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"

	"github.com/stead-dev/stead/session"
)

// SchemaVersion is the version of the index's tables. An index of another
// version is rebuilt.
const SchemaVersion = 11

// MaxEntryText is how much of one entry's text is indexed: its start.
// (Tool outputs and file writes run to megabytes; their start is what a
// search needs, and the index stays a fraction of the sessions.)
const MaxEntryText = 32 << 10

// DefaultPath is where the index of env is kept:
// $XDG_CACHE_HOME/stead/index.db, else ~/.cache/stead/index.db.
func DefaultPath(env session.Env) string {
	if d := env.Get("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "stead", "index.db")
	}
	return filepath.Join(env.Home, ".cache", "stead", "index.db")
}

// Index is an open search index.
type Index struct {
	db   *sql.DB
	path string
	log  *slog.Logger
	// tails, set while the index is watched, are the decoders of the
	// files appended to most recently (see readTail).
	tails *tails
	// dicts are the zstd dictionaries of its entries' text (dict.go).
	dicts *dicts
	// onChange hears of each refresh of its watcher that changed it.
	onChange func(Refreshed)
	// oneAnswer: the manifest is mapped, not read (see ForOneAnswer).
	oneAnswer bool
	// ftDir holds the full-text segments' files (segments table).
	ftDir string
}

// ForOneAnswer says the index serves one command of a process that ends
// soon after (search, list, stats, index): the manifest is then mapped
// into memory instead of read, and stays mapped until the process ends.
// Read, the 10,000-session corpus's 5.4 MB manifest was 1,250 pages new
// to the process, and its copy 3-4 ms of a 49 ms freshness check
// (docs/performance.md). A long-lived process (a watcher, the daemon)
// does not call it: it would keep every refresh's manifest mapped.
func (ix *Index) ForOneAnswer() { ix.oneAnswer = true }

// OnChange makes fn hear of each refresh of the index's watcher (Watch)
// that changed the index, with what the refresh did: a front end shows
// the sessions again. Set it before Watch. fn is called from the
// watcher's loop: it must return at once.
func (ix *Index) OnChange(fn func(Refreshed)) { ix.onChange = fn }

const schema = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (
	id      INTEGER PRIMARY KEY,
	cli     TEXT NOT NULL,
	sid     TEXT NOT NULL,
	path    TEXT NOT NULL,
	size    INTEGER NOT NULL,
	mtime   INTEGER NOT NULL,
	inode   INTEGER NOT NULL,
	host    TEXT NOT NULL,
	project TEXT NOT NULL,
	title   TEXT NOT NULL,
	start   INTEGER NOT NULL,
	end     INTEGER NOT NULL,
	entries INTEGER NOT NULL,
	-- What list shows (warnings and skipped: what a read at list
	-- detail finds), and stats counts (summary: session.Summary with
	-- its usage buckets and responses, as encodeSummary writes it).
	reftitle TEXT NOT NULL,
	messages INTEGER NOT NULL,
	turns    INTEGER NOT NULL,
	parent   TEXT NOT NULL,
	warnings TEXT NOT NULL,
	skipped  INTEGER NOT NULL,
	sumsize  INTEGER NOT NULL,
	summary  TEXT NOT NULL,
	-- The live run whose entries, as its bus carried them, the row
	-- holds; '' for a session read from a store.
	run      TEXT NOT NULL DEFAULT '',
	-- The time of its latest entry (Unix nanoseconds, 0 for none) and
	-- the smallest id of its entries (0 for none): a search --since
	-- walks no match older than the first entry of the sessions that
	-- reach past its time (see Index.search).
	last     INTEGER NOT NULL DEFAULT 0,
	first    INTEGER NOT NULL DEFAULT 0,
	UNIQUE (cli, sid, path)
);
CREATE INDEX sessions_last ON sessions (last, first);
-- An entry's id is never given again (AUTOINCREMENT): the full-text
-- segments keep the ids of entries dropped since, until a merge leaves
-- them out, and a search skips them.
CREATE TABLE entries (
	id      INTEGER PRIMARY KEY AUTOINCREMENT,
	session INTEGER NOT NULL,
	entry   TEXT NOT NULL,
	time    INTEGER NOT NULL,
	role    TEXT NOT NULL,
	tool    TEXT NOT NULL,
	model   TEXT NOT NULL,
	text    BLOB NOT NULL -- packText: compressed (the full-text index keeps only its words)
);
CREATE INDEX entries_session ON entries (session);
-- The full-text index's segments (ftbuild.go), files in the folder
-- beside the database (Index.ftDir): each the words of the entries a
-- transaction wrote, or a merge of segments; first and last are the
-- smallest and largest entry id it holds, docs how many entries.
CREATE TABLE segments (
	id    INTEGER PRIMARY KEY,
	file  TEXT NOT NULL UNIQUE,
	first INTEGER NOT NULL,
	last  INTEGER NOT NULL,
	docs  INTEGER NOT NULL,
	bytes INTEGER NOT NULL
);
`

// ErrNoIndex is OpenMade's error when no index was made at its path.
var ErrNoIndex = errors.New("no search index was made (stead index makes one)")

// OpenMade opens the index at path when one was made there, and makes
// none: list, stats and the daemon's answers use an index only when the
// user has one. ErrNoIndex (wrapped) otherwise.
func OpenMade(ctx context.Context, path string, log *slog.Logger) (*Index, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("index: %s: %w", path, ErrNoIndex)
	}
	return Open(ctx, path, log)
}

// Open opens the index at path, making it (and its folder) when there is
// none. An index of another schema version is emptied and made again; a
// file that is not a database SQLite can read is moved aside (to
// path.corrupt-<time>), with a warning on log, and a new one made.
func Open(ctx context.Context, path string, log *slog.Logger) (*Index, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	ix, err := open(ctx, path, log)
	if err == nil || !errors.Is(err, errUnreadable) {
		return ix, err
	}
	aside := fmt.Sprintf("%s.corrupt-%s", path, time.Now().UTC().Format("20060102T150405"))
	log.Warn("the search index cannot be read: moved aside, and made again", "path", path, "aside", aside, "err", err)
	if rerr := os.Rename(path, aside); rerr != nil {
		return nil, fmt.Errorf("index: %s cannot be read (%v), nor moved aside: %w", path, err, rerr)
	}
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
	os.Remove(manifestFile(path))
	os.RemoveAll(segmentsDir(path))
	return open(ctx, path, log)
}

// Remove removes the index at path, and every file it keeps beside it
// (stead index --rebuild). An index that is not there is no error.
func Remove(path string) error {
	for _, p := range []string{path, path + "-wal", path + "-shm", manifestFile(path)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("index: %w", err)
		}
	}
	if err := os.RemoveAll(segmentsDir(path)); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	return nil
}

// errUnreadable is an index file SQLite cannot read.
var errUnreadable = errors.New("not a readable index")

func open(ctx context.Context, path string, log *slog.Logger) (*Index, error) {
	// The file is the user's alone: made 0600 before SQLite opens it.
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600); err == nil {
		f.Close()
	}
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	ix := &Index{db: db, path: path, log: log, dicts: &dicts{db: db, log: log}, ftDir: segmentsDir(path)}
	if err := os.MkdirAll(ix.ftDir, 0o700); err != nil {
		db.Close()
		return nil, fmt.Errorf("index: %w", err)
	}
	if err := ix.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := ix.dropStraySegments(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if _, err := db.ExecContext(ctx, dictsTable); err != nil {
		db.Close()
		return nil, fmt.Errorf("index: %w", err)
	}
	return ix, nil
}

// migrate makes the tables, or remakes them for another schema version.
func (ix *Index) migrate(ctx context.Context) error {
	var version string
	err := ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema'`).Scan(&version)
	switch {
	case err == nil && version == strconv.Itoa(SchemaVersion):
		return nil
	case err == nil:
		ix.log.Info("the search index is of another version: rebuilding it", "path", ix.path, "version", version, "want", SchemaVersion)
	case errors.Is(err, sql.ErrNoRows):
	default:
		var n int
		if qerr := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&n); qerr != nil {
			return fmt.Errorf("index: %s: %w: %v", ix.path, errUnreadable, qerr)
		}
		if n > 0 && !isNoTable(err) {
			return fmt.Errorf("index: %s: %w: %v", ix.path, errUnreadable, err)
		}
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT type, name FROM sqlite_master WHERE type IN ('table', 'trigger') AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'entry_fts_%'`)
	if err != nil {
		return fmt.Errorf("index: %s: %w: %v", ix.path, errUnreadable, err)
	}
	var drop []string
	for rows.Next() {
		var typ, name string
		if err := rows.Scan(&typ, &name); err != nil {
			rows.Close()
			return fmt.Errorf("index: %w", err)
		}
		drop = append(drop, fmt.Sprintf("DROP %s IF EXISTS %q", typ, name))
	}
	rows.Close()
	for _, stmt := range drop {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("index: rebuilding: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("index: making the tables: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('schema', ?), ('created', ?)`,
		strconv.Itoa(SchemaVersion), time.Now().UTC().Format(time.RFC3339)); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	// The segments of the index it was are no one's now.
	old, _ := filepath.Glob(filepath.Join(ix.ftDir, "*"+segExt))
	for _, f := range old {
		os.Remove(f)
	}
	return nil
}

func isNoTable(err error) bool {
	return err != nil && containsFold(err.Error(), "no such table")
}

// Close closes the index.
func (ix *Index) Close() error { return ix.db.Close() }

// Path is the index's file.
func (ix *Index) Path() string { return ix.path }

// Status is what the index holds.
type Status struct {
	Path string `json:"path"`
	// Sessions and Entries count what the index holds of the stores;
	// Runs the live runs it holds as their bus carried them (and
	// RunEntries their entries), see RunFeed.
	Sessions   int `json:"sessions"`
	Entries    int `json:"entries"`
	Runs       int `json:"runs"`
	RunEntries int `json:"runEntries"`
	// Bytes is the size of the index's files; Indexed the size of the
	// sessions it holds.
	Bytes   int64     `json:"bytes"`
	Indexed int64     `json:"indexedBytes"`
	Refresh time.Time `json:"lastRefresh,omitzero"`
	Schema  int       `json:"schema"`
}

// Status says what the index holds.
func (ix *Index) Status(ctx context.Context) (Status, error) {
	st := Status{Path: ix.path, Schema: SchemaVersion}
	// The counts the last refresh that changed the sessions recorded;
	// counted (a scan of the tables) when there are none.
	var sessions, entries, indexed sql.NullInt64
	if err := ix.db.QueryRowContext(ctx, `SELECT
		(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'sessions'),
		(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'entries'),
		(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'indexed')`).Scan(&sessions, &entries, &indexed); err != nil {
		return st, fmt.Errorf("index: %w", err)
	}
	st.Sessions, st.Entries, st.Indexed = int(sessions.Int64), int(entries.Int64), indexed.Int64
	if !sessions.Valid || !indexed.Valid {
		// A file of many sessions (a database) counts once.
		if err := ix.db.QueryRowContext(ctx, `SELECT coalesce(sum(n), 0), coalesce(sum(size), 0)
			FROM (SELECT count(*) AS n, max(size) AS size FROM sessions WHERE run = '' GROUP BY path)`).Scan(&st.Sessions, &st.Indexed); err != nil {
			return st, fmt.Errorf("index: %w", err)
		}
	}
	if !entries.Valid {
		if err := ix.db.QueryRowContext(ctx, `SELECT coalesce(sum(entries), 0) FROM sessions WHERE run = ''`).Scan(&st.Entries); err != nil {
			return st, fmt.Errorf("index: %w", err)
		}
	}
	if err := ix.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(entries), 0) FROM sessions WHERE run != ''`).Scan(&st.Runs, &st.RunEntries); err != nil {
		return st, fmt.Errorf("index: %w", err)
	}
	var refreshed string
	if ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'refreshed'`).Scan(&refreshed) == nil {
		st.Refresh, _ = time.Parse(time.RFC3339Nano, refreshed)
	}
	// A refresh that changed nothing recorded its end in the manifest
	// file's time (see refreshed).
	if fi, err := os.Stat(manifestFile(ix.path)); err == nil && fi.ModTime().After(st.Refresh) {
		st.Refresh = fi.ModTime().UTC()
	}
	for _, p := range []string{ix.path, ix.path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			st.Bytes += fi.Size()
		}
	}
	var words int64
	if err := ix.db.QueryRowContext(ctx, `SELECT coalesce(sum(bytes), 0) FROM segments`).Scan(&words); err != nil {
		return st, fmt.Errorf("index: %w", err)
	}
	st.Bytes += words
	return st, nil
}
