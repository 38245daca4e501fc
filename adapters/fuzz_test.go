package adapters_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/session"
)

// outlined are the CLIs whose sessions can be read in two passes, with the
// name a session file of each gets in the store (the first of their
// testdata), in a fixed order so that a fuzz input picks one by index.
var outlined = []struct{ cli, name string }{
	{session.Claude, "c0ffee00-0000-4000-8000-000000000001.jsonl"},
	{session.Codex, "sessions/2026/11/21/rollout-2026-11-21T18-21-59-0dc1f7d7-55a9-435c-8664-fe402ea76e32.jsonl"},
}

// FuzzTwoPass checks that a session read in two passes, as export reads a
// large one (OpenOutline folds its timeline into an outline, then
// NewDecoder reads the entries again and the outline completes them), is
// the session Open reads, whatever the file holds; seeded with the start
// of every session file of the two CLIs' testdata.
func FuzzTwoPass(f *testing.F) {
	for i, o := range outlined {
		cases, _ := filepath.Glob(filepath.Join(o.cli, "testdata", "*.txtar"))
		for _, c := range cases {
			ar, err := txtar.ParseFile(c)
			if err != nil {
				f.Fatal(err)
			}
			for _, file := range ar.Files {
				if strings.HasPrefix(file.Name, "native/") && strings.HasSuffix(file.Name, ".jsonl") {
					f.Add(uint8(i), file.Data[:min(len(file.Data), 2<<10)])
					break // the session file; the others are its parents and subagents
				}
			}
		}
	}
	// One store for every input of this process (a directory made and
	// removed per input took a quarter of the time): each input rewrites
	// its CLI's file.
	dir := f.TempDir()
	for _, o := range outlined {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, filepath.FromSlash(o.name))), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		o := outlined[int(which)%len(outlined)]
		a, _ := adapters.Lookup(o.cli)
		path := filepath.Join(dir, filepath.FromSlash(o.name))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		env := session.Env{Home: dir, Vars: map[string]string{"CODEX_HOME": dir}}
		ref := session.Ref{CLI: o.cli, Path: path}
		whole, werr := a.Open(env, ref)
		var records []session.Record
		outline := session.NewOutline()
		s, oneFile, err := a.OpenOutline(env, ref, session.ReadOptions{Outline: outline,
			Records: func(r session.Record) { records = append(records, r) }})
		if (err == nil) != (werr == nil) {
			t.Fatalf("Open: %v; OpenOutline: %v", werr, err)
		}
		if err != nil || !oneFile {
			return // a fork's entries come from its parent's file too: export reads it whole
		}
		if len(s.Timeline) != 0 {
			t.Fatalf("%d entries kept beside the outline", len(s.Timeline))
		}
		dec := a.NewDecoder(bytes.NewReader(data))
		var raw []session.Entry
		for {
			ev, err := dec.Decode()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			raw = append(raw, ev.Entries...)
		}
		if len(raw) != outline.Len() {
			t.Fatalf("%d entries read again, %d outlined", len(raw), outline.Len())
		}
		for i := range raw {
			if !outline.Complete(&raw[i]) {
				t.Fatalf("entry %d (%s %s) is not the one outlined", i, raw[i].Type, raw[i].ID)
			}
		}
		s.Timeline = raw
		s.Records = records
		if got, want := jsonOf(t, s), jsonOf(t, whole); got != want {
			t.Fatalf("read for its outline then again:\n%.3000s\nread whole:\n%.3000s", got, want)
		}
	})
}
