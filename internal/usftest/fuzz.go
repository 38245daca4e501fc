package usftest

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/session"
)

// Fuzz runs an adapter's fuzz target: arbitrary bytes, seeded with the
// start of every native file in testdata, must decode without error (bad
// input is a warning), to a session that encodes, round-trips through JSON
// unchanged and matches the schema; and must summarise, at both details,
// without error.
func Fuzz(f *testing.F, read func(io.Reader) (*session.Session, error), summarize func(io.Reader, session.Detail) (session.Summary, error)) {
	cases, _ := filepath.Glob("testdata/*.txtar")
	for _, p := range cases {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			if strings.HasPrefix(file.Name, "native/") {
				// The start of each file: whole samples are big, and
				// the fuzzer mutates small inputs better.
				d := file.Data
				if len(d) > 2<<10 {
					d = d[:2<<10]
				}
				f.Add(d)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := read(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err) // a bytes.Reader never fails: bad input is a warning
		}
		b, err := session.Marshal(s)
		if err != nil {
			t.Fatalf("decoded session does not encode: %v", err)
		}
		s2, err := session.Unmarshal(b)
		if err != nil {
			t.Fatalf("encoded session does not decode: %v", err)
		}
		if b2, err := session.Marshal(s2); err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("round trip changed the document (%v)", err)
		}
		if err := ValidateErr(b); err != nil {
			t.Fatalf("schema: %v", err)
		}
		for _, d := range []session.Detail{session.DetailFull, session.DetailList} {
			if _, err := summarize(bytes.NewReader(data), d); err != nil {
				t.Fatal(err)
			}
		}
	})
}
