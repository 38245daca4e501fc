package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// walk turns the next value into the Go value encoding/json would produce,
// with numbers replaced by "num" (see normalize).
func walk(s *Scanner) any {
	switch s.Kind() {
	case '{':
		s.BeginObject()
		m := map[string]any{}
		for s.NextKey() {
			k := fixUTF8(s.Key())
			m[k] = walk(s)
		}
		return m
	case '[':
		s.BeginArray()
		a := []any{}
		for s.NextElem() {
			a = append(a, walk(s))
		}
		return a
	case '"':
		return fixUTF8(s.String(1 << 30))
	case 't', 'f':
		return s.Bool()
	case 'n':
		s.IsNull()
		return nil
	default:
		// Number values are checked by TestScannerMatchesEncodingJSON;
		// fuzzed ones can overflow, so only their presence is compared.
		s.Int()
		return "num"
	}
}

func scanAll(t *testing.T, input string, window int) (vals []any, lines []int, errs []int) {
	t.Helper()
	s := NewScanner(strings.NewReader(input), window)
	for s.NextLine() {
		v := walk(s)
		if s.Failed() {
			errs = append(errs, s.LineNo())
			continue
		}
		vals = append(vals, v)
		lines = append(lines, s.LineNo())
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return vals, lines, errs
}

func TestScannerMatchesEncodingJSON(t *testing.T) {
	long := strings.Repeat(`ab\"c\\`, 5000)
	input := strings.Join([]string{
		`{"type":"user","t":true,"x":false,"z":null}`,
		``,
		`   `,
		`{"nested":{"a":[1,2,{"b":"c"}],"s":"q\"uo\\te\n\t\u00e9\ud83d\ude00"},"after":"yes"}`,
		`{"long":"` + long + `","k":"v"}`,
		`[1,"two",[3]]`,
		`{"esc\"key":1}`,
	}, "\n")
	for _, window := range []int{64, 65, 100, 4096, 1 << 20} {
		t.Run(fmt.Sprint(window), func(t *testing.T) {
			vals, lines, errs := scanAll(t, input, window)
			if len(errs) != 0 {
				t.Fatalf("unexpected errors on lines %v", errs)
			}
			if want := []int{1, 4, 5, 6, 7}; !reflect.DeepEqual(lines, want) {
				t.Errorf("lines = %v, want %v", lines, want)
			}
			var want []any
			for _, l := range strings.Split(input, "\n") {
				if strings.TrimSpace(l) == "" {
					continue
				}
				var v any
				if err := json.Unmarshal([]byte(l), &v); err != nil {
					t.Fatal(err)
				}
				want = append(want, normalize(v))
			}
			if !reflect.DeepEqual(vals, want) {
				t.Errorf("values differ\n got %v\nwant %v", trunc(vals), trunc(want))
			}
		})
	}
}

// fixUTF8 replaces each invalid byte with U+FFFD, as encoding/json does.
func fixUTF8(b []byte) string {
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		sb.WriteRune(r)
		b = b[n:]
	}
	return sb.String()
}

func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = normalize(x)
		}
	case []any:
		for i, x := range v {
			v[i] = normalize(x)
		}
	case float64:
		return "num"
	}
	return v
}

