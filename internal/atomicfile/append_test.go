package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// readLog reads the log at path with ReadLines.
func readLog(t *testing.T, path string) ([]string, []TornLine) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []string
	torn, err := ReadLines(f, func(_ int, rec []byte) error {
		recs = append(recs, string(rec))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return recs, torn
}

// TestAppendAfterTornLine: a log whose last record was cut short (a full
// disk) gets the next record on a line of its own, and a reader skips the
// torn one with its line number and reads the rest.
func TestAppendAfterTornLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(p, []byte(`{"n":1}`+"\n"+`{"n":2,"tar`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := AppendLine(p, []byte(`{"n":3}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := AppendLine(p, []byte(`{"n":4}`), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if want := `{"n":1}` + "\n" + `{"n":2,"tar` + "\n" + `{"n":3}` + "\n" + `{"n":4}` + "\n"; string(b) != want {
		t.Fatalf("log is %q, want %q", b, want)
	}
	recs, torn := readLog(t, p)
	if strings.Join(recs, " ") != `{"n":1} {"n":3} {"n":4}` {
		t.Errorf("records %q", recs)
	}
	if len(torn) != 1 || torn[0].Line != 2 || !strings.Contains(torn[0].String(), "line 2: not a whole record") {
		t.Errorf("torn lines %v, want line 2", torn)
	}
}

// TestReadLinesRunOn: a log an older stead appended to after a torn
// record has the next record run on; the reader skips that line, keeps
// a last record without a newline, and ignores blank lines.
func TestReadLinesRunOn(t *testing.T) {
	in := `{"n":1}` + "\n\n" + `{"n":2,"ta{"n":3}` + "\n" + `{"n":4}`
	var recs []string
	var lines []int
	torn, err := ReadLines(strings.NewReader(in), func(n int, rec []byte) error {
		recs, lines = append(recs, string(rec)), append(lines, n)
		return nil
	})
	if err != nil || len(torn) != 1 || torn[0].Line != 3 {
		t.Errorf("torn %v, err %v; want line 3", torn, err)
	}
	if fmt.Sprint(recs, lines) != `[{"n":1} {"n":4}] [1 4]` {
		t.Errorf("records %q at lines %v", recs, lines)
	}
	stop := errors.New("stop")
	if _, err := ReadLines(strings.NewReader(in), func(int, []byte) error { return stop }); err != stop {
		t.Errorf("fn's error: got %v", err)
	}
}

func TestOpenAppendEndsTornLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "requests.jsonl")
	for _, before := range []string{"", `{"n":1}` + "\n", `{"n":1}` + "\n" + `{"n":2`} {
		os.WriteFile(p, []byte(before), 0o600)
		f, err := OpenAppend(p, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(`{"n":9}` + "\n"))
		f.Close()
		b, _ := os.ReadFile(p)
		if !bytes.HasSuffix(b, []byte("\n"+`{"n":9}`+"\n")) && string(b) != `{"n":9}`+"\n" {
			t.Errorf("after %q: %q", before, b)
		}
	}
}

// TestAppendFullDisk fills a small tmpfs for real: a record that does not
// fit fails and leaves the log as it was, and the next one, once there is
// room, is read back whole.
func TestAppendFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs to fill needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	p := filepath.Join(dir, "conversions.jsonl")
	if err := AppendLine(p, []byte(`{"n":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fill := filepath.Join(dir, "fill")
	if err := os.WriteFile(fill, make([]byte, 1<<20), 0o600); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling the disk: %v", err)
	}
	big := []byte(`{"n":2,"pad":"` + strings.Repeat("x", 20000) + `"}`)
	err := AppendLine(p, big, 0o600)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("appending to a full disk: %v, want ENOSPC", err)
	}
	if b, _ := os.ReadFile(p); string(b) != `{"n":1}`+"\n" {
		t.Errorf("after the failed append the log is %d bytes: %.40q...", len(b), b)
	}
	os.Remove(fill)
	if err := AppendLine(p, []byte(`{"n":3}`), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, torn := readLog(t, p)
	if len(torn) != 0 || strings.Join(recs, " ") != `{"n":1} {"n":3}` {
		t.Errorf("records %q, torn %v", recs, torn)
	}
}
