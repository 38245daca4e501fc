package jsonl

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHugeLineHandedOver: a line over shrinkAbove is handed over, not
// copied; what follows it reads as it was, with its offset, and the line
// handed over is not changed by later reads.
// Both ways of reading a record do so: Decode and ReadInto, the adapters'
// fast path (which copied it).
func TestHugeLineHandedOver(t *testing.T) {
	huge := `{"t":"` + strings.Repeat("x", shrinkAbove+123) + `"}`
	lines := []string{`{"t":"a"}`, huge, `{"t":"b"}`, huge, `{"t":"c"}`}
	data := strings.Join(lines, "\n") + "\n"
	type rec struct{ T string }
	fast := func(raw []byte, v *rec) (bool, bool) { return json.Unmarshal(raw, v) == nil, false }
	for name, read := range map[string]func(*Reader, *rec) (Record, error){
		"Decode":   func(r *Reader, v *rec) (Record, error) { return r.Decode(v) },
		"ReadInto": func(r *Reader, v *rec) (Record, error) { return ReadInto(r, v, fast) },
	} {
		r := NewReader(strings.NewReader(data))
		var got [][]byte
		var offsets []int64
		for {
			var v rec
			rec, err := read(r, &v)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Raw) > shrinkAbove && &rec.Raw[0] != &r.line[0] {
				t.Errorf("%s: a huge line was copied", name)
			}
			got = append(got, rec.Raw)
			offsets = append(offsets, r.Offset())
		}
		if len(got) != len(lines) {
			t.Fatalf("%s: %d records, want %d", name, len(got), len(lines))
		}
		var at int64
		for i, l := range lines {
			if !bytes.Equal(got[i], []byte(l)) {
				t.Errorf("%s: record %d is not its line (%d bytes, want %d)", name, i+1, len(got[i]), len(l))
			}
			if offsets[i] != at {
				t.Errorf("%s: record %d at offset %d, want %d", name, i+1, offsets[i], at)
			}
			at += int64(len(l)) + 1
		}
	}
}

// TestBufferGrowsToTheFile: the buffer a Reader grows for a huge line of
// a file grows no larger than the file (with growSlack), where doubling
// would take it to nearly twice the line; a stream of unknown size
// doubles it.
func TestBufferGrowsToTheFile(t *testing.T) {
	line := `{"t":"` + strings.Repeat("x", 5<<20) + `"}`
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(`{"t":"a"}`+"\n"+line+"\n"+`{"t":"b"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, src := range map[string]io.Reader{"file": f, "stream": strings.NewReader(line + "\n")} {
		r := NewReader(src)
		biggest := 0
		n := 0
		for r.Next() {
			biggest = max(biggest, cap(r.buf), cap(r.line))
			n++
		}
		switch {
		case name == "file" && (n != 3 || biggest > len(line)+64<<10+growSlack):
			t.Errorf("file: %d lines, a buffer of %d bytes for a line of %d", n, biggest, len(line))
		case name == "stream" && biggest < 8<<20:
			t.Errorf("stream: a buffer of %d bytes, want it doubled to 8 MB", biggest)
		}
	}
}
