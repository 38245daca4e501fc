package jsonl

import (
	"encoding/json"
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
