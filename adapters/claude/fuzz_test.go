package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/session"
)

// FuzzStreamDecoder checks that the stream decoder, which a conversion of
// a large session reads with, yields the decoder's conversation; seeded
// with the start of every session file in testdata. The two are compared
// on files whose lines are JSON or JSON cut short (a CLI killed mid-write):
// the scanner the stream decoder reads with does not check what it skips,
// and takes some lines that are not JSON at all (members without commas
// between them), which the decoder reports and skips.
func FuzzStreamDecoder(f *testing.F) {
	cases, _ := filepath.Glob("testdata/*.txtar")
	for _, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			if strings.HasPrefix(file.Name, "native/") && strings.HasSuffix(file.Name, ".jsonl") {
				f.Add(file.Data[:min(len(file.Data), 2<<10)])
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !jsonOrCut(data) {
			// Neither may fail or panic, whatever they read.
			timelineOf(t, NewDecoder(bytes.NewReader(data)))
			timelineOf(t, NewStreamDecoder(bytes.NewReader(data)))
			return
		}
		// As the conversion writes them: invalid UTF-8, which the scanner
		// keeps and encoding/json reads as U+FFFD, is written as U+FFFD.
		want := written(t, timelineOf(t, NewDecoder(bytes.NewReader(data))))
		got := written(t, timelineOf(t, NewStreamDecoder(bytes.NewReader(data))))
		if !bytes.Equal(got, want) {
			t.Fatalf("the stream decoder's conversation differs:\ndecoder %s\nstream  %s", want, got)
		}
	})
}

// written is entries encoded, read back and encoded again.
func written(t *testing.T, entries []session.Entry) []byte {
	t.Helper()
	b, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	var back []session.Entry
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if b, err = json.Marshal(back); err != nil {
		t.Fatal(err)
	}
	return b
}

// jsonOrCut reports whether every line of data that is not blank is JSON,
// or the start of JSON.
func jsonOrCut(data []byte) bool {
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var v any
		err := json.Unmarshal(line, &v)
		var se *json.SyntaxError
		if err != nil && !(errors.As(err, &se) && se.Offset == int64(len(line)) || err.Error() == "unexpected end of JSON input") {
			return false
		}
	}
	return true
}
