package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

// TestExportCUSFValidates exports every session of the test homes as
// CUSF, one file each, and validates each with --grade: schema,
// structure and reconstruction pass, and a session with usage and
// timestamps grades A.
func TestExportCUSFValidates(t *testing.T) {
	env := homes(t)
	dir := t.TempDir()
	out := mustRun(t, env, "session", "export", "--format", "cusf", "-o", dir, "--json")
	var rep exportReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("export --json printed %q: %v", out, err)
	}
	if rep.Sessions < 5 || len(rep.Files) != rep.Sessions {
		t.Fatalf("exported %d sessions into %d files", rep.Sessions, len(rep.Files))
	}
	gradeA := 0
	for _, f := range rep.Files {
		if !strings.HasSuffix(f, "--export.jsonl") || !strings.Contains(filepath.Base(f), "-session-") {
			t.Errorf("%s is not named as CUSF §3.1 says", f)
		}
		vout, verr, code := run(t, env, "session", "validate", "--grade", "--json", f)
		var res struct {
			Grade  string
			Score  int
			Schema struct{ Pass bool }
		}
		if err := json.Unmarshal([]byte(vout), &res); err != nil || code != ExitOK {
			t.Errorf("validate %s: exit %d, %v\n%s%s", filepath.Base(f), code, err, vout, verr)
			continue
		}
		if res.Grade == "A" {
			gradeA++
		}
	}
	if gradeA == 0 {
		t.Error("no export graded A")
	}
	t.Logf("%d sessions exported as CUSF, %d graded A", rep.Sessions, gradeA)

	// Files are never replaced.
	var listing listed
	json.Unmarshal([]byte(mustRun(t, env, "session", "list", "--json")), &listing)
	a, b := listing.Sessions[0], listing.Sessions[1]
	one := filepath.Join(dir, "one.jsonl")
	mustRun(t, env, "session", "export", "--format", "cusf", "-o", one, a.CLI+":"+a.ID)
	before, _ := os.ReadFile(one)
	_, errOut, code := run(t, env, "session", "export", "--format", "usf", "-o", one, b.CLI+":"+b.ID)
	after, _ := os.ReadFile(one)
	if code == ExitOK || !strings.Contains(errOut, "exists") || string(before) != string(after) {
		t.Errorf("exporting over an existing file: exit %d, %s", code, errOut)
	}
}

// TestValidateNamesLineAndRule checks that a broken CUSF file fails with
// the line and rule of each failure.
func TestValidateNamesLineAndRule(t *testing.T) {
	f := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(f, []byte(`{"_meta":{"format":"cusf","version":"1.0.0","exported_at":"2026-01-28T12:00:00Z","exporter":"x"}}
{"type":"session_start","session_id":"s1","llm_source":"claude","started_at":"2026-01-28T10:00:00Z"}
{"type":"tool_result","tool_id":"nope","timestamp":"2026-01-28T10:00:01Z"}
{"type":"session_end","session_id":"s2","ended_at":"2026-01-28T10:00:02Z"}
`), 0o644)
	out, _, code := run(t, session.Env{Home: t.TempDir()}, "session", "validate", f)
	if code != ExitError {
		t.Errorf("exit %d, want %d", code, ExitError)
	}
	for _, want := range []string{"line 3", "tool_result", "line 4", "FAIL"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
}

// TestNDJSONRoundTrip exports every session into one NDJSON file (gzip)
// and reads it back the way import does: the same sessions, entry for
// entry.
func TestNDJSONRoundTrip(t *testing.T) {
	env := homes(t)
	file := filepath.Join(t.TempDir(), "all.ndjson.gz")
	mustRun(t, env, "session", "export", "--format", "ndjson", "-o", file)
	var listing listed
	json.Unmarshal([]byte(mustRun(t, env, "session", "list", "--json")), &listing)
	want := map[string]int{}
	for _, s := range listing.Sessions {
		sh, err := session.Unmarshal([]byte(mustRun(t, env, "session", "show", s.CLI+":"+s.ID, "--json")))
		if err != nil {
			t.Fatal(err)
		}
		want[s.CLI+":"+s.ID] = len(sh.Timeline)
	}
	got := map[string]int{}
	format, warns, err := readInterchange(file, func(s *session.Session) error {
		got[s.Source.CLI+":"+s.ID] = len(s.Timeline)
		return nil
	})
	if err != nil || len(warns) > 0 || format != formatNDJSON {
		t.Fatalf("reading back: %s, %v, %v", format, warns, err)
	}
	if len(got) != len(want) {
		t.Errorf("%d sessions read back, %d exported", len(got), len(want))
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d entries read back, %d exported", k, got[k], n)
		}
	}
	out, _, code := run(t, env, "session", "validate", file)
	if code != ExitOK || !strings.Contains(out, "0 problems") {
		t.Errorf("validate: exit %d\n%s", code, out)
	}
}

