package opencode

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"modernc.org/sqlite"

	"github.com/stead-dev/stead/session"
)

// commitTimeout is how long Commit waits for the write lock of a database
// OpenCode is writing to (it holds it for a moment per update).
var commitTimeout = 15 * time.Second

// ErrExists is returned by Commit when the database already holds a
// session with the new session's id: Commit never changes a session.
var ErrExists = fmt.Errorf("the session already exists: %w", fs.ErrExist)

// ErrDamaged is returned by Commit for a database SQLite finds damaged:
// stead never writes to one.
var ErrDamaged = errors.New("the database is damaged")

// errRaced is returned when a new database was created by another process
// while Commit built its own.
var errRaced = errors.New("the database was created meanwhile")

// Commit installs the export the Encoder wrote at tmp into OpenCode's
// database p.Path as a new session, without the opencode binary. The
// session, its messages and parts are inserted in one transaction that
// takes the write lock up front (waiting while OpenCode, which may be
// running, holds it), with foreign keys checked; nothing that exists is
// changed: a database SQLite finds damaged is refused (ErrDamaged) before
// anything is written, a session whose id the database holds is refused,
// and the project row (OpenCode's, for the directory: see resolveProject) is
// added only when missing. Readers, OpenCode's included, see the whole
// session or none of it. The journal mode is left as OpenCode set it
// (WAL). stead's own read-only connections to the database in this
// process are closed first: SQLite shares one mapping of the -shm among a
// process's connections, and theirs is read-only.
//
// A database that does not exist yet (a fresh home) is created the way
// OpenCode creates one: its 1.18.33 schema and the record of its
// migrations, so that OpenCode takes it as migrated, and the global
// project; it is built beside its place with the session in it and linked
// into place only if no database appeared meanwhile, else the session is
// inserted into the one that did.
func Commit(env session.Env, p session.Placement, t session.Target, tmp string) error {
	proj := resolveProject(t.Dir)
	fi, err := os.Stat(p.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err = createDB(p.Path, tmp, proj)
		if !errors.Is(err, errRaced) {
			return err
		}
	case err != nil:
		return fmt.Errorf("opencode: %w", err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("opencode: %s is not a database file", p.Path)
	}
	return insertInto(p.Path, tmp, proj)
}

// writeDSN is the connection string of a database Commit writes: mode is
// "rw" for an existing one (never created), "rwc" for a new one.
func writeDSN(path, mode string) string {
	q := url.Values{}
	q.Set("mode", mode)
	q.Set("_txlock", "immediate") // BEGIN IMMEDIATE: wait for the write lock before reading
	q.Set("_busy_timeout", strconv.FormatInt(commitTimeout.Milliseconds(), 10))
	q.Add("_pragma", "foreign_keys(1)")
	if mode == "rwc" {
		q.Add("_pragma", "journal_mode(WAL)") // as OpenCode opens its databases
	}
	u := url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}
	return u.String()
}