func trunc(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

func TestScannerRecoversFromBadLines(t *testing.T) {
	input := strings.Join([]string{
		`{"ok":1}`,
		`{"truncated":"abc`, // string cut by the newline
		`{"ok":2}`,
		`not json at all`,
		`{"ok":3,"arr":[1,2`, // array cut
		`{"ok":4}`,
		`{"ok":5}`, // no trailing newline
	}, "\n")
	for _, window := range []int{64, 4096} {
		vals, lines, errs := scanAll(t, input, window)
		if want := []int{2, 4, 5}; !reflect.DeepEqual(errs, want) {
			t.Errorf("window %d: error lines = %v, want %v", window, errs, want)
		}
		if want := []int{1, 3, 6, 7}; !reflect.DeepEqual(lines, want) {
			t.Errorf("window %d: good lines = %v, want %v", window, lines, want)
		}
		if len(vals) != 4 {
			t.Errorf("window %d: got %d values", window, len(vals))
		}
	}
}

func TestScannerEarlyExitSkipsRestOfLine(t *testing.T) {
	big := strings.Repeat("x", 10000)
	input := `{"type":"a","big":"` + big + `"}` + "\n" + `{"type":"b"}` + "\n"
	s := NewScanner(strings.NewReader(input), 64)
	var types []string
	for s.NextLine() {
		s.BeginObject()
		for s.NextKey() {
			if string(s.Key()) == "type" {
				types = append(types, string(s.String(10)))
				break // stop walking this record
			}
			s.Skip()
		}
	}
	if !reflect.DeepEqual(types, []string{"a", "b"}) {
		t.Fatalf("types = %v", types)
	}
}

func TestStringCap(t *testing.T) {
	s := NewScanner(strings.NewReader(`{"a":"hello world","b":"z"}`), 64)
	s.NextLine()
	s.BeginObject()
	s.NextKey()
	if got := string(s.String(5)); got != "hello" || !s.Truncated() {
		t.Fatalf("got %q truncated=%v", got, s.Truncated())
	}
	s.NextKey()
	if got := string(s.String(5)); got != "z" || s.Truncated() {
		t.Fatalf("got %q truncated=%v", got, s.Truncated())
	}
}

func TestReaderLongLinesAndNumbers(t *testing.T) {
	long := strings.Repeat("y", 300000)
	input := "a\r\n\n" + long + "\n  \nlast"
	r := NewReader(strings.NewReader(input))
	var got []string
	var nums []int
	for r.Next() {
		got = append(got, string(r.Line()))
		nums = append(nums, r.LineNo())
	}
	if len(got) != 3 || got[0] != "a" || got[1] != long || got[2] != "last" {
		t.Fatalf("lines: %d %q", len(got), got[0])
	}
	if !reflect.DeepEqual(nums, []int{1, 3, 5}) {
		t.Fatalf("line numbers %v", nums)
	}
}

func FuzzScanner(f *testing.F) {
	f.Add([]byte(`{"a":"b"}`+"\n"+`{"c":[1,{"d":"e\"f"}]}`), 64)
	f.Add([]byte(`{"x":"\ud83d\ude00\\"}`+"\n\n"+`[`), 70)
	f.Add([]byte(`{"trunc":"abc`+"\n"+`{"ok":1}`), 64)
	f.Fuzz(func(t *testing.T, data []byte, window int) {
		if window < 0 {
			window = -window
		}
		window = window%4096 + 64
		// Lines that encoding/json accepts must walk to the same value; any
		// line must cost at most itself.
		var wantGood []any
		nonBlank := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			if IsBlank(l) {
				continue
			}
			nonBlank++
			var v any
			if json.Unmarshal(l, &v) == nil {
				wantGood = append(wantGood, normalize(v))
			}
		}
		s := NewScanner(bytes.NewReader(data), window)
		seen := 0
		var good []any
		for s.NextLine() {
			seen++
			v := walk(s)
			s.Finish()
			if !s.Failed() {
				good = append(good, v)
			}
		}
		if seen != nonBlank {
			t.Fatalf("saw %d records, want %d", seen, nonBlank)
		}
		// The scanner is more lenient than encoding/json (it does not
		// validate numbers or trailing bytes), so compare only when every
		// line was valid JSON.
		if len(wantGood) == nonBlank && !reflect.DeepEqual(good, wantGood) {
			t.Fatalf("values differ:\n got %v\nwant %v", trunc(good), trunc(wantGood))
		}
	})
}

func TestInt(t *testing.T) {
	s := NewScanner(strings.NewReader(`[42,-7,1.5,3e2,0]`), 64)
	s.NextLine()
	s.BeginArray()
	var got []int64
	for s.NextElem() {
		got = append(got, s.Int())
	}
	if want := []int64{42, -7, 1, 3, 0}; !reflect.DeepEqual(got, want) || s.Failed() {
		t.Fatalf("got %v (err %v), want %v", got, s.LineErr(), want)
	}
}

func TestFinishCatchesCutRecords(t *testing.T) {
	input := strings.Join([]string{
		`{"type":"mode","mode":"normal"}`,
		`{"type":"mode","mode":"norm`,      // cut: the walk stops after "type"
		`{"type":"mode","x":{"a":1}} junk`, // trailing garbage
		`{"type":"mode","x":[1,2]}  `,
		`{"type":"user"}`,
	}, "\n")
	for _, window := range []int{64, 4096} {
		s := NewScanner(strings.NewReader(input), window)
		var bad []int
		for s.NextLine() {
			s.BeginObject()
			s.NextKey()
			s.String(10) // read the type, then stop walking
			s.Finish()
			if s.Failed() {
				bad = append(bad, s.LineNo())
			}
		}
		if !reflect.DeepEqual(bad, []int{2, 3}) {
			t.Errorf("window %d: failed lines %v, want [2 3]", window, bad)
		}
	}
}

