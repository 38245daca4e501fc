package opencode

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// realOpenCode returns the opencode binary scripts/install-clis.sh
// installed (scenarios/clis.txt pins 1.18.33), where internal/clitest looks for
// it, or skips the test.
func realOpenCode(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real opencode binary (not in -short)")
	}
	var dirs []string
	if d := os.Getenv("STEAD_CLI_CACHE"); d != "" {
		dirs = append(dirs, d)
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		dirs = append(dirs, filepath.Join(d, "stead", "clis"))
	}
	if h, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(h, ".cache", "stead", "clis"))
	}
	for _, d := range dirs {
		bin := filepath.Join(d, "opencode", "node_modules", ".bin", "opencode")
		if _, err := os.Stat(bin); err == nil {
			return bin
		}
	}
	msg := "the opencode binary is not installed (looked in " + strings.Join(dirs, ", ") + "): run scripts/install-clis.sh opencode"
	if os.Getenv("STEAD_REQUIRE_CLIS") == "1" {
		t.Fatal(msg) // CI installs it: a missing binary is a failure there
	}
	t.Skip(msg)
	return ""
}

// realHome is an isolated home for the real binary, with the
// environment Setup gives it (no traffic leaves the machine).
type realHome struct {
	bin  string
	home string
	env  []string
}

func newRealHome(t *testing.T, bin string) *realHome {
	t.Helper()
	home := t.TempDir()
	setup := Setup(live.Launch{Home: home, BaseURL: "http://127.0.0.1:9"})
	for name, data := range setup.Files {
		writeFile(t, filepath.Join(home, filepath.FromSlash(name)), []byte(data))
	}
	env := append([]string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + t.TempDir(), "TERM=dumb", "NO_COLOR=1"}, setup.Env...)
	return &realHome{bin: bin, home: home, env: env}
}

// storeEnv is the environment stead sees the home's store through.
func (h *realHome) storeEnv() session.Env {
	vars := map[string]string{}
	for _, kv := range h.env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	return session.Env{Home: h.home, Vars: vars}
}

// run runs opencode in dir, stdin from /dev/null.
func (h *realHome) run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.bin, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, h.env, nil
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("opencode %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out.String(), errOut.String())
	}
	t.Logf("opencode %s: %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	return out.String()
}

// exported returns the session opencode export prints, read by stead.
func (h *realHome) exported(t *testing.T, dir, id string) *session.Session {
	t.Helper()
	s, err := Read(strings.NewReader(h.run(t, dir, "export", id)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// schemaAt returns the schema of the database at path.
func schemaAt(t *testing.T, path string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return schemaOf(t, db)
}

// TestRealImport imports the encoder's export with the real
// `opencode import` and checks OpenCode exports the same session back.
func TestRealImport(t *testing.T) {
	bin := realOpenCode(t)
	h := newRealHome(t, bin)
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	tg := writtenTarget()
	tg.ID, tg.Dir = newSessionID(time.Now()), dir
	export := writeExport(t, tg, writtenEntries())
	out := h.run(t, dir, "import", export)
	if !strings.Contains(out, "Imported session: "+tg.ID) {
		t.Fatalf("opencode import printed %q", out)
	}
	raw := h.run(t, dir, "export", tg.ID)
	if !strings.Contains(raw, `"steadOrigin"`) {
		t.Error("the imported session lost its provenance (metadata.steadOrigin)")
	}
	back, err := Read(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(export)
	defer f.Close()
	want, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := timelineOf(back), timelineOf(want); g != w {
		t.Errorf("opencode exports the imported session as:\n%s\nstead wrote:\n%s", g, w)
	}
	if !strings.Contains(h.run(t, dir, "session", "list", "--format", "json"), tg.ID) {
		t.Error("opencode session list does not show the imported session")
	}
}

// TestRealCommit installs sessions with Commit, into a home OpenCode never
// ran in (Commit creates the database) and into a git repository, and
// checks the real OpenCode lists and exports them from their directories
// and takes the database it did not create as migrated.
func TestRealCommit(t *testing.T) {
	bin := realOpenCode(t)
	h := newRealHome(t, bin)
	env := h.storeEnv()
	install := func(dir string) (session.Target, session.Placement) {
		t.Helper()
		tg := writtenTarget()
		tg.ID, tg.Dir = "", dir
		// No model asked for: Place settles the configured one.
		tg.SourceModel, tg.SourceProvider, tg.Model, tg.Provider = tg.Model, tg.Provider, "", ""
		p, err := Place(env, &tg)
		if err != nil {
			t.Fatal(err)
		}
		export := writeExport(t, tg, writtenEntries())
		if err := Commit(env, p, tg, export); err != nil {
			t.Fatal(err)
		}
		return tg, p
	}
	plain, _ := filepath.EvalSymlinks(t.TempDir())
	tg, p := install(plain)
	created := schemaAt(t, p.Path)
	if tg.Model != "stub-model" || tg.Provider != "stub" {
		t.Errorf("the session asks for %s/%s, want the configured stub/stub-model", tg.Provider, tg.Model)
	}
	if !strings.Contains(h.run(t, plain, "session", "list", "--format", "json"), tg.ID) {
		t.Error("opencode session list does not show the installed session")
	}
	back := h.exported(t, plain, tg.ID)
	want, err := readDB(p.Path, tg.ID)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := timelineOf(back), timelineOf(want); g != w {
		t.Errorf("opencode exports the installed session as:\n%s\nstead reads:\n%s", g, w)
	}
	db, err := sql.Open("sqlite", "file:"+p.Path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM "migration"`).Scan(&n); err != nil || n != len(migrations) {
		t.Errorf("after OpenCode opened the database it created none of, it records %d migrations (%v)", n, err)
	}
	if got := strings.Join(schemaOf(t, db), "\n"); got != strings.Join(created, "\n") {
		t.Errorf("OpenCode changed the schema of the database Commit created:\n%s", got)
	}
	// This reader opened while stead's reader (readDB, readonly_shm)
	// had the -shm mapped read-only, and shares that mapping, which
	// would make the next install's writes fail: Commit closes stead's
	// own readers, and this one must go too.
	db.Close()

	git, err := exec.LookPath("git")
	if err != nil {
		return
	}
	repo, _ := filepath.EvalSymlinks(t.TempDir())
	for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "git@github.com:example/probe.git"}} {
		cmd := exec.Command(git, args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	tg, _ = install(repo)
	list := h.run(t, repo, "session", "list", "--format", "json")
	var sessions []struct {
		ID        string `json:"id"`
		ProjectID string `json:"projectID"`
	}
	json.Unmarshal([]byte(list), &sessions)
	found := false
	for _, s := range sessions {
		if s.ID == tg.ID {
			found = true
			if s.ProjectID != "b1a985cb899e5bc45e043ca6d6ea460eda957a8a" {
				t.Errorf("OpenCode lists the session under project %s", s.ProjectID)
			}
		}
	}
	if !found {
		t.Errorf("opencode session list in the repository does not show the installed session:\n%s", list)
	}
}
