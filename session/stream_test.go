package session_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/session"
)

// encodeWhole is how Encode wrote a session before it streamed: the
// session encoded whole by encoding/json.
func encodeWhole(s *session.Session, indent bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	err := enc.Encode(s)
	return buf.Bytes(), err
}

// awkward are strings that JSON escapes in every way encoding/json does:
// quotes, backslashes, every control character, HTML characters (kept),
// invalid UTF-8, U+2028 and U+2029, and JSON punctuation inside strings.
var awkward = []string{
	"", "plain", `say "hi" \ there`, "<b>&amp;</b>", "tab\tnew\nline\r\x00\x01\x08\x0c\x1f\x7f",
	"é → 日本 🎉", "bad \xff\xfe utf-8 \xc3", "\u2028 and \u2029", `{"not":"json"}, [1, 2]`,
	strings.Repeat("long line of text\n", 300),
}

// awkwardJSON are raw JSON values as native records hold them: spaced,
// nested, empty objects and arrays, strings holding punctuation and
// escapes.
var awkwardJSON = []string{
	`{}`, `[]`, `null`, `"s"`, `12.5e3`, `true`,
	`{"a":1,"b":[1,2,{"c":null}],"d":{},"e":[]}`,
	"{ \"a\" : [ 1 , 2 ] ,\n\t\"b\" : { } , \"c\" : [ ] , \"d\":\"x } ] , \\\" y\" }",
	`{"text":"line\nline \u2028 \"q\" \\ <&>","nested":[[[]],[{}],{"k":[{"k":[]}]}],"n":-0.5,"t":false}`,
	` [ {"x" : "y"} ] `,
}

func randomSession(r *rand.Rand, n int) *session.Session {
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	raw := func() json.RawMessage { return json.RawMessage(pick(awkwardJSON)) }
	base := time.Date(2026, 11, 22, 9, 0, 0, 123456789, time.UTC)
	s := &session.Session{
		ID:      pick(awkward),
		Source:  session.Source{CLI: "claude", OriginalID: pick(awkward), Path: pick(awkward)},
		Project: session.Project{Path: pick(awkward), Git: &session.Git{Branch: pick(awkward)}},
		Model:   session.Model{Provider: "anthropic", Model: pick(awkward), Config: raw()},
		Metadata: session.Metadata{Created: base, LastModified: base.Add(time.Hour),
			Tokens: &session.Usage{Input: 5, Output: 7, CacheRead: 1}},
	}
	if r.IntN(2) == 0 {
		s.Version = "1.0"
	}
	if r.IntN(2) == 0 {
		cost := 0.125
		s.Metadata.Cost = &cost
		s.Title = pick(awkward)
		s.Parent = &session.Link{Kind: session.LinkFork, ID: pick(awkward)}
		s.Subagents = []session.Link{{Kind: session.LinkSubagent, ID: "a"}, {Kind: session.LinkSubagent, ID: pick(awkward), CallID: "c"}}
		s.Warnings = []session.Warning{{Path: pick(awkward), Line: 3, Message: pick(awkward)}, {Message: "m"}}
		for i := range r.IntN(4) {
			s.Records = append(s.Records, session.Record{Line: i + 1, Record: raw()})
		}
	}
	types := []session.EntryType{session.User, session.Assistant, session.ToolCall, session.ToolResult, session.System}
	for i := range n {
		e := session.Entry{ID: pick(awkward), Type: types[r.IntN(len(types))], Content: pick(awkward), Thinking: pick(awkward),
			Tool: session.Tool(pick([]string{"", "bash", "read"})), OriginalTool: pick(awkward), CallID: pick(awkward),
			Success: r.IntN(2) == 0, Output: pick(awkward), Error: pick(awkward), ParentID: pick(awkward),
			Sidechain: r.IntN(2) == 0, Kind: pick([]string{"", "meta", "context"}), Status: session.ToolStatus(pick([]string{"", "ok", "error"})),
			Model: pick(awkward), MessageID: pick(awkward), Origin: pick(awkward), CLI: pick([]string{"", "codex"})}
		if r.IntN(3) > 0 {
			e.Timestamp = base.Add(time.Duration(i) * time.Second)
		}
		if r.IntN(2) == 0 {
			e.Input = raw()
		}
		if r.IntN(2) == 0 {
			e.Usage = &session.Usage{Input: int64(r.IntN(1000)), Output: 3, Reasoning: int64(r.IntN(2))}
		}
		if r.IntN(3) == 0 {
			e.Reasoning = []session.Reasoning{{}, {Format: "anthropic", Text: pick(awkward), Signature: pick(awkward), Encrypted: pick(awkward)}}
		}
		if r.IntN(3) == 0 {
			e.Attachments = []session.Attachment{{Type: "image", MediaType: "image/png", Data: pick(awkward)}, {Type: pick(awkward), Path: pick(awkward), URL: "u", Name: "n"}}
		}
		if r.IntN(4) == 0 {
			e.Subagent = &session.Link{Kind: session.LinkSubagent, ID: pick(awkward), Path: "p"}
		}
		switch r.IntN(3) {
		case 0:
			e.Native = &session.Native{Line: i + 1, Record: raw(), Path: pick(awkward)}
		case 1:
			e.Native = &session.Native{Line: i + 1, Part: 2}
		}
		s.Timeline = append(s.Timeline, e)
	}
	return s
}

