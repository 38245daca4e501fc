package kimi

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
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q:\njsonread.Parse %+v\nencoding/json %+v", line, fast, slow)
	}
	return true
}

// sameAll checks every type a line or a message is read into.
func sameAll(t *testing.T, b []byte) bool {
	read := sameAsEncodingJSON[record](t, b)
	sameAsEncodingJSON[contextMessage](t, b)
	sameAsEncodingJSON[wireMessage](t, b)
	sameAsEncodingJSON[loopEvent](t, b)
	return read
}

func TestParseJSONTestdata(t *testing.T) {
	read := 0
	for _, l := range nativeLines(t) {
		if len(l) > 0 && l[0] == '{' && sameAll(t, l) {
			read++
		}
		var rec record
		if json.Unmarshal(l, &rec) == nil && len(rec.Message) > 0 {
			sameAll(t, rec.Message)
		}
	}
	if read == 0 {
		t.Fatal("jsonread.Parse read no line of the testdata")
	}
}

var parseSeeds = []string{
	`{"type":"context.append_message","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"time":1761234567890.5}`,
	`{"Type":"a"}`, `{"TYPE":"a","type":"b"}`, `{"type":"a","type":"b"}`, `{"ſtep":1}`, `{"kind":"\u212a"}`,
	`{"type":"\u0061\ud800\udc00\ud800x\\\"\/\b\f\n\r\t"}`, `{"t\u0079pe":"a"}`,
	`{"step":1.0}`, `{"step":-12,"count":99999999999999999999}`, `{"time":1e400}`, `{"time":-0.5e+3}`,
	`{"role":null,"event":null,"usage":{"output":null}}`, `{"tool_calls":[null,{"id":"x"}],"toolCalls":[]}`,
	`{"type":"a" }  `, `{"type":"a"} x`, `{"step":01}`, `{"turns":[1,]}`, `{"a":tru}`,
	`{"message":{"type":"StatusUpdate","payload":{"token_usage":{"input_other":5},"status_code":null}}}`,
	`{"type":"ToolCall","payload":{"id":"c","function":{"name":"f","arguments":"{}"},"status_code":404}}`,
	"{\"type\":\"a\x01\"}", "{\"type\":\"\xff\"}", `{"isError":"true"}`, `{"payload":null}`, `{"payload":[]}`,
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
			sameAll(t, b)
		}
		sameHelpers(t, b)
	})
}

// sameHelpers fails t when quickParts reads b otherwise than the
// encoding/json way (jsonread's own test checks QuickString and
// AppendCompact).
func sameHelpers(t *testing.T, b []byte) {
	fast, ok := quickParts(bytes.Clone(b))
	if !ok {
		return
	}
	// content's way with encoding/json; parts of no type add nothing.
	var elems []json.RawMessage
	if err := json.Unmarshal(b, &elems); err != nil {
		t.Fatalf("quickParts read %q, encoding/json did not: %v", b, err)
	}
	var slow []part
	for _, e := range elems {
		var p part
		if json.Unmarshal(e, &p) == nil || p.Type != "" {
			slow = append(slow, p)
		}
	}
	typed := func(ps []part) (out []part) {
		for _, p := range ps {
			if p.Type != "" {
				out = append(out, p)
			}
		}
		return out
	}
	if !reflect.DeepEqual(typed(fast), typed(slow)) {
		t.Fatalf("quickParts(%q) = %+v, encoding/json %+v", b, fast, slow)
	}
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
