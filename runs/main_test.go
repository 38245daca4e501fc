package runs

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a goroutine outlives them: every
// actor of a run, and every watcher a test starts, must have ended.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
