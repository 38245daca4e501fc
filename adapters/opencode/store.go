package opencode

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"modernc.org/sqlite"

	"github.com/stead-dev/stead/adapters/internal/storefile"
)

// SQLite's primary result codes that wrap explains (sqlite3.h).
const (
	sqliteBusy     = 5
	sqliteLocked   = 6
	sqliteCorrupt  = 11
	sqliteCantOpen = 14
	sqliteNotADB   = 26
)

// sqliteMagic starts every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// busyTimeout is how long a query waits for a lock another process holds
// (OpenCode itself uses 5 s). Tests shorten it.
var busyTimeout = 5 * time.Second

// openMode is how a database file is opened. Every mode is read-only and
// none creates, writes or checkpoints anything: the -wal and -shm files
// OpenCode keeps beside its database are read as they are, or not at all.
type openMode int

const (
	// modeRollback reads a database in rollback-journal mode (not WAL):
	// mode=ro takes shared locks only.
	modeRollback openMode = iota
	// modeWAL reads a WAL database whose -wal and -shm exist. readonly_shm
	// makes SQLite map the -shm read-only: while OpenCode runs it reads
	// through OpenCode's index without writing a read mark (so it may
	// miss the newest commit until OpenCode reads it itself); when no
	// process holds the database it rebuilds the index in its own memory
	// from the -wal. Plain mode=ro would write to the -shm, and create it
	// and the -wal when they are missing.
	modeWAL
	// modeImmutable reads the database file alone, with no locks: for a
	// WAL database without a -wal (OpenCode is not running, or has not
	// written since its last checkpoint), and as the fallback when the
	// -wal exists but the -shm does not, in which case SQLite could only
	// read the -wal by creating a -shm.
	modeImmutable
)

func (m openMode) String() string {
	switch m {
	case modeWAL:
		return "wal"
	case modeImmutable:
		return "immutable"
	}
	return "rollback"
}

// A store is a read-only pool of connections to one OpenCode database.
// Stores are cached for the life of the process (see stores), so that the
// catalog's many SummarizeFile calls on one database share one pool and
// its prepared statements.
type store struct {
	path string
	mode openMode
	// warning is set when the database is read without its -wal.
	warning string
	db      *sql.DB
	// metadata says the session table has a metadata column (OpenCode
	// added it in 2026-05).
	metadata bool

	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

// stores caches one store per database path and open mode, for the life
// of the process. The mode is settled again (two stats) when the last
// check of a database is older than recheck, so that a long-lived process
// follows OpenCode starting or stopping while ten thousand summaries in a
// row cost no system call each. A store left behind by a change of mode
// stays open: at most three per database.
var stores struct {
	mu sync.Mutex
	m  map[string]*store
	// current is the store last settled for each database path.
	current map[string]*current
}

type current struct {
	st      *store
	wal     bool
	checked time.Time
}

// recheck is how long a settled open mode is trusted.
const recheck = time.Second

// openStore returns the cached read-only store of the database at path,
// opening it on first use. It fails with a clear error when the file is
// missing, is not a SQLite database or has no OpenCode tables; it never
// creates a file.
func openStore(path string) (*store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("opencode: %w", err)
	}
	stores.mu.Lock()
	defer stores.mu.Unlock()
	cur := stores.current[abs]
	if cur != nil && time.Since(cur.checked) < recheck {
		return cur.st, nil
	}
	var wal bool
	if cur != nil {
		if _, err := os.Stat(abs); err != nil {
			delete(stores.current, abs)
			return nil, fmt.Errorf("opencode: %w", err)
		}
		wal = cur.wal
	} else if wal, err = headerWAL(abs); err != nil {
		return nil, err
	}
	mode, warning := chooseMode(abs, wal)
	key := abs + "\x00" + mode.String()
	st, ok := stores.m[key]
	if !ok {
		if st, err = newStore(abs, mode, warning); err != nil {
			return nil, err
		}
		if stores.m == nil {
			stores.m = make(map[string]*store)
			stores.current = make(map[string]*current)
		}
		stores.m[key] = st
	}
	stores.current[abs] = &current{st: st, wal: wal, checked: time.Now()}
	return st, nil
}

// releaseStores closes the read-only stores of the database at path, so
// that this process can write to it: SQLite shares one mapping of a
// database's -shm among all the process's connections to it, and a
// mapping a readonly_shm reader made read-only makes every write fail
// (SQLITE_READONLY). Queries under way finish first; the next openStore
// opens the database again.
func releaseStores(path string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return
	}
	stores.mu.Lock()
	defer stores.mu.Unlock()
	delete(stores.current, abs)
	for key, st := range stores.m {
		if st.path == abs {
			delete(stores.m, key)
			st.db.Close()
		}
	}
}

