package index

import (
	"context"
	"sync"
)

// budget bounds the bytes in flight between a refresh's readers and its
// writer: a reader takes a read session's share before handing it on, the
// writer gives it back as it takes the session up. The writer commits FTS5's words in
// one long statement per transaction (see batch); with room for a few
// sessions alone, the readers stood idle through each.
type budget struct {
	mu   sync.Mutex
	max  int64
	left int64
	wake chan struct{} // closed, and made anew, at each give
}

func newBudget(n int64) *budget {
	return &budget{max: n, left: n, wake: make(chan struct{})}
}

// take waits until n bytes are free, or none is taken (a share larger
// than the whole goes alone), and takes them.
func (b *budget) take(ctx context.Context, n int64) error {
	for {
		b.mu.Lock()
		if b.left >= n || b.left == b.max {
			b.left -= n
			b.mu.Unlock()
			return nil
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// give hands n bytes back.
func (b *budget) give(n int64) {
	b.mu.Lock()
	b.left += n
	close(b.wake)
	b.wake = make(chan struct{})
	b.mu.Unlock()
}

// inFlight is the budget of a refresh's read sessions waiting to be
// written.
const inFlight = 12 << 20

// weight is what a read session holds of the budget: its rows' text,
// packed and not.
func (d *indexed) weight() int64 {
	if d == nil {
		return 0
	}
	var n int64
	for i := range d.rows {
		r := &d.rows[i]
		n += int64(len(r.text) + len(r.packed))
	}
	return n
}
