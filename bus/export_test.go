package bus

import (
	"context"
	"fmt"
	"time"
)

// SetWatching makes b tell f of each watch's iterator: f gets what stops
// it, as the client library sometimes does under a live watch.
func SetWatching(b *Bus, f func(stop func()) (done func())) { b.watching = f }

// Kill stops b's embedded server at once, its client with it, as a
// killed process's would stop: nothing is drained.
func Kill(b *Bus) {
	b.nc.Close()
	if srv := b.server(); srv != nil {
		srv.Shutdown()
		srv.WaitForShutdown()
	}
}

// StreamReplicas is how many members keep the runs' stream.
func StreamReplicas(ctx context.Context, b *Bus) (int, error) {
	st, err := b.js.Stream(ctx, StreamRuns)
	if err != nil {
		return 0, err
	}
	return st.CachedInfo().Config.Replicas, nil
}

// WorkLeader is the member leading the work queue's consumer.
func WorkLeader(ctx context.Context, b *Bus) (string, error) {
	return lead{stream: StreamWork, consumer: WorkConsumer}.leader(ctx, b.js)
}

// WatchMember is the member holding the one watch's consumer on the runs'
// stream.
func WatchMember(ctx context.Context, b *Bus) (string, error) {
	for {
		st, err := b.js.Stream(ctx, StreamRuns)
		if err != nil {
			return "", err
		}
		var leaders []string
		for info := range st.ListConsumers(ctx).Info() {
			if info.Cluster != nil {
				leaders = append(leaders, info.Cluster.Leader)
			}
		}
		if len(leaders) == 1 {
			return leaders[0], nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("the runs' stream has %d consumers: %w", len(leaders), ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