// TestEncodeSameAsWhole: Encode, which writes a session as it encodes it,
// writes the bytes encoding/json writes for the session whole, compact and
// indented, for sessions holding every kind of string, raw JSON and field.
func TestEncodeSameAsWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sessions := []*session.Session{{}, {ID: "x", Timeline: []session.Entry{}}}
	for n := range 200 {
		sessions = append(sessions, randomSession(r, n%12))
	}
	for i, s := range sessions {
		for _, indent := range []bool{false, true} {
			want, err := encodeWhole(s, indent)
			if err != nil {
				t.Fatalf("session %d: %v", i, err)
			}
			var got bytes.Buffer
			if err := session.Encode(&got, s, indent); err != nil {
				t.Fatalf("session %d: %v", i, err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("session %d, indent %v: differs from encoding/json at byte %d:\nwant %q\ngot  %q", i, indent,
					firstDiff(got.Bytes(), want), around(want, firstDiff(got.Bytes(), want)), around(got.Bytes(), firstDiff(got.Bytes(), want)))
			}
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func around(b []byte, i int) []byte { return b[max(0, i-60):min(len(b), i+60)] }

// entryStream gives a timeline through the Entries interface, one entry
// copied at a time, as a second read of a file does.
type entryStream struct {
	tl  []session.Entry
	out session.Entry
}

func (s *entryStream) Next() (*session.Entry, error) {
	if len(s.tl) == 0 {
		return nil, io.EOF
	}
	s.out, s.tl = s.tl[0], s.tl[1:]
	return &s.out, nil
}

type recordStream struct{ recs []session.Record }

func (s *recordStream) Next() (*session.Record, error) {
	if len(s.recs) == 0 {
		return nil, io.EOF
	}
	r := s.recs[0]
	s.recs = s.recs[1:]
	return &r, nil
}

// TestEncodeStream: a session given as its metadata, an entry stream and
// a record stream is written as the whole session is; an entry of an
// unknown type or a record that is not JSON fails.
func TestEncodeStream(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 50 {
		s := randomSession(r, 10)
		meta := *s
		meta.Timeline, meta.Records = nil, nil
		for _, indent := range []bool{false, true} {
			want, _ := encodeWhole(s, indent)
			var got bytes.Buffer
			if err := session.EncodeStream(&got, &meta, &entryStream{tl: s.Timeline}, &recordStream{recs: s.Records}, indent); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("session %d, indent %v: differs at byte %d", i, indent, firstDiff(got.Bytes(), want))
			}
		}
	}
	bad := &session.Session{Timeline: []session.Entry{{ID: "e1", Type: "nonsense"}}}
	var out bytes.Buffer
	if err := session.Encode(&out, bad, true); err == nil || out.Len() > 0 || !strings.Contains(err.Error(), "e1") {
		t.Errorf("an entry of an unknown type: %v, %d bytes written", err, out.Len())
	}
	for _, s := range []*session.Session{
		{Records: []session.Record{{Line: 4, Record: json.RawMessage(`{"cut`)}}},
		{Timeline: []session.Entry{{ID: "e2", Type: session.User, Native: &session.Native{Record: json.RawMessage(`nope`)}}}},
		{Timeline: []session.Entry{{ID: "e3", Type: session.ToolCall, Input: json.RawMessage(`{`)}}},
	} {
		if err := session.Encode(io.Discard, s, false); err == nil {
			t.Errorf("%+v: encoded, want an error for the raw JSON", s)
		} else if _, werr := encodeWhole(s, false); werr == nil {
			t.Errorf("encoding/json encodes %+v", s)
		}
	}
}

// FuzzEncode compares Encode with encoding/json on strings and raw JSON
// of any bytes.
func FuzzEncode(f *testing.F) {
	for i, s := range awkward {
		f.Add(s, awkwardJSON[i%len(awkwardJSON)])
	}
	f.Fuzz(func(t *testing.T, text, raw string) {
		s := &session.Session{ID: text, Title: text, Timeline: []session.Entry{
			{ID: text, Type: session.User, Content: text, Native: &session.Native{Line: 1, Record: json.RawMessage(raw)}},
			{ID: "c", Type: session.ToolCall, Input: json.RawMessage(raw)},
		}, Records: []session.Record{{Line: 2, Record: json.RawMessage(raw)}}}
		for _, indent := range []bool{false, true} {
			want, werr := encodeWhole(s, indent)
			var got bytes.Buffer
			err := session.Encode(&got, s, indent)
			if (err == nil) != (werr == nil) {
				t.Fatalf("Encode: %v; encoding/json: %v", err, werr)
			}
			if err == nil && !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("differs at byte %d:\nwant %q\ngot  %q", firstDiff(got.Bytes(), want), want, got.Bytes())
			}
		}
	})
}

func ExampleEncodeStream() {
	meta := &session.Session{ID: "s1", Source: session.Source{CLI: "claude"}}
	entries := &entryStream{tl: []session.Entry{{ID: "e1", Type: session.User, Content: "hi <there>"}}}
	if err := session.EncodeStream(&exampleOut{}, meta, entries, nil, false); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"id":"s1","version":"1.0","source":{"cli":"claude"},"project":{"path":""},"model":{"provider":"","model":""},"timeline":[{"id":"e1","timestamp":"","type":"user","content":"hi <there>"}],"metadata":{"created":"","lastModified":""}}
}

