package jsonread

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// Parse, QuickString and AppendCompact must read what encoding/json reads,
// or give up. The adapters' tests check their own record types the same
// way; the types here use every reader of a member's value.

type doc struct {
	S    string          `json:"s"`
	SP   *string         `json:"sp"`
	R    json.RawMessage `json:"r"`
	B    bool            `json:"b"`
	I64  int64           `json:"i64"`
	I    int             `json:"i"`
	IP   *int            `json:"ip"`
	F    float64         `json:"f"`
	Kid  *kid            `json:"kid"`
	Kids []kid           `json:"kids"`
	kid
}

type kid struct {
	Name string `json:"name"`
	N    int    `json:"n"`
	Sub  *kid   `json:"sub"`
}

var (
	docNames = Names(reflect.TypeFor[doc]())
	kidNames = Names(reflect.TypeFor[kid]())
)

func (d *doc) Names() map[string]bool { return docNames }

func (d *doc) Member(p *Parser, key []byte) int {
	switch string(key) {
	case "s":
		p.Str(&d.S)
		return 4
	case "sp":
		p.StrPtr(&d.SP)
		return 5
	case "r":
		p.Raw(&d.R)
		return 6
	case "b":
		p.Bool(&d.B)
		return 7
	case "i64":
		p.Int64(&d.I64)
		return 8
	case "i":
		p.Int(&d.I)
		return 9
	case "ip":
		p.IntPtr(&d.IP)
		return 10
	case "f":
		p.Float(&d.F)
		return 11
	case "kid":
		ObjectPtr(p, &d.Kid)
		return 12
	case "kids":
		Objects(p, &d.Kids)
		return 13
	default:
		return d.kid.Member(p, key) // 1 to 3
	}
}

func (k *kid) Names() map[string]bool { return kidNames }

func (k *kid) Member(p *Parser, key []byte) int {
	switch string(key) {
	case "name":
		p.Str(&k.Name)
		return 1
	case "n":
		p.Int(&k.N)
		return 2
	case "sub":
		ObjectPtr(p, &k.Sub)
		return 3
	default:
		return 0
	}
}

var seeds = []string{
	`{"s":"a","sp":"b","r":[1,{"x":null}],"b":true,"i64":-12,"i":3,"ip":4,"f":-0.5e+3,"kid":{"name":"k","sub":{"n":1}},"kids":[{"n":2},null],"name":"top"}`,
	`{"S":"a"}`, `{"Name":"a","name":"b"}`, `{"s":"a","s":"b"}`, `{"ſ":"x"}`, `{"\u212aid":null}`,
	`{"s":"\u0061\ud800\udc00\ud800x\\\"\/\b\f\n\r\t"}`, `{"\u0073":"a"}`,
	`{"i":1.0}`, `{"i64":-12,"i":99999999999999999999}`, `{"f":1e400}`, `{"ip":null,"sp":null,"kid":null,"kids":null}`,
	`{"s":"a" }  `, `{"s":"a"} x`, `{"i":01}`, `{"kids":[1,]}`, `{"kids":[]}`, `{"a":tru}`, `{"b":"true"}`,
	"{\"s\":\"a\x01\"}", "{\"s\":\"\xff\"}", `{"kid":[]}`, `{"r":  {"a" : [ 1 , 2 ] } }`,
	`"a\u00e9\ud83d\ude00"`, `"\ud800"`, "\"\xff\"", `[1]`, `["a"]x`, "\"0\x11", ` [ "a" , {"b" : "c" } , null ] `,
}

// FuzzParse checks Parse, and ParseValue with Objects, against
// encoding/json.
func FuzzParse(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var fast, slow doc
		if Parse(bytes.Clone(b), &fast) {
			if err := json.Unmarshal(b, &slow); err != nil {
				t.Fatalf("Parse read %q, encoding/json did not: %v", b, err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%q:\nParse         %+v\nencoding/json %+v", b, fast, slow)
			}
		}
		var fastKids, slowKids []kid
		if ParseValue(bytes.Clone(b), func(p *Parser) { Objects(p, &fastKids) }) {
			if err := json.Unmarshal(b, &slowKids); err != nil {
				t.Fatalf("ParseValue read %q, encoding/json did not: %v", b, err)
			}
			if !reflect.DeepEqual(fastKids, slowKids) {
				t.Fatalf("%q:\nParseValue    %+v\nencoding/json %+v", b, fastKids, slowKids)
			}
		}
	})
}

// FuzzHelpers checks QuickString and AppendCompact against encoding/json.
func FuzzHelpers(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if s, ok := QuickString(b); ok {
			var want string
			if err := json.Unmarshal(b, &want); err != nil || s != want {
				t.Fatalf("QuickString(%q) = %q, encoding/json %q, %v", b, s, want, err)
			}
		}
		var want bytes.Buffer
		got, ok := AppendCompact(nil, b)
		if err := json.Compact(&want, b); (err == nil) != ok || ok && !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("AppendCompact(%q) = %q, %v; json.Compact %q, %v", b, got, ok, want.Bytes(), err)
		}
	})
}

// TestDisabled checks that every reader gives up when Disabled, so that
// the adapters' tests that set it read with encoding/json alone.
func TestDisabled(t *testing.T) {
	Disabled = true
	defer func() { Disabled = false }()
	var d doc
	if Parse([]byte(`{"s":"a"}`), &d) || ParseValue([]byte(`[]`), func(p *Parser) { p.Skip() }) {
		t.Error("Parse or ParseValue read while Disabled")
	}
	if _, ok := QuickString([]byte(`"a"`)); ok {
		t.Error("QuickString read while Disabled")
	}
	if got, ok := AppendCompact(nil, []byte(` [ 1 ] `)); !ok || string(got) != "[1]" {
		t.Errorf("AppendCompact while Disabled = %q, %v", got, ok)
	}
}
