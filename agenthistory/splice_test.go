package agenthistory

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/session"
)

// long returns a text of about n bytes made of pieces JSON escapes in
// every way (quotes, controls, HTML characters, invalid UTF-8, U+2028,
// runs of continuation bytes) and plain ones.
func long(r *rand.Rand, n int) string {
	pieces := []string{"plain text ", `"q" \ `, "\t\n\r\x00\x1f", "<&>", "é→日本🎉", "\xff", "\xe2\x82", "\u2028\u2029",
		strings.Repeat("\x80", 70<<10), strings.Repeat("x", 70<<10), strings.Repeat("日本🎉", 7000)}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// longJSON returns a compact JSON object of about n bytes.
func longJSON(r *rand.Rand, n int) json.RawMessage {
	b, _ := session.MarshalCompact(map[string]any{"content": long(r, n), "n": []int{1, 2}, "o": map[string]any{}})
	return b
}

// TestWriteMessageSpliced: a message whose long values are written into
// its small encoding (writeMessage) is the bytes encodeMessage gives, for
// long texts, outputs, inputs, thinking, errors and native records, valid
// or not; and the Reader finds such a message matches its entries.
func TestWriteMessageSpliced(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	base := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	for i := range 60 {
		size := func() int {
			if r.IntN(2) == 0 {
				return 10
			}
			return bigAbove + r.IntN(200<<10)
		}
		es := []session.Entry{
			{ID: "a1", Type: session.Assistant, Content: long(r, size()), Thinking: long(r, size()), MessageID: "m", Timestamp: base,
				Native: &session.Native{Line: 1, Record: longJSON(r, size())}},
			{ID: "c1", Type: session.ToolCall, Tool: session.ToolBash, Input: longJSON(r, size()), MessageID: "m", Timestamp: base,
				Native: &session.Native{Line: 1, Part: 1}},
		}
		res := []session.Entry{{ID: "r1", Type: session.ToolResult, CallID: "c1", Output: long(r, size()), Error: long(r, size()),
			Timestamp: base, Native: &session.Native{Line: 2, Record: longJSON(r, size())}}}
		switch i % 4 {
		case 1: // a raw value that is not JSON: written as text
			res[0].Native.Record = json.RawMessage(`{"cut":"` + long(r, bigAbove+10))
		case 2: // one that is not compact
			es[1].Input = json.RawMessage("{ \"spaced\" : \"" + strings.Repeat("y", bigAbove) + "\" }")
		}
		s := &session.Session{ID: "s", Source: session.Source{CLI: session.Claude}, Timeline: append(es, res...)}
		var enc bytes.Buffer
		e := json.NewEncoder(&enc)
		e.SetEscapeHTML(false)
		encode := func(v any) ([]byte, error) {
			enc.Reset()
			if err := e.Encode(v); err != nil {
				return nil, err
			}
			return bytes.TrimSuffix(enc.Bytes(), []byte("\n")), nil
		}
		ctx := newMsgCtx(s, newLineIndex(true))
		for k, msg := range [][]session.Entry{es, res} {
			ctx.ids.add(msg)
			want, err := ctx.encodeMessage(encode, msg, k+1, k == 0, false)
			if err != nil {
				t.Fatal(err)
			}
			want = bytes.Clone(want)
			var got bytes.Buffer
			held := 0 // the longest encoding writeMessage held
			measured := func(v any) ([]byte, error) {
				b, err := encode(v)
				held = max(held, len(b))
				return b, err
			}
			if err := ctx.writeMessage(&got, measured, msg, k+1, k == 0, false); err != nil {
				t.Fatal(err)
			}
			if i%4 != 1 && held > bigAbove {
				t.Errorf("case %d message %d: an encoding of %d bytes was held", i, k+1, held)
			}
			if !bytes.Equal(got.Bytes(), want) {
				at := 0
				for at < min(got.Len(), len(want)) && got.Bytes()[at] == want[at] {
					at++
				}
				t.Fatalf("case %d message %d: differs at byte %d of %d:\nwant %.200q\ngot  %.200q", i, k+1, at, len(want),
					want[max(0, at-50):], got.Bytes()[max(0, at-50):])
			}
			rd := &Reader{}
			rd.enc = json.NewEncoder(&rd.buf)
			rd.enc.SetEscapeHTML(false)
			if !rd.matches(want, ctx, msg, k+1, k == 0) {
				t.Fatalf("case %d message %d: does not match its own encoding", i, k+1)
			}
			if rd.matches(append(bytes.Clone(want[:len(want)-1]), ' ', '}'), ctx, msg, k+1, k == 0) {
				t.Fatalf("case %d message %d: matches another encoding", i, k+1)
			}
		}
	}
}

// TestWriteMessagePlaceholder: a value holding what a placeholder looks
// like is written right (whole).
func TestWriteMessagePlaceholder(t *testing.T) {
	trap := "\x00stead-big-0\x00" + strings.Repeat("z", bigAbove)
	s := &session.Session{ID: "s", Timeline: []session.Entry{{ID: "u", Type: session.User, Content: trap, Thinking: "x",
		Native: &session.Native{Line: 1, Record: json.RawMessage(`"` + "\\u0000stead-big-0\\u0000" + strings.Repeat("w", bigAbove) + `"`)}}}}
	ctx := newMsgCtx(s, newLineIndex(true))
	ctx.ids.add(s.Timeline)
	encode := func(v any) ([]byte, error) { return session.MarshalCompact(v) }
	want, err := ctx.encodeMessage(encode, s.Timeline, 1, true, false)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := ctx.writeMessage(&got, encode, s.Timeline, 1, true, false); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("a value like a placeholder:\nwant %.300q\ngot  %.300q", want, got.Bytes())
	}
}
