package safetext

import (
	"strings"
	"testing"
)

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven runes", 10, "eleven ru…"},
		{"ééééé", 3, "éé…"}, // runes, never a cut byte
	} {
		if got := Clip(tc.in, tc.n); got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
	if got := ClipLine("a\n  b\tc   d", 6); got != "a b c…" {
		t.Errorf("ClipLine = %q", got)
	}
}

func TestQuoteN(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 40, `"hello"`},
		{"a\nb", 40, `"a\nb"`},
		{strings.Repeat("x", 50), 12, `"xxxxxxx…"`},
		{"\x00" + strings.Repeat("\xc3", 60), 40, `"\x00\xc3\xc3\xc3\xc3\xc3\xc3\xc3…"`},
		{"", 10, `""`},
	} {
		got := QuoteN(tc.in, tc.n)
		if got != tc.want || len(got) > tc.n {
			t.Errorf("QuoteN(%q, %d) = %s (%d bytes); want %s", tc.in, tc.n, got, len(got), tc.want)
		}
	}
	for n := 5; n < 60; n++ {
		if got := QuoteN("\x00"+strings.Repeat("é\xc3\U0001F600", 40), n); len(got) > n {
			t.Errorf("QuoteN(…, %d) is %d bytes: %s", n, len(got), got)
		}
	}
}

func TestCutBytes(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc"},
		{"aé", 2, "a"}, // é is two bytes: not cut in two
		{"日本", 4, "日"}, // three bytes each
		{"日本", 2, ""},
		{"", 0, ""},
	} {
		if got := CutBytes(c.s, c.n); got != c.want {
			t.Errorf("CutBytes(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
