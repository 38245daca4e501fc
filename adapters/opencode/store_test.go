package opencode

import (
	"bufio"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// caseRows returns the SQL rows of a testdata case.
func caseRows(t testing.TB, name string) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "native/opencode.db.sql" {
			return string(f.Data)
		}
	}
	t.Fatalf("%s has no native/opencode.db.sql", name)
	return ""
}

// tree lists every file under dir with a hash of its content.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		info, err := d.Info()
		if err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf("%s %v %d %v", strings.TrimPrefix(p, dir), info.Mode(), info.Size(), info.ModTime().UnixNano())
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		lines = append(lines, line)
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// readEverything reads a store every way stead does: Discover, Locate,
// Open and both summaries of each session.
func readEverything(t *testing.T, env session.Env) ([]session.Ref, []session.Warning) {
	t.Helper()
	refs, warns := Discover(env)
	for _, ref := range refs {
		if _, err := Locate(env, ref.ID); err != nil {
			t.Errorf("locate %s: %v", ref.ID, err)
		}
		s, err := Open(env, ref)
		if err != nil {
			t.Errorf("open %s: %v", ref.ID, err)
			continue
		}
		usftest.ValidateSession(t, s)
		for _, d := range []session.Detail{session.DetailFull, session.DetailList} {
			if _, err := SummarizeFile(ref, d); err != nil {
				t.Errorf("summarize %s: %v", ref.ID, err)
			}
		}
	}
	return refs, warns
}

