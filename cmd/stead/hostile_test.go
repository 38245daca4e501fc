package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stead-dev/stead/session"
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

// runWithin runs stead as run does, failing the test if it has not
// finished within d (it would hang opening a named pipe).
func runWithin(t *testing.T, d time.Duration, env session.Env, args ...string) (string, string, ExitCode) {
	t.Helper()
	type result struct {
		out, errOut string
		code        ExitCode
	}
	done := make(chan result, 1)
	go func() {
		out, errOut, code := run(t, env, args...)
		done <- result{out, errOut, code}
	}()
	select {
	case r := <-done:
		return r.out, r.errOut, r.code
	case <-time.After(d):
		t.Fatalf("stead %s: still running after %v (blocked opening a named pipe?)", strings.Join(args, " "), d)
	}
	return "", "", 0
}

// TestSpecialFilesInStores puts a named pipe and a folder where each
// CLI's session files go: list and stats report each, naming it, and
// list the rest; show of the pipe's session says what it is; nothing
// opens a pipe (that would block).
func TestSpecialFilesInStores(t *testing.T) {
	env := allHomes(t)
	const uuid = "0badf1f0-0000-4000-8000-00000000000"
	claudeDir := filepath.Join(env.Vars["CLAUDE_CONFIG_DIR"], "projects", "-home-dev-special")
	codexDir := filepath.Join(env.Vars["CODEX_HOME"], "sessions", "2026", "11", "22")
	geminiDir := filepath.Join(env.Vars["GEMINI_CLI_HOME"], ".gemini", "tmp", "special", "chats")
	kimiDir := filepath.Join(env.Vars["KIMI_CODE_HOME"], "sessions", "wd_special_0123456789ab")
	openDir := filepath.Join(env.Vars["XDG_DATA_HOME"], "opencode")
	pipes := map[string]string{ // session to show -> the pipe
		"claude:" + uuid + "1":       filepath.Join(claudeDir, uuid+"1.jsonl"),
		"codex:" + uuid + "3":        filepath.Join(codexDir, "rollout-2026-11-22T00-00-00-"+uuid+"3.jsonl"),
		"gemini:":                    filepath.Join(geminiDir, "session-2026-11-22T00-00-0badf1f0.jsonl"),
		"kimi:session_" + uuid + "5": filepath.Join(kimiDir, "session_"+uuid+"5", "agents", "main", "wire.jsonl"),
		"opencode:":                  filepath.Join(openDir, "opencode-pipe.db"),
		"opencode:ses_0badf1f0pipe":  filepath.Join(openDir, "storage", "session", "global", "ses_0badf1f0pipe.json"),
	}
	folders := []string{
		filepath.Join(claudeDir, uuid+"2.jsonl"),
		filepath.Join(codexDir, "rollout-2026-11-22T00-00-01-"+uuid+"4.jsonl"),
		filepath.Join(geminiDir, "session-2026-11-22T00-01-0badf1f1.jsonl"),
		filepath.Join(kimiDir, "session_"+uuid+"6", "agents", "main", "wire.jsonl"),
		filepath.Join(openDir, "opencode-folder.db"),
	}
	for _, p := range pipes {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("cannot make a named pipe: %v", err)
		}
	}
	for _, p := range folders {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range [][]string{{"session", "list"}, {"session", "stats"}} {
		out, errOut, code := runWithin(t, 20*time.Second, env, cmd...)
		if code != ExitOK || !strings.Contains(out, "claude") {
			t.Errorf("stead %s: exit %d, sessions missing:\n%s\n%s", strings.Join(cmd, " "), code, out, errOut)
		}
		for _, p := range pipes {
			if !strings.Contains(errOut, p+": skipped: a named pipe (FIFO), not a regular file") {
				t.Errorf("stead %s does not report the named pipe %s:\n%s", strings.Join(cmd, " "), p, errOut)
			}
		}
		for _, p := range folders {
			if !strings.Contains(errOut, p+": skipped: a folder, not a regular file") {
				t.Errorf("stead %s does not report the folder %s:\n%s", strings.Join(cmd, " "), p, errOut)
			}
		}
	}
	for ref, p := range pipes {
		if strings.HasSuffix(ref, ":") {
			continue // no id names it
		}
		_, errOut, code := runWithin(t, 20*time.Second, env, "session", "show", ref)
		if code == ExitOK || !strings.Contains(errOut, p) || !strings.Contains(errOut, "a named pipe (FIFO), not a regular file") {
			t.Errorf("stead session show %s: exit %d, %q; want an error naming the pipe %s", ref, code, errOut, p)
		}
	}
}
