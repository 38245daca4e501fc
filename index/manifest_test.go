package index_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/internal/corpusgen"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

// age sets the modification time of every file and folder below each
// store of env to an hour ago, as stores are between two refreshes.
func age(t *testing.T, dirs ...string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, d := range dirs {
		filepath.Walk(d, func(p string, fi os.FileInfo, err error) error {
			if err == nil {
				os.Chtimes(p, old, old)
			}
			return nil
		})
	}
}

// TestFreshnessListsOnlyChangedFolders: a refresh with nothing changed
// lists no folder again (it answers from the manifest); a session written
// into a folder it listed is found, and so is one written in the same
// tick as the listing, when the folder's time cannot tell the two apart.
func TestFreshnessListsOnlyChangedFolders(t *testing.T) {
	env := samples.AllCLIs(t)
	var stores []string
	for _, v := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "KIMI_CODE_HOME", "KIMI_SHARE_DIR", "XDG_DATA_HOME"} {
		stores = append(stores, env.Vars[v])
	}
	age(t, stores...)
	ix := openIndex(t, filepath.Join(t.TempDir(), "index.db"))
	first := refresh(t, ix, env)
	if first.Folders == 0 || first.Listed != first.Folders {
		t.Fatalf("first refresh: %d folders, %d listed; want all listed", first.Folders, first.Listed)
	}
	inode := func() uint64 {
		t.Helper()
		fi, err := os.Stat(ix.Path() + ".manifest")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	written := inode()
	again := refresh(t, ix, env)
	if again.Listed != 0 || again.Folders != first.Folders || again.Unchanged != first.Sessions {
		t.Fatalf("a refresh with nothing changed: %d of %d folders listed, %d of %d sessions unchanged; want none listed",
			again.Listed, again.Folders, again.Unchanged, first.Sessions)
	}
	// Every CLI's sessions were met in the order the manifest lists
	// them: it is not written again.
	if inode() != written {
		t.Error("a refresh with nothing changed wrote the manifest again")
	}

	// A new session in a folder the manifest lists.
	hits := search(t, ix, index.Query{Text: "the", CLIs: []string{"claude"}, Limit: 1})
	if len(hits) == 0 {
		t.Fatal("no Claude session found")
	}
	src := hits[0].Path
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	copyTo := func(name string) string {
		p := filepath.Join(filepath.Dir(src), name+".jsonl")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	copyTo("11111111-2222-4333-8444-555555555555")
	res := refresh(t, ix, env)
	if res.Added != 1 || res.Listed == 0 {
		t.Fatalf("after a new session in a listed folder: %+v", res)
	}

	// The folder changes again in the tick it was listed in: its time
	// stays what the listing saw. The listing was too close to that time
	// to be trusted, so the folder is listed again and the session found.
	dir := filepath.Dir(src)
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := copyTo("66666666-7777-4888-8999-aaaaaaaaaaaa")
	if err := os.Chtimes(dir, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	if res := refresh(t, ix, env); res.Added != 1 {
		t.Fatalf("a session written in the tick its folder was listed in: %+v; want it added", res)
	}

	// A manifest that is damaged, or not the one the database names, is
	// not used: the refresh reads the sessions table, lists every folder,
	// and writes a good manifest again.
	age(t, stores...)
	refresh(t, ix, env)
	file := ix.Path() + ".manifest"
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("no manifest beside the index: %v", err)
	}
	for _, bad := range [][]byte{good[:len(good)/2], []byte("garbage"), append([]byte("stead-manifest-3\nffff\n"), good[40:]...)} {
		if err := os.WriteFile(file, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		res := refresh(t, ix, env)
		if res.Added+res.Updated+res.Removed != 0 || res.Listed != res.Folders {
			t.Errorf("with a bad manifest: %+v; want nothing changed and every folder listed", res)
		}
		if res := refresh(t, ix, env); res.Listed != 0 {
			t.Errorf("after a bad manifest was written again: %d folders listed", res.Listed)
		}
	}
}

// TestBytesCountEachFileOnce: what a refresh read and what the index
// holds count each file once, however many sessions it holds (OpenCode's
// database holds them all).
func TestBytesCountEachFileOnce(t *testing.T) {
	dir := t.TempDir()
	if _, err := corpusgen.Generate(dir, corpusgen.Options{Seed: 5, Files: 25, TotalBytes: 2 << 20, Mix: corpusgen.EqualMix()}); err != nil {
		t.Fatal(err)
	}
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{}}
	for _, kv := range corpusgen.Env(dir) {
		k, v, _ := strings.Cut(kv, "=")
		env.Vars[k] = v
	}
	var onDisk int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			onDisk += fi.Size()
		}
		return nil
	})
	ix := openIndex(t, filepath.Join(t.TempDir(), "index.db"))
	res := refresh(t, ix, env)
	st, err := ix.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Entries == 0 || st.Entries != res.Entries {
		t.Errorf("the index says it holds %d entries; the refresh indexed %d", st.Entries, res.Entries)
	}
	if res.Bytes == 0 || res.Bytes > onDisk || st.Indexed > onDisk || st.Sessions != res.Sessions-countWarned(res) {
		t.Errorf("read %d bytes, the index holds %d bytes of %d sessions; the store holds %d bytes of %d sessions",
			res.Bytes, st.Indexed, st.Sessions, onDisk, res.Sessions)
	}
}

