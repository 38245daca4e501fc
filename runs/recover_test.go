package runs

import (
	"syscall"
	"testing"
)

func TestSignalName(t *testing.T) {
	if got := SignalName(syscall.SIGKILL); got != "SIGKILL (killed)" {
		t.Errorf("SignalName(SIGKILL) = %q", got)
	}
}

func TestParseSupervisor(t *testing.T) {
	for _, tc := range []struct {
		in   string
		host string
		pid  int
		ok   bool
	}{
		{"vm/123", "vm", 123, true},
		{"a/b/7", "a/b", 7, true},
		{"vm/", "", 0, false},
		{"vm/x", "", 0, false},
		{"", "", 0, false},
		{"vm/-3", "", 0, false},
	} {
		host, pid, ok := ParseSupervisor(tc.in)
		if ok != tc.ok || ok && (host != tc.host || pid != tc.pid) {
			t.Errorf("ParseSupervisor(%q) = %q, %d, %v", tc.in, host, pid, ok)
		}
	}
}
