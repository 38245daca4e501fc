package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/oklog/run"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/pricing"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
	"github.com/stead-dev/stead/web"
)

// A Daemon is stead's daemon: the embedded bus (or a connection to an
// external one) and a runs.Worker on it. Run it once; Close stops it.
type Daemon struct {
	// Env is the daemon's environment: where its state is, and the
	// environment of work that carries none.
	Env    session.Env
	Logger *slog.Logger
	// Listen is the loopback address the embedded bus takes clients on;
	// "" is the address of a daemon that died without cleaning up (its
	// clients are reconnecting to it) when it is free, else any free
	// port.
	Listen string
	// TerminalBytes is the runs' terminal output kept (see bus.Options).
	TerminalBytes int64
	// URL, Token and Creds name an external NATS deployment: the daemon
	// embeds nothing and is one of its workers. "" takes the
	// environment's ($STEAD_NATS_URL).
	URL, Token, Creds string
	// Cluster, when set, makes the embedded bus a member of a NATS
	// cluster (see bus.Cluster); ClusterKeyFile is where its key was
	// read, published in Info for the local stead commands to sign in.
	Cluster        *bus.Cluster
	ClusterKeyFile string
	// Version is stead's version, published in Info.
	Version string
	// Notices hears what the user should know (where the bus listens).
	Notices io.Writer
	// Supervisor runs the work; its Bus is set to the daemon's.
	Supervisor runs.Supervisor
	// Host names this machine in the runs' records; "" is its hostname.
	Host string
	// HandoverWait is how long, as the daemon stops while another worker
	// is up, a turn under way may end before its run is handed to that
	// worker (see runs.Worker).
	HandoverWait time.Duration
	// Index says whether the daemon keeps the search index of Env fresh
	// (index.Watch), so that a search need not look at every file first:
	// IndexAuto when there is an index (made by stead index or stead
	// search, before the daemon started or since; the daemon never makes
	// one), IndexOn always, IndexOff never.
	Index IndexMode
	// Web is the address the control room (package web) listens on: ""
	// is loopback, on the last daemon's port when it is free, else any
	// free port; "off" serves none. Only a daemon with the embedded bus
	// serves it.
	Web string
	// WebHosts are the names the control room may be reached as beyond
	// loopback (with a Web address beyond loopback).
	WebHosts []string
	// WebReadOnly refuses every request to the control room that would
	// change anything.
	WebReadOnly bool
	// Prices prices usage in the control room; nil is the built-in table.
	Prices *pricing.Table

	init  sync.Once
	ready chan struct{} // closed once the daemon takes work
	done  chan struct{} // closed when Run returns
	mu    sync.Mutex
	bus   *bus.Bus
	stop  context.CancelFunc
	web   net.Listener // the control room's, set by open
	token string       // the control room's
	// changed hears of each change the index's watcher made (the
	// control room's pages show the sessions again); nil when none
	// listens.
	changed func(index.Refreshed)
}

func (d *Daemon) setup() {
	d.init.Do(func() { d.ready, d.done = make(chan struct{}), make(chan struct{}) })
}

// Ready is closed once the daemon's bus is up and its address published.
func (d *Daemon) Ready() <-chan struct{} { d.setup(); return d.ready }

// Done is closed when Run has returned (Ready is never closed when the
// daemon could not come up).
func (d *Daemon) Done() <-chan struct{} { d.setup(); return d.done }

// Bus is the daemon's bus, once Ready.
func (d *Daemon) Bus() *bus.Bus {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.bus
}