// TestFreshnessOpensNoUnchangedFile: a Gemini CLI session file names only
// the start of its session's id, which Discover reads from the file; a
// refresh asks the index first (session.Env.Known), so a file whose size,
// time and inode are as they were is not opened. Its id is changed here
// in place, keeping all three: a refresh that opened it would find a new
// session and lose the old.
func TestFreshnessOpensNoUnchangedFile(t *testing.T) {
	env := samples.AllCLIs(t)
	ix := openIndex(t, filepath.Join(t.TempDir(), "index.db"))
	first := refresh(t, ix, env)
	files, _ := filepath.Glob(filepath.Join(env.Vars["GEMINI_CLI_HOME"], ".gemini", "tmp", "*", "chats", "session-*.json*"))
	if len(files) == 0 {
		t.Fatal("the store has no Gemini CLI session")
	}
	f := files[0]
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(`"sessionId"`))
	if i < 0 {
		t.Fatalf("%s holds no sessionId", f)
	}
	j := bytes.IndexByte(data[i+len(`"sessionId":"`)+1:], '"') + i + len(`"sessionId":"`) + 1
	id := data[j-1 : j] // the id's last character
	if id[0] == '0' {
		id[0] = '1'
	} else {
		id[0] = '0'
	}
	rewriteInPlace(t, f, data)
	if res := refresh(t, ix, env); res.Added+res.Updated+res.Removed != 0 || res.Unchanged != first.Sessions {
		t.Errorf("a refresh after a file changed in place, its size, time and inode kept: %+v; want all %d unchanged (the file not opened)",
			res, first.Sessions)
	}
}

// TestMappedManifest: an index answering one command maps its manifest
// instead of reading it (ForOneAnswer) and tells what changed as one that
// reads it does, while a refresh that changed something writes a new
// manifest over the mapped one.
func TestMappedManifest(t *testing.T) {
	env := samples.ClaudeCodex(t)
	age(t, env.Vars["CLAUDE_CONFIG_DIR"], env.Vars["CODEX_HOME"])
	path := filepath.Join(t.TempDir(), "index.db")
	first := refresh(t, openIndex(t, path), env)
	ix := openIndex(t, path)
	ix.ForOneAnswer()
	if res := refresh(t, ix, env); res.Unchanged != first.Sessions || res.Listed != 0 {
		t.Fatalf("a refresh with nothing changed, its manifest mapped: %+v; want %d sessions unchanged, no folder listed", res, first.Sessions)
	}
	hits := search(t, ix, index.Query{Text: "the", CLIs: []string{"claude"}, Limit: 1})
	if len(hits) == 0 {
		t.Fatal("no Claude session found")
	}
	appendPrompt(t, hits[0].Path, hits[0].SessionID, "zanzibarian appended prompt")
	if res := refresh(t, ix, env); res.Updated != 1 || res.Unchanged != first.Sessions-1 {
		t.Fatalf("after appending to a session: %+v; want it alone read again", res)
	}
	if res := refresh(t, ix, env); res.Unchanged != first.Sessions {
		t.Fatalf("a refresh after the one that wrote a new manifest: %+v; want all unchanged", res)
	}
	if hits := search(t, ix, index.Query{Text: "zanzibarian"}); len(hits) != 1 {
		t.Errorf("the appended prompt: %d hits; want 1", len(hits))
	}
}
