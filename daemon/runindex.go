package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/run"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// runFlush is how often what runs' entries brought is written to the
// index: a live run's new entry is found by a search within about this
// long of reaching the bus.
const runFlush = 200 * time.Millisecond

// runIdle is how long a run's feed is kept once it heard nothing: a run
// heard from again later takes up the rows the index holds of it.
const runIdle = 2 * time.Minute

// markName is the index's mark of how far the bus's runs were indexed.
const markName = "bus"

// runBus is what indexing runs needs of the bus.
type runBus interface {
	Follow(ctx context.Context, after uint64, fn func(bus.Msg) error, kinds ...bus.Kind) error
	RunsStream(ctx context.Context) (created time.Time, last uint64, err error)
	Run(ctx context.Context, id string) (live.Run, error)
	RunIDs(ctx context.Context) ([]string, error)
}

// runIndexer feeds the search index every run's entries as the bus
// carries them (index.RunFeed), so that a search finds a live run's work
// within a second wherever the run is: on this machine or, with a NATS
// cluster, on another. It goes on from where it left off (a mark in the
// index: the stream's identity and the position of the last message
// whose entries are written), and drops the runs the bus no longer
// holds. Its actors: the bus's follower, and the loop that owns the
// feeds.
type runIndexer struct {
	ix  *index.Index
	b   runBus
	log *slog.Logger

	feeds  map[string]*runState
	stream string // the stream's identity: when it was made
	seq    uint64 // the last message taken
	marked uint64 // the last position marked in the index
}

// runState is one run's feed, or the events of a run whose record was
// not found yet.
type runState struct {
	feed    *index.RunFeed
	pending []session.Event
	heard   time.Time
	done    bool
}

// indexRuns feeds ix the runs of b until ctx ends.
func indexRuns(ctx context.Context, ix *index.Index, b runBus, log *slog.Logger) error {
	ri := &runIndexer{ix: ix, b: b, log: log, feeds: make(map[string]*runState)}
	created, _, err := b.RunsStream(ctx)
	if err != nil {
		return err
	}
	ri.stream = created.UTC().Format(time.RFC3339Nano)
	var after uint64
	if m, err := ix.Mark(ctx, markName); err != nil {
		return err
	} else if stream, seq, ok := strings.Cut(m, " "); ok && stream == ri.stream {
		after, _ = strconv.ParseUint(seq, 10, 64)
	}
	ri.seq, ri.marked = after, after
	if ids, err := b.RunIDs(ctx); err == nil {
		held := make(map[string]bool, len(ids))
		for _, id := range ids {
			held[id] = true
		}
		if n, err := ix.DropRuns(ctx, func(r string) bool { return held[r] }); err != nil {
			log.Warn("daemon: dropping the runs the bus no longer holds from the search index", "err", err)
		} else if n > 0 {
			log.Info("daemon: dropped the runs the bus no longer holds from the search index", "runs", n)
		}
	}
	msgs := make(chan bus.Msg, 256)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var g run.Group
	g.Add(func() error {
		return b.Follow(ctx, after, func(m bus.Msg) error {
			select {
			case msgs <- m:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}, bus.Entry, bus.Status)
	}, func(error) { cancel() })
	g.Add(func() error { return ri.loop(ctx, msgs) }, func(error) { cancel() })
	err = g.Run()
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// loop takes the bus's messages, and writes what they brought every
// runFlush. A panic in it (a bug in indexing) is its error, logged and
// retried by feedRuns: indexing is the daemon's side work, and must never
// take down the runs it supervises (it did at 2fbbcc3).
func (ri *runIndexer) loop(ctx context.Context, msgs <-chan bus.Msg) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("daemon: indexing runs: panic: %v\n%s", p, debug.Stack())
		}
	}()
	// The timer is armed only while something waits to be written or let
	// go of: an idle daemon is not woken five times a second for nothing.
	timer := time.NewTimer(runFlush)
	timer.Stop()
	defer timer.Stop()
	var due <-chan time.Time
	var at time.Time // when the timer fires
	arm := func(in time.Duration) {
		timer.Reset(in)
		due, at = timer.C, time.Now().Add(in)
	}
	for {
		select {
		case m := <-msgs:
			ri.take(ctx, m)
			if due == nil || time.Until(at) > runFlush {
				arm(runFlush)
			}
		case <-due:
			due = nil
			if next := ri.flush(ctx); next > 0 {
				arm(next)
			}
		case <-ctx.Done():
			ri.flush(context.WithoutCancel(ctx))
			return ctx.Err()
		}
	}
}

