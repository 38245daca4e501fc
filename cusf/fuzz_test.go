package cusf_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stead-dev/stead/cusf"
)

// FuzzDecode checks Decode never panics, that whatever it decodes exports
// as a file that passes schema and structural validation, and that export
// after import is stable: importing and re-exporting an export gives it
// back.
func FuzzDecode(f *testing.F) {
	golden, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.cusf.jsonl"))
	if len(golden) == 0 {
		f.Fatal("no golden files")
	}
	for _, p := range golden {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add(file(base))
	f.Add(file(edit(4, `{"type":"message","role":`)))
	f.Add(file(edit(6, `{"type":"tool_result","tool_id":"x","timestamp":"2026-01-28T10:02:01Z"}`)))
	f.Add([]byte("\xef\xbb\xbf{}\n\n[1]\nnull\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _, err := cusf.Decode(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := cusf.NewEncoder(&out, testOptions).Encode(s); err != nil {
			t.Fatalf("encoding a decoded session: %v", err)
		}
		res, err := cusf.Validate(bytes.NewReader(out.Bytes()), "out", cusf.ValidateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Schema.Pass || !res.Structure.Pass {
			t.Fatalf("the export of a decoded session is invalid:\n%s\n%s", resultText(res), out.Bytes())
		}
		back, _, err := cusf.Decode(bytes.NewReader(out.Bytes()), "out")
		if err != nil {
			t.Fatal(err)
		}
		var again bytes.Buffer
		if err := cusf.NewEncoder(&again, testOptions).Encode(back); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), out.Bytes()) {
			t.Fatalf("export is not stable:\nfirst:\n%s\nthen:\n%s", out.Bytes(), again.Bytes())
		}
	})
}
