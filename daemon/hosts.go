package daemon

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/catalog"
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

// serveHost answers on the bus for this machine's sessions, and records
// the machine in the bus's hosts, until ctx ends.
func (d *Daemon) serveHost(ctx context.Context, b *bus.Bus) error {
	log := d.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	name := d.HostName()
	stop, err := hosts.Serve(ctx, b, name, daemonStore{d})
	if err != nil {
		log.Warn("daemon: cannot answer for this machine's sessions on the bus", "err", err)
		<-ctx.Done()
		return nil
	}
	defer stop()
	if err := b.PutHost(ctx, live.Host{Name: name, PID: os.Getpid(), Version: d.Version, Started: time.Now().UTC()}); err != nil {
		log.Warn("daemon: cannot record this machine in the bus's hosts", "err", err)
	}
	<-ctx.Done()
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	b.DeleteHost(dctx, name)
	return nil
}

// daemonStore is this machine's stores, as its daemon answers for them on
// the bus (hosts.Store).
type daemonStore struct{ d *Daemon }

// Sessions lists this machine's sessions, as stead session list does:
// from the search index where it holds a session as it is.
func (s daemonStore) Sessions(ctx context.Context, q hosts.Query) (*catalog.Result, error) {
	d := s.d
	opts := catalog.Options{Env: d.Env, CLIs: q.CLIs, Detail: session.DetailList, Logger: d.Logger}
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
	a, r, err := catalog.Resolve(s.d.Env, ref, "")
	if err != nil {
		return nil, err
	}
	return a.Open(s.d.Env, r)
}

// Search searches this machine's index (none: an error saying so).
func (s daemonStore) Search(ctx context.Context, q index.Query) ([]index.Hit, error) {
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
