package index

import (
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
	for _, s := range []string{"", "short", strings.Repeat("a long text that deflates well ", 100), "\x00\xff binary"} {
		got, err := new(unpacker).unpack(packText(s))
		if err != nil || got != s {
			t.Errorf("%q: read back %q, %v", s, got, err)
		}
	}
	if _, err := new(unpacker).unpack([]byte("x123")); err == nil {
		t.Error("an unknown packing was read")
	}
	if _, err := new(unpacker).unpack([]byte("dnot deflate")); err == nil {
		t.Error("a damaged text was read")
	}
}