// Run brings the daemon up and takes work until ctx ends or Close is
// called; then it stops its runs' CLIs (storing their sessions), closes
// the bus and withdraws its address.
func (d *Daemon) Run(ctx context.Context) error {
	d.setup()
	ctx, cancel := context.WithCancel(ctx)
	d.mu.Lock()
	d.stop = cancel
	d.mu.Unlock()
	defer close(d.done)
	defer cancel()
	b, release, err := d.open(ctx)
	if err != nil {
		return err
	}
	defer release()
	d.mu.Lock()
	d.bus = b
	d.mu.Unlock()
	sv := d.Supervisor
	sv.Bus = b
	if sv.Log == nil {
		sv.Log = d.Logger
	}
	if sv.Env.Home == "" {
		sv.Env = d.Env
	}
	host := d.Host
	if host == "" && d.Cluster != nil {
		// A cluster's machines are its members: its runs say which.
		host = d.Cluster.Node
	}
	if sv.Host == "" {
		sv.Host = host
	}
	w := &runs.Worker{Supervisor: sv, Host: host, Projects: filepath.Join(StateDir(d.Env), "projects"), HandoverWait: d.HandoverWait}
	var g run.Group
	g.Add(func() error { return w.Run(ctx) }, func(error) { cancel() })
	var ws *web.Server
	if d.web != nil {
		ws = &web.Server{Env: d.Env, Logger: d.Logger, Token: d.token, ReadOnly: d.WebReadOnly, Hosts: d.WebHosts,
			Host: host, Supervisor: &sv, Version: d.Version, Prices: d.Prices, ABDir: filepath.Join(StateDir(d.Env), "ab"), Context: ctx}
		hs := &http.Server{Handler: ws.Handler(), ReadHeaderTimeout: 10 * time.Second,
			BaseContext: func(net.Listener) context.Context { return ctx }}
		g.Add(func() error {
			err := hs.Serve(d.web)
			ws.Wait() // the A/B runs it started: they end with ctx
			if !errors.Is(err, http.ErrServerClosed) {
				return fmt.Errorf("the control room: %w", err)
			}
			return nil
		}, func(error) {
			// The event streams end with ctx; the rest is given a moment.
			cancel()
			sctx, stop := context.WithTimeout(context.Background(), 2*time.Second)
			defer stop()
			if hs.Shutdown(sctx) != nil {
				hs.Close()
			}
		})
		d.changed = ws.SessionsChanged
	}
	if d.keepsIndex() {
		g.Add(func() error { return d.keepIndex(ctx) }, func(error) { cancel() })
	}
	g.Add(func() error { return d.serveHost(ctx, b) }, func(error) { cancel() })
	close(d.ready)
	return g.Run()
}

// Close stops a running daemon and waits until Run has returned.
func (d *Daemon) Close() error {
	d.setup()
	d.mu.Lock()
	stop := d.stop
	d.mu.Unlock()
	if stop == nil {
		return nil
	}
	stop()
	<-d.done
	return nil
}

// open brings up the daemon's bus; release undoes it.
func (d *Daemon) open(ctx context.Context) (b *bus.Bus, release func(), err error) {
	if d.URL != "" || d.Env.Get("STEAD_NATS_URL") != "" {
		b, err := Connect(ctx, Options{Env: d.Env, Logger: d.Logger, URL: d.URL, Token: d.Token, Creds: d.Creds})
		if err != nil {
			return nil, nil, err
		}
		return b, func() { b.Close() }, nil
	}
	if info, err := Read(d.Env); err == nil && info.Alive() {
		return nil, nil, fmt.Errorf("a stead daemon already runs (pid %d, %s)", info.PID, File(d.Env))
	}
	dir := StateDir(d.Env)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, err
	}
	if err := CheckFree(dir); err != nil {
		return nil, nil, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "serve.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, nil, fmt.Errorf("another stead daemon holds %s: %w", lock.Name(), err)
	}
	opts := bus.Options{StoreDir: Store(d.Env), Listen: d.Listen, Logger: d.Logger, TerminalBytes: d.TerminalBytes, Cluster: d.Cluster}
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:0"
		if old, err := Read(d.Env); err == nil {
			if addr, ok := reusable(old.URL); ok {
				opts.Listen, opts.Token = addr, old.Token
			}
		}
	}
	b, err = bus.New(ctx, opts)
	if err != nil {
		lock.Close()
		return nil, nil, err
	}
	info := Info{URL: b.ClientURL(), Token: b.ClientToken(), PID: os.Getpid(),
		Started: time.Now().UTC(), Version: d.Version, Build: Build()}
	if d.Cluster != nil {
		info.ClusterKey, info.Node = d.ClusterKeyFile, d.Cluster.Node
	}
	info.Program, _ = os.Executable()
	if err := d.listenWeb(&info); err != nil {
		b.Close()
		lock.Close()
		return nil, nil, err
	}
	if err := write(d.Env, info); err != nil {
		d.closeWeb()
		b.Close()
		lock.Close()
		return nil, nil, err
	}
	if d.Notices != nil {
		fmt.Fprintf(d.Notices, "stead: daemon %d: bus on %s, store %s\n", os.Getpid(), b.ClientURL(), opts.StoreDir)
		if info.Web != "" {
			fmt.Fprintf(d.Notices, "stead: the control room is on %s (stead ui opens it signed in)\n", info.Web)
		}
	}
	return b, func() {
		d.closeWeb()
		b.Close()
		os.Remove(File(d.Env))
		lock.Close()
	}, nil
}

// reusable returns the loopback address of a client URL when it is free
// to listen on again.
func reusable(url string) (string, bool) {
	addr, ok := strings.CutPrefix(url, "nats://")
	if !ok {
		return "", false
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return "", false
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", false
	}
	l.Close()
	return addr, true
}