// TestReadOnly reads databases in every state OpenCode leaves them in, from
// a read-only folder, and checks that the database, its -wal and -shm are
// byte for byte the same afterwards and that no file appeared.
func TestReadOnly(t *testing.T) {
	rows := caseRows(t, "synthetic-db")
	for _, tt := range []struct {
		name     string
		mode     int
		dropSHM  bool
		sessions int
		warning  string
	}{
		{"wal and shm, no process", asLeft, false, 2, ""},
		{"checkpointed, no wal", checkpointed, false, 2, ""},
		{"rollback journal", rollback, false, 2, ""},
		{"wal without shm", asLeft, true, 0, "without its write-ahead log"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := t.TempDir()
			dir := filepath.Join(data, "opencode")
			db := buildDB(t, dir, rows, tt.mode)
			if tt.dropSHM {
				os.Remove(db + "-shm")
			}
			// A read-only folder and files: as root this changes nothing,
			// which is why the tree is compared too.
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if !d.IsDir() {
					os.Chmod(p, 0o444)
				}
				return nil
			})
			os.Chmod(dir, 0o555)
			t.Cleanup(func() { os.Chmod(dir, 0o755) })
			before := tree(t, dir)

			env := envFor(t.TempDir(), data)
			refs, warns := readEverything(t, env)
			if len(refs) != tt.sessions {
				t.Errorf("found %d sessions, want %d", len(refs), tt.sessions)
			}
			var found bool
			for _, w := range warns {
				if tt.warning != "" && strings.Contains(w.Message, tt.warning) {
					found = true
				} else {
					t.Errorf("warning: %v", w)
				}
			}
			if tt.warning != "" && !found {
				t.Errorf("no warning %q", tt.warning)
			}
			if after := tree(t, dir); after != before {
				t.Errorf("reading changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// TestReadRealStore reads the store the e2e test's real OpenCode run left,
// when it is on this machine, and checks it is unchanged.
func TestReadRealStore(t *testing.T) {
	dir := "/tmp/e2e-real/TestConversation_opencode/home/.local/share/opencode"
	if _, err := os.Stat(filepath.Join(dir, "opencode.db-wal")); err != nil {
		t.Skip("no real store at " + dir)
	}
	before := tree(t, dir)
	refs, warns := readEverything(t, envFor(t.TempDir(), filepath.Dir(dir)))
	for _, w := range warns {
		t.Errorf("warning: %v", w)
	}
	if len(refs) == 0 {
		t.Error("no session found")
	}
	if after := tree(t, dir); after != before {
		t.Errorf("reading changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestHelperProcess is not a test: it is OpenCode's stand-in in another
// process, holding a write transaction on a database until its standard
// input closes.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv("OPENCODE_TEST_HOLD")
	if path == "" {
		return // only run as the lock holder another test starts
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	db.SetMaxOpenConns(1)
	stmts := []string{"BEGIN IMMEDIATE", "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES ('ses_uncommittedXXXXXXXXXXXX', 'global', 's', '/', 'uncommitted', '1.18.33', 1, 1)"}
	if os.Getenv("OPENCODE_TEST_EXCLUSIVE") != "" {
		stmts = []string{"BEGIN EXCLUSIVE"}
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
	}
	fmt.Println("holding")
	bufio.NewReader(os.Stdin).ReadString('\n')
	os.Exit(0)
}

// holdDB starts a process that holds a write transaction on path (an
// exclusive lock with exclusive) until the test ends.
func holdDB(t *testing.T, path string, exclusive bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "OPENCODE_TEST_HOLD="+path)
	if exclusive {
		cmd.Env = append(cmd.Env, "OPENCODE_TEST_EXCLUSIVE=1")
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "holding" {
		t.Fatalf("helper: %q %v", line, err)
	}
}

// TestLockedByWriter reads a WAL database while another process holds a
// write transaction, as OpenCode does while it answers: the reader sees
// the last commit, not the write in progress, and is not blocked.
func TestLockedByWriter(t *testing.T) {
	data := t.TempDir()
	db := buildDB(t, filepath.Join(data, "opencode"), caseRows(t, "conversation-db"), asLeft)
	holdDB(t, db, false)
	start := time.Now()
	refs, warns := readEverything(t, envFor(t.TempDir(), data))
	for _, w := range warns {
		t.Errorf("warning: %v", w)
	}
	if len(refs) != 1 || refs[0].ID != "ses_dfff632e1ffeNW6YJ7eJ603fa4" {
		t.Errorf("found %+v, want the committed session only", refs)
	}
	if d := time.Since(start); d > busyTimeout {
		t.Errorf("reading took %v: the writer blocked it", d)
	}
}

// TestLockedExclusive reads a rollback-journal database another process
// holds an exclusive lock on: after the busy timeout, a clear error.
func TestLockedExclusive(t *testing.T) {
	defer func(d time.Duration) { busyTimeout = d }(busyTimeout)
	busyTimeout = 200 * time.Millisecond
	data := t.TempDir()
	db := buildDB(t, filepath.Join(data, "opencode"), caseRows(t, "conversation-db"), rollback)
	holdDB(t, db, true)
	refs, warns := Discover(envFor(t.TempDir(), data))
	if len(refs) != 0 || len(warns) != 1 || !strings.Contains(warns[0].Message, "locked by another process") {
		t.Errorf("discover: %d refs, warnings %v; want one saying the database is locked", len(refs), warns)
	}
	_, err := Open(session.Env{}, session.Ref{Path: db, ID: "ses_dfff632e1ffeNW6YJ7eJ603fa4"})
	if err == nil || !strings.Contains(err.Error(), "locked by another process") {
		t.Errorf("open: %v; want an error saying the database is locked", err)
	}
}

// TestBadDatabases opens files that are not OpenCode databases, or are
// damaged: each gives an error that says so, never a panic.
func TestBadDatabases(t *testing.T) {
	dir := t.TempDir()
	good := buildDB(t, filepath.Join(dir, "good"), caseRows(t, "probe-db"), rollback)
	goodBytes, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A database with a session table only.
	partial := filepath.Join(dir, "partial", "opencode.db")
	os.MkdirAll(filepath.Dir(partial), 0o755)
	pdb, err := sql.Open("sqlite", partial)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pdb.Exec(`CREATE TABLE session (id text PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	pdb.Close()

	const id = "ses_e0079bc40ffeWGiAVrGg0Ba6kx"
	for _, tt := range []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "none", "opencode.db"), "no such file"},
		{"empty", write("empty.db", nil), "not a SQLite database"},
		{"text", write("text.db", []byte("hello\n")), "not a SQLite database"},
		{"header only", write("header.db", append([]byte("SQLite format 3\x00"), make([]byte, 84)...)), "opencode:"},
		{"garbage after header", write("garbage.db", append(append([]byte{}, goodBytes[:100]...), make([]byte, 4000)...)), "opencode:"},
		{"truncated", write("truncated.db", goodBytes[:len(goodBytes)/2]), "opencode:"},
		{"last page cut", write("lastpage.db", goodBytes[:len(goodBytes)-4096]), "opencode:"},
		{"no message table", partial, "not an OpenCode database"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Open(session.Env{}, session.Ref{Path: tt.path, ID: id})
			if err == nil {
				// A damaged file may still yield what it holds; then it
				// must say what it could not read.
				if len(s.Warnings) == 0 {
					t.Fatalf("no error and no warning")
				}
				return
			}
			t.Logf("%v", err)
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if _, err := SummarizeFile(session.Ref{Path: tt.path, ID: id}, session.DetailList); err == nil {
				t.Errorf("SummarizeFile read a database Open could not")
			}
		})
	}
}

// TestOpenWithoutID opens a database named by path alone: one session is
// read, several need an id and the error says how to give one.
func TestOpenWithoutID(t *testing.T) {
	dir := t.TempDir()
	one := buildDB(t, filepath.Join(dir, "one"), caseRows(t, "conversation-db"), asLeft)
	two := buildDB(t, filepath.Join(dir, "two"), caseRows(t, "synthetic-db"), asLeft)
	empty := buildDB(t, filepath.Join(dir, "empty"), "", asLeft)

	s, err := ReadFile(one)
	if err != nil || s.ID != "ses_dfff632e1ffeNW6YJ7eJ603fa4" {
		t.Errorf("one session: %v %v", s, err)
	}
	_, err = Open(session.Env{}, session.Ref{Path: two})
	if !errors.Is(err, session.ErrAmbiguous) || !strings.Contains(err.Error(), "opencode:<id>") || !strings.Contains(err.Error(), "2 sessions") {
		t.Errorf("two sessions: %v", err)
	}
	if _, err := Open(session.Env{}, session.Ref{Path: empty}); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("no session: %v", err)
	}
	if _, err := Open(session.Env{}, session.Ref{Path: one, ID: "ses_notthereXXXXXXXXXXXXXXXXX"}); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
}

// TestConcurrentSummaries summarises the sessions of one database from
// many goroutines at once, as the catalog does, sharing one store.
func TestConcurrentSummaries(t *testing.T) {
	data := t.TempDir()
	buildDB(t, filepath.Join(data, "opencode"), caseRows(t, "synthetic-db"), asLeft)
	refs, _ := Discover(envFor(t.TempDir(), data))
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for _, ref := range refs {
				d := session.Detail(i % 2)
				if _, err := SummarizeFile(ref, d); err != nil {
					errs <- err
				}
				if i%4 == 0 {
					if _, err := Open(session.Env{}, ref); err != nil {
						errs <- err
					}
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
