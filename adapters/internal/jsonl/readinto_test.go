package jsonl

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// TestReadIntoAsDecode: ReadInto reads the records, values and problems
// Decode reads, whether its fast reader takes a line or declines it.
func TestReadIntoAsDecode(t *testing.T) {
	type rec struct {
		A int
		B string
	}
	in := strings.Join([]string{`{"a":1,"b":"x"}`, `[1]`, `{"a":"no","b":"y"}`, "{\"b\":\"\xff\"}", `{"a":`, ``, `{"a":2}`, `{"a":3,"b":"cut`}, "\n")
	// take reads a line with encoding/json when it has no "no" in it,
	// as a fast reader that declines some lines would.
	take := func(raw []byte, v *rec) (ok, nonASCII bool) {
		if strings.Contains(string(raw), "no") || json.Unmarshal(raw, v) != nil {
			*v = rec{A: -1} // what a reader leaves when it gives up
			return false, false
		}
		return true, strings.ContainsFunc(string(raw), func(r rune) bool { return r >= 0x80 })
	}
	decline := func(raw []byte, v *rec) (ok, nonASCII bool) { return false, false }
	for name, fast := range map[string]func([]byte, *rec) (bool, bool){"take": take, "decline": decline} {
		want, got := NewReader(strings.NewReader(in)), NewReader(strings.NewReader(in))
		for {
			var wv, gv rec
			gv = rec{A: 7} // ReadInto zeroes it when it reads a line
			wr, werr := want.Decode(&wv)
			gr, gerr := ReadInto(got, &gv, fast)
			if werr != gerr || !reflect.DeepEqual(wr, gr) || werr == nil && wv != gv {
				t.Fatalf("%s: ReadInto = %+v, %v, %+v; Decode = %+v, %v, %+v", name, gr, gerr, gv, wr, werr, wv)
			}
			if werr == io.EOF {
				break
			}
		}
	}
}

// TestKeptLines: the lines Decode and ReadInto hand over are each the
// line, stay so while the Reader reads on (short lines share chunks, long
// ones have their own), and appending to one never writes over another.
func TestKeptLines(t *testing.T) {
	var lines []string
	for i := range 3000 {
		lines = append(lines, fmt.Sprintf(`{"n":%d,"pad":%q}`, i, strings.Repeat("x", i%7*1000)))
	}
	in := strings.Join(lines, "\n")
	for name, read := range map[string]func(r *Reader) (Record, error){
		"Decode": func(r *Reader) (Record, error) { var v map[string]any; return r.Decode(&v) },
		"ReadInto": func(r *Reader) (Record, error) {
			var v struct{}
			return ReadInto(r, &v, func([]byte, *struct{}) (bool, bool) { return true, false })
		},
	} {
		r := NewReader(strings.NewReader(in))
		var raws [][]byte
		for {
			rec, err := read(r)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			raws = append(raws, rec.Raw)
		}
		for i := range len(raws) - 1 {
			_ = append(raws[i], "garbage"...)
			if string(raws[i+1]) != lines[i+1] {
				t.Fatalf("%s: line %d became %.40q after appending to the one before", name, i+2, raws[i+1])
			}
		}
		for i, raw := range raws {
			if string(raw) != lines[i] {
				t.Fatalf("%s: line %d handed over as %.40q", name, i+1, raw)
			}
		}
	}
}
