package index

import (
	"bytes"
	"compress/flate"
	"io"
	"strings"
	"testing"
)

func TestSnippet(t *testing.T) {
	long := strings.Repeat("filler words here ", 20)
	for _, c := range []struct {
		text, query, want string
	}{
		{"Run the tests now", "tests", "Run the \x02tests\x03 now"},
		{"Run the TESTS now", "tests", "Run the \x02TESTS\x03 now"},
		{"un café crème", "cafe", "un \x02café\x03 crème"},
		{"migrating the database", "migrat*", "\x02migrating\x03 the database"},
		{"please run the tests, then run the build", `"run the"`, "please \x02run\x03 \x02the\x03 tests, then \x02run\x03 \x02the\x03 build"},
		{"parse_args(x)", "parse_args", "\x02parse\x03_\x02args\x03(x)"},
		{"nothing to see", "absent", "nothing to see"},
		{long + "the needle is here " + long, "needle", "…words here filler words here the \x02needle\x03 is here filler words here filler words here filler words here filler words here filler words here…"},
	} {
		_, terms, err := parseQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		var ws words
		ws.split(c.text)
		if got := snippet(c.text, &ws, patterns(terms)); got != c.want {
			t.Errorf("snippet(%q, %s):\n got %q\nwant %q", c.text, c.query, got, c.want)
		}
	}
}

func TestPackText(t *testing.T) {
	long := strings.Repeat("a long text that compresses well ", 1000) // two frames
	for _, s := range []string{"", "short", strings.Repeat("a text that compresses well ", 100), long, "\x00\xff binary"} {
		packed := packText(s)
		got, err := new(unpacker).unpack(packed)
		if err != nil || got != s {
			t.Errorf("%.40q: read back %.40q, %v", s, got, err)
		}
		if len(s) >= packMin && packed[0] != packedZstd {
			t.Errorf("%.40q: packed as %q", s, packed[0])
		}
		for _, n := range []int{10, rankText, rankText + 10} {
			got, err := new(unpacker).unpackPrefix(packed, n)
			if want := s[:min(n, len(s))]; err != nil || got != want {
				t.Errorf("%.40q: its first %d bytes read back as %.40q, %v", s, n, got, err)
			}
		}
	}
	// Indexes written before zstd hold deflated texts.
	var deflated bytes.Buffer
	deflated.WriteByte(packedDeflate)
	w, _ := flate.NewWriter(&deflated, flate.BestSpeed)
	io.WriteString(w, long)
	w.Close()
	if got, err := new(unpacker).unpack(deflated.Bytes()); err != nil || got != long {
		t.Errorf("a deflated text read back as %.40q, %v", got, err)
	}
	for _, b := range []string{"x123", "dnot deflate", "z", "z\x05abc", "z\x03abc", "z\xff\xff\xff\xff\xff\xff"} {
		if _, err := new(unpacker).unpack([]byte(b)); err == nil {
			t.Errorf("%q: a damaged or unknown packing was read", b)
		}
	}
}
