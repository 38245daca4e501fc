package jsonl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIncompleteLastLine: a last line without a newline that does not
// parse is reported as an incomplete last line (Partial, with a message
// saying it was cut short), by the Reader and the Scanner alike; a
// malformed line elsewhere, a last line that parses, or one that is not a
// record at all, is not.
func TestIncompleteLastLine(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		partial  bool
		problem  string
	}{
		{"cut short", `{"a":1}` + "\n" + `{"a":"tw`, true, "incomplete last line skipped: its record is cut short (8 bytes, no newline"},
		{"cut after a value", `{"a":1}` + "\n" + `{"a":2,`, true, "incomplete last line skipped"},
		{"cut before its newline only", `{"a":1}` + "\n" + `{"a":2}`, false, ""},
		{"malformed, with its newline", `{"a":1}` + "\n" + `{"a":"tw` + "\n", false, "malformed"},
		{"malformed in the middle", `{"a":"tw` + "\n" + `{"a":1}`, false, "malformed"},
		{"not a record", `{"a":1}` + "\n" + `[1,`, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.in))
			var recs []Record
			for {
				var v map[string]any
				rec, err := r.Decode(&v)
				if err != nil {
					break
				}
				recs = append(recs, rec)
			}
			var partial bool
			var problems []string
			for _, rec := range recs {
				partial = partial || rec.Partial
				if rec.Problem != "" {
					problems = append(problems, rec.Problem)
				}
			}
			if partial != tc.partial || tc.problem != "" && !strings.Contains(strings.Join(problems, "|"), tc.problem) {
				t.Errorf("Reader: partial %v, problems %q; want partial %v and %q", partial, problems, tc.partial, tc.problem)
			}

			s := NewScanner(strings.NewReader(tc.in), 64)
			partial, problems = false, nil
			for s.NextLine() {
				if s.BeginObject() {
					for s.NextKey() {
						s.Skip()
					}
				}
				s.Finish()
				if s.Failed() {
					partial = partial || s.Partial()
					problems = append(problems, s.Problem())
				}
			}
			if partial != tc.partial || tc.problem != "" && !strings.Contains(strings.Join(problems, "|"), tc.problem) {
				t.Errorf("Scanner: partial %v, problems %q; want partial %v and %q", partial, problems, tc.partial, tc.problem)
			}
		})
	}
}

func TestGrowing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(p, []byte(`{"a":`), 0o600)
	if !Growing(p) {
		t.Error("a file written just now is not growing")
	}
	old := time.Now().Add(-2 * GrowingWindow)
	os.Chtimes(p, old, old)
	if Growing(p) {
		t.Error("a file last written two windows ago is growing")
	}
	if Growing("") || Growing(filepath.Join(t.TempDir(), "missing")) {
		t.Error("a stream, or a missing file, is growing")
	}
}

// TestDecodeInvalidUTF8: a record with bytes that are not UTF-8 is read
// (as U+FFFD) with a problem saying so; the native record keeps them.
func TestDecodeInvalidUTF8(t *testing.T) {
	r := NewReader(strings.NewReader(`{"a":"x` + "\xff" + `y","n":"2"}` + "\n"))
	var v struct {
		A string
		N int
	}
	rec, err := r.Decode(&v)
	if err != nil || rec.Skipped || v.A != "x\ufffdy" || !strings.Contains(string(rec.Raw), "\xff") {
		t.Fatalf("Decode = %+v, %v; read %q", rec, err, v.A)
	}
	if !strings.Contains(rec.Problem, `field "N"`) || !strings.HasSuffix(rec.Problem, "; "+InvalidUTF8) {
		t.Errorf("problem %q; want the field's and %q", rec.Problem, InvalidUTF8)
	}
}
