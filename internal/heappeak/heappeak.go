package heappeak

import (
	"runtime/metrics"
	"sync"
	"time"
)

// Start samples the live heap every 5 ms until the returned function is
// called, which stops sampling and returns the peak in bytes.
func Start() (stop func() uint64) {
	var mu sync.Mutex
	var peak uint64
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			mu.Lock()
			peak = max(peak, sample[0].Value.Uint64())
			mu.Unlock()
			select {
			case <-quit:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(quit)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}
