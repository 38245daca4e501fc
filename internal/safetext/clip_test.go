package safetext

import "testing"

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
