package cusf_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stead-dev/stead/cusf"
)

// FuzzDecode checks Decode never panics, that each warning names a line of
// the file, that whatever it decodes exports
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
		s, warns, err := cusf.Decode(bytes.NewReader(data), "fuzz")
		checkLineErrors(t, warns, data)
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

// checkLineErrors checks that each warning is a *cusf.LineError naming a
// line of data.
func checkLineErrors(t *testing.T, warns []error, data []byte) {
	t.Helper()
	lines := bytes.Count(data, []byte("\n")) + 1
	for _, w := range warns {
		var le *cusf.LineError
		if !errors.As(w, &le) || le.Line < 1 || le.Line > lines {
			t.Fatalf("a warning that names no line of the %d: %v", lines, w)
		}
	}
}

// FuzzValidate validates arbitrary files, seeded with the golden ones,
// with the reconstruction test. Validate does not fail on content; it
// counts the file's lines, and its schema and structure issues name lines
// of the file (or 0, the file as a whole); and a file
// that passes the schema and structure checks imports.
func FuzzValidate(f *testing.F) {
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
	f.Add(file(edit(6, `{"type":"tool_result","tool_id":"x","timestamp":"2026-01-28T10:02:01Z"}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := cusf.Validate(bytes.NewReader(data), "fuzz", cusf.ValidateOptions{Reconstruct: true})
		if err != nil {
			t.Fatalf("Validate failed on content: %v", err)
		}
		lines := bytes.Count(data, []byte("\n"))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			lines++ // the last line has no newline
		}
		if res.Lines != lines {
			t.Fatalf("%d lines counted in a file of %d", res.Lines, lines)
		}
		if res.Schema.Pass != (res.Schema.Total == 0) || res.Structure.Pass != (res.Structure.Total == 0) {
			t.Fatalf("checks pass with issues:\n%s", resultText(res))
		}
		// (A reconstruction issue may name a line of the re-export.)
		for _, c := range []cusf.Check{res.Schema, res.Structure} {
			for _, is := range c.Errors {
				if is.Line < 0 || is.Line > res.Lines {
					t.Fatalf("issue at line %d of %d: %s", is.Line, res.Lines, is)
				}
			}
		}
		if res.Grade == "" {
			t.Fatal("no grade")
		}
		if res.Schema.Pass && res.Structure.Pass {
			if _, _, err := cusf.Decode(bytes.NewReader(data), "fuzz"); err != nil {
				t.Fatalf("a valid file does not import: %v\n%s", err, resultText(res))
			}
		}
	})
}
