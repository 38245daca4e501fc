package opencode

import (
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stead-dev/stead/session"
)

// schema returns the DDL of a real opencode.db (1.18.33), from
// testdata/schema.sql.
func schema(tb testing.TB) string {
	tb.Helper()
	b, err := os.ReadFile("testdata/schema.sql")
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// How buildDB leaves a database.
const (
	// asLeft is a WAL database as OpenCode leaves it after a run
	// (opencode.md §3): the rows in opencode.db-wal, with an
	// opencode.db-shm, and no process holding them.
	asLeft = iota
	// checkpointed is a WAL database whose log was checkpointed and
	// removed, as after OpenCode closed it cleanly: no -wal, no -shm.
	checkpointed
	// rollback is a database in rollback-journal mode.
	rollback
)

// buildDB creates dir/opencode.db from the real schema and the SQL in rows,
// left as mode says. It is built in a staging folder and copied while its
// connection is open, since closing the last connection checkpoints the
// log and removes the -wal and -shm.
func buildDB(tb testing.TB, dir, rows string, mode int) string {
	tb.Helper()
	wal := mode != rollback
	stage := tb.TempDir()
	src := filepath.Join(stage, "opencode.db")
	db, err := sql.Open("sqlite", src)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if wal {
		if _, err := db.Exec(`PRAGMA journal_mode=WAL`); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := db.Exec(schema(tb)); err != nil {
		tb.Fatalf("schema: %v", err)
	}
	if _, err := db.Exec("BEGIN;\n" + rows + "\nCOMMIT;"); err != nil {
		tb.Fatalf("rows: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if mode == checkpointed {
		if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			tb.Fatal(err)
		}
	}
	dst := filepath.Join(dir, "opencode.db")
	suffixes := []string{"", "-wal", "-shm"}
	if mode != asLeft {
		suffixes = suffixes[:1]
	}
	for _, suffix := range suffixes {
		if _, err := os.Stat(src + suffix); err != nil {
			if wal {
				tb.Fatalf("no %s after writing in WAL mode", src+suffix)
			}
			continue
		}
		copyFile(tb, src+suffix, dst+suffix)
	}
	return dst
}

func copyFile(tb testing.TB, from, to string) {
	tb.Helper()
	in, err := os.Open(from)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		tb.Fatal(err)
	}
	if err := out.Close(); err != nil {
		tb.Fatal(err)
	}
}

// envFor is an environment whose OpenCode data directory is data/opencode.
func envFor(home, data string) session.Env {
	return session.Env{Home: home, Vars: map[string]string{"XDG_DATA_HOME": data}}
}
