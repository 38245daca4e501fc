package opencode

import (
	"sync"
	"testing"
	"time"

	"github.com/stead-dev/stead/session"
)

// TestOpenSummarizedWaitsHoldingNoConnection: a caller may wait in
// OpenSummarized's sized for its turn, as the search index does when it
// reads one large session at a time, and the session whose turn it is
// then reads on (its rows, then more queries). The wait must not hold
// one of the store's few connections: with more readers than connections
// waiting, the session being read would wait for a connection forever.
func TestOpenSummarizedWaitsHoldingNoConnection(t *testing.T) {
	env, _ := caseDB(t, "synthetic-db")
	refs, warns := Discover(env)
	if len(refs) == 0 || len(warns) > 0 {
		t.Fatalf("discovered %d sessions, %v", len(refs), warns)
	}
	var turn sync.Mutex // one session read at a time, as the index's large ones
	var wg sync.WaitGroup
	const readers = 16 // more than the store's connections
	for i := range readers {
		ref := refs[i%len(refs)]
		wg.Go(func() {
			locked := false
			_, _, err := OpenSummarized(env, ref, func(int64) { turn.Lock(); locked = true })
			if err == nil {
				_, err = SummarizeFile(ref, session.DetailList) // as the index does for a session with warnings
			}
			if locked {
				turn.Unlock()
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the readers did not end: one waits for a connection the waiting ones hold")
	}
}
