package index

import (
	"io/fs"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/session"
)

func TestManifestRoundTrip(t *testing.T) {
	found := []catalog.Found{
		{CLI: "claude", Refs: []session.Ref{
			{CLI: "claude", ID: "a", Path: "/s/a.jsonl", Size: 10, ModTime: time.Unix(0, 1764150000123456789), Inode: 7, Title: "a title"},
			{CLI: "claude", ID: "sub", Path: "/s/sub.jsonl", Parent: "a"},
		}, Warnings: []session.Warning{{Path: "/s/x", Line: 3, Message: "cannot read"}}},
		{CLI: "codex", Refs: []session.Ref{}},
	}
	heldMap := map[key]held{
		{"claude", "a", "/s/a.jsonl"}: {id: 1, fp: fingerprint{size: 10, mtime: -5, inode: 7}, title: "a title", list: string(encodeListed(nil, &listed{
			project: "/p", title: "first words", start: 1764150000123456789, end: -1, messages: 3, turns: 1, skipped: 2, size: 10,
			parent: `{"cli":"claude","id":"p"}`, warnings: `[{"message":"m"}]`}))},
		{"opencode", "b", "/d/opencode.db"}:   {id: 2, fp: fingerprint{size: 0, mtime: 1 << 62, inode: 0}, list: string(encodeListed(nil, &listed{}))},
		{"gemini", "c\n\x00", "/g/with\todd"}: {id: 3, list: string(encodeListed(nil, &listed{title: "\x00"}))},
	}
	m := manifest{
		held: heldFrom(heldMap, found),
		dirs: map[string]listing{
			"/s":  {mtime: 1, at: 2, names: []string{"a.jsonl", "sub"}, types: []fs.FileMode{0, fs.ModeDir}},
			"/e/": {names: []string{}, types: []fs.FileMode{}},
		},
		stamps: map[string]stamped{
			"/d/opencode.db": {key: "10:5:7;-;-;", newest: 5, at: 3e9, refs: string(appendRef(appendRef(nil, &found[0].Refs[0]), &found[0].Refs[1]))},
			"/d/empty.db":    {key: "0:1:2;", newest: 1},
		},
		found: string(encodeFound(nil, found)),
	}
	data := encodeManifest(m)
	got, err := decodeManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.held.list, m.held.list) || !reflect.DeepEqual(got.held.toMap(), heldMap) {
		t.Errorf("round trip, sessions:\n got %+v\nwant %+v", got.held.list, m.held.list)
	}
	got.held, m.held = nil, nil
	if !reflect.DeepEqual(got, m) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, m)
	}
	again, _ := decodeManifest(data)
	for k, h := range again.held.toMap() {
		l, err := decodeListed(h.list)
		w, _ := decodeListed(heldMap[k].list)
		if err != nil || l != w {
			t.Errorf("%v: listed, round trip: %v\n got %+v\nwant %+v", k, err, l, w)
		}
	}
	if refs, err := decodeRefs(got.stamps["/d/opencode.db"].refs); err != nil || !reflect.DeepEqual(refs, found[0].Refs) {
		t.Errorf("a database's sessions, round trip: %v\n got %+v\nwant %+v", err, refs, found[0].Refs)
	}
	if refs, err := decodeRefs(got.stamps["/d/empty.db"].refs); err != nil || len(refs) != 0 {
		t.Errorf("an empty database's sessions, round trip: %v, %+v", err, refs)
	}
	if _, err := decodeRefs("\x05ab"); err == nil {
		t.Error("decodeRefs of a cut ref: no error")
	}
	if !sameFound(got.found, found) {
		t.Error("sameFound: the found the manifest was made with is not the same as itself")
	}
	for i, change := range []func(f []catalog.Found){
		func(f []catalog.Found) { f[0].Refs[0].Size++ },
		func(f []catalog.Found) { f[0].Refs[1].ModTime = time.Unix(0, 1) },
		func(f []catalog.Found) { f[0].Refs[0].ModTime = time.Time{} },
		func(f []catalog.Found) { f[0].Refs[1].Title = "t" },
		func(f []catalog.Found) { f[0].Warnings[0].Line = 4 },
		func(f []catalog.Found) { f[1].Refs = append(f[1].Refs, session.Ref{}) },
		func(f []catalog.Found) { f[0].Refs = f[0].Refs[:1] },
	} {
		other := slices.Clone(found)
		for j := range other {
			other[j].Refs = slices.Clone(other[j].Refs)
			other[j].Warnings = slices.Clone(other[j].Warnings)
		}
		change(other)
		if sameFound(got.found, other) {
			t.Errorf("sameFound: change %d is not seen", i)
		}
	}
	n, gotFound, err := decodeFound(got.found, true)
	if err != nil || n != len(found) || !reflect.DeepEqual(gotFound, found) {
		t.Errorf("found, round trip: %v\n got %d: %+v\nwant %+v", err, n, gotFound, found)
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
		if part.held != nil || part.dirs != nil || part.found != "" {
			t.Fatalf("a manifest cut at %d of %d bytes is refused, but gives sessions %v, %d folders, %d CLIs' finds",
				i, len(data), part.held != nil, len(part.dirs), len(part.found))
		}
	}
	if _, err := decodeManifest(append(data, 0)); err == nil {
		t.Error("a manifest with a byte more was read")
	}
}

func FuzzManifest(f *testing.F) {
	f.Add(encodeManifest(manifest{held: heldFrom(map[key]held{{"c", "s", "p"}: {id: 1}}, nil)}))
	f.Add([]byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeManifest(data)
		if err != nil {
			if m.held != nil || m.dirs != nil || m.found != "" {
				t.Fatalf("a refused manifest gives sessions %v, %d folders, %d CLIs' finds", m.held != nil, len(m.dirs), len(m.found))
			}
			return
		}
		if _, err := decodeManifest(encodeManifest(m)); err != nil {
			t.Fatalf("a manifest read back from what was read: %v", err)
		}
	})
}