// TestExportTwoPass exports every session in two passes (its outline,
// then its entries read again, as a large file is) and whole: every
// format writes the same bytes either way, apart from the export time.
func TestExportTwoPass(t *testing.T) {
	env := homes(t)
	defer func(c func() time.Time) { exportClock = c }(exportClock)
	exportClock = func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }
	export := func(format string, twoPass bool) map[string]string {
		t.Helper()
		defer func(n int64) { catalog.TwoPassAbove = n }(catalog.TwoPassAbove)
		if twoPass {
			catalog.TwoPassAbove = 0
		}
		dir := t.TempDir()
		mustRun(t, env, "session", "export", "--format", format, "-o", dir)
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		out := map[string]string{}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if format == formatNDJSON {
				// One file of one line a session, named by the time.
				for i, l := range strings.Split(string(data), "\n") {
					out[fmt.Sprint("line ", i+1)] = l
				}
				continue
			}
			out[filepath.Base(f)] = string(data)
		}
		return out
	}
	for _, format := range []string{formatUSF, formatCUSF, formatNDJSON} {
		whole, two := export(format, false), export(format, true)
		if len(whole) < 5 || len(whole) != len(two) {
			t.Fatalf("%s: %d files or lines whole, %d in two passes", format, len(whole), len(two))
		}
		for name, w := range whole {
			if two[name] != w {
				t.Errorf("%s: %s differs in two passes:\nwhole: %.300s\ntwo:   %.300s", format, name, w, two[name])
			}
		}
	}
}

// TestExportTwoPassChanged: a session file that changes between the two
// reads of an export (its lines reordered, the same size) fails with a
// clear error instead of writing a mix of both.
func TestExportTwoPassChanged(t *testing.T) {
	defer func(n int64) { catalog.TwoPassAbove = n }(catalog.TwoPassAbove)
	catalog.TwoPassAbove = 0
	for _, cli := range []string{session.Claude, session.Codex} {
		t.Run(cli, func(t *testing.T) {
			path := samples.Repeated(t, cli, 64<<10)
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			f := &Factory{Env: session.Env{Home: t.TempDir()}}
			it := exportItem{ref: path, cli: cli, sref: session.Ref{CLI: cli, Path: path, Size: fi.Size()}}
			src, err := openExport(context.Background(), f, &ExportOptions{Format: formatCUSF}, it)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			if src.Entries == nil {
				t.Fatal("not read in two passes")
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(data), "\n")
			slices.Reverse(lines)
			if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600); err != nil {
				t.Fatal(err)
			}
			for {
				_, err = src.Entries.Next()
				if err != nil {
					break
				}
			}
			if !errors.Is(err, catalog.ErrChanged) || !strings.Contains(err.Error(), path) {
				t.Errorf("reading a changed file: %v, want %v naming the file", err, catalog.ErrChanged)
			}
		})
	}
}

// TestExportFilesPrivate: sessions hold source code and secrets, so every
// file an export writes is its user's alone, whatever the umask.
func TestExportFilesPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	env := homes(t)
	dir := t.TempDir()
	mustRun(t, env, "session", "export", "--format", "cusf", "-o", filepath.Join(dir, "cusf"))
	mustRun(t, env, "session", "export", "--format", "usf", "-o", filepath.Join(dir, "usf")+"/")
	mustRun(t, env, "session", "export", "--format", "ndjson", "-o", filepath.Join(dir, "all.ndjson"))
	mustRun(t, env, "session", "export", claudeSession, "--format", "cusf", "-o", filepath.Join(dir, "one.jsonl"))
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		if fi, err := d.Info(); err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v, want only its owner to read it", p, fi.Mode().Perm())
		}
		return nil
	})
	if n < 3 {
		t.Fatalf("the exports wrote %d files", n)
	}
}

// TestExportNeverReplaces: no format writes over a file that is there.
func TestExportNeverReplaces(t *testing.T) {
	env := homes(t)
	for _, format := range []string{"ndjson", "cusf", "usf"} {
		path := filepath.Join(t.TempDir(), "there")
		os.WriteFile(path, []byte("mine"), 0o600)
		_, errOut, code := run(t, env, "session", "export", claudeSession, "--format", format, "-o", path)
		if data, _ := os.ReadFile(path); code == ExitOK || string(data) != "mine" || !strings.Contains(errOut, "exists") {
			t.Errorf("%s over an existing file: exit %d, %q; the file holds %q", format, code, errOut, data)
		}
	}
}