// insertInto inserts the session into an existing database.
func insertInto(path, tmp string, proj project) error {
	if err := checkIntegrity(path); err != nil {
		return err
	}
	releaseStores(path)
	db, err := sql.Open("sqlite", writeDSN(path, "rw"))
	if err != nil {
		return fmt.Errorf("opencode: open %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var n int
	err = db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('project', 'session', 'message', 'part')`).Scan(&n)
	if err != nil {
		return fmt.Errorf("opencode: read %s: %w", path, err)
	}
	if n != 4 {
		// OpenCode creates its tables in one transaction right after
		// creating the file: it may be doing so now.
		return fmt.Errorf("opencode: %s has no OpenCode tables (OpenCode may be creating it right now: try again)", path)
	}
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		return fmt.Errorf("opencode: %s: waiting for the write lock: %w", path, err)
	}
	defer tx.Rollback()
	if err := insertSession(tx, tmp, proj); err != nil {
		return fmt.Errorf("opencode: install into %s: %w", path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("opencode: install into %s: %w", path, err)
	}
	return nil
}

// integrityLimit is how many problems checkIntegrity reports of a damaged
// database: the first few say what is wrong as well as a hundred would.
const integrityLimit = 5

// checkIntegrity runs SQLite's quick_check on the database at path, on a
// read-only connection that writes nothing (not even a checkpoint when it
// closes), and fails with ErrDamaged, saying what SQLite found, unless it
// is "ok". SQLite reports damage only in the pages a statement reads, and
// an install reads and writes few of them: without the check, a session
// goes into a file OpenCode may then fail to open, or that SQLite's
// recovery rewrites without it. quick_check reads every page once and
// takes no lock that holds OpenCode up; on a 200 MB database (50,000
// messages of 2 KB, in the page cache) it took 0.28 s, integrity_check,
// which also compares each index with its table, 0.54 s. An empty file
// (OpenCode creating the database) has nothing to check.
func checkIntegrity(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.Size() == 0 {
		return nil
	}
	wal, err := headerWAL(path)
	if err != nil {
		return fmt.Errorf("%w; stead does not write to it", err)
	}
	mode, _ := chooseMode(path, wal)
	db, err := sql.Open("sqlite", dsn(path, mode))
	if err != nil {
		return fmt.Errorf("opencode: open %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	rows, err := db.Query(fmt.Sprintf(`PRAGMA quick_check(%d)`, integrityLimit))
	if err != nil {
		return notChecked(path, err, nil)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return notChecked(path, err, problems)
		}
		if s != "ok" {
			s = strings.TrimSpace(strings.TrimPrefix(s, "*** in database main ***"))
			problems = append(problems, strings.ReplaceAll(s, "\n", "; "))
		}
	}
	if err := rows.Err(); err != nil {
		// A damaged page can end the check with an error after the
		// problems it found.
		return notChecked(path, err, problems)
	}
	if len(problems) > 0 {
		return fmt.Errorf("opencode: %s: %w; stead does not write to it (SQLite's quick_check: %s)",
			path, ErrDamaged, strings.Join(problems, "; "))
	}
	return nil
}

// notChecked reports a quick_check that stopped with err, after finding
// problems: the database is damaged when it found some, or SQLite says so
// (or that the file is not a database), and unreadable otherwise.
func notChecked(path string, err error, problems []string) error {
	var se *sqlite.Error
	if len(problems) > 0 || errors.As(err, &se) && (se.Code()&0xff == sqliteCorrupt || se.Code()&0xff == sqliteNotADB) {
		return fmt.Errorf("opencode: %s: %w; stead does not write to it (SQLite's quick_check: %s)",
			path, ErrDamaged, strings.Join(append(problems, err.Error()), "; "))
	}
	return fmt.Errorf("opencode: check %s before writing to it: %w", path, err)
}

// createDB creates the database at path, with the session in it.
func createDB(path, tmp string, proj project) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("opencode: %w", err)
	}
	stage := filepath.Join(dir, ".stead-new-"+randomBase62(12)+".db")
	defer func() {
		for _, s := range []string{"", "-wal", "-shm", "-journal"} {
			os.Remove(stage + s)
		}
	}()
	db, err := sql.Open("sqlite", writeDSN(stage, "rwc"))
	if err != nil {
		return fmt.Errorf("opencode: create %s: %w", stage, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		return fmt.Errorf("opencode: create %s: %w", stage, err)
	}
	defer tx.Rollback()
	done := now().UnixMilli()
	for _, stmt := range append(schemaDDL, migrationDDL) {
		if _, err := tx.Exec(stmt); err != nil {
			return fmt.Errorf("opencode: create the schema: %w", err)
		}
	}
	for _, id := range migrations {
		if _, err := tx.Exec(`INSERT INTO "migration" (id, time_completed) VALUES (?, ?)`, id, done); err != nil {
			return fmt.Errorf("opencode: create the schema: %w", err)
		}
	}
	if err := insertSession(tx, tmp, proj); err != nil {
		return fmt.Errorf("opencode: install into a new %s: %w", path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("opencode: create %s: %w", stage, err)
	}
	// Closing the only connection checkpoints the log into the file and
	// removes it: the file alone then holds everything.
	if err := db.Close(); err != nil {
		return fmt.Errorf("opencode: create %s: %w", stage, err)
	}
	if fi, err := os.Stat(stage + "-wal"); err == nil && fi.Size() > 0 {
		return fmt.Errorf("opencode: create %s: its write-ahead log was not checkpointed", stage)
	}
	if err := syncFile(stage); err != nil {
		return err
	}
	if err := os.Link(stage, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return errRaced
		}
		return fmt.Errorf("opencode: %w", err)
	}
	syncFile(dir)
	return nil
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("opencode: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("opencode: sync %s: %w", path, err)
	}
	return nil
}

// sessionIn is what Commit reads of the export's session info.
type sessionIn struct {
	ID        string          `json:"id"`
	Slug      string          `json:"slug"`
	Directory string          `json:"directory"`
	ParentID  string          `json:"parentID"`
	Title     string          `json:"title"`
	Version   string          `json:"version"`
	Agent     string          `json:"agent"`
	Model     json.RawMessage `json:"model"`
	Metadata  json.RawMessage `json:"metadata"`
	Time      struct {
		Created int64 `json:"created"`
		Updated int64 `json:"updated"`
	} `json:"time"`
}

// insertSession inserts the session of the export at tmp, read a message
// at a time.
func insertSession(tx *sql.Tx, tmp string, proj project) error {
	f, err := os.Open(tmp)
	if err != nil {
		return err
	}
	defer f.Close()
	ins := &inserter{tx: tx, proj: proj, now: now().UnixMilli()}
	var failure error
	fail := func(err error) {
		if failure == nil {
			failure = err
		}
	}
	w := &exportWalker{in: &errReader{r: bufio.NewReaderSize(f, 256<<10)}}
	w.warn = func(line int, msg string) { fail(fmt.Errorf("the export %s, record %d: %s", tmp, line, msg)) }
	err = w.walk(func(r row, info *sessionInfo) {
		if failure != nil {
			return
		}
		switch {
		case r.kind == rowSession && info != nil:
			fail(ins.session(r.data))
		case r.kind == rowSession:
			fail(fmt.Errorf("the export %s has an unexpected record %.60s", tmp, r.record))
		case ins.sessionID == "":
			fail(fmt.Errorf("the export %s does not start with the session's info", tmp))
		case r.kind == rowMessage:
			fail(ins.message(r.data))
		default:
			fail(ins.part(r.data))
		}
	})
	if err != nil {
		return err
	}
	if failure != nil {
		return failure
	}
	if ins.sessionID == "" {
		return fmt.Errorf("the export %s holds no session", tmp)
	}
	return ins.finish()
}

// inserter inserts one session's rows.
type inserter struct {
	tx        *sql.Tx
	proj      project
	now       int64
	sessionID string
	msgID     string // the message whose parts come next
	updated   int64
	cost      float64
	tokens    [5]int64 // input, output, reasoning, cache read, cache write
	stmts     map[string]*tableInsert
	// untitled is set when the session has OpenCode's placeholder title,
	// which OpenCode replaces only at a session's first prompt: the
	// first prompt titles it instead.
	untitled bool
	prompt   bool   // the message being read is a user message
	title    string // the title from the first prompt
}

func (in *inserter) session(data []byte) error {
	var s sessionIn
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("session info: %w", err)
	}
	if !ValidID(s.ID) {
		return fmt.Errorf("session id %q is not an OpenCode session id", s.ID)
	}
	var exists int
	err := in.tx.QueryRow(`SELECT count(*) FROM session WHERE id = ?`, s.ID).Scan(&exists)
	if err != nil {
		return err
	}
	if exists > 0 {
		return fmt.Errorf("session %s: %w", s.ID, ErrExists)
	}
	if err := in.project(); err != nil {
		return err
	}
	in.sessionID, in.updated = s.ID, s.Time.Updated
	in.untitled = realTitle(s.Title) == ""
	if s.Time.Created == 0 {
		s.Time.Created = in.now
	}
	row := map[string]any{
		"id": s.ID, "project_id": in.proj.id, "slug": s.Slug, "directory": s.Directory,
		"path": relPath(in.proj.worktree, s.Directory), "title": s.Title, "version": s.Version,
		"cost": 0.0, "tokens_input": 0, "tokens_output": 0, "tokens_reasoning": 0, "tokens_cache_read": 0, "tokens_cache_write": 0,
		"time_created": s.Time.Created, "time_updated": max(s.Time.Updated, s.Time.Created),
	}
	if s.ParentID != "" {
		row["parent_id"] = s.ParentID
	}
	if s.Agent != "" {
		row["agent"] = s.Agent
	}
	if isObject(s.Model) {
		row["model"] = string(s.Model)
	}
	if isObject(s.Metadata) {
		row["metadata"] = string(s.Metadata)
	}
	return in.insert("session", row)
}

// project adds the session's project when the database lacks it.
func (in *inserter) project() error {
	var vcs any
	if in.proj.vcs != "" {
		vcs = in.proj.vcs
	}
	_, err := in.tx.Exec(`INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?, ?, ?, ?, ?, '[]')
ON CONFLICT (id) DO NOTHING`, in.proj.id, in.proj.worktree, vcs, in.now, in.now)
	if err != nil {
		return fmt.Errorf("add project %s: %w", in.proj.id, err)
	}
	return nil
}

func (in *inserter) message(data []byte) error {
	var m struct {
		ID   string `json:"id"`
		Role string `json:"role"`
		Time struct {
			Created   int64 `json:"created"`
			Completed int64 `json:"completed"`
		} `json:"time"`
		Cost   float64 `json:"cost"`
		Tokens *tokens `json:"tokens"`
	}
	if err := json.Unmarshal(data, &m); err != nil || !strings.HasPrefix(m.ID, "msg") {
		return fmt.Errorf("message %.80s: not an OpenCode message", data)
	}
	rest, err := without(data, "id", "sessionID")
	if err != nil {
		return err
	}
	in.msgID, in.prompt = m.ID, m.Role == "user"
	created := m.Time.Created
	if created == 0 {
		created = in.now
	}
	updated := max(m.Time.Completed, created)
	in.updated = max(in.updated, updated)
	if m.Role == "assistant" {
		in.cost += m.Cost
		if t := m.Tokens; t != nil {
			in.tokens[0] += int64(t.Input)
			in.tokens[1] += int64(t.Output)
			in.tokens[2] += int64(t.Reasoning)
			in.tokens[3] += int64(t.Cache.Read)
			in.tokens[4] += int64(t.Cache.Write)
		}
	}
	return in.insert("message", map[string]any{"id": m.ID, "session_id": in.sessionID,
		"time_created": created, "time_updated": updated, "data": rest})
}

func (in *inserter) part(data []byte) error {
	var p struct {
		ID   string `json:"id"`
		Time struct {
			Start int64 `json:"start"`
			End   int64 `json:"end"`
		} `json:"time"`
		State *struct {
			Time struct {
				Start int64 `json:"start"`
				End   int64 `json:"end"`
			} `json:"time"`
		} `json:"state"`
		Type      string `json:"type"`
		Text      string `json:"text"`
		Synthetic bool   `json:"synthetic"`
	}
	if err := json.Unmarshal(data, &p); err != nil || !strings.HasPrefix(p.ID, "prt") {
		return fmt.Errorf("part %.80s: not an OpenCode part", data)
	}
	if in.msgID == "" {
		return fmt.Errorf("part %s comes before any message", p.ID)
	}
	rest, err := without(data, "id", "sessionID", "messageID")
	if err != nil {
		return err
	}
	if in.untitled && in.title == "" && in.prompt && p.Type == "text" && !p.Synthetic {
		in.title = titleOf(p.Text)
	}
	start, end := p.Time.Start, p.Time.End
	if p.State != nil {
		start, end = p.State.Time.Start, p.State.Time.End
	}
	if start == 0 {
		start = in.updated
	}
	end = max(end, start)
	return in.insert("part", map[string]any{"id": p.ID, "message_id": in.msgID, "session_id": in.sessionID,
		"time_created": start, "time_updated": end, "data": rest})
}

// finish records the session's totals, as OpenCode sums them from its
// assistant messages, and when it was last updated.
func (in *inserter) finish() error {
	_, err := in.tx.Exec(`UPDATE session SET cost = ?, tokens_input = ?, tokens_output = ?, tokens_reasoning = ?,
tokens_cache_read = ?, tokens_cache_write = ?, time_updated = max(time_updated, ?) WHERE id = ?`,
		in.cost, in.tokens[0], in.tokens[1], in.tokens[2], in.tokens[3], in.tokens[4], in.updated, in.sessionID)
	if err == nil && in.title != "" {
		_, err = in.tx.Exec(`UPDATE session SET title = ? WHERE id = ?`, in.title, in.sessionID)
	}
	return err
}

// titleOf makes a title of a prompt: its first line, at most 50
// characters, as long as OpenCode's own titles.
func titleOf(prompt string) string {
	for _, line := range strings.Split(prompt, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			continue
		}
		if r := []rune(line); len(r) > 50 {
			line = strings.TrimSpace(string(r[:49])) + "…"
		}
		return line
	}
	return ""
}

// tableInsert is a prepared insert into one table, of the columns the
// database's version of the table has.
type tableInsert struct {
	stmt *sql.Stmt
	cols []string
}

// insert adds a row of the given column values to table. Columns the
// table lacks (an older OpenCode's database) are left out; a required
// column the row lacks (a newer one's) is an error.
func (in *inserter) insert(table string, row map[string]any) error {
	ti, err := in.prepare(table, row)
	if err != nil {
		return err
	}
	args := make([]any, len(ti.cols))
	for i, c := range ti.cols {
		args[i] = row[c]
	}
	if _, err := ti.stmt.Exec(args...); err != nil {
		return fmt.Errorf("insert into %s: %w", table, err)
	}
	return nil
}

func (in *inserter) prepare(table string, row map[string]any) (*tableInsert, error) {
	if ti, ok := in.stmts[table]; ok {
		return ti, nil
	}
	rows, err := in.tx.Query(`SELECT name, "notnull", dflt_value IS NOT NULL, pk FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var name string
		var notNull, hasDefault bool
		var pk int
		if err := rows.Scan(&name, &notNull, &hasDefault, &pk); err != nil {
			return nil, err
		}
		if _, ok := row[name]; ok {
			cols = append(cols, name)
		} else if notNull && !hasDefault && pk == 0 {
			return nil, fmt.Errorf("the database's %s table requires a column %s that OpenCode %s does not have: it was made by a newer OpenCode", table, name, WriteVersion)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("the database has no %s table", table)
	}
	sort.Strings(cols)
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	q := fmt.Sprintf("INSERT INTO `%s` (`%s`) VALUES (%s)", table, strings.Join(cols, "`, `"), marks)
	stmt, err := in.tx.Prepare(q)
	if err != nil {
		return nil, err
	}
	if in.stmts == nil {
		in.stmts = map[string]*tableInsert{}
	}
	ti := &tableInsert{stmt: stmt, cols: cols}
	in.stmts[table] = ti
	return ti, nil
}

// without returns the JSON object data without the given keys: a record
// as OpenCode keeps it in its data column, its ids in columns of their
// own.
func without(data []byte, keys ...string) (string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return "", err
	}
	for _, k := range keys {
		delete(m, k)
	}
	b, err := session.MarshalCompact(m)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func isObject(b json.RawMessage) bool {
	t := strings.TrimSpace(string(b))
	return len(t) > 0 && t[0] == '{'
}
