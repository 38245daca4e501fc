package opencode

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/session"
)

// writeExport encodes entries as the session t into a file, as Install
// does before Commit.
func writeExport(tb testing.TB, t session.Target, entries []session.Entry) string {
	tb.Helper()
	var buf bytes.Buffer
	enc := NewEncoder(&buf, t, nil)
	for _, e := range entries {
		if err := enc.Encode(&e); err != nil {
			tb.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(tb.TempDir(), "export.json")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

// placed returns the store of a fresh home, and the target placed in it.
func placed(tb testing.TB, dir string) (session.Env, session.Placement, session.Target) {
	tb.Helper()
	home := tb.TempDir()
	env := envFor(home, filepath.Join(home, "data"))
	tg := writtenTarget()
	tg.ID, tg.Dir = "", dir
	p, err := Place(env, &tg)
	if err != nil {
		tb.Fatal(err)
	}
	return env, p, tg
}

// dump returns every row of every table of a database, as text, by
// table.
func dump(tb testing.TB, path string) map[string][]string {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	tables, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for tables.Next() {
		var n string
		tables.Scan(&n)
		names = append(names, n)
	}
	tables.Close()
	out := map[string][]string{}
	for _, n := range names {
		rows, err := db.Query(`SELECT * FROM "` + n + `"`)
		if err != nil {
			tb.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			rows.Scan(ptrs...)
			var b strings.Builder
			for i, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%s=%v|", cols[i], v)
			}
			out[n] = append(out[n], b.String())
		}
		rows.Close()
		sort.Strings(out[n])
	}
	return out
}

// schemaOf returns a database's schema: every object's type, name, table
// and SQL.
func schemaOf(tb testing.TB, db *sql.DB) []string {
	tb.Helper()
	rows, err := db.Query(`SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a, b, c, d string
		rows.Scan(&a, &b, &c, &d)
		out = append(out, a+" "+b+" "+c+" "+d)
	}
	return out
}

// TestCommitNewDatabase installs a session into a home OpenCode never ran
// in: the database is created with OpenCode's own schema and migration
// record, in WAL mode, and holds the session.
func TestCommitNewDatabase(t *testing.T) {
	dir := t.TempDir()
	env, p, tg := placed(t, dir)
	export := writeExport(t, tg, writtenEntries())
	if err := Commit(env, p, tg, export); err != nil {
		t.Fatal(err)
	}
	// The database file alone holds it all.
	for _, s := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(p.Path + s); err == nil {
			t.Errorf("%s was left behind", s)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(p.Path), ".stead-*"))
	if len(leftovers) > 0 {
		t.Errorf("left behind: %v", leftovers)
	}
	// The schema is the one OpenCode made for itself.
	ref, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "ref.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	if _, err := ref.Exec(schema(t)); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+p.Path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got, want := schemaOf(t, db), schemaOf(t, ref); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the new database's schema differs from OpenCode's:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var ids []string
	rows, err := db.Query(`SELECT id FROM "migration" ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	want := append([]string(nil), migrations...)
	sort.Strings(want)
	if strings.Join(ids, ",") != strings.Join(want, ",") || len(ids) != 38 {
		t.Errorf("migrations recorded: %v", ids)
	}
	if wal, err := headerWAL(p.Path); err != nil || !wal {
		t.Errorf("the new database is not in WAL mode (%v)", err)
	}

	var proj, directory, path, title, version, meta string
	var in, out, reasoning, cacheRead int64
	err = db.QueryRow(`SELECT project_id, directory, path, title, version, metadata, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read FROM session WHERE id = ?`, tg.ID).
		Scan(&proj, &directory, &path, &title, &version, &meta, &in, &out, &reasoning, &cacheRead)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if proj != "global" || directory != real || path != strings.TrimPrefix(real, "/") || title != "Typo fix" || version != WriteVersion {
		t.Errorf("session row: project %s, directory %s, path %s, title %q, version %s", proj, directory, path, title, version)
	}
	if !strings.Contains(meta, `"steadOrigin":{"cli":"claude"`) {
		t.Errorf("metadata %s has no provenance", meta)
	}
	if in != 1000 || out != 130 || reasoning != 15 || cacheRead != 2100 {
		t.Errorf("session totals: input %d, output %d, reasoning %d, cache read %d", in, out, reasoning, cacheRead)
	}
	var worktree string
	if err := db.QueryRow(`SELECT worktree FROM project WHERE id = 'global'`).Scan(&worktree); err != nil || worktree != "/" {
		t.Errorf("global project: %q %v", worktree, err)
	}
	sameAsExport(t, p.Path, tg.ID, export)
}

// sameAsExport checks the session in the database reads as the export
// it was installed from.
func sameAsExport(t *testing.T, db, id, export string) {
	t.Helper()
	got, err := readDB(db, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range got.Warnings {
		t.Errorf("reading the installed session: %v", w)
	}
	f, err := os.Open(export)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := timelineOf(got), timelineOf(want); g != w {
		t.Errorf("the installed session reads:\n%s\nthe export:\n%s", g, w)
	}
	if got.Title != want.Title || got.Project.Path != want.Project.Path || got.Model.Model != want.Model.Model || got.Model.Provider != want.Model.Provider {
		t.Errorf("installed %q in %s (%v), exported %q in %s (%v)", got.Title, got.Project.Path, got.Model, want.Title, want.Project.Path, want.Model)
	}
}

// timelineOf is a session's entries with what a round trip keeps: ids
// aside.
func timelineOf(s *session.Session) string {
	var b strings.Builder
	for _, e := range s.WithoutNative().Timeline {
		e.ID, e.ParentID, e.CallID, e.MessageID = "", "", "", ""
		if e.Subagent != nil {
			e.Subagent = &session.Link{Kind: e.Subagent.Kind}
		}
		j, _ := e.MarshalJSON()
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// conversationDB builds a store holding OpenCode's own e2e session, left
// as OpenCode leaves it (WAL, with its -wal and -shm).
func conversationDB(t *testing.T) (session.Env, string) {
	t.Helper()
	return caseDB(t, "conversation-db")
}

// caseDB builds a store holding the rows of testdata/<name>.txtar, left
// as OpenCode leaves it, and returns its environment and database.
func caseDB(t *testing.T, name string) (session.Env, string) {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	data := filepath.Join(home, "data")
	for _, f := range ar.Files {
		if f.Name == "native/opencode.db.sql" {
			return envFor(home, data), buildDB(t, filepath.Join(data, "opencode"), string(f.Data), asLeft)
		}
	}
	t.Fatal("no rows")
	return session.Env{}, ""
}

// TestCommitExisting installs a session beside OpenCode's own and checks
// nothing that was there changed.
func TestCommitExisting(t *testing.T) {
	env, db := conversationDB(t)
	tg := writtenTarget()
	tg.ID, tg.Dir = "", t.TempDir()
	p, err := Place(env, &tg)
	if err != nil {
		t.Fatal(err)
	}
	if p.Path != db {
		t.Fatalf("placed in %s, want the existing %s", p.Path, db)
	}
	before := dump(t, db)
	// stead reads the store first (a session copied within it): its
	// read-only connection must not keep the install from writing.
	if _, err := Open(env, session.Ref{CLI: session.OpenCode, ID: "ses_dfff632e1ffeNW6YJ7eJ603fa4"}); err != nil {
		t.Fatal(err)
	}
	export := writeExport(t, tg, writtenEntries())
	if err := Commit(env, p, tg, export); err != nil {
		t.Fatal(err)
	}
	after := dump(t, db)
	for table, rows := range before {
		have := map[string]bool{}
		for _, r := range after[table] {
			have[r] = true
		}
		for _, r := range rows {
			if !have[r] {
				t.Errorf("%s row changed or gone: %s", table, r)
			}
		}
	}
	if n := len(after["session"]) - len(before["session"]); n != 1 {
		t.Errorf("%d sessions added, want 1", n)
	}
	if len(after["project"]) != len(before["project"]) {
		t.Errorf("a project row was added beside the existing global one")
	}
	sameAsExport(t, db, tg.ID, export)
	refs, warns := Discover(env)
	if len(warns) > 0 || len(refs) != 2 {
		t.Errorf("discover: %d sessions, warnings %v", len(refs), warns)
	}

	// The same session again is refused, and changes nothing.
	before = dump(t, db)
	err = Commit(env, p, tg, export)
	if !errors.Is(err, ErrExists) || !errors.Is(err, fs.ErrExist) {
		t.Errorf("installing the session again: %v, want ErrExists", err)
	}
	if after := dump(t, db); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Error("a refused install changed the database")
	}
}

// TestCommitConcurrent installs while another connection reads (it keeps
// its snapshot, and the install does not wait for it) and while another
// holds the write lock (the install waits for it).
func TestCommitConcurrent(t *testing.T) {
	env, db := conversationDB(t)
	other, err := sql.Open("sqlite", "file:"+db+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.SetMaxOpenConns(1)

	reader, err := other.Begin()
	if err != nil {
		t.Fatal(err)
	}
	count := func(q interface {
		QueryRow(string, ...any) *sql.Row
	}) int {
		var n int
		if err := q.QueryRow(`SELECT count(*) FROM session`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(reader); n != 1 {
		t.Fatalf("%d sessions before", n)
	}
	tg := writtenTarget()
	tg.ID, tg.Dir = "", t.TempDir()
	p, _ := Place(env, &tg)
	start := time.Now()
	if err := Commit(env, p, tg, writeExport(t, tg, writtenEntries())); err != nil {
		t.Fatalf("installing while a reader holds a snapshot: %v", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the install waited %v for a reader", took)
	}
	if n := count(reader); n != 1 {
		t.Errorf("the reader's snapshot changed: %d sessions", n)
	}
	reader.Rollback()
	if n := count(other); n != 2 {
		t.Errorf("%d sessions after the install, want 2", n)
	}

	// A writer holding the lock makes the install wait, then succeed.
	writer, err := other.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Exec(`UPDATE project SET time_updated = time_updated WHERE id = 'global'`); err != nil {
		t.Fatal(err)
	}
	const hold = 700 * time.Millisecond
	go func() {
		time.Sleep(hold)
		writer.Rollback()
	}()
	tg2 := writtenTarget()
	tg2.ID, tg2.Dir = "", tg.Dir
	p2, _ := Place(env, &tg2)
	start = time.Now()
	if err := Commit(env, p2, tg2, writeExport(t, tg2, writtenEntries())); err != nil {
		t.Fatalf("installing while a writer holds the lock: %v", err)
	}
	if took := time.Since(start); took < hold/2 {
		t.Errorf("the install took %v: it did not wait for the writer", took)
	}
	if n := count(other); n != 3 {
		t.Errorf("%d sessions, want 3", n)
	}
}

// TestCommitOlderSchema installs into a database whose session table
// lacks columns a later OpenCode added: they are left out.
func TestCommitOlderSchema(t *testing.T) {
	env, db := conversationDB(t)
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"metadata", "path"} {
		if _, err := conn.Exec(`ALTER TABLE session DROP COLUMN ` + c); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close()
	tg := writtenTarget()
	tg.ID, tg.Dir = "", t.TempDir()
	p, _ := Place(env, &tg)
	if err := Commit(env, p, tg, writeExport(t, tg, writtenEntries())); err != nil {
		t.Fatal(err)
	}
	if _, err := readDB(db, tg.ID); err != nil {
		t.Fatal(err)
	}
}

// TestCommitNotInitialised refuses a database file OpenCode has not
// created its tables in yet.
func TestCommitNotInitialised(t *testing.T) {
	env, p, tg := placed(t, t.TempDir())
	os.MkdirAll(filepath.Dir(p.Path), 0o700)
	if err := os.WriteFile(p.Path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := Commit(env, p, tg, writeExport(t, tg, writtenEntries()))
	if err == nil || !strings.Contains(err.Error(), "no OpenCode tables") {
		t.Errorf("Commit into an empty file: %v", err)
	}
}

// TestRemoteID checks the project ids OpenCode makes from remotes.
func TestRemoteID(t *testing.T) {
	probe := "b1a985cb899e5bc45e043ca6d6ea460eda957a8a" // measured: opencode.md §3
	for remote, want := range map[string]string{
		"https://github.com/example/probe.git":   probe,
		"https://GitHub.com/example/probe/":      probe,
		"git@github.com:example/probe.git":       probe,
		"ssh://git@github.com/example/probe.git": probe,
		"github.com:example/probe":               "", // a URL with scheme github.com, as JavaScript reads it
		"file:///srv/git/probe.git":              "",
		"":                                       "",
	} {
		if got := remoteID(remote); got != want {
			t.Errorf("remoteID(%q) = %q, want %q", remote, got, want)
		}
	}
}

// TestCommitGitProject installs sessions of git repositories: the project
// is the one OpenCode resolves (from the origin remote, else the root
// commit), added when missing, with the repository's top level as its
// worktree.
func TestCommitGitProject(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	run := func(dir string, args ...string) string {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	repo, _ := filepath.EvalSymlinks(t.TempDir())
	run(repo, "init", "-q")
	run(repo, "commit", "-q", "--allow-empty", "-m", "root")
	root := run(repo, "rev-list", "--max-parents=0", "HEAD")
	sub := filepath.Join(repo, "sub")
	os.MkdirAll(sub, 0o755)

	for _, c := range []struct {
		name, remote, dir, id, path string
	}{
		{"root commit", "", repo, root, ""},
		{"remote, in a subdirectory", "https://github.com/example/probe.git", sub, "b1a985cb899e5bc45e043ca6d6ea460eda957a8a", "sub"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.remote != "" {
				run(repo, "remote", "add", "origin", c.remote)
			}
			env, p, tg := placed(t, c.dir)
			if err := Commit(env, p, tg, writeExport(t, tg, writtenEntries())); err != nil {
				t.Fatal(err)
			}
			db, _ := sql.Open("sqlite", "file:"+p.Path+"?mode=ro")
			defer db.Close()
			var proj, path, worktree, vcs string
			if err := db.QueryRow(`SELECT s.project_id, s.path, p.worktree, p.vcs FROM session s JOIN project p ON p.id = s.project_id WHERE s.id = ?`, tg.ID).
				Scan(&proj, &path, &worktree, &vcs); err != nil {
				t.Fatal(err)
			}
			if proj != c.id || path != c.path || worktree != repo || vcs != "git" {
				t.Errorf("project %s (worktree %s, %s), path %q; want %s, %s, %q", proj, worktree, vcs, path, c.id, repo, c.path)
			}
		})
	}
}

// TestCommitTitle titles an untitled session after its first prompt, as
// OpenCode titles a session at its first prompt only.
func TestCommitTitle(t *testing.T) {
	env, p, tg := placed(t, t.TempDir())
	tg.Title = ""
	entries := writtenEntries()
	entries[0].Content = "\n  Fix the   typo in notes.txt, and then also the one in the README, and the docs.\nThanks."
	export := writeExport(t, tg, entries)
	if err := Commit(env, p, tg, export); err != nil {
		t.Fatal(err)
	}
	s, err := readDB(p.Path, tg.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Fix the typo in notes.txt, and then also the one…"; s.Title != want {
		t.Errorf("title %q, want %q", s.Title, want)
	}
	f, _ := os.Open(export)
	defer f.Close()
	if e, _ := Read(f); e.Title != "" {
		t.Errorf("the export has title %q, want OpenCode's placeholder", e.Title)
	}
}

// TestCommitRace has another process create the database while Commit
// builds its own: Commit's is dropped, the other left as it was, and the
// session goes into it.
func TestCommitRace(t *testing.T) {
	env, db := conversationDB(t)
	tg := writtenTarget()
	tg.ID, tg.Dir = "", t.TempDir()
	p, _ := Place(env, &tg)
	export := writeExport(t, tg, writtenEntries())
	before := dump(t, db)
	if err := createDB(p.Path, export, resolveProject(tg.Dir)); !errors.Is(err, errRaced) {
		t.Fatalf("creating a database where one appeared: %v, want errRaced", err)
	}
	if after := dump(t, db); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Error("the database that appeared was changed")
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(db), ".stead-*")); len(leftovers) > 0 {
		t.Errorf("left behind: %v", leftovers)
	}
	if err := insertInto(p.Path, export, resolveProject(tg.Dir)); err != nil {
		t.Fatal(err)
	}
	sameAsExport(t, db, tg.ID, export)
}

// damage overwrites the first page of the named table (or index) of the
// database at path with junk, as a bad sector or a torn copy would.
func damage(tb testing.TB, path, table string) {
	tb.Helper()
	conn, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		tb.Fatal(err)
	}
	var pageSize, root int64
	err = conn.QueryRow(`SELECT (SELECT page_size FROM pragma_page_size), rootpage FROM sqlite_master WHERE name = ?`, table).Scan(&pageSize, &root)
	conn.Close()
	if err != nil {
		tb.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xa5}, int(pageSize)), (root-1)*pageSize); err != nil {
		tb.Fatal(err)
	}
}

// TestCommitDamaged refuses to install into a database SQLite finds
// damaged, even where the install itself would read nothing damaged (a
// table it never touches), naming the file and what SQLite said, and
// leaves the file as it was.
func TestCommitDamaged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, db string)
		want   string
	}{
		{"a table the install does not touch", func(t *testing.T, db string) { damage(t, db, "todo") }, "btreeInitPage"},
		{"the session table", func(t *testing.T, db string) { damage(t, db, "session") }, "quick_check"},
		{"not a database", func(t *testing.T, db string) { os.WriteFile(db, bytes.Repeat([]byte("junk"), 2048), 0o600) }, "not a SQLite database"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar, err := txtar.ParseFile("testdata/conversation-db.txtar")
			if err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			env := envFor(home, filepath.Join(home, "data"))
			var db string
			for _, f := range ar.Files {
				if f.Name == "native/opencode.db.sql" {
					db = buildDB(t, filepath.Join(home, "data", "opencode"), string(f.Data), checkpointed)
				}
			}
			tc.damage(t, db)
			before, _ := os.ReadFile(db)
			tg := writtenTarget()
			tg.ID, tg.Dir = "", t.TempDir()
			p, err := Place(env, &tg)
			if err != nil {
				t.Fatal(err)
			}
			err = Commit(env, p, tg, writeExport(t, tg, writtenEntries()))
			if err == nil || !strings.Contains(err.Error(), db) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Commit into a damaged database: %v; want an error naming %s and saying %q", err, db, tc.want)
			}
			if tc.want != "not a SQLite database" && !errors.Is(err, ErrDamaged) {
				t.Errorf("the error %v is not ErrDamaged", err)
			}
			if after, _ := os.ReadFile(db); !bytes.Equal(after, before) {
				t.Error("the damaged database was written to")
			}
			for _, s := range []string{"-wal", "-shm", "-journal"} {
				if fi, err := os.Stat(db + s); err == nil && fi.Size() > 0 {
					t.Errorf("%s%s was left behind", db, s)
				}
			}
		})
	}
}
