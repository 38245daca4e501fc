package fastjson

import (
	"encoding/json"
	"testing"
)

var seeds = []string{
	`{}`, `[]`, `{"a":1}`, ` {"a" : [1, 2.5e-3, -0, true, false, null, "x"] } `, `{"a":1,}`, `{,"a":1}`,
	`{"a":1 "b":2}`, `[1,]`, `[,1]`, `01`, `-`, `1.`, `1e`, `1e+`, `"\u00e9\ud83d\ude00"`, `"\ud83d"`,
	`"\ud83dx"`, `"\ude00\ud83d"`, `"a\x01"`, "\"\xff\xfe\"", "\"caf\xc3\xa9\"", `"\x"`, `"\u12"`,
	`"tab	"`, `nul`, `truex`, `{"a":{"b":[{"c":"d"}]}}`, `{"a"}`, `{"a":}`, `[1 2]`, `"abc`, `"\"`,
	`"0123456789abcdef\\0123456789"`, "\"\xed\xa0\x80\"", `{"k":"v"}  x`, `[[[[]]]]`, `{"":""}`,
}

// FuzzSkip checks that the parser accepts exactly what encoding/json
// accepts.
func FuzzSkip(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var p Parser
		p.Reset(b)
		p.Skip()
		ok := p.End()
		if p.declined {
			return // too deep
		}
		if want := json.Valid(b); ok != want {
			t.Fatalf("%q: parser says valid %v, encoding/json %v", b, ok, want)
		}
	})
}

// FuzzString checks that strings decode as encoding/json decodes them.
func FuzzString(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want string
		werr := json.Unmarshal(b, &want)
		var p Parser
		p.Reset(b)
		got := "unset"
		p.Str(&got)
		ok := p.End()
		var q Parser
		q.Reset(b)
		view := "unset"
		q.View(&view)
		if ok2 := q.End(); ok2 != ok || (ok && view != got) {
			t.Fatalf("%q: View read %q (ok %v), Str %q (ok %v)", b, view, ok2, got, ok)
		}
		// Intern reads the same, twice over (the second from its map).
		for range 2 {
			var q Parser
			q.interned = p.interned
			q.Reset(b)
			got2 := "unset"
			q.Intern(&got2)
			if ok2 := q.End(); ok2 != ok || (ok && got2 != got) {
				t.Fatalf("%q: Intern read %q (ok %v), Str %q (ok %v)", b, got2, ok2, got, ok)
			}
			p.interned = q.interned
		}
		if werr != nil {
			if ok && !(got == "unset" && string(b) != "" && p.pos > 0) {
				t.Fatalf("%q: parser read %q, encoding/json failed: %v", b, got, werr)
			}
			return
		}
		if want == "" && got == "unset" {
			return // a null leaves the value as it is, both ways
		}
		if !ok || got != want {
			t.Fatalf("%q: parser read %q (ok %v), encoding/json %q", b, got, ok, want)
		}
	})
}

// FuzzInt checks that integers decode as encoding/json decodes them, or
// are declined.
func FuzzInt(f *testing.F) {
	for _, s := range []string{"0", "-0", "12", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"-9223372036854775809", "1.0", "1e2", "null", `"1"`, "true", "00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := int64(7)
		werr := json.Unmarshal(b, &want)
		var p Parser
		p.Reset(b)
		got := int64(7)
		Int(&p, &got)
		ok := p.End()
		if ok && (werr != nil || got != want) {
			t.Fatalf("%q: parser read %d, encoding/json %d (%v)", b, got, want, werr)
		}
		if !ok && werr == nil {
			t.Fatalf("%q: parser failed, encoding/json read %d", b, want)
		}
	})
}

func TestObject(t *testing.T) {
	keys := NewKeys("type", "parentUuid")
	for _, c := range []struct {
		in      string
		typ     string
		invalid bool
		decline bool
	}{
		{in: `{"type":"a","x":[1,{"y":"z"}]}`, typ: "a"},
		{in: `{"x":1,"type":"b"}`, typ: "b"},
		{in: `{"type":"a","type":null}`, typ: "a"},
		{in: `{"Type":"a"}`, decline: true},
		{in: `{"PARENTUUID":"a"}`, decline: true},
		{in: `{"t\u0079pe":"a"}`, decline: true},
		{in: `{"ſ":"a"}`, decline: true},
		{in: `{"type":1}`, decline: true},
		{in: `{"type":"a",}`, invalid: true},
		{in: `{"type":"a"} {}`, invalid: true},
		{in: `{"type":"a"`, invalid: true},
	} {
		var p Parser
		p.Reset([]byte(c.in))
		var typ string
		if p.Object() {
			for k, ok := p.Key(); ok; k, ok = p.Key() {
				switch string(k) {
				case "type":
					p.Str(&typ)
				case "parentUuid":
					p.Skip()
				default:
					keys.Skip(&p, k)
				}
			}
		}
		ok := p.End()
		if ok != (!c.invalid && !c.decline) || p.Invalid() != c.invalid || (ok && typ != c.typ) {
			t.Errorf("%s: ok %v invalid %v type %q", c.in, ok, p.Invalid(), typ)
		}
	}
}