// TestEveryWindowBoundary walks the same records through windows of every
// size from 64 to 200 bytes, so that every token (keys, colons, strings,
// escapes, numbers) lands on a window boundary somewhere.
func TestEveryWindowBoundary(t *testing.T) {
	input := strings.Repeat(`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":16465164,"cached_input_tokens":12804603},"last_token_usage":{"input_tokens":250000}},"k\u00e9y":"v\"a\\l\nue","arr":[1,true,null,{"x":"y"}]}}`+"\n", 5)
	var want []any
	for _, l := range strings.Split(strings.TrimSpace(input), "\n") {
		var v any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatal(err)
		}
		want = append(want, normalize(v))
	}
	for w := 64; w <= 200; w++ {
		vals, _, errs := scanAll(t, input, w)
		if len(errs) > 0 || !reflect.DeepEqual(vals, want) {
			t.Fatalf("window %d: errors %v, values differ: %v", w, errs, trunc(vals))
		}
	}
}

func TestRawString(t *testing.T) {
	long := strings.Repeat(`ab\"c`, 100)
	for _, w := range []int{64, 100, 4096} {
		s := NewScanner(strings.NewReader(`{"a":"x\ny","b":"","c":"`+long+`","d":1}`), w)
		s.NextLine()
		s.BeginObject()
		var got []string
		for s.NextKey() {
			got = append(got, string(s.RawString(10)))
		}
		if want := []string{`x\ny`, ``, long[:10], ``}; !reflect.DeepEqual(got, want) || s.Failed() {
			t.Errorf("window %d: %q (%v)", w, got, s.LineErr())
		}
	}
}

func TestEachField(t *testing.T) {
	rest := []byte(`,"a":"x\"y","n":12,"t":true,"o":{"k":"}"},"arr":[1,"]"],"z":null}  `)
	var got []string
	EachField(rest, func(k, v []byte) bool {
		got = append(got, string(k)+"="+string(v))
		return true
	})
	want := []string{`a=x\"y`, "n=12", "t=true", `o={"k":"}"}`, `arr=[1,"]"]`, "z=null"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("EachField = %q, want %q", got, want)
	}
	if u, ok := Unquote([]byte(`C:\\dir\u00e9`)); !ok || string(u) != `C:\diré` {
		t.Errorf("Unquote = %q %v", u, ok)
	}
}

func TestRestChecksTheRecordEnds(t *testing.T) {
	lines := []struct {
		line string
		ok   bool
	}{
		{`{"m":1,"a":"b"}`, true},
		{`{"m":1,"a":"b}"}  `, true},
		{`{"m":1,"o":{"k":"\"}"},"arr":[1,"]"]}`, true},
		{`{"m":1,"a":"\\"}`, true},
		{`{"m":1,"a":"b`, false},
		{`{"m":1,"o":{"k":2}`, false},     // cut right after a nested object
		{`{"m":1,"arr":[1,2]`, false},     // or array
		{`{"m":1,"a":"x}`, false},         // or inside a string ending in }
		{`{"m":1,"a":"\"}`, false},        // an escaped quote does not close it
		{`{"m":1,"a":"b"}{"m":2}`, false}, // trailing data
		{`{"m":1,"o":{"k":2}}}`, false},   // one bracket too many
	}
	var in strings.Builder
	for _, l := range lines {
		in.WriteString(l.line + "\n")
	}
	s := NewScanner(strings.NewReader(in.String()), 0)
	for i := 0; s.NextLine(); i++ {
		s.BeginObject()
		s.NextKey()
		s.Int()
		_, good := s.Rest()
		if got := good && !s.Failed(); got != lines[i].ok {
			t.Errorf("Rest on %s: %v, want %v", lines[i].line, got, lines[i].ok)
		}
	}
}

