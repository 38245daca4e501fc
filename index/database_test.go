package index_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

// TestDatabaseSessionsToldByTheirRows: the sessions of a file that holds
// several (OpenCode's database) are told changed by their rows' update
// times, not by the file's size: a database that grows (OpenCode writing
// another session, a checkpoint of its write-ahead log) has its other
// sessions left as they are, and the one whose rows changed read again.
func TestDatabaseSessionsToldByTheirRows(t *testing.T) {
	env := samples.AllCLIs(t)
	path := filepath.Join(env.Vars["XDG_DATA_HOME"], "opencode", "opencode.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(stmt string) {
		t.Helper()
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	// A second session, as the first but for its id and time.
	exec(`CREATE TEMP TABLE copied AS SELECT * FROM session;
		UPDATE copied SET id = 'ses_0000000000002zzzzzzzzzzzzz', time_updated = time_updated - 1000;
		INSERT INTO session SELECT * FROM copied; DROP TABLE copied`)

	ix := openIndex(t, filepath.Join(t.TempDir(), "index.db"))
	first := refresh(t, ix, env)
	ctx := context.Background()
	before, err := ix.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// What a listing answers from the index.
	listed := func() int64 {
		t.Helper()
		lenv, cache, err := ix.Cache(ctx, env, session.DetailList)
		if err != nil {
			t.Fatal(err)
		}
		c := &counting{Cache: cache}
		if _, err := catalog.Scan(ctx, catalog.Options{Env: lenv, Detail: session.DetailList, Cache: c}); err != nil {
			t.Fatal(err)
		}
		return c.hits.Load()
	}
	answered := listed()

	exec(`CREATE TABLE grown (x TEXT); INSERT INTO grown VALUES ('` + strings.Repeat("x", 200_000) + `')`)
	if n := listed(); n != answered {
		t.Errorf("after the database grew, no session changed: a listing answered %d sessions from the index; want %d as before", n, answered)
	}
	if res := refresh(t, ix, env); res.Updated != 0 || res.Unchanged != first.Sessions {
		t.Errorf("after the database grew, no session changed: %+v; want none read again", res)
	}
	exec(`UPDATE session SET time_updated = time_updated + 1000 WHERE id = 'ses_0000000000002zzzzzzzzzzzzz'`)
	if res := refresh(t, ix, env); res.Updated != 1 || res.Unchanged != first.Sessions-1 {
		t.Errorf("after one session's row changed: %+v; want it alone read again", res)
	}
	after, err := ix.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Indexed <= before.Indexed {
		t.Errorf("the index counts %d bytes of session files, %d before the database grew; want the database's size now", after.Indexed, before.Indexed)
	}
}

// TestUnchangedDatabaseNotQueried: a freshness check does not query a
// database whose files keep the size, time and inode they had when it
// last did (it answers from the manifest), unless that was within a
// moment of their last change; a database that changed is queried.
func TestUnchangedDatabaseNotQueried(t *testing.T) {
	env := samples.AllCLIs(t)
	path := filepath.Join(env.Vars["XDG_DATA_HOME"], "opencode", "opencode.db")
	ix := openIndex(t, filepath.Join(t.TempDir(), "index.db"))
	// garble overwrites the database in place with bytes of its size and
	// its time: a query would fail, its stamp is the same.
	garble := func() (restore func()) {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rewriteInPlace(t, path, bytes.Repeat([]byte{'x'}, len(data)))
		return func() { rewriteInPlace(t, path, data) }
	}
	warned := func(res index.Refreshed) bool {
		for _, w := range res.Warnings {
			if w.Path == path {
				return true
			}
		}
		return false
	}

	// Written just now: a stamp taken in the same moment does not tell.
	first := refresh(t, ix, env)
	restore := garble()
	if res := refresh(t, ix, env); !warned(res) {
		t.Errorf("a database changed in the moment its stamp was taken was not queried again: %+v", res)
	}
	restore()

	age(t, filepath.Dir(path))
	if res := refresh(t, ix, env); res.Sessions != first.Sessions || warned(res) {
		t.Fatalf("a refresh after the database was restored: %+v; want its sessions found", res)
	}
	restore = garble()
	if res := refresh(t, ix, env); res.Unchanged != first.Sessions || warned(res) {
		t.Errorf("an unchanged database was queried: %+v; want it answered from the manifest", res)
	}
	restore()

	// A session written: the database's stamp changes.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TEMP TABLE copied AS SELECT * FROM session;
		UPDATE copied SET id = 'ses_0000000000003zzzzzzzzzzzzz';
		INSERT INTO session SELECT * FROM copied`); err != nil {
		t.Fatal(err)
	}
	if res := refresh(t, ix, env); res.Added != 1 {
		t.Errorf("after a session was written to the database: %+v; want it added", res)
	}
}

// TestUnchangedStorageFileNotRead: a file Discover reads to list its
// session (OpenCode's old storage tree) is not read again while it keeps
// its size, time and inode.
func TestUnchangedStorageFileNotRead(t *testing.T) {
	data := t.TempDir()
	samples.LayOut(t, filepath.Join("..", "adapters", "opencode", "testdata", "storage-tree.txtar"), filepath.Join(data, "opencode"))
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{"XDG_DATA_HOME": data}}
	age(t, data)
	ix := openIndex(t, filepath.Join(t.TempDir(), "index.db"))
	first := refresh(t, ix, env)
	if first.Sessions == 0 {
		t.Fatalf("the storage tree: %+v", first)
	}
	infos, err := filepath.Glob(filepath.Join(data, "opencode", "storage", "session", "*", "ses_*.json"))
	if err != nil || len(infos) == 0 {
		t.Fatalf("no session info files (%v)", err)
	}
	fi, err := os.Stat(infos[0])
	if err != nil {
		t.Fatal(err)
	}
	rewriteInPlace(t, infos[0], bytes.Repeat([]byte{'x'}, int(fi.Size())))
	if res := refresh(t, ix, env); res.Unchanged != first.Sessions || len(res.Warnings) > 0 {
		t.Errorf("an unchanged session info file was read again: %+v", res)
	}
}

// rewriteInPlace writes data, of the file's size, over the file at path
// (its inode kept) and gives it back its modification time: a stat of it
// says nothing changed.
func rewriteInPlace(t *testing.T, path string, data []byte) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != int64(len(data)) {
		t.Fatalf("%d bytes to write over the %d of %s", len(data), fi.Size(), path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}
