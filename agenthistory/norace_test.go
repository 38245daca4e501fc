//go:build !race

// Tests too slow under the race detector, as nats-server keeps them.

package agenthistory_test

import (
	"runtime"
	"testing"

	"github.com/stead-dev/stead/agenthistory"
)

// TestWriteHeapBounded writes 200 sessions of 2,000 entries, each made
// just before it is written and dropped after, and checks the live heap
// never grows more than a few MB past one session's size: the Writer
// keeps nothing of the sessions it wrote.
func TestWriteHeapBounded(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 20
	}
	var c counter
	w, err := agenthistory.NewWriter(&c, agenthistory.Header{SessionCount: n})
	if err != nil {
		t.Fatal(err)
	}
	base := heapInUse()
	one := bigSession(0, 2000)
	single := heapInUse() - base
	if err := w.Write(one); err != nil {
		t.Fatal(err)
	}
	one = nil
	limit := base + single + 4<<20
	var peak uint64
	for i := 1; i < n; i++ {
		s := bigSession(i, 2000)
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 || i == n-1 {
			peak = max(peak, heapInUse()) // s is still live: one session
			runtime.KeepAlive(s)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d sessions, %.0f MB written; one session %.1f MB in memory; heap at most %.1f MB above the start, limit %.1f MB",
		n, float64(c.n)/(1<<20), float64(single)/(1<<20), float64(peak-base)/(1<<20), float64(limit-base)/(1<<20))
	if peak > limit {
		t.Errorf("heap in use reached %d bytes, more than %d (start %d + one session %d + 4 MB)", peak, limit, base, single)
	}
}

// TestWriteStreamHeapBounded streams one session of 200,000 entries (about
// 150 MB of export), each made when it is read, and checks the live heap
// stays within 8 MB of the start: WriteStream holds one message and a few
// dozen bytes per message for the graph, not the timeline or the line.
func TestWriteStreamHeapBounded(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	var c counter
	w, err := agenthistory.NewWriter(&c, agenthistory.Header{SessionCount: 1})
	if err != nil {
		t.Fatal(err)
	}
	meta, g := newGenerated(n)
	base := heapInUse()
	var peak uint64
	g.step = func(i int) {
		if i%10_000 == 0 || i == n-1 {
			peak = max(peak, heapInUse())
		}
	}
	if err := w.WriteStream(meta, nil, g); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	const limit = 8 << 20
	t.Logf("%d entries, %.0f MB written; heap at most %.2f MB above the start, limit %d MB",
		n, float64(c.n)/(1<<20), float64(peak-base)/(1<<20), limit>>20)
	if peak > base+limit {
		t.Errorf("heap in use reached %d bytes above the start, more than %d", peak-base, limit)
	}
}

// heapInUse is the heap in use after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
