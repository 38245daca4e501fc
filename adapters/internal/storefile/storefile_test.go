package storefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenRefusesSpecialFiles: a named pipe, a folder or a link to a pipe
// is refused without being opened (opening the pipe would block, and the
// test would hang); a regular file or a link to one opens.
func TestOpenRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "s.jsonl")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	link := filepath.Join(dir, "link.jsonl")
	os.Symlink(pipe, link)
	folder := filepath.Join(dir, "d.jsonl")
	os.Mkdir(folder, 0o755)
	file := filepath.Join(dir, "f.jsonl")
	os.WriteFile(file, []byte("{}\n"), 0o600)
	fileLink := filepath.Join(dir, "flink.jsonl")
	os.Symlink(file, fileLink)

	for p, kind := range map[string]string{pipe: "a named pipe (FIFO)", link: "a named pipe (FIFO)", folder: "a folder"} {
		f, err := Open(p)
		if err == nil {
			f.Close()
		}
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), kind) {
			t.Errorf("Open(%s) = %v; want %s, not a regular file", p, err, kind)
		}
		if w := Skipped(p, err); w.Path != p || w.Message != "skipped: "+kind+", not a regular file" {
			t.Errorf("Skipped(%s) = %+v", p, w)
		}
	}
	for _, p := range []string{file, fileLink} {
		if b, err := ReadFile(p); err != nil || string(b) != "{}\n" {
			t.Errorf("ReadFile(%s) = %q, %v", p, b, err)
		}
	}
	ok, first := Regular([]string{pipe, file, folder})
	if len(ok) != 1 || ok[0] != file || !errors.Is(first, ErrNotRegular) || !strings.Contains(first.Error(), pipe) {
		t.Errorf("Regular = %v, %v", ok, first)
	}
}

// TestCheckIsStat: Check says what os.Stat says of every kind of file,
// through its own stat (no fs.FileInfo): the same size, time and inode of
// a file or a link to one, refusals of what is not a regular file, and
// os.Stat's "does not exist".
func TestCheckIsStat(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "p.jsonl")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	folder := filepath.Join(dir, "d.jsonl")
	os.Mkdir(folder, 0o755)
	file := filepath.Join(dir, "f.jsonl")
	os.WriteFile(file, []byte("{}\n{}\n"), 0o600)
	when := time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)
	os.Chtimes(file, when, when)
	link := filepath.Join(dir, "l.jsonl")
	os.Symlink(file, link)
	dangling := filepath.Join(dir, "dangling.jsonl")
	os.Symlink(filepath.Join(dir, "gone"), dangling)

	for _, p := range []string{file, link} {
		in, err := Check(p)
		fi, _ := os.Stat(p)
		st := fi.Sys().(*syscall.Stat_t)
		if err != nil || in.Mode != 0 || in.Size != 6 || !in.ModTime.Equal(when) || in.Inode != st.Ino || in.Inode == 0 {
			t.Errorf("Check(%s) = %+v, %v; want size 6, time %v, inode %d", p, in, err, when, st.Ino)
		}
		if r := RefAt("claude", "s", p, in); r.Size != 6 || !r.ModTime.Equal(when) || r.Inode != in.Inode || r.Path != p || r.ID != "s" {
			t.Errorf("RefAt = %+v", r)
		}
	}
	for p, kind := range map[string]string{pipe: "a named pipe (FIFO)", folder: "a folder"} {
		_, err := Check(p)
		want := "open " + p + ": " + kind + ", not a regular file"
		if !errors.Is(err, ErrNotRegular) || err == nil || err.Error() != want {
			t.Errorf("Check(%s) = %v; want %s", p, err, want)
		}
	}
	for _, p := range []string{filepath.Join(dir, "none.jsonl"), dangling} {
		_, err := Check(p)
		_, want := os.Stat(p)
		if !os.IsNotExist(err) || !errors.Is(err, fs.ErrNotExist) || err.Error() != want.Error() {
			t.Errorf("Check(%s) = %v; want %v", p, err, want)
		}
	}
}
