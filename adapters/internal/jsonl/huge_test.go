package jsonl

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestHugeLineHandedOver: a line over shrinkAbove is handed over, not
// copied; what follows it reads as it was, with its offset, and the line
// handed over is not changed by later reads.
func TestHugeLineHandedOver(t *testing.T) {
	huge := `{"t":"` + strings.Repeat("x", shrinkAbove+123) + `"}`
	lines := []string{`{"t":"a"}`, huge, `{"t":"b"}`, huge, `{"t":"c"}`}
	data := strings.Join(lines, "\n") + "\n"
	r := NewReader(strings.NewReader(data))
	var got [][]byte
	var offsets []int64
	for {
		var v struct{ T string }
		rec, err := r.Decode(&v)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec.Raw)
		offsets = append(offsets, r.Offset())
	}
	if len(got) != len(lines) {
		t.Fatalf("%d records, want %d", len(got), len(lines))
	}
	var at int64
	for i, l := range lines {
		if !bytes.Equal(got[i], []byte(l)) {
			t.Errorf("record %d is not its line (%d bytes, want %d)", i+1, len(got[i]), len(l))
		}
		if offsets[i] != at {
			t.Errorf("record %d at offset %d, want %d", i+1, offsets[i], at)
		}
		at += int64(len(l)) + 1
	}
}
