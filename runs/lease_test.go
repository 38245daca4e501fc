package runs_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/runs"
)

// leaseTTL is the leases' TTL in these tests.
const leaseTTL = runs.LeaseTestTTL

// listeningBus is an embedded bus other processes can reach.
func listeningBus(t *testing.T) *bus.Bus {
	t.Helper()
	b, err := bus.New(context.Background(), bus.Options{StoreDir: t.TempDir(), Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// TestLeaseHasOneOwner: while a worker renews a run's lease, another
// cannot take it; once released, it can, with a later generation.
func TestLeaseHasOneOwner(t *testing.T) {
	ctx := context.Background()
	b := listeningBus(t)
	h, err := runs.Hold(ctx, b, "r1", "worker-a", leaseTTL, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := h.Gen()
	for range 3 { // across several TTLs
		time.Sleep(leaseTTL)
		if _, err := b.AcquireLease(ctx, "r1", "worker-b", leaseTTL); !errors.Is(err, bus.ErrLeaseHeld) {
			t.Fatalf("worker b took a lease worker a renews: %v", err)
		}
	}
	if h.Context.Err() != nil || h.Gen() <= first {
		t.Fatalf("worker a's hold: %v, generation %d (first %d); want held and renewed", context.Cause(h.Context), h.Gen(), first)
	}
	if err := h.Release(ctx); err != nil {
		t.Fatal(err)
	}
	l, err := b.AcquireLease(ctx, "r1", "worker-b", leaseTTL)
	if err != nil || l.Gen <= first {
		t.Fatalf("after the release, worker b: %+v, %v; want the lease with a later generation", l, err)
	}
}

// TestLeaseHolderPausedGivesUp: a worker whose process is stopped
// (SIGSTOP) past its lease's TTL loses the run to another, and once
// continued gives the run up at once, without writing over the new
// holder's lease: never two owners.
func TestLeaseHolderPausedGivesUp(t *testing.T) {
	ctx := context.Background()
	b := listeningBus(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "STEAD_LEASE_HELPER=1", "STEAD_LEASE_URL="+b.ClientURL(), "STEAD_LEASE_TOKEN="+b.ClientToken())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(want string) string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok || !strings.HasPrefix(l, want) {
				t.Fatalf("the helper said %q (open %v); want %q", l, ok, want)
			}
			return l
		case <-time.After(30 * time.Second):
			t.Fatalf("the helper did not say %q", want)
		}
		return ""
	}
	next("held")
	if _, err := b.AcquireLease(ctx, "r2", "worker-b", leaseTTL); !errors.Is(err, bus.ErrLeaseHeld) {
		t.Fatalf("worker b took the helper's lease while it runs: %v", err)
	}
	cmd.Process.Signal(syscall.SIGSTOP)
	time.Sleep(2 * leaseTTL)
	h, err := runs.Hold(ctx, b, "r2", "worker-b", leaseTTL, nil)
	if err != nil {
		t.Fatalf("worker b could not take the lease of a stopped holder: %v", err)
	}
	defer h.Release(ctx)
	gen := h.Gen()
	cmd.Process.Signal(syscall.SIGCONT)
	gave := next("gave up")
	if !strings.Contains(gave, "not renewed") && !strings.Contains(gave, "lost") {
		t.Errorf("the helper gave up for %q", gave)
	}
	// Worker b still holds it, renewing over its own generations only.
	time.Sleep(2 * leaseTTL)
	if h.Context.Err() != nil || h.Gen() <= gen {
		t.Fatalf("worker b's hold after the helper continued: %v, generation %d (took %d)", context.Cause(h.Context), h.Gen(), gen)
	}
}
