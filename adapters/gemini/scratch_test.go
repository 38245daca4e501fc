package gemini

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/stead-dev/stead/adapters/internal/jsonread"
)

// A Decoder reads records through its scratch, and reads results and
// responses with the line (fastrecord.go): what it reads must be what
// jsonread.Parse reads without (which FuzzParseJSON holds to
// encoding/json), or it must give up on the line.

// sameWithScratch fails t when a Decoder reads line otherwise than
// jsonread.Parse does without a scratch.
func sameWithScratch(t *testing.T, line []byte) {
	var plain record
	okPlain := jsonread.Parse(bytes.Clone(line), &plain)
	d := NewDecoder(nil)
	// Read twice, so that the second read reuses what the first left.
	for range 2 {
		d.rec = record{}
		if ok, _ := d.parse(bytes.Clone(line), &d.rec); !ok {
			return // giving up is always allowed
		}
	}
	if !okPlain {
		t.Fatalf("the Decoder read %q, jsonread.Parse did not", line)
	}
	fast := d.rec
	forgetRecord(t, &fast)
	if !reflect.DeepEqual(fast, plain) {
		t.Fatalf("%q:\nwith scratch %+v\nwithout      %+v", line, fast, plain)
	}
}

// forgetRecord checks what a Decoder read beside the fields jsonread.Parse
// reads, and clears it.
func forgetRecord(t *testing.T, r *record) {
	forgetMessage(t, &r.msgRecord)
	for i := range r.Messages {
		forgetMessage(t, &r.Messages[i])
	}
	if r.Set != nil {
		s := *r.Set // not the scratch's own
		s.sc = nil
		for i := range s.Messages {
			forgetMessage(t, &s.Messages[i])
		}
		r.Set = &s
	}
}

func forgetMessage(t *testing.T, m *msgRecord) {
	m.sc = nil
	forgetParts(t, m.parts)
	for i := range m.ToolCalls {
		c := &m.ToolCalls[i]
		if c.resultRead {
			var want []part
			if !jsonread.ParseValue(c.Result, func(p *jsonread.Parser) { want = content(p, nil) }) {
				t.Fatalf("result %s read with the line, not alone", c.Result)
			}
			forgetParts(t, c.resultParts)
			if !reflect.DeepEqual(c.resultParts, want) {
				t.Fatalf("result %s read as %+v with the line, %+v alone", c.Result, c.resultParts, want)
			}
		}
		c.sc, c.resultParts, c.resultRead = nil, nil, false
	}
}

func forgetParts(t *testing.T, ps []part) {
	for i := range ps {
		p := &ps[i]
		p.sc = nil
		if r := p.FunctionResponse; r != nil {
			if r.respRead {
				var want response
				if !jsonread.Parse(r.Response, &want) || !bytes.Equal(r.resp.Output, want.Output) || !bytes.Equal(r.resp.Error, want.Error) {
					t.Fatalf("response %s read as %+v with the line, %+v alone", r.Response, r.resp, want)
				}
				checkString(t, r.resp.Output, r.resp.out, r.resp.outRead)
				checkString(t, r.resp.Error, r.resp.err, r.resp.errRead)
			}
			r.sc, r.resp, r.respRead = nil, response{}, false
		}
	}
}

// checkString fails t unless text is raw as str reads it, and read says
// whether raw is a string.
func checkString(t *testing.T, raw []byte, text string, read bool) {
	if read != isString(raw) || read && text != str(raw) {
		t.Fatalf("%s read as %q (%v)", raw, text, read)
	}
}

func TestParseScratchTestdata(t *testing.T) {
	for _, l := range nativeLines(t) {
		if len(l) > 0 && l[0] == '{' {
			sameWithScratch(t, l)
		}
	}
}

func FuzzParseScratch(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`{"id":"g","type":"gemini","toolCalls":[{"id":"c","result":[{"functionResponse":{"id":"c","response":{"output":"a\nb"}}}]}]}`,
		`{"id":"g","toolCalls":[{"result":{"text":"x"}},{"result":"s"},{"result":[1]},{"result":null}]}`,
		`{"id":"u","content":[{"functionResponse":{"response":{"error":"e","Output":1}}},"t",null]}`,
		`{"$set":{"messages":[{"id":"a","content":{"text":"t"}},{"id":"b","toolCalls":[]}]}}`,
	} {
		f.Add([]byte(s))
	}
	for _, l := range nativeLines(f) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 0 && b[0] == '{' {
			sameWithScratch(t, b)
		}
	})
}
