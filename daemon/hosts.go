package daemon

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/homes"
	"github.com/stead-dev/stead/hosts"
	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// HostName is the name this machine answers as on the bus: its cluster
// member's name, else Host, else its host name (see bus.HostName).
func (d *Daemon) HostName() string {
	name := d.Host
	if d.Cluster != nil && d.Cluster.Node != "" {
		name = d.Cluster.Node
	}
	if name == "" {
		name, _ = os.Hostname()
	}
	return bus.HostName(name)
}

// serveHost answers on the bus for this machine's sessions, and for each
// home beyond the user's own that it can read (homes.Find: the Windows
// users' homes under WSL, as <host>-win-<user>), and records each in the
// bus's hosts, until ctx ends.
func (d *Daemon) serveHost(ctx context.Context, b *bus.Bus) error {
	log := d.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	stores := map[string]daemonStore{d.HostName(): {d: d, env: d.Env}}
	var indexing sync.WaitGroup // the homes' indexes being made
	defer indexing.Wait()
	for _, h := range homes.Find(d.Env) {
		name := bus.HostName(d.HostName() + "-" + h.Name)
		st := daemonStore{d: d, env: h.Env, other: true}
		if d.keepsIndex() {
			st.ix = newHomeIndex(d, name, h.Env, log)
			indexing.Go(func() {
				if d.indexMade(ctx) {
					st.ix.make(ctx)
				}
			})
		}
		stores[name] = st
		log.Info("daemon: answering for a home beyond the user's own", "home", h.Env.Home, "as", name)
	}
	var served []string
	for name, store := range stores {
		stop, err := hosts.Serve(ctx, b, name, store)
		if err != nil {
			log.Warn("daemon: cannot answer for this machine's sessions on the bus", "host", name, "err", err)
			continue
		}
		defer stop()
		if err := b.PutHost(ctx, live.Host{Name: name, PID: os.Getpid(), Version: d.Version, Started: time.Now().UTC()}); err != nil {
			log.Warn("daemon: cannot record this machine in the bus's hosts", "host", name, "err", err)
		}
		served = append(served, name)
	}
	<-ctx.Done()
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	for _, name := range served {
		b.DeleteHost(dctx, name)
	}
	return nil
}

// daemonStore is a home's stores, as its daemon answers for them on the
// bus (hosts.Store): the user's own, or one beyond it (other).
type daemonStore struct {
	d   *Daemon
	env session.Env
	// other marks a home beyond the user's own: read without the
	// machine's index (which holds the user's own), its Windows paths
	// given as WSL sees them.
	other bool
	// ix is the index of a home beyond the user's own, when the daemon
	// keeps one (nil: none).
	ix *homeIndex
}

// Sessions lists this machine's sessions, as stead session list does:
// from the search index where it holds a session as it is.
func (s daemonStore) Sessions(ctx context.Context, q hosts.Query) (*catalog.Result, error) {
	d := s.d
	opts := catalog.Options{Env: s.env, CLIs: q.CLIs, Detail: session.DetailList, Logger: d.Logger}
	if s.other {
		res, err := catalog.Scan(ctx, opts)
		if err == nil {
			for i := range res.Summaries {
				res.Summaries[i].Project, _ = homes.LinuxPath(res.Summaries[i].Project)
			}
		}
		return res, err
	}
	if ix, err := index.OpenMade(ctx, index.DefaultPath(d.Env), d.Logger); err == nil {
		defer ix.Close()
		if env, cache, err := ix.Cache(ctx, d.Env, session.DetailList); err == nil {
			opts.Env, opts.Cache = env, cache
		}
	}
	return catalog.Scan(ctx, opts)
}

// Session reads one session of this machine (ref: <cli>:<id>, which
// hosts.Serve checked is no path).
func (s daemonStore) Session(_ context.Context, ref string) (*session.Session, error) {
	a, r, err := catalog.Resolve(s.env, ref, "")
	if err != nil {
		return nil, err
	}
	return a.Open(s.env, r)
}

// Search searches this machine's index (none: an error saying so).
func (s daemonStore) Search(ctx context.Context, q index.Query) ([]index.Hit, error) {
	if s.other {
		return s.ix.search(ctx, q)
	}
	ix, err := index.OpenMade(ctx, index.DefaultPath(s.d.Env), s.d.Logger)
	if errors.Is(err, index.ErrNoIndex) {
		return nil, errors.New("this machine has no search index (stead index makes one)")
	}
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	return ix.Search(ctx, q)
}
