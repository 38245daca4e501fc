package runs

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestWatching: the watchers of runs that ended are waited for, not cut
// short after a fixed sleep; one that never ends is stopped watchDrain
// after the runs did.
func TestWatching(t *testing.T) {
	var printed atomic.Int32
	ended := make(chan struct{})
	start := time.Now()
	watching(context.Background(), func(ctx context.Context, run string) {
		<-ended // the run's last status
		time.Sleep(50 * time.Millisecond)
		printed.Add(1)
	}, []string{"a", "b"}, func() { close(ended) })
	if printed.Load() != 2 {
		t.Errorf("%d of 2 watchers printed their last lines", printed.Load())
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("watchers that ended took %s", took)
	}

	start = time.Now()
	watching(context.Background(), func(ctx context.Context, run string) { <-ctx.Done() }, []string{"stuck"}, func() {})
	if took := time.Since(start); took < watchDrain || took > watchDrain+time.Second {
		t.Errorf("a watcher that missed the end was stopped after %s, want %s", took, watchDrain)
	}
}
