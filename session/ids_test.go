package session

import "testing"

func TestIDsUnique(t *testing.T) {
	var s IDs
	got := []string{s.Unique("a"), s.Unique("a#3"), s.Unique("a"), s.Unique("a"), s.Unique("a"), s.Unique("b")}
	want := []string{"a", "a#3", "a#2", "a#4", "a#5", "b"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Unique gave %q, want %q", got, want)
		}
	}
	if !s.Has("a#4") || s.Has("a#6") {
		t.Error("Has does not report what was handed out")
	}
}

// BenchmarkIDsRepeated hands out one id many times: linear, not
// quadratic, in the repeats.
func BenchmarkIDsRepeated(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		var s IDs
		for range 10000 {
			s.Unique("same")
		}
	}
}
