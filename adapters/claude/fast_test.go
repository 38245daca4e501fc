package claude

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/session"
)

// nativeFiles returns the session files of every testdata case.
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

// TestFastDecode checks that the full decoder reads every testdata session
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
		func(s string) string { return strings.Replace(s, `"content":`, `"Content":`, 1) },
		func(s string) string { return strings.Replace(s, `"text":`, `"TEXT":`, 1) },
		func(s string) string { return strings.Replace(s, `"usage":{`, `"usage":null,"usage":{`, 1) },
		func(s string) string { return strings.Replace(s, `"usage":{`, `"usage":{"input_tokens":1.5,`, 1) },
		func(s string) string { return strings.Replace(s, `"input_tokens":`, `"input_tokens":null,"x":`, 1) },
		func(s string) string { return strings.Replace(s, `"isSidechain":false`, `"isSidechain":"no"`, 1) },
		func(s string) string { return strings.Replace(s, `"isSidechain":false`, `"isSidechain":null`, 1) },
		func(s string) string { return strings.Replace(s, `"content":[`, `"content":[null,`, 1) },
		func(s string) string { return strings.Replace(s, `"content":[`, `"content":"x","content":[`, 1) },
		func(s string) string {
			return strings.Replace(s, `"content":"`, `"content":null,"content":"\u00e9\ud83d`, 1)
		},
		func(s string) string { return strings.Replace(s, `"text":"`, "\"text\":\"\xff\xfe", 1) },
		func(s string) string { return strings.Replace(s, `"message":{`, `"message":"plain","x":{`, 1) },
		func(s string) string { return strings.Replace(s, `"message":{`, `"message":[],"x":{`, 1) },
		func(s string) string {
			return strings.Replace(s, `"type":"tool_result"`, `"type":"tool_result","is_error":1`, 1)
		},
		func(s string) string {
			return strings.Replace(s, `"tool_use_id":`, `"content":{"a":1},"tool_use_id":`, 1)
		},
		func(s string) string {
			return strings.Replace(s, `"toolUseResult":`, `"toolUseResult":{"interrupted":"x"},"y":`, 1)
		},
		func(s string) string {
			return strings.Replace(s, `"toolUseResult":`, `"toolUseResult":{"Interrupted":true},"y":`, 1)
		},
		func(s string) string {
			return strings.Replace(s, `"rendered":[`, `"rendered":[null,{"content":null},{"content":{"a": [1]}},`, 1)
		},
		func(s string) string { return strings.Replace(s, `"rendered":[`, `"rendered":[1,`, 1) },
		func(s string) string { return strings.Replace(s, `"rendered":`, `"rendered":null,"x":`, 1) },
		func(s string) string { return strings.Replace(s, `"systemPrompt":[`, `"systemPrompt":[null,`, 1) },
		func(s string) string {
			return strings.Replace(s, `"systemPrompt":[`, `"systemPrompt":["a"],"systemPrompt":[`, 1)
		},
		func(s string) string { return strings.Replace(s, `"attachment":{`, `"attachment":{"text":5,`, 1) },
		func(s string) string {
			return strings.Replace(s, `"source":{`, `"source":null,"source":{"Type":"x",`, 1)
		},
		func(s string) string { return strings.Replace(s, `"durationMs":`, `"durationMs":1e3,"x":`, 1) },
		func(s string) string { return strings.Replace(s, `"uuid":"`, `"uu\u0069d":"`, 1) },
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
// encoding/json alone reads it; seeded with the start of every session
// file in testdata.
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