// take takes one message.
func (ri *runIndexer) take(ctx context.Context, m bus.Msg) {
	ri.seq = max(ri.seq, m.Seq)
	st := ri.feeds[m.Run]
	if st == nil {
		st = &runState{}
		ri.feeds[m.Run] = st
	}
	st.heard = time.Now()
	switch m.Kind {
	case bus.Entry:
		var ev session.Event
		if err := json.Unmarshal(m.Data, &ev); err != nil {
			ri.log.Warn("daemon: a run's entry on the bus cannot be read; not indexed", "run", m.Run, "seq", m.Seq, "err", err)
			return
		}
		if st.feed == nil {
			st.pending = append(st.pending, ev)
			ri.start(ctx, m.Run, st)
			return
		}
		st.feed.Add(ev)
	case bus.Status:
		var s live.Status
		if err := json.Unmarshal(m.Data, &s); err == nil && s.State.Done() {
			st.done = true
		}
	}
}

// start makes the feed of a run once its record is on the bus.
func (ri *runIndexer) start(ctx context.Context, id string, st *runState) {
	r, err := ri.b.Run(ctx, id)
	if err != nil {
		return // looked for again at the next flush
	}
	st.feed = ri.ix.Feed(index.Run{ID: r.ID, CLI: r.CLI, SessionID: r.SessionID, Path: r.Path,
		Host: r.Host, Dir: r.Dir, Started: r.Started})
	for _, ev := range st.pending {
		st.feed.Add(ev)
	}
	st.pending = nil
}

// flush writes each feed's news, lets go of the feeds of runs that ended
// or went quiet, and marks how far the index holds the bus's runs. It
// returns how soon it wants to run again: runFlush while something is
// not written yet, when the first quiet feed is due to be let go of, or
// 0 when it holds nothing.
func (ri *runIndexer) flush(ctx context.Context) time.Duration {
	all := true
	for id, st := range ri.feeds {
		if st.feed == nil {
			ri.start(ctx, id, st)
		}
		if st.feed == nil {
			all = false
			continue
		}
		if err := st.feed.Flush(ctx); err != nil {
			ri.log.Warn("daemon: indexing a run's entries", "run", id, "err", err)
			all = false
			continue
		}
		if st.done || time.Since(st.heard) > runIdle {
			delete(ri.feeds, id)
		}
	}
	// A run whose record never comes (it was deleted) is let go of.
	for id, st := range ri.feeds {
		if st.feed == nil && time.Since(st.heard) > runIdle {
			ri.log.Warn("daemon: a run on the bus has no record; its entries are not indexed", "run", id)
			delete(ri.feeds, id)
		}
	}
	if all && ri.seq != ri.marked {
		if err := ri.ix.SetMark(ctx, markName, fmt.Sprintf("%s %d", ri.stream, ri.seq)); err != nil {
			ri.log.Warn("daemon: marking how far the search index holds the bus's runs", "err", err)
			return runFlush
		}
		ri.marked = ri.seq
	}
	if !all {
		return runFlush
	}
	var next time.Duration
	for _, st := range ri.feeds {
		due := max(time.Until(st.heard.Add(runIdle)), runFlush)
		if next == 0 || due < next {
			next = due
		}
	}
	return next
}
