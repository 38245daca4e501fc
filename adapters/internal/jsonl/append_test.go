package jsonl

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "a\"b\\c", "line\nnext\r\ttab", "\x00\x01\x1f", "héllo ✓ 😀", "bad \xff utf8 \xc3", "<tag>&amp;", strings.Repeat("x\n", 1000)} {
		got := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("AppendString(%q) = %s: not JSON: %v", s, got, err)
		}
		want, _ := json.Marshal(s) // encoding/json's reading of invalid UTF-8
		var wantBack string
		json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Errorf("AppendString(%q) reads back as %q, want %q", s, back, wantBack)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("a\"b\\\n\x00é\xff")
	f.Fuzz(func(t *testing.T, s string) {
		var back string
		if err := json.Unmarshal(AppendString(nil, s), &back); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(s)
		var wantBack string
		json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Fatalf("%q reads back as %q, want %q", s, back, wantBack)
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	s := strings.Repeat("some tool output line with \"quotes\" and a tab\t\n", 20000)
	b.SetBytes(int64(len(s)))
	var buf []byte
	for i := 0; i < b.N; i++ {
		buf = AppendString(buf[:0], s)
	}
}

func TestWriteString(t *testing.T) {
	s := strings.Repeat("é line \"q\"\n", 30000) + "\xff"
	var out strings.Builder
	WriteString(&out, s, nil)
	if want := string(AppendString(nil, s)); out.String() != want {
		t.Errorf("WriteString wrote %d bytes differing from AppendString's %d", out.Len(), len(want))
	}
}
