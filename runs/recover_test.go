package runs

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
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

// TestRunsFor: a run's CLI is known by STEAD_RUN in its environment; a
// process without it (one that took the pid since) is not stopped.
func TestRunsFor(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.Env = append(os.Environ(), "STEAD_RUN=r-1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	// Start returns as the exec begins: the kernel shows the new
	// program's environment a moment later.
	for deadline := time.Now().Add(2 * time.Second); !runsFor(cmd.Process.Pid, "r-1") && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if !runsFor(cmd.Process.Pid, "r-1") {
		t.Errorf("runsFor(the run's CLI, r-1) = false")
	}
	if runsFor(cmd.Process.Pid, "r-2") || runsFor(os.Getpid(), "r-1") {
		t.Errorf("runsFor holds for another run, or a process that is no run's")
	}
}
