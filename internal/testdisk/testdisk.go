// Package testdisk gives tests a disk that fills up: a small tmpfs, and a
// file that fills it. Mounting needs root (CI runs as root); elsewhere
// the tests that need it skip, saying so.
package testdisk

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Small mounts a tmpfs of size ("24m") at a new folder, unmounted when
// the test ends.
func Small(t testing.TB, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root (CI runs as root)")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// Fill writes a file until the disk holding dir is full, and returns a
// function that frees it.
func Fill(t testing.TB, dir string) (free func()) {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	// The last bytes, a page at a time.
	for _, err := f.Write(buf[:4096]); err == nil; _, err = f.Write(buf[:4096]) {
	}
	f.Close()
	return func() { os.Remove(p) }
}
