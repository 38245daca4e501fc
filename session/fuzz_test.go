package session_test

import (
	"bytes"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/session"
)

// usfSeeds returns the smallest universal sessions the adapters' golden
// cases expect, one for each CLI: real documents of a size the fuzzer
// mutates well.
func usfSeeds(tb testing.TB) [][]byte {
	cases, _ := filepath.Glob(filepath.Join("..", "adapters", "*", "testdata", "*.txtar"))
	smallest := map[string][]byte{}
	for _, p := range cases {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		cli := filepath.Base(filepath.Dir(filepath.Dir(p)))
		for _, f := range ar.Files {
			if (f.Name == "want.json" || strings.HasPrefix(f.Name, "want/")) && (smallest[cli] == nil || len(f.Data) < len(smallest[cli])) {
				smallest[cli] = f.Data
			}
		}
	}
	if len(smallest) == 0 {
		tb.Fatal("no want.json in the adapters' testdata")
	}
	clis := make([]string, 0, len(smallest))
	for cli := range smallest {
		clis = append(clis, cli)
	}
	sort.Strings(clis)
	var out [][]byte
	for _, cli := range clis {
		out = append(out, smallest[cli])
	}
	return out
}

// FuzzUnmarshal reads universal session documents, as session import
// reads a USF file, seeded with the adapters' expected sessions. A
// document it reads encodes (or is refused) the same way by Marshal and by
// Encode, which session import uses; the encoding reads back and encodes
// the same again; and Decode, which reads a stored session from the bus,
// reads the same session.
func FuzzUnmarshal(f *testing.F) {
	for _, seed := range usfSeeds(f) {
		f.Add(seed)
	}
	s := sample()
	s.Records = []session.Record{{Line: 7, Record: []byte(`{"type":"x"}`)}}
	if b, err := session.Marshal(s); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"id":"x","timeline":[{"id":"a","type":"user","timestamp":"9999-12-31T23:59:59-01:00","native":{"line":1,"record":{"a":[1e400]}}}],"metadata":{"created":"2026-01-01 10:00:00","lastModified":""}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := session.Unmarshal(data)
		if err != nil {
			return
		}
		b, err := session.Marshal(s)
		var enc bytes.Buffer
		eerr := session.Encode(&enc, s, false)
		if (err == nil) != (eerr == nil) {
			t.Fatalf("Marshal: %v; Encode: %v", err, eerr)
		}
		if err != nil {
			return
		}
		if !bytes.Equal(append(b, '\n'), enc.Bytes()) {
			t.Fatalf("Encode and Marshal differ:\n%s\n%s", enc.Bytes(), b)
		}
		back, err := session.Unmarshal(b)
		if err != nil {
			t.Fatalf("the encoding does not read back: %v\n%s", err, b)
		}
		again, err := session.Marshal(back)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("the encoding reads back differently (%v):\n%s\n%s", err, b, again)
		}
		dec, err := session.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("Unmarshal reads the document, Decode does not: %v", err)
		}
		if d, err := session.Marshal(dec); err != nil || !bytes.Equal(d, b) {
			t.Fatalf("Decode reads a different session (%v)", err)
		}
	})
}

// TestUSFSeeds keeps the seeds honest: every CLI's golden cases hold one,
// and it reads.
func TestUSFSeeds(t *testing.T) {
	if n := len(usfSeeds(t)); n < 5 {
		t.Errorf("%d CLIs have universal sessions in their testdata, want 5", n)
	}
	for _, seed := range usfSeeds(t) {
		if _, err := session.Unmarshal(seed); err != nil {
			t.Errorf("a seed does not read: %v", err)
		}
	}
}

// TestParseTimeYears: a time is read only when its year in UTC can be
// written back (0 to 9999), so that a session that reads always encodes
// as one that reads again.
func TestParseTimeYears(t *testing.T) {
	for s, ok := range map[string]bool{
		"9999-12-31T23:59:59Z":      true,
		"9999-12-31T23:59:59+01:00": true,
		"9999-12-31T23:59:59-01:00": false, // 10000-01-01 in UTC
		"0000-01-01T00:00:00Z":      true,
		"0000-01-01T00:30:00+01:00": false, // year -1 in UTC
	} {
		tm, err := session.ParseTime(s)
		if (err == nil) != ok {
			t.Errorf("ParseTime(%q) = %v, %v", s, tm, err)
			continue
		}
		if ok {
			if back, err := session.ParseTime(session.FormatTime(tm)); err != nil || !back.Equal(tm) {
				t.Errorf("%q is written as %q, which reads as %v, %v", s, session.FormatTime(tm), back, err)
			}
		}
	}
}
