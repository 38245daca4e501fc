package index

import (
	"context"
	"testing"
	"time"
)

func TestBudget(t *testing.T) {
	ctx := context.Background()
	b := newBudget(10)
	if err := b.take(ctx, 8); err != nil {
		t.Fatal(err)
	}
	took := make(chan error, 1)
	go func() { took <- b.take(ctx, 4) }()
	select {
	case err := <-took:
		t.Fatalf("took 4 with 2 of 10 left (err %v)", err)
	case <-time.After(50 * time.Millisecond):
	}
	b.give(8)
	if err := <-took; err != nil {
		t.Fatal(err)
	}
	b.give(4)
	// A share larger than the whole goes alone.
	if err := b.take(ctx, 25); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if err := b.take(cctx, 1); err != context.Canceled {
		t.Fatalf("a take waiting as its context ends: %v", err)
	}
	b.give(25)
	if b.left != b.max {
		t.Errorf("all given back, %d of %d left", b.left, b.max)
	}
}
