package kimi

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
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
	sameAsEncodingJSON[promptOrigin](t, b)
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

// floatValue must read a number as Parser.Float (strconv.ParseFloat)
// does, to the bit.
func TestFloatValue(t *testing.T) {
	for _, s := range []string{
		"0", "-0", "0.0", "-0.0", "1", "-1", "1795297191787", "1784600000.731", "1761234567890.5",
		"0.1", "0.3", "123456789012345", "1234567890123456", "12345678901234567890", "999999999999999",
		"0.000000000000001", "0.0000000000000001", "1e3", "1.5E-7", "-2.5e+10", "1e400", "4.9e-324",
		"9007199254740993", "1.7976931348623157e308",
	} {
		want, werr := strconv.ParseFloat(s, 64)
		var got float64
		ok := jsonread.ParseValue([]byte(s), func(p *jsonread.Parser) { floatValue(p, &got) })
		if werr != nil {
			if ok {
				t.Errorf("floatValue(%s) = %v, want it to give up (%v)", s, got, werr)
			}
			continue
		}
		if !ok || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("floatValue(%s) = %v, %v; want %v", s, got, ok, want)
		}
	}
}

func FuzzFloatValue(f *testing.F) {
	f.Add(uint64(1795297191787), uint8(3), false)
	f.Add(uint64(0), uint8(0), true)
	f.Fuzz(func(t *testing.T, m uint64, frac uint8, neg bool) {
		s := strconv.FormatUint(m, 10)
		if k := int(frac % 20); k > 0 {
			for len(s) <= k {
				s = "0" + s
			}
			s = s[:len(s)-k] + "." + s[len(s)-k:]
		}
		if neg {
			s = "-" + s
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Skip()
		}
		var got float64
		if !jsonread.ParseValue([]byte(s), func(p *jsonread.Parser) { floatValue(p, &got) }) {
			t.Fatalf("floatValue gave up on %s", s)
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("floatValue(%s) = %v, want %v", s, got, want)
		}
	})
}

// strCommon must read what Parser.Str reads, shared or not.
func TestStrCommon(t *testing.T) {
	for _, s := range []string{
		`"context.append_message"`, `"user"`, `"us\u0065r"`, `"user "`, `"novel"`, `"é"`, `"a\"b"`, `""`,
		`null`, `5`, `true`, `{}`, `"\ud800"`,
	} {
		var fast, slow string
		fast, slow = "kept", "kept"
		fok := jsonread.ParseValue([]byte(s), func(p *jsonread.Parser) { strCommon(p, &fast) })
		sok := jsonread.ParseValue([]byte(s), func(p *jsonread.Parser) { p.Str(&slow) })
		if fok != sok || fast != slow {
			t.Errorf("strCommon(%s) = %q, %v; Str %q, %v", s, fast, fok, slow, sok)
		}
		var pf, ps *string
		fok = jsonread.ParseValue([]byte(s), func(p *jsonread.Parser) { strPtrCommon(p, &pf) })
		sok = jsonread.ParseValue([]byte(s), func(p *jsonread.Parser) { p.StrPtr(&ps) })
		if fok != sok || (pf == nil) != (ps == nil) || pf != nil && *pf != *ps {
			t.Errorf("strPtrCommon(%s) = %v, %v; StrPtr %v, %v", s, pf, fok, ps, sok)
		}
	}
}

// TestReadOneRecordSameWithoutParser reads records whose message and
// content the fast reader reads with the record (see inline), including
// ones it gives up on part of the way, with and without it.
func TestReadOneRecordSameWithoutParser(t *testing.T) {
	for _, l := range []string{
		`{"type":"context.append_message","message":{"role":"user","content":"hi","origin":{"kind":"user"}},"time":1795297191787}`,
		`{"type":"context.append_message","message":{"role":"user","content":[{"type":"text","text":"a"},5,null,{"type":"text","text":"b"}]}}`,
		`{"type":"context.append_message","message":{"role":"user","content":[{"type":"text","text":5}]}}`,
		`{"type":"context.append_message","message":{"role":"user","content":[{"type":"text","text":"a","text":"b"}]}}`,
		`{"type":"context.append_message","message":{"role":"assistant","content":null,"toolCalls":[{"id":"c","name":"Shell","arguments":"{\"command\":\"ls\"}"}]}}`,
		`{"type":"context.append_message","message":{"role":"tool","content":{"x":1},"toolCallId":"c"}}`,
		`{"type":"context.append_message","message":{"role":"user","content":"a","content":"b"}}`,
		`{"type":"context.append_message","message":{"role":"user","Content":"a"}}`,
		`{"type":"context.append_message","message":{"role":"user","content":"x","origin":"system_trigger"}}`,
		`{"type":"context.append_message","message":{"role":"user","content":"x","origin":{"kind":"skill_activation","trigger":5}}}`,
		`{"message":{"role":"user","content":"late type"},"type":"context.append_message"}`,
		`{"type":"context.append_message","message":"not an object"}`,
		`{"timestamp":1784600000.731,"message":{"type":"TurnBegin","payload":{"user_input":[{"type":"text","text":"hi"}]}}}`,
		`{"timestamp":1784600000.731,"message":{"type":"ContentPart","payload":{"type":"text","text":"x","n":"bad"}}}`,
		`{"message":{"type":"TurnBegin","payload":{"user_input":"hi"}},"role":"user","content":"row"}`,
		`{"message":{"type":"TurnBegin","payload":{}},"type":"turn.prompt"}`,
		`{"role":"user","content":[{"type":"text","text":"row"}]}`,
		`{"role":"user","content":[{"type":"text","text":"row"}],"content":"again"}`,
		`{"type":"context.append_loop_event","event":{"type":"content.part","uuid":"u","part":{"type":"text","text":"x"}}}`,
		`{"type":"context.append_loop_event","event":null}`,
		`{"type":"context.append_loop_event","event":{"type":"tool.call","toolCallId":"c","name":"Shell","args":{}},"event":{}}`,
		`{"type":"turn.ended","reason":"completed","durationMs":1500.25,"time":-0}`,
	} {
		data := []byte(l + "\n" + l + "\n")
		fast, ferr := Read(bytes.NewReader(data))
		jsonread.Disabled = true
		slow, serr := Read(bytes.NewReader(data))
		jsonread.Disabled = false
		if (ferr == nil) != (serr == nil) || !reflect.DeepEqual(fast, slow) {
			fj, _ := json.Marshal(fast)
			sj, _ := json.Marshal(slow)
			t.Errorf("%s: read otherwise without jsonread.Parse:\n%s\n%s", l, fj, sj)
		}
	}
}

// FuzzReadSameWithoutParser: whatever the input, Read gives the same
// session with the fast reader as with encoding/json alone.
func FuzzReadSameWithoutParser(f *testing.F) {
	for _, l := range nativeLines(f) {
		f.Add(l)
	}
	// The start of each native file too, for records read one after
	// another.
	cases, _ := filepath.Glob("testdata/*.txtar")
	for _, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			if strings.HasPrefix(file.Name, "native/") {
				f.Add(file.Data[:min(len(file.Data), 2<<10)])
			}
		}
	}
	for _, s := range parseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, ferr := Read(bytes.NewReader(b))
		jsonread.Disabled = true
		slow, serr := Read(bytes.NewReader(b))
		jsonread.Disabled = false
		if (ferr == nil) != (serr == nil) || !reflect.DeepEqual(fast, slow) {
			fj, _ := json.Marshal(fast)
			sj, _ := json.Marshal(slow)
			t.Fatalf("%q: read otherwise without jsonread.Parse:\n%s\n%s", b, fj, sj)
		}
	})
}
