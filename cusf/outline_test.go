package cusf_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stead-dev/stead/cusf"
	"github.com/stead-dev/stead/session"
)

// decodeTwice reads data as a file too large to hold is read: its outline
// and records first, then its entries again, one at a time. It returns the
// session they make up, as Decode would return it.
func decodeTwice(data []byte) (*session.Session, []error, error) {
	var records []session.Record
	s, o, warns, err := cusf.DecodeOutline(bytes.NewReader(data), "f", func(r session.Record) { records = append(records, r) })
	if err != nil {
		return nil, warns, err
	}
	if len(s.Timeline) != 0 || len(s.Records) != 0 {
		return nil, warns, fmt.Errorf("the first read kept %d entries and %d records", len(s.Timeline), len(s.Records))
	}
	entries := o.Entries(bytes.NewReader(data), "f")
	s.Timeline = []session.Entry{}
	for {
		e, err := entries.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, warns, err
		}
		s.Timeline = append(s.Timeline, *e)
	}
	if len(s.Timeline) != o.Len() {
		return nil, warns, fmt.Errorf("%d entries read again, %d outlined", len(s.Timeline), o.Len())
	}
	s.Records = records
	return s, warns, nil
}

// sameAsDecode checks that reading data twice gives what Decode gives.
func sameAsDecode(t *testing.T, name string, data []byte) {
	t.Helper()
	want, wantWarns, wantErr := cusf.Decode(bytes.NewReader(data), "f")
	got, gotWarns, err := decodeTwice(data)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%s: read twice: %v; Decode: %v", name, err, wantErr)
	}
	if err != nil {
		return
	}
	a, err := session.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := session.Marshal(got)
	if !bytes.Equal(a, b) {
		t.Fatalf("%s: read twice differs from Decode at byte %d:\nDecode: %.400s\ntwice:  %.400s", name,
			diffAt(a, b), a[max(0, diffAt(a, b)-100):], b[max(0, diffAt(a, b)-100):])
	}
	if fmt.Sprint(wantWarns) != fmt.Sprint(gotWarns) {
		t.Errorf("%s: warnings %v, Decode's %v", name, gotWarns, wantWarns)
	}
}

func diffAt(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// idsBase is a file whose ids meet the names results get: messages with no
// id (named by their line), one named as a result will be, a repeated one,
// and results before and after them; and lines the encoder makes up.
var idsBase = []string{
	base[0], base[1],
	`{"type":"message","role":"user","content":"no id","timestamp":"2026-01-28T10:01:00Z"}`,
	`{"type":"message","role":"assistant","content":"","timestamp":"2026-01-28T10:01:30Z","parent_id":"L3","message_id":"t1-msg","stop_reason":"tool_use","model":"m","usage":{"input_tokens":1,"output_tokens":2}}`,
	`{"type":"tool_use","tool_name":"Bash","tool_input":{"command":"ls"},"tool_id":"t1","timestamp":"2026-01-28T10:02:00Z","parent_id":"t1-msg"}`,
	`{"type":"tool_result","tool_id":"t1","result":"x","is_error":false,"timestamp":"2026-01-28T10:02:01Z"}`,
	`{"type":"message","role":"user","content":"named like a result","timestamp":"2026-01-28T10:03:00Z","message_id":"L6"}`,
	`{"type":"message","role":"user","content":"again","timestamp":"2026-01-28T10:03:00Z","message_id":"L6"}`,
	`{"type":"tool_use","tool_name":"unknown","tool_id":"t9","timestamp":"2026-01-28T10:04:00Z"}`,
	`{"type":"tool_result","tool_id":"t9","result":"y","is_error":true,"timestamp":"2026-01-28T10:04:00Z"}`,
	`{"type":"message","role":"assistant","content":"part","timestamp":"2026-01-28T10:05:00Z","message_id":"a1"}`,
	`{"type":"message","role":"assistant","content":"rest","timestamp":"2026-01-28T10:05:01Z","message_id":"a2","stop_reason":"end_turn"}`,
	`{"type":"tool_result","tool_id":"t1","result":"z","timestamp":"2026-01-28T10:06:00Z"}`,
	`{"type":"message","role":"user","content":"L13 is taken","timestamp":"2026-01-28T10:07:00Z","message_id":"L13"}`,
	`not json`, `{"type":"mystery","x":1}`,
	base[6],
}

// TestDecodeOutline: a CUSF file read twice (its outline, then its entries
// one at a time) gives the session Decode gives, for the golden files,
// the export of every adapter test session, a file whose ids meet the
// names of its results, and broken files.
func TestDecodeOutline(t *testing.T) {
	golden, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.cusf.jsonl"))
	for _, p := range golden {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sameAsDecode(t, p, data)
	}
	for _, c := range testCases(t) {
		// A subtest each: a case that is not a session file skips only
		// itself (it skipped the whole test, hiding the cases below).
		t.Run(c.cli+"/"+c.name, func(t *testing.T) {
			sameAsDecode(t, c.cli+"/"+c.name, export(t, openCase(t, c)))
		})
	}
	sameAsDecode(t, "ids", file(idsBase))
	reversed := slices.Clone(idsBase[2:])
	slices.Reverse(reversed)
	sameAsDecode(t, "ids reversed", file(append(idsBase[:2:2], reversed...)))
	sameAsDecode(t, "base", file(base))
	sameAsDecode(t, "nothing", nil)
	sameAsDecode(t, "no newline", []byte(strings.Join(base, "\n")))
	sameAsDecode(t, "cut", file(base)[:len(file(base))/2])
}

// TestDecodeOutlineChanged: a second read of other bytes fails, naming the
// file, instead of giving a mix of both.
func TestDecodeOutlineChanged(t *testing.T) {
	first := file(idsBase)
	for name, second := range map[string][]byte{
		"reordered": file(append(append([]string{}, idsBase[:3]...), append([]string{idsBase[6], idsBase[7]}, idsBase[3:6]...)...)),
		"cut":       file(idsBase[:6]),
		"retimed":   bytes.Replace(first, []byte("10:03:00Z"), []byte("10:03:09Z"), 1),
	} {
		_, o, _, err := cusf.DecodeOutline(bytes.NewReader(first), "f", func(session.Record) {})
		if err != nil {
			t.Fatal(err)
		}
		entries := o.Entries(bytes.NewReader(second), "changed.jsonl")
		for err == nil {
			_, err = entries.Next()
		}
		if !errors.Is(err, cusf.ErrChanged) || !strings.Contains(err.Error(), "changed.jsonl") {
			t.Errorf("%s: %v, want %v naming the file", name, err, cusf.ErrChanged)
		}
	}
}

// FuzzDecodeOutline compares a file read twice with Decode on any bytes.
func FuzzDecodeOutline(f *testing.F) {
	golden, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.cusf.jsonl"))
	for _, p := range golden {
		data, _ := os.ReadFile(p)
		f.Add(data)
	}
	f.Add(file(idsBase))
	f.Add(file(base))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsDecode(t, "fuzz", data)
	})
}
