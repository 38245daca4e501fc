package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// damageTable overwrites the first page of a table of the SQLite database
// at path with junk.
func damageTable(t *testing.T, path, table string) {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	var pageSize, root int64
	err = conn.QueryRow(`SELECT (SELECT page_size FROM pragma_page_size), rootpage FROM sqlite_master WHERE name = ?`, table).Scan(&pageSize, &root)
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xa5}, int(pageSize)), (root-1)*pageSize); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedOpenCodeDB: list warns about a damaged OpenCode database,
// naming it, and lists the other CLIs' sessions; show says which file is
// damaged; convert --install refuses to write to it, even when the damage
// is in a table neither reading nor installing touches.
func TestDamagedOpenCodeDB(t *testing.T) {
	for _, table := range []string{"session", "part", "todo"} {
		t.Run(table, func(t *testing.T) {
			env := allHomes(t)
			db := filepath.Join(env.Vars["XDG_DATA_HOME"], "opencode", "opencode.db")
			damageTable(t, db, table)
			before, _ := os.ReadFile(db)
			readable := table == "todo" // SQLite sees damage only where it reads

			out, errOut, code := run(t, env, "session", "list")
			if code != ExitOK || !strings.Contains(out, "claude") {
				t.Errorf("list: exit %d, other CLIs' sessions missing:\n%s", code, out)
			}
			if warned := strings.Contains(errOut, "warning: "+db) && strings.Contains(errOut, "damaged"); warned == readable {
				t.Errorf("list warned %v about the damaged database:\n%s", warned, errOut)
			}
			_, errOut, code = run(t, env, "session", "show", "opencode:ses_dfff632e1ffeNW6YJ7eJ603fa4")
			if !readable && (code == ExitOK || !strings.Contains(errOut, db) || !strings.Contains(errOut, "damaged")) {
				t.Errorf("show: exit %d, %q; want an error naming %s as damaged", code, errOut, db)
			}

			_, errOut, code = run(t, env, "session", "convert", claudeSession, "--to", "opencode", "--install", "--cwd", t.TempDir())
			if code == ExitOK || !strings.Contains(errOut, db) || !strings.Contains(errOut, "damaged; stead does not write to it") {
				t.Errorf("convert --install into a damaged database: exit %d, %q", code, errOut)
			}
			if after, _ := os.ReadFile(db); !bytes.Equal(after, before) {
				t.Error("the damaged database was written to")
			}
		})
	}
}
