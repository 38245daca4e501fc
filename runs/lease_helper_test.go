package runs

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/stead-dev/stead/bus"
)

// LeaseTestTTL is the leases' TTL in the lease tests.
const LeaseTestTTL = 600 * time.Millisecond

// leaseHelper is the process TestLeaseHolderPausedGivesUp stops (see
// TestMain): it holds run r2's lease and says when it gives it up.
func leaseHelper() int {
	ctx := context.Background()
	b, err := bus.New(ctx, bus.Options{URL: os.Getenv("STEAD_LEASE_URL"), Token: os.Getenv("STEAD_LEASE_TOKEN"), Bind: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer b.Close()
	h, err := Hold(ctx, b, "r2", "helper", LeaseTestTTL, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("held", h.Gen())
	<-h.Context.Done()
	fmt.Println("gave up:", context.Cause(h.Context))
	h.Release(ctx)
	return 0
}
