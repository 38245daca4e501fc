package runs

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a goroutine outlives them: every
// actor of a run, and every watcher a test starts, must have ended.
//
// One goroutine of nats.go is let go: ObjectStore.Put publishes through a
// JetStream context of its own and clears it when done
// (cleanupReplySub), and the goroutine that context started to watch
// reconnects (resetPendingAcksOnReconnect) may read the channel only
// after it was cleared, and then waits on a nil channel for good
// (nats.go v1.55.0, the newest; jetstream/publish.go:560, object.go:693).
// It is one goroutine per stored session at most, in the library, not
// in stead.
func TestMain(m *testing.M) {
	if os.Getenv("STEAD_LEASE_HELPER") != "" {
		os.Exit(leaseHelper())
	}
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/nats-io/nats.go/jetstream.(*jetStream).resetPendingAcksOnReconnect"))
}
