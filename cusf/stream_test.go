package cusf_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/stead-dev/stead/cusf"
	"github.com/stead-dev/stead/session"
)

// reused gives the entries of a timeline the way a decoder might: one
// entry, and one buffer for its input, usage and native record, reused
// from call to call, the previous contents overwritten first.
type reused struct {
	tl     []session.Entry
	e      session.Entry
	input  []byte
	usage  session.Usage
	native session.Native
	record []byte
}

func (r *reused) Next() (*session.Entry, error) {
	for i := range r.input {
		r.input[i] = 'X'
	}
	for i := range r.record {
		r.record[i] = 'X'
	}
	r.usage = session.Usage{Input: -1, Output: -1}
	r.e = session.Entry{ID: "overwritten", Type: session.User}
	if len(r.tl) == 0 {
		return nil, io.EOF
	}
	r.e, r.tl = r.tl[0], r.tl[1:]
	if r.e.Input != nil {
		r.input = append(r.input[:0], r.e.Input...)
		r.e.Input = r.input
	}
	if r.e.Usage != nil {
		r.usage = *r.e.Usage
		r.e.Usage = &r.usage
	}
	if r.e.Native != nil {
		r.native = *r.e.Native
		r.record = append(r.record[:0], r.native.Record...)
		r.native.Record = r.record
		r.e.Native = &r.native
	}
	return &r.e, nil
}

// exportStream exports s with EncodeStream, its timeline given by a
// reused and the session without its timeline.
func exportStream(t testing.TB, s *session.Session) []byte {
	t.Helper()
	meta := *s
	meta.Timeline = nil
	var buf bytes.Buffer
	if err := cusf.NewEncoder(&buf, testOptions).EncodeStream(&meta, &reused{tl: s.Timeline}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestEncodeStreamSame checks EncodeStream writes the bytes Encode does,
// for every testdata session, the sessions they decode back to (which
// take fields from their native records), the golden sessions and a
// generated one.
func TestEncodeStreamSame(t *testing.T) {
	same := func(t *testing.T, s *session.Session) {
		t.Helper()
		want := export(t, s)
		if got := exportStream(t, s); !bytes.Equal(got, want) {
			t.Fatalf("EncodeStream wrote\n%s\nEncode wrote\n%s", got, want)
		}
		back, _, err := cusf.Decode(bytes.NewReader(want), "export")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := exportStream(t, back), export(t, back); !bytes.Equal(got, want) {
			t.Fatalf("decoded: EncodeStream wrote\n%s\nEncode wrote\n%s", got, want)
		}
	}
	for _, c := range testCases(t) {
		t.Run(c.cli+"/"+c.name, func(t *testing.T) { same(t, openCase(t, c)) })
	}
	t.Run("golden/small", func(t *testing.T) { same(t, small()) })
	t.Run("golden/minimal", func(t *testing.T) { same(t, minimal()) })
	t.Run("turns", func(t *testing.T) {
		var buf bytes.Buffer
		if err := cusf.NewEncoder(&buf, testOptions).EncodeStream(largeMeta(), &turns{n: 300}); err != nil {
			t.Fatal(err)
		}
		if want := export(t, large(300)); !bytes.Equal(buf.Bytes(), want) {
			t.Fatal("EncodeStream of generated entries differs from Encode of the same timeline")
		}
	})
}

type failing struct {
	turns
	after int
}

var errRead = errors.New("read failed")

func (f *failing) Next() (*session.Entry, error) {
	if f.i == f.after {
		return nil, errRead
	}
	return f.turns.Next()
}

// TestEncodeStreamError checks an error from Entries ends the export with
// that error.
func TestEncodeStreamError(t *testing.T) {
	for _, after := range []int{0, 1, 2, 7} {
		err := cusf.NewEncoder(io.Discard, testOptions).EncodeStream(largeMeta(), &failing{turns{n: 10}, after})
		if !errors.Is(err, errRead) {
			t.Errorf("error after %d entries: got %v, want %v", after, err, errRead)
		}
	}
}
