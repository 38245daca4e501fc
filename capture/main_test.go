package capture_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// joinWithin bounds how long an actor may take to end once interrupted.
const joinWithin = 5 * time.Second

// start runs one of a capture's actors (Terminal, File, Readiness,
// StatusFile, Snapshot, DebugLog) on a goroutine of its own, as
// cmd/stead's run group does: execute is the actor, interrupt ends it
// (closes its reader, stops its Follower, cancels its context). When the
// test is over start interrupts the actor and waits for it, failing the
// test if it does not end or ended in an error. join interrupts nothing:
// it waits for the actor, for a test that ends it itself and then reads
// what it published.
func start(tb testing.TB, name string, execute func() error, interrupt func()) (join func() error) {
	tb.Helper()
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		err = execute()
	}()
	wait := sync.OnceValue(func() error {
		select {
		case <-done:
			return err
		case <-time.After(joinWithin):
			return fmt.Errorf("%s did not end within %s", name, joinWithin)
		}
	})
	joined := false // the test joined it and saw its error
	tb.Cleanup(func() {
		interrupt()
		if err := wait(); err != nil && !joined {
			tb.Errorf("%s: %v", name, err)
		}
	})
	return func() error {
		joined = true
		return wait()
	}
}
