package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/stead-dev/stead/homes"
	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/session"
)

// homeIndex is the search index of a home beyond the user's own (a
// Windows user's, under WSL). It is kept in the daemon's own cache, never
// in that home, made once the user has a search index of their own (as
// the daemon keeps theirs: see Daemon.Index), and refreshed by each search
// of it.
type homeIndex struct {
	path string
	env  session.Env
	log  *slog.Logger

	mu    sync.Mutex // held while it is refreshed and searched
	ready bool       // made once
	err   error      // why it could not be made
}

func newHomeIndex(d *Daemon, name string, env session.Env, log *slog.Logger) *homeIndex {
	return &homeIndex{path: homeIndexPath(d.Env, name), env: env, log: log}
}

// homeIndexPath is where the index of the home answered for as host is
// kept: beside the user's own index.
func homeIndexPath(env session.Env, host string) string {
	return filepath.Join(filepath.Dir(index.DefaultPath(env)), "homes", host+".db")
}

// make builds the index (an index made before is brought up to date):
// the work of an actor the daemon runs.
func (h *homeIndex) make(ctx context.Context) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, err := h.refresh(ctx)
	if ctx.Err() != nil {
		return
	}
	h.ready, h.err = err == nil, err
	if err != nil {
		h.log.Warn("daemon: cannot index a home beyond the user's own", "home", h.env.Home, "err", err)
		return
	}
	h.log.Info("daemon: indexed a home beyond the user's own", "home", h.env.Home, "sessions", r.Sessions, "entries", r.Entries)
}

func (h *homeIndex) refresh(ctx context.Context) (index.Refreshed, error) {
	ix, err := index.Open(ctx, h.path, h.log)
	if err != nil {
		return index.Refreshed{}, err
	}
	defer ix.Close()
	return ix.Refresh(ctx, h.env, nil)
}

// search refreshes the index and searches it, with the home's Windows
// paths as WSL sees them, in the query and in the hits.
func (h *homeIndex) search(ctx context.Context, q index.Query) ([]index.Hit, error) {
	if h == nil {
		return nil, errors.New("this home is not indexed (the daemon indexes homes beyond the user's own once the user has a search index: stead index makes one)")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.err != nil:
		return nil, fmt.Errorf("this home's search index could not be made: %w", h.err)
	case !h.ready:
		return nil, errors.New("this home's search index is being made: search again in a while")
	}
	ix, err := index.Open(ctx, h.path, h.log)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	if _, err := ix.Refresh(ctx, h.env, nil); err != nil {
		return nil, err
	}
	if w, ok := homes.WindowsPath(q.Project); ok {
		q.Project = w
	}
	hits, err := ix.Search(ctx, q)
	for i := range hits {
		hits[i].Project, _ = homes.LinuxPath(hits[i].Project)
	}
	return hits, err
}
