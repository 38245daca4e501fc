package codex

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/session"
)

// nativeFiles returns the rollout files of every testdata case.
func nativeFiles(tb testing.TB) [][]byte {
	cases, _ := filepath.Glob("testdata/*.txtar")
	var files [][]byte
	for _, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			tb.Fatal(err)
		}
		for _, f := range ar.Files {
			if strings.HasPrefix(f.Name, "native/") {
				files = append(files, f.Data)
			}
		}
	}
	return files
}

// readBoth decodes data with fastjson and with encoding/json alone.
func readBoth(t *testing.T, data []byte) (fast, slow *session.Session) {
	t.Helper()
	fast, ferr := Read(bytes.NewReader(data))
	fastDecode = false
	defer func() { fastDecode = true }()
	slow, serr := Read(bytes.NewReader(data))
	if (ferr == nil) != (serr == nil) {
		t.Fatalf("fast error %v, encoding/json error %v", ferr, serr)
	}
	return fast, slow
}

// TestFastDecode checks that the full decoder reads every testdata rollout
// as encoding/json alone reads it, and every variation of its records that
// fastjson must decline or read with care.
func TestFastDecode(t *testing.T) {
	for i, data := range append(nativeFiles(t), variations(t)...) {
		fast, slow := readBoth(t, data)
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("file %d: the fast decoder's session differs from encoding/json's", i)
		}
	}
}

// variations returns the testdata's lines changed in ways that test the
// fast decoder's exactness: keys in another case, values of other types,
// nulls, duplicates, invalid UTF-8 and escapes.
func variations(t *testing.T) [][]byte {
	var out [][]byte
	edits := []func(string) string{
		func(s string) string { return strings.Replace(s, `"type":`, `"Type":`, 1) },
		func(s string) string { return strings.Replace(s, `"type":`, `"type":null,"type":`, 1) },
		func(s string) string { return strings.Replace(s, `"payload":{`, `"payload":{"TYPE":"x",`, 1) },
		func(s string) string { return strings.Replace(s, `"payload":{`, `"payload":"x","payload":{`, 1) },
		func(s string) string {
			return strings.Replace(s, `"payload":{"type":"`, `"payload":{"type":"`+"\xff", 1)
		},
		func(s string) string { return strings.Replace(s, `"text":"`, `"text":"\u00e9\ud83d\\n`, 1) },
		func(s string) string { return strings.Replace(s, `"text":`, `"text":3,"x":`, 1) },
		func(s string) string { return strings.Replace(s, `"content":[`, `"content":[null,`, 1) },
		func(s string) string { return strings.Replace(s, `"content":[`, `"content":[1,`, 1) },
		func(s string) string { return strings.Replace(s, `"content":[`, `"content":"a","c":[`, 1) },
		func(s string) string { return strings.Replace(s, `"output":"`, `"output":null,"output":"`, 1) },
		func(s string) string { return strings.Replace(s, `"exit_code":`, `"exit_code":null,"exit_code":`, 1) },
		func(s string) string { return strings.Replace(s, `"exit_code":`, `"exit_code":1.5,"x":`, 1) },
		func(s string) string { return strings.Replace(s, `"duration_ms":`, `"duration_ms":"5","x":`, 1) },
		func(s string) string {
			return strings.Replace(s, `"input_tokens":`, `"input_tokens":null,"input_tokens":`, 1)
		},
		func(s string) string {
			return strings.Replace(s, `"info":{`, `"info":null,"info":{"Last_Token_Usage":null,`, 1)
		},
		func(s string) string {
			return strings.Replace(s, `"info":{`, `"info":{"total_token_usage":{"output_tokens":1},`, 1)
		},
		func(s string) string { return strings.Replace(s, `"success":`, `"success":"yes","x":`, 1) },
		func(s string) string { return strings.Replace(s, `"git":{`, `"git":null,"git":{"Branch":"b",`, 1) },
		func(s string) string {
			return strings.Replace(s, `"base_instructions":{`, `"base_instructions":{"text":1,`, 1)
		},
		func(s string) string { return strings.Replace(s, `"cwd":"`, `"c\u0077d":"`, 1) },
		func(s string) string { return strings.Replace(s, `"model":"`, `"model":5,"m":"`, 1) },
		func(s string) string { return strings.Replace(s, `"message":"`, `"message":[],"m":"`, 1) },
		func(s string) string {
			return strings.Replace(s, `"aggregated_output":`, `"aggregated_output":1,"x":`, 1)
		},
		func(s string) string { return strings.Replace(s, `"item":{`, `"item":{"ID":"x",`, 1) },
		func(s string) string { return strings.Replace(s, `"item":{`, `"item":{"exit_code":null,`, 1) },
		func(s string) string { return strings.Replace(s, `}`, `} `, 1) },
		func(s string) string { return strings.Replace(s, `,`, `,,`, 1) },
		func(s string) string { return s[:len(s)/2] },
	}
	for _, data := range nativeFiles(t) {
		lines := strings.Split(string(data), "\n")
		for _, edit := range edits {
			var b strings.Builder
			for _, l := range lines {
				b.WriteString(edit(l))
				b.WriteByte('\n')
			}
			out = append(out, []byte(b.String()))
		}
	}
	return out
}

// FuzzFastDecode checks that the full decoder reads anything as
// encoding/json alone reads it; seeded with the start of every rollout in
// testdata.
func FuzzFastDecode(f *testing.F) {
	for _, data := range nativeFiles(f) {
		f.Add(data[:min(len(data), 2<<10)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, slow := readBoth(t, data)
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("the fast decoder's session differs from encoding/json's")
		}
	})
}
