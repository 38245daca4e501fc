package jsonl

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestObjects(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      []string
	}{
		{"one indented document", "{\n  \"id\": \"a\",\n  \"n\": 1\n}\n", []string{"a"}},
		{"lines", `{"id":"a"}` + "\n" + `{"id":"b"}` + "\n", []string{"a", "b"}},
		{"text between lines", "Loading...\n" + `{"id":"a"}` + "\nwarning: x\n" + `{"id":"b"}`, []string{"a", "b"}},
		{"truncated", `{"id":"a"}` + "\n" + `{"id":"b`, []string{"a"}},
		{"arrays and scalars skipped", "[1]\n3\n" + `{"id":"c"}`, []string{"c"}},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			Objects([]byte(tc.out), func(o map[string]json.RawMessage) bool {
				got = append(got, StringField(o, "id"))
				return true
			})
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestObjectsStops(t *testing.T) {
	n := 0
	Objects([]byte("{}\n{}\n{}\n"), func(map[string]json.RawMessage) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("fn called %d times after returning false at 2", n)
	}
}

func TestLastDocument(t *testing.T) {
	out := "Attempt 1 failed\n  at x {\n}\n{\n  \"session_id\": \"s\",\n  \"error\": {\"message\": \"boom\", \"code\": 500}\n}\n"
	obj := LastDocument([]byte(out))
	if got := StringField(obj, "session_id"); got != "s" {
		t.Errorf("session_id = %q, want s", got)
	}
	var m string
	json.Unmarshal(Field(obj, "error", "message"), &m)
	if m != "boom" {
		t.Errorf("error.message = %q, want boom", m)
	}
	if LastDocument([]byte("no json here\n")) != nil {
		t.Error("found a document in plain text")
	}
	if LastDocument([]byte("{\"a\":1}\n{broken\n")) == nil {
		t.Error("missed the last complete document before a broken one")
	}
}

func TestErrorMessage(t *testing.T) {
	for in, want := range map[string]string{
		"plain failure": "plain failure",
		`{"error":{"code":500,"message":"stub fault","status":"INTERNAL"}}`: "stub fault",
		`{"message":"top"}`: "top",
		`{"other":1}`:       `{"other":1}`,
	} {
		if got := ErrorMessage(in); got != want {
			t.Errorf("ErrorMessage(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestReadObject(t *testing.T) {
	in := `{"s":"a\nb \u00e9","n":-1.5e2,"t":true,"f":false,"z":null,"o":{"k":[1,"x"]},"a":[{"y":2}]}`
	got, ok := ReadObject([]byte(in))
	var want map[string]any
	json.Unmarshal([]byte(in), &want)
	if !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("ReadObject = %v, %v; want %v", got, ok, want)
	}
	for _, bad := range []string{``, `[1]`, `{"a":}`, `{"a":1`, `{"a":"x"} trailing`} {
		if _, ok := ReadObject([]byte(bad)); ok {
			t.Errorf("ReadObject(%q) succeeded", bad)
		}
	}
}
