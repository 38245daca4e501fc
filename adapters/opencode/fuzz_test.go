package opencode

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// FuzzRead feeds arbitrary bytes, seeded with the start of every native
// file in testdata (exports, storage files, and the SQL of the database
// cases), to the export decoder and summarizer: they must never fail on
// content, and what they produce must encode, round-trip and match the
// schema.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"info":{"id":"ses_x","parentID":"ses_y","time":{"created":1.5e12}},"messages":[{"info":{"id":"msg_a","role":"assistant","tokens":{"input":-1,"output":"x","cache":{"read":1e300}}},"parts":[{"type":"tool","tool":"task","state":{"status":"error","input":[1],"metadata":{"sessionId":"ses_z","interrupted":true}}},{"type":"step-finish","tokens":{"input":3}}]}]}`))
	usftest.Fuzz(f, Read, Summarize)
}

// FuzzStorage reads a storage/ tree (OpenCode before its database) of a
// session file, a message and a part, seeded with those of testdata's
// storage case. Whatever the files hold, the session reads, encodes,
// round-trips through JSON unchanged and matches the schema, and each
// warning names one of the files.
func FuzzStorage(f *testing.F) {
	ar, err := txtar.ParseFile(filepath.Join("testdata", "storage-tree.txtar"))
	if err != nil {
		f.Fatal(err)
	}
	files := map[string][]byte{}
	for _, file := range ar.Files {
		files[path.Base(path.Dir(file.Name))+"/"+path.Base(file.Name)] = file.Data
	}
	info := files["4f1a4c1e8bd26a2e9c0f0c1b7d0d5c1f6f9b3a21/ses_6d0f1e2c3ffeOldStorageAAAA.json"]
	user := files["ses_6d0f1e2c3ffeOldStorageAAAA/msg_9a0000000001OldUserAAAAAA.json"]
	asst := files["ses_6d0f1e2c3ffeOldStorageAAAA/msg_9a0000000002OldAsstAAAAAA.json"]
	if info == nil || user == nil || asst == nil {
		f.Fatal("storage-tree.txtar lacks the files the seeds are made of")
	}
	for name, data := range files {
		switch {
		case strings.HasPrefix(name, "msg_9a0000000001OldUserAAAAAA/"):
			f.Add(info, user, data)
		case strings.HasPrefix(name, "msg_9a0000000002OldAsstAAAAAA/"):
			f.Add(info, asst, data)
		}
	}
	root := filepath.Join(f.TempDir(), "storage")
	sessPath := filepath.Join(root, "session", "proj", "ses_fuzz.json")
	msgPath := filepath.Join(root, "message", "ses_fuzz", "msg_fuzz.json")
	partPath := filepath.Join(root, "part", "msg_fuzz", "prt_fuzz.json")
	for _, p := range []string{sessPath, msgPath, partPath} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, info, msg, part []byte) {
		for p, data := range map[string][]byte{sessPath: info, msgPath: msg, partPath: part} {
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s, err := readStorage(sessPath)
		if err != nil {
			t.Fatalf("a tree of regular files does not read: %v", err)
		}
		for _, w := range s.Warnings {
			if w.Path != "" && w.Path != sessPath && w.Path != msgPath && w.Path != partPath {
				t.Fatalf("a warning names %q, not a file of the tree: %s", w.Path, w.Message)
			}
		}
		b, err := session.Marshal(s)
		if err != nil {
			t.Fatalf("the session does not encode: %v", err)
		}
		s2, err := session.Unmarshal(b)
		if err != nil {
			t.Fatalf("the encoded session does not decode: %v", err)
		}
		if b2, err := session.Marshal(s2); err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("a JSON round trip changed the session (%v)", err)
		}
		if err := usftest.ValidateErr(b); err != nil {
			t.Fatalf("schema: %v", err)
		}
	})
}