type exampleOut struct{}

func (exampleOut) Write(p []byte) (int, error) { fmt.Print(string(p)); return len(p), nil }

// failAfter fails every write after its first n bytes.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n < len(p) {
		return 0, io.ErrClosedPipe
	}
	f.n -= len(p)
	return len(p), nil
}

// countingEntries counts the entries read from it.
type countingEntries struct {
	entryStream
	read int
}

func (c *countingEntries) Next() (*session.Entry, error) {
	c.read++
	return c.entryStream.Next()
}

// TestEncodeStreamWriteError: a writer that fails stops the encoding,
// with its error, before the rest of the entries is read.
func TestEncodeStreamWriteError(t *testing.T) {
	tl := make([]session.Entry, 1000)
	for i := range tl {
		tl[i] = session.Entry{ID: fmt.Sprint(i), Type: session.User, Content: strings.Repeat("x", 1000)}
	}
	entries := &countingEntries{entryStream: entryStream{tl: tl}}
	err := session.EncodeStream(&failAfter{n: 100 << 10}, &session.Session{ID: "s"}, entries, nil, false)
	if !errors.Is(err, io.ErrClosedPipe) || entries.read > 200 {
		t.Errorf("EncodeStream into a failing writer: %v after reading %d entries", err, entries.read)
	}
}

// FuzzAppendJSON: AppendJSON gives what json.Indent gives (two spaces a
// level, its lines after the first at depth levels), and, unindented,
// what json.Compact gives, for any valid JSON.
func FuzzAppendJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":[],"b":{},"c":[{}],"d":[1,{"e":null}]}`,
		`{"s":"a \"quoted\" {x}, [y]: z\\","t":"\\\\","u":"é\u2028"}`,
		"[[[]],[{\"k\":\"v\"}],true,false,-1.5e3]",
		`  "just a string"  `,
		"{ \"message\" : {\"content\": [ {\"type\":\"text\", \"text\":\"line\\nline\"} ] } }\n",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, depth uint8) {
		if !json.Valid(data) {
			return
		}
		d := int(depth % 8)
		var want bytes.Buffer
		if err := json.Indent(&want, data, strings.Repeat("  ", d), "  "); err != nil {
			t.Fatal(err)
		}
		// json.Indent keeps the spaces around the value; AppendJSON drops them.
		w := bytes.TrimSpace(want.Bytes())
		if got := session.AppendJSON(nil, data, d, true); !bytes.Equal(got, w) {
			t.Errorf("indenting %q at depth %d:\n got %s\nwant %s", data, d, got, w)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			t.Fatal(err)
		}
		if got := session.AppendJSON(nil, data, d, false); !bytes.Equal(got, compact.Bytes()) {
			t.Errorf("compacting %q:\n got %s\nwant %s", data, got, compact.Bytes())
		}
	})
}
