package storefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
