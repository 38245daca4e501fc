package daemon

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/oklog/run"

	"github.com/stead-dev/stead/index"
)

// IndexMode says when a daemon keeps the search index fresh.
type IndexMode int

const (
	IndexAuto IndexMode = iota // when there is an index
	IndexOn
	IndexOff
)

// indexPoll is how often a daemon in IndexAuto looks for an index made
// since it started (one stat).
const indexPoll = 5 * time.Second

// keepsIndex reports whether the daemon may keep the index fresh.
func (d *Daemon) keepsIndex() bool { return d.Index != IndexOff }

// indexMade waits until there is an index to keep fresh (in IndexAuto,
// one made by stead index or stead search) or ctx ends.
func (d *Daemon) indexMade(ctx context.Context) bool {
	if d.Index == IndexOn {
		return true
	}
	tick := time.NewTicker(indexPoll)
	defer tick.Stop()
	path := index.DefaultPath(d.Env)
	for {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return false
		}
	}
}

// keepIndex keeps the search index fresh until ctx ends, once there is
// one (see Daemon.Index). A watcher that
// fails (the index rebuilt by another process, its database unreadable)
// is started again a while later; another process watching it already,
// or a system that cannot watch folders, leaves it to them.
func (d *Daemon) keepIndex(ctx context.Context) error {
	log := d.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	wait := 10 * time.Second
	for {
		if !d.indexMade(ctx) {
			return nil
		}
		err := d.watchOnce(ctx, log)
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, index.ErrWatched):
			log.Info("daemon: another process keeps the search index fresh", "err", err)
			return d.indexRunsOnly(ctx, log)
		case errors.Is(err, errors.ErrUnsupported):
			log.Info("daemon: the search index is refreshed by each search", "err", err)
			return d.indexRunsOnly(ctx, log)
		case errors.Is(err, index.ErrReplaced):
			log.Info("daemon: the search index was made again; watching the new one", "err", err)
			wait = 10 * time.Second
			continue
		}
		// Tried again later, less often each time it fails (an index
		// rebuilt by another process is watched again at once).
		log.Warn("daemon: keeping the search index fresh failed; trying again later", "err", err, "in", wait)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil
		}
		wait = min(2*wait, 10*time.Minute)
	}
}

// watchOnce keeps the index fresh, and feeds it the bus's runs (see
// indexRuns), until ctx ends or the watcher fails.
func (d *Daemon) watchOnce(ctx context.Context, log *slog.Logger) error {
	ix, err := index.Open(ctx, index.DefaultPath(d.Env), log)
	if err != nil {
		return err
	}
	defer ix.Close()
	if d.changed != nil {
		ix.OnChange(d.changed)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var g run.Group
	g.Add(func() error {
		return ix.Watch(ctx, d.Env, func(r index.Refreshed) {
			log.Info("daemon: keeping the search index fresh", "path", ix.Path(), "sessions", r.Sessions)
		})
	}, func(error) { cancel() })
	if b := d.Bus(); b != nil {
		g.Add(func() error { return d.feedRuns(ctx, ix, b, log) }, func(error) { cancel() })
	}
	return g.Run()
}

// indexRunsOnly feeds the index the bus's runs until ctx ends, where
// another process keeps it fresh or the system cannot watch folders.
func (d *Daemon) indexRunsOnly(ctx context.Context, log *slog.Logger) error {
	b := d.Bus()
	if b == nil {
		<-ctx.Done()
		return nil
	}
	ix, err := index.Open(ctx, index.DefaultPath(d.Env), log)
	if err != nil {
		log.Warn("daemon: the search index cannot be opened; runs are not indexed from the bus", "err", err)
		<-ctx.Done()
		return nil
	}
	defer ix.Close()
	return d.feedRuns(ctx, ix, b, log)
}

// feedRuns is indexRuns until ctx ends: one that fails (the bus lost) is
// started again a while later, not the end of the watcher beside it.
func (d *Daemon) feedRuns(ctx context.Context, ix *index.Index, b runBus, log *slog.Logger) error {
	for {
		err := indexRuns(ctx, ix, b, log)
		if ctx.Err() != nil {
			return nil
		}
		log.Warn("daemon: indexing the bus's runs failed; trying again in 10 s", "err", err)
		select {
		case <-time.After(10 * time.Second):
		case <-ctx.Done():
			return nil
		}
	}
}
