package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestExportLean exports every session in two passes (lean, then its
// content read again, as a large file is) and whole: both formats write
// the same bytes either way, apart from the export time.
func TestExportLean(t *testing.T) {
	env := homes(t)
	defer func(c func() time.Time) { exportClock = c }(exportClock)
	exportClock = func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }
	export := func(lean bool) (ndjson []string, cusfs map[string]string) {
		t.Helper()
		defer func(n int64) { leanAbove = n }(leanAbove)
		if lean {
			leanAbove = 0
		}
		file := filepath.Join(t.TempDir(), "all.ndjson")
		mustRun(t, env, "session", "export", "--format", "ndjson", "-o", file)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		ndjson = strings.Split(string(data), "\n")
		dir := t.TempDir()
		mustRun(t, env, "session", "export", "--format", "cusf", "-o", dir)
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		cusfs = map[string]string{}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			cusfs[filepath.Base(f)] = string(data)
		}
		return ndjson, cusfs
	}
	wholeN, wholeC := export(false)
	leanN, leanC := export(true)
	if len(wholeN) < 5 || len(wholeN) != len(leanN) {
		t.Fatalf("%d NDJSON lines whole, %d lean", len(wholeN), len(leanN))
	}
	for i := range wholeN {
		if wholeN[i] != leanN[i] {
			t.Errorf("NDJSON session line %d differs read lean:\nwhole: %.300s\nlean:  %.300s", i+1, wholeN[i], leanN[i])
		}
	}
	if len(wholeC) < 5 || len(wholeC) != len(leanC) {
		t.Fatalf("%d CUSF files whole, %d lean", len(wholeC), len(leanC))
	}
	for name, w := range wholeC {
		if leanC[name] != w {
			t.Errorf("%s differs read lean", name)
		}
	}
}