// isOpenStore reports whether path is a database a store was opened on.
func isOpenStore(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	stores.mu.Lock()
	defer stores.mu.Unlock()
	_, ok := stores.current[abs]
	return ok
}

// headerWAL reads the database header: it checks the file is a SQLite
// database and reports whether it is in WAL mode (file format versions 2).
func headerWAL(path string) (bool, error) {
	f, err := storefile.Open(path)
	if err != nil {
		return false, fmt.Errorf("opencode: %w", err)
	}
	defer f.Close()
	var h [100]byte
	n, err := io.ReadFull(f, h[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("opencode: read %s: %w", path, err)
	}
	if n < len(h) || !bytes.HasPrefix(h[:], sqliteMagic) {
		return false, fmt.Errorf("opencode: %s is not a SQLite database (no SQLite header)", path)
	}
	return h[18] == 2 || h[19] == 2, nil
}

// chooseMode settles how to open a database from the files beside it.
func chooseMode(path string, wal bool) (openMode, string) {
	if !wal {
		return modeRollback, ""
	}
	wi, err := os.Stat(path + "-wal")
	if err != nil || wi.Size() == 0 {
		return modeImmutable, ""
	}
	if _, err := os.Stat(path + "-shm"); err != nil {
		return modeImmutable, fmt.Sprintf("%s-wal exists but %s-shm does not: read the database file without its write-ahead log (a reader cannot use the log without creating the -shm), so the newest changes may be missing", filepath.Base(path), filepath.Base(path))
	}
	return modeWAL, ""
}

// dsn builds the connection string for path in mode.
func dsn(path string, mode openMode) string {
	q := url.Values{}
	q.Set("mode", "ro")
	switch mode {
	case modeWAL:
		q.Set("readonly_shm", "1")
	case modeImmutable:
		q.Set("immutable", "1")
	}
	q.Set("_busy_timeout", strconv.FormatInt(busyTimeout.Milliseconds(), 10))
	q.Add("_pragma", "query_only(1)")
	q.Add("_pragma", "temp_store(2)") // sorts in memory: no temporary files
	u := url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}
	return u.String()
}

func newStore(path string, mode openMode, warning string) (*store, error) {
	db, err := sql.Open("sqlite", dsn(path, mode))
	if err != nil {
		return nil, fmt.Errorf("opencode: open %s: %w", path, err)
	}
	// The catalog summarises with one worker per core; a few connections
	// serve it, and idle ones are let go so a long-lived process does not
	// keep a snapshot's page cache forever.
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	db.SetConnMaxIdleTime(30 * time.Second)
	st := &store{path: path, mode: mode, warning: warning, db: db, stmts: map[string]*sql.Stmt{}}
	var n int
	err = db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('session', 'message', 'part')`).Scan(&n)
	if err != nil {
		db.Close()
		return nil, st.wrap("read", err)
	}
	if n != 3 {
		db.Close()
		if warning != "" {
			return nil, fmt.Errorf("opencode: %s: no session, message and part tables in the database file; %s", path, warning)
		}
		return nil, fmt.Errorf("opencode: %s is not an OpenCode database (it lacks the session, message and part tables)", path)
	}
	err = db.QueryRow(`SELECT count(*) FROM pragma_table_info('session') WHERE name = 'metadata'`).Scan(&n)
	if err != nil {
		db.Close()
		return nil, st.wrap("read", err)
	}
	st.metadata = n > 0
	return st, nil
}

// stmt returns the statement for query, prepared once per store.
func (st *store) stmt(query string) (*sql.Stmt, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if s, ok := st.stmts[query]; ok {
		return s, nil
	}
	s, err := st.db.Prepare(query)
	if err != nil {
		return nil, st.wrap("prepare", err)
	}
	st.stmts[query] = s
	return s, nil
}

// query runs a prepared query.
func (st *store) query(query string, args ...any) (*sql.Rows, error) {
	s, err := st.stmt(query)
	if err != nil {
		return nil, err
	}
	rows, err := s.QueryContext(context.Background(), args...)
	if err != nil {
		return nil, st.wrap("query", err)
	}
	return rows, nil
}

// wrap turns a driver error into one that says which database failed and,
// for the usual causes, why.
func (st *store) wrap(op string, err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqliteBusy, sqliteLocked:
			return fmt.Errorf("opencode: %s %s: the database is locked by another process (waited %v): %w", op, st.path, busyTimeout, err)
		case sqliteNotADB:
			return fmt.Errorf("opencode: %s %s: not a SQLite database: %w", op, st.path, err)
		case sqliteCorrupt:
			return fmt.Errorf("opencode: %s %s: the database is damaged (truncated or corrupt): %w", op, st.path, err)
		case sqliteCantOpen:
			return fmt.Errorf("opencode: %s %s: cannot open the database read-only: %w", op, st.path, err)
		}
	}
	return fmt.Errorf("opencode: %s %s: %w", op, st.path, err)
}
