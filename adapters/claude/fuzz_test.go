package claude

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/session"
)

// FuzzStreamDecoder checks that the stream decoder, which a conversion of
// a large session reads with, yields the decoder's conversation; seeded
// with the start of every session file in testdata. The two are compared
// on files whose lines are JSON or JSON cut short (a CLI killed mid-write),
// with the keys Claude Code writes spelt as it spells them. The scanner
// the stream decoder reads with does not check what it skips, and takes
// some lines that are not JSON at all (members without commas between
// them), which the decoder reports and skips; and it matches keys exactly,
// where encoding/json also takes "outpUt_tokens" for "output_tokens".
func FuzzStreamDecoder(f *testing.F) {
	cases, _ := filepath.Glob("testdata/*.txtar")
	keys := map[string]string{} // folded key: the key as Claude Code writes it
	for _, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			if strings.HasPrefix(file.Name, "native/") && strings.HasSuffix(file.Name, ".jsonl") {
				f.Add(file.Data[:min(len(file.Data), 2<<10)])
				for _, line := range bytes.Split(file.Data, []byte("\n")) {
					eachKey(line, func(k string) { keys[fold(k)] = k })
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !jsonOrCut(data) || !spelt(data, keys) {
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
		if err := json.Unmarshal(line, &v); err != nil && err.Error() != "unexpected end of JSON input" {
			return false
		}
	}
	return true
}

// fold is a key as encoding/json compares keys: without regard to case.
func fold(k string) string { return strings.ToLower(strings.ToUpper(k)) }

// spelt reports whether every key in data that encoding/json would take
// for one of keys is spelt as it is there.
func spelt(data []byte, keys map[string]string) bool {
	ok := true
	for _, line := range bytes.Split(data, []byte("\n")) {
		eachKey(line, func(k string) {
			if want, known := keys[fold(k)]; known && want != k {
				ok = false
			}
		})
	}
	return ok
}

// eachKey calls fn with each object key of the JSON in line, as far as it
// reads.
func eachKey(line []byte, fn func(string)) {
	dec := json.NewDecoder(bytes.NewReader(line))
	var inObject []bool // per open container: is it an object
	key := false        // whether the next token of the object is a key
	for {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				inObject = append(inObject, v == '{')
				key = v == '{'
				continue
			default:
				inObject = inObject[:len(inObject)-1]
			}
		case string:
			if key {
				fn(v)
				key = false
				continue
			}
		}
		// A value ended: in an object, a key comes next.
		key = len(inObject) > 0 && inObject[len(inObject)-1]
	}
}
