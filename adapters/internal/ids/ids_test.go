package ids

import (
	"strings"
	"testing"
	"time"
)

func TestUUIDs(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		u := UUID4()
		if !IsUUID(u) || u[14] != '4' || !strings.ContainsRune("89ab", rune(u[19])) {
			t.Fatalf("UUID4 %q is not a version 4 UUID", u)
		}
		if seen[u] {
			t.Fatalf("UUID4 repeated %q", u)
		}
		seen[u] = true
	}
	a := UUID7(time.UnixMilli(1795288338000))
	b := UUID7(time.UnixMilli(1795288338001))
	if !IsUUID(a) || a[14] != '7' || !(a < b) {
		t.Fatalf("UUID7 %q, %q: want version 7, ordered by time", a, b)
	}
	if !strings.HasPrefix(a, "01a1ff86-") {
		t.Errorf("UUID7 %q does not start with the time", a)
	}
	for _, bad := range []string{"", "x", "01a1ff86-0e88-7863-a344-97213dbbd07", "01a1ff86_0e88-7863-a344-97213dbbd07a", "../../../etc/passwd-aaaa-aaaa-aaaaaaaaaa"} {
		if IsUUID(bad) {
			t.Errorf("IsUUID(%q) = true", bad)
		}
	}
}
