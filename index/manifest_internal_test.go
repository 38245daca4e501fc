package index

import (
	"io/fs"
	"reflect"
	"testing"
	"time"

	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/session"
)

func TestManifestRoundTrip(t *testing.T) {
	m := manifest{
		held: map[key]held{
			{"claude", "a", "/s/a.jsonl"}:         {id: 1, fp: fingerprint{size: 10, mtime: -5, inode: 7}, title: "a title"},
			{"opencode", "b", "/d/opencode.db"}:   {id: 2, fp: fingerprint{size: 0, mtime: 1 << 62, inode: 0}},
			{"gemini", "c\n\x00", "/g/with\todd"}: {id: 3},
		},
		dirs: map[string]listing{
			"/s":  {mtime: 1, at: 2, names: []string{"a.jsonl", "sub"}, types: []fs.FileMode{0, fs.ModeDir}},
			"/e/": {names: []string{}, types: []fs.FileMode{}},
		},
		found: []catalog.Found{
			{CLI: "claude", Refs: []session.Ref{
				{CLI: "claude", ID: "a", Path: "/s/a.jsonl", Size: 10, ModTime: time.Unix(0, 1764150000123456789), Inode: 7, Title: "a title"},
				{CLI: "claude", ID: "sub", Path: "/s/sub.jsonl", Parent: "a"},
			}, Warnings: []session.Warning{{Path: "/s/x", Line: 3, Message: "cannot read"}}},
			{CLI: "codex", Refs: []session.Ref{}},
		},
	}
	data := encodeManifest(m)
	got, err := decodeManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, m)
	}
	// Every cut of it, and a byte more, is refused, never misread.
	for i := range len(data) {
		part, err := decodeManifest(data[:i])
		if err == nil {
			t.Fatalf("a manifest cut at %d of %d bytes was read", i, len(data))
		}
		// Nothing of a refused manifest is used: its folders' listings
		// were once taken for the stores' (TestFreshnessListsOnlyChangedFolders
		// failed when a cut fell inside them).
		if part.held != nil || part.dirs != nil || part.found != nil {
			t.Fatalf("a manifest cut at %d of %d bytes is refused, but gives %d sessions, %d folders, %d CLIs' finds",
				i, len(data), len(part.held), len(part.dirs), len(part.found))
		}
	}
	if _, err := decodeManifest(append(data, 0)); err == nil {
		t.Error("a manifest with a byte more was read")
	}
}

func FuzzManifest(f *testing.F) {
	f.Add(encodeManifest(manifest{held: map[key]held{{"c", "s", "p"}: {id: 1}}}))
	f.Add([]byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeManifest(data)
		if err != nil {
			if m.held != nil || m.dirs != nil || m.found != nil {
				t.Fatalf("a refused manifest gives %d sessions, %d folders, %d CLIs' finds", len(m.held), len(m.dirs), len(m.found))
			}
			return
		}
		if _, err := decodeManifest(encodeManifest(m)); err != nil {
			t.Fatalf("a manifest read back from what was read: %v", err)
		}
	})
}
