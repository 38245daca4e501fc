//go:build !race

package cusf_test

import (
	"io"
	"runtime"
	"testing"

	"github.com/stead-dev/stead/cusf"
	"github.com/stead-dev/stead/session"
)

// measured is a turns that, every so often, collects garbage and records
// the heap in use above where it started.
type measured struct {
	turns
	start, peak uint64
}

func (m *measured) heap() {
	var st runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&st)
	if st.HeapInuse > m.start && st.HeapInuse-m.start > m.peak {
		m.peak = st.HeapInuse - m.start
	}
}

func (m *measured) Next() (*session.Entry, error) {
	if m.i%10000 == 0 {
		m.heap()
	}
	e, err := m.turns.Next()
	if err == io.EOF {
		m.heap() // every tool id is in the encoder's set now
	}
	return e, err
}

// TestEncodeStreamHeap exports 200,000 entries made on the fly and checks
// the live heap stays small: the encoder holds a window of entries and
// the tool ids, never the timeline.
func TestEncodeStreamHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	const limit = 8 << 20
	m := &measured{turns: turns{n: 40000}}
	var st runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&st)
	m.start = st.HeapInuse
	var out counter
	if err := cusf.NewEncoder(&out, testOptions).EncodeStream(largeMeta(), m); err != nil {
		t.Fatal(err)
	}
	if m.i != 200000 {
		t.Fatalf("%d entries read, want 200000", m.i)
	}
	t.Logf("%d entries, %d MB written, heap in use at most %.2f MB above the start",
		m.i, out.n>>20, float64(m.peak)/(1<<20))
	if m.peak > limit {
		t.Errorf("heap in use grew by %d bytes, want at most %d", m.peak, limit)
	}
}