func TestAppendRaw(t *testing.T) {
	in := `{"a":{"x":[1,"two",{"y":"a\"b"}],"z":null},"b":"str","c":12.5,"d":true}` + "\n"
	for _, window := range []int{64, 256 << 10} {
		s := NewScanner(strings.NewReader(in), window)
		if !s.NextLine() || !s.BeginObject() {
			t.Fatal("no record")
		}
		got := map[string]string{}
		for s.NextKey() {
			k := string(s.Key())
			got[k] = string(s.AppendRaw(nil))
		}
		s.Finish()
		if s.Failed() {
			t.Fatalf("window %d: %v", window, s.LineErr())
		}
		want := map[string]string{"a": `{"x":[1,"two",{"y":"a\"b"}],"z":null}`, "b": `"str"`, "c": "12.5", "d": "true"}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("window %d: %s = %s, want %s", window, k, got[k], v)
			}
		}
	}
	// A value much larger than the window.
	big := `{"v":{"k":"` + strings.Repeat("x\\n", 50000) + `"}}` + "\n"
	s := NewScanner(strings.NewReader(big), 64)
	s.NextLine()
	s.BeginObject()
	s.NextKey()
	if raw := s.AppendRaw(nil); string(raw) != big[5:len(big)-2] {
		t.Errorf("large value: got %d bytes, want %d", len(raw), len(big)-7)
	}
}

func TestStringValue(t *testing.T) {
	for _, in := range []string{`"plain"`, `"esc\"aped\\ \n\t\u00e9 \ud83d\ude00"`, `""`, `null`, `12`} {
		line := []byte(`{"k":` + in + `,"next":1}`)
		var want string
		if in[0] == '"' {
			json.Unmarshal([]byte(in), &want)
		}
		for _, whole := range []bool{true, false} {
			var s *Scanner
			if whole {
				s = NewScanner(nil, 64)
				s.ResetBytes(line)
			} else {
				s = NewScanner(bytes.NewReader(line), 64)
			}
			s.NextLine()
			s.BeginObject()
			s.NextKey()
			got := s.StringValue()
			if !s.NextKey() || string(s.Key()) != "next" {
				t.Errorf("%s (whole %v): the scanner lost its place", in, whole)
			}
			if got != want {
				t.Errorf("%s (whole %v): got %q, want %q", in, whole, got, want)
			}
		}
	}
	s := NewScanner(nil, 64)
	s.ResetBytes([]byte(`{"k":"unterminated`))
	s.NextLine()
	s.BeginObject()
	s.NextKey()
	if s.StringValue(); !s.Failed() {
		t.Error("an unterminated string did not fail the line")
	}
}

func TestStringSpan(t *testing.T) {
	s := NewScanner(nil, 64)
	s.ResetBytes([]byte(`{"a":"x\"y\\n","b":2}`))
	s.NextLine()
	s.BeginObject()
	s.NextKey()
	span, ok := s.StringSpan()
	if !ok || string(span) != `x\"y\\n` {
		t.Fatalf("StringSpan = %q, %v", span, ok)
	}
	if !s.NextKey() || string(s.Key()) != "b" {
		t.Fatal("lost place after StringSpan")
	}
	if _, ok := s.StringSpan(); ok {
		t.Error("StringSpan of a number succeeded")
	}
	if s.Int() != 2 {
		t.Error("StringSpan consumed a number")
	}
}

// TestFinishChecksTheLastRecord: the last line, without a newline, is
// checked whole when the walk stopped early: a record cut right after a
// nested value is refused, a whole one taken; and a record the walk read
// to its end may not be followed by more.
func TestFinishChecksTheLastRecord(t *testing.T) {
	for _, c := range []struct {
		in   string
		keys int // members the walk reads before Finish; -1: the whole record
		ok   bool
	}{
		{`{"m":1,"o":{"k":2}}`, 1, true},
		{`{"m":1,"o":{"k":2}`, 1, false},
		{`{"m":1,"o":{"k":"}"}`, 1, false},
		{`{"m":1,"o":{"k":"\"}"}}`, 1, true},
		{`{"m":1,"o":[1,{"k":2}]`, 1, false},
		{`{"m":1}{"m":2}`, -1, false},
		{`{"m":1}  `, -1, true},
		{"{\"m\":1}{\"m\":2}\n", -1, false},
	} {
		for _, window := range []int{64, 256 << 10} {
			s := NewScanner(strings.NewReader(c.in), window)
			if !s.NextLine() || !s.BeginObject() {
				t.Fatal("no record")
			}
			if c.keys < 0 {
				for s.NextKey() {
					s.Skip()
				}
			} else {
				for range c.keys {
					s.NextKey()
					s.Skip()
				}
			}
			s.Finish()
			if got := !s.Failed(); got != c.ok {
				t.Errorf("window %d: %q: taken %v, want %v (%v)", window, c.in, got, c.ok, s.LineErr())
			}
		}
	}
}
