package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/session"
)

// busEnv serves a real bus for the test and returns an environment whose
// commands use it.
func busEnv(t *testing.T, env session.Env) session.Env {
	t.Helper()
	b, err := bus.New(context.Background(), bus.Options{StoreDir: t.TempDir(), Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	vars := map[string]string{"STEAD_NATS_URL": b.ClientURL(), "STEAD_NATS_TOKEN": b.ClientToken()}
	for k, v := range env.Vars {
		vars[k] = v
	}
	env.Vars = vars
	return env
}

// TestImportCutLine: an NDJSON file whose only session line is cut short
// imports nothing, and says so with an error naming the file and line;
// one that also holds a good session imports it, and names the bad line.
func TestImportCutLine(t *testing.T) {
	env := busEnv(t, homes(t))
	all := filepath.Join(t.TempDir(), "all.ndjson")
	mustRun(t, env, "session", "export", "--format", "ndjson", "-o", all)
	data, err := os.ReadFile(all)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	header, good, cut := lines[0], lines[1], lines[2][:len(lines[2])/2]
	dir := t.TempDir()

	only := filepath.Join(dir, "only-cut.ndjson")
	os.WriteFile(only, []byte(header+cut), 0o600)
	out, errOut, code := run(t, env, "session", "import", only)
	if code == ExitOK || !strings.Contains(errOut, only+":2:") {
		t.Errorf("import of a file whose only session is cut: exit %d, want an error naming %s:2\n%s%s", code, only, out, errOut)
	}

	some := filepath.Join(dir, "one-cut.ndjson")
	os.WriteFile(some, []byte(header+good+cut+"\n"), 0o600)
	out, errOut, code = run(t, env, "session", "import", some, "--json")
	var imp struct{ Sessions []struct{ Run string } }
	if err := json.Unmarshal([]byte(out), &imp); err != nil || code != ExitOK || len(imp.Sessions) != 1 {
		t.Errorf("import of a good and a cut session: exit %d, %v, want the good one imported\n%s%s", code, err, out, errOut)
	}
	if !strings.Contains(errOut, some+":3:") {
		t.Errorf("the cut line is not reported as %s:3:\n%s", some, errOut)
	}
}

// TestImportTwoPass imports the CUSF export of every test session read
// whole and read in two passes (as a file over catalog.TwoPassAbove is: its
// outline, then its entries stored as they are read again): the runs
// store the same sessions.
func TestImportTwoPass(t *testing.T) {
	env := busEnv(t, homes(t))
	dir := t.TempDir()
	mustRun(t, env, "session", "export", "--format", "cusf", "-o", dir)
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) < 10 {
		t.Fatalf("%d CUSF files exported", len(files))
	}
	imported := func(file string, twoPass bool) string {
		t.Helper()
		defer func(n int64) { catalog.TwoPassAbove = n }(catalog.TwoPassAbove)
		catalog.TwoPassAbove = 1 << 62
		if twoPass {
			catalog.TwoPassAbove = 0
		}
		var imp struct{ Sessions []struct{ Run string } }
		if err := json.Unmarshal([]byte(mustRun(t, env, "session", "import", file, "--json")), &imp); err != nil || len(imp.Sessions) != 1 {
			t.Fatalf("import %s: %v, %d sessions", file, err, len(imp.Sessions))
		}
		return mustRun(t, env, "session", "show", "run:"+imp.Sessions[0].Run, "--json")
	}
	for _, f := range files {
		whole, two := imported(f, false), imported(f, true)
		if whole != two || !strings.Contains(whole, `"format": "cusf"`) {
			t.Errorf("%s: stored differently when read in two passes:\nwhole: %.300s\ntwo:   %.300s", filepath.Base(f), whole, two)
		}
	}
}

// TestNotASessionRefused: a JSON document that is not a universal session
// neither validates nor imports; the error names the file and what the
// document lacks, and nothing is stored.
func TestNotASessionRefused(t *testing.T) {
	env := busEnv(t, homes(t))
	dir := t.TempDir()
	for name, doc := range map[string]string{"object.json": `{"a":1}`, "no-timeline.json": `{"id":"x","version":"1.0","source":{"cli":"claude"}}`} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(doc+"\n"), 0o600)
		out, errOut, code := run(t, env, "session", "validate", p)
		if code == ExitOK || !strings.Contains(out+errOut, p) || !strings.Contains(out+errOut, "not a universal session") || !strings.Contains(out, "0 sessions read, 1 problem") {
			t.Errorf("validate %s: exit %d, want a refusal naming the file\n%s%s", doc, code, out, errOut)
		}
		out, errOut, code = run(t, env, "session", "import", p, "--json")
		if code == ExitOK || !strings.Contains(errOut, "not a universal session") {
			t.Errorf("import %s: exit %d, want a refusal\n%s%s", doc, code, out, errOut)
		}
	}
	if out := mustRun(t, env, "runs", "--json"); strings.Contains(out, `"id"`) {
		t.Errorf("a refused import stored a run: %s", out)
	}
}
