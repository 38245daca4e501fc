package gemini

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/adapters/internal/jsonread"
)

// jsonread.Parse must read what encoding/json reads, or give up.

// nativeLines returns the lines of the testdata's native files.
func nativeLines(tb testing.TB) [][]byte {
	tb.Helper()
	cases, _ := filepath.Glob("testdata/*.txtar")
	var lines [][]byte
	for _, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			tb.Fatal(err)
		}
		for _, f := range ar.Files {
			if strings.HasPrefix(f.Name, "native/") {
				lines = append(lines, bytes.Split(f.Data, []byte("\n"))...)
			}
		}
	}
	return lines
}

// sameAsEncodingJSON fails t when jsonread.Parse reads line and encoding/json
// reads it otherwise, and reports whether jsonread.Parse read it.
func sameAsEncodingJSON[T any, P interface {
	*T
	jsonread.Object
}](t *testing.T, line []byte) bool {
	var fast, slow T
	if !jsonread.Parse(bytes.Clone(line), P(&fast)) {
		return false
	}
	if err := json.Unmarshal(line, &slow); err != nil {
		t.Fatalf("jsonread.Parse read %q, encoding/json did not: %v", line, err)
	}
	if r, ok := any(&fast).(*record); ok {
		// What jsonread.Parse reads beside encoding/json must be what parts
		// reads.
		check := func(m *message) {
			if m.parsed {
				if want, err := parts(m.Content); err != nil || !reflect.DeepEqual(m.parts, want) {
					t.Fatalf("%q: content read as %+v, parts reads %+v, %v", line, m.parts, want, err)
				}
			}
			m.parts, m.parsed = nil, false
		}
		check(&r.message)
		for i := range r.Messages {
			check(&r.Messages[i].message)
		}
		if r.Set != nil {
			for i := range r.Set.Messages {
				check(&r.Set.Messages[i].message)
			}
		}
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q:\njsonread.Parse %+v\nencoding/json %+v", line, fast, slow)
	}
	return true
}

func TestParseJSONTestdata(t *testing.T) {
	read := 0
	for _, l := range nativeLines(t) {
		if len(l) > 0 && l[0] == '{' && sameAsEncodingJSON[record](t, l) {
			read++
		}
	}
	if read == 0 {
		t.Fatal("jsonread.Parse read no line of the testdata")
	}
}

var parseSeeds = []string{
	`{"id":"a","type":"user","content":[{"text":"hi"}]}`,
	`{"ID":"a"}`, `{"Id":"a","id":"b"}`, `{"id":"a","id":"b"}`, `{"ſessionId":"x"}`,
	`{"id":"\u0061\ud800\udc00\ud800x\\\"\/\b\f\n\r\t"}`, `{"i\u0064":"a"}`,
	`{"tokens":{"input":1.0}}`, `{"tokens":{"input":-12,"output":99999999999999999999}}`,
	`{"tokens":null,"toolCalls":[],"thoughts":null,"model":null}`, `{"toolCalls":[null,{"id":"x"}]}`,
	`{"content":"a" }  `, `{"content":"a"} x`, `{"content":01}`, `{"content":[1,]}`, `{"a":tru}`,
	`{"$set":{"messages":[]}}`, `{"$set":[]}`, "{\"type\":\"a\x01\"}", "{\"type\":\"\xff\"}",
	`{"messages":[{"id":"m","tokens":{"total":"1"}}]}`, `{"x":{"y":[{"z":-0.5e+3}]}}`,
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s))
	}
	for _, l := range nativeLines(f) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 0 && b[0] == '{' {
			sameAsEncodingJSON[record](t, b)
		}
		sameAsEncodingJSON[part](t, b)
	})
}

// sameHelpers fails t when quickParts reads b otherwise than the
// encoding/json way (jsonread's own test checks QuickString and
// AppendCompact).
func sameHelpers(t *testing.T, b []byte) {
	raw := bytes.TrimSpace(b)
	var fast []part
	switch {
	case len(raw) == 0:
		return
	case raw[0] == '{':
		var p part
		if !jsonread.Parse(bytes.Clone(raw), &p) {
			return
		}
		fast = []part{p}
	case raw[0] == '[':
		var ok bool
		if fast, ok = quickParts(bytes.Clone(raw)); !ok {
			return
		}
	default:
		return
	}
	slow, err := slowParts(raw)
	if err != nil || !reflect.DeepEqual(fast, slow) {
		t.Fatalf("parts(%q) = %+v, encoding/json %+v, %v", b, fast, slow, err)
	}
}

func FuzzQuickHelpers(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{`"a\u00e9\ud83d\ude00"`, `"\ud800"`, "\"\xff\"", ` [ "a" , {"text" : "b" } , null ] `, `[1]`, `{"a" : [ 1 , 2 ] }`, `["a"]x`, "\"0\x11"} {
		f.Add([]byte(s))
	}
	f.Fuzz(sameHelpers)
}

// TestReadSameWithoutParser reads every native file of the testdata, and
// all of them one after another, with jsonread.Parse and with encoding/json
// alone: the sessions must be the same.
func TestReadSameWithoutParser(t *testing.T) {
	inputs := map[string][]byte{}
	var all []byte
	filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(path, "fuzz") {
			return err
		}
		if !strings.HasSuffix(path, ".txtar") {
			b, err := os.ReadFile(path)
			inputs[path] = b
			return err
		}
		ar, err := txtar.ParseFile(path)
		if err != nil {
			return err
		}
		for _, f := range ar.Files {
			if strings.HasPrefix(f.Name, "native/") {
				inputs[path+":"+f.Name] = f.Data
				if filepath.Dir(path) == "testdata" {
					all = append(all, f.Data...)
				}
			}
		}
		return nil
	})
	inputs["all"] = all
	for name, b := range inputs {
		fast, ferr := Read(bytes.NewReader(b))
		jsonread.Disabled = true
		slow, serr := Read(bytes.NewReader(b))
		jsonread.Disabled = false
		if (ferr == nil) != (serr == nil) || !reflect.DeepEqual(fast, slow) {
			fj, _ := json.Marshal(fast)
			sj, _ := json.Marshal(slow)
			i := 0
			for i < len(fj) && i < len(sj) && fj[i] == sj[i] {
				i++
			}
			t.Errorf("%s: read otherwise without jsonread.Parse (%v, %v), JSON from byte %d:\n%.300s\n%.300s", name, ferr, serr, i, fj[max(i-100, 0):], sj[max(i-100, 0):])
		}
	}
	if len(inputs) < 10 {
		t.Fatalf("only %d inputs", len(inputs))
	}
}
