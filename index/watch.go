package index

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/oklog/run"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/internal/notify"
	"github.com/stead-dev/stead/session"
)

// A watcher keeps an index fresh (Index.Watch) so that a search need not
// look at every file of the stores first: it watches the folders a
// refresh looked at (each CLI's Roots, the folders Discover listed, the
// folders of the session files) and refreshes when one changes. Another
// process asks it, over a socket beside the index, to bring the index up
// to date (Index.Fresh): the watcher creates a marker file in a folder it
// watches, and once the marker's event arrives every change made before
// the request has been seen (a watch's events come in order), so it
// answers at once when none of them touched the stores, and after a
// refresh otherwise. A folder watched for the first time may have changed
// before its watch began: the watcher refreshes again until a refresh
// adds no watch.

// watchProtocol is the version of the messages below; a client and a
// watcher of different versions do not talk.
const watchProtocol = 1

// watchHello is what a watcher says first: the stores it watches.
type watchHello struct {
	Protocol int                 `json:"protocol"`
	Schema   int                 `json:"schema"`
	PID      int                 `json:"pid"`
	Roots    map[string][]string `json:"roots"`
}

// watchRequest is what a client asks: "sync", to have the index brought
// up to date.
type watchRequest struct {
	Op string `json:"op"`
}

// watchReply is a watcher's answer to a sync: progress (and a heartbeat
// when there is none), then the refresh's result or an error.
type watchReply struct {
	Progress *watchProgress `json:"progress,omitempty"`
	Result   *Refreshed     `json:"result,omitempty"`
	Error    string         `json:"error,omitempty"`
}

type watchProgress struct {
	// Refreshing is set while a refresh runs (listing the stores, before
	// it knows what it will read).
	Refreshing bool  `json:"refreshing,omitempty"`
	Done       int   `json:"done"`
	Total      int   `json:"total"`
	Bytes      int64 `json:"bytes"`
}

const (
	// quiet is how long after a change the watcher refreshes on its own,
	// with no one asking: often enough that a search rarely waits.
	quiet = 2 * time.Second
	// heartbeat is how often a watcher says it is still at a sync's
	// refresh; a client gives up after silent.
	heartbeat = 5 * time.Second
	silent    = 30 * time.Second
)

// ErrWatched means another process already watches the index.
var ErrWatched = errors.New("the index is already watched")

// ErrReplaced means the index a watcher kept was replaced by another
// process (stead index --rebuild, a corrupt index moved aside): watch the
// new one.
var ErrReplaced = errors.New("the index was replaced by another process")

// maxSocketPath is the size of a Unix socket's address (sun_path).
const maxSocketPath = 108

func socketPath(path string) string { return path + ".sock" }
func lockPath(path string) string   { return path + ".watch" }
func markerDir(path string) string  { return path + ".sync" }

// storeRoots is each CLI's roots in env: two environments with the same
// roots have the same stores.
func storeRoots(env session.Env) map[string][]string {
	out := make(map[string][]string)
	for _, a := range adapters.All {
		if a.Reads() && a.Roots != nil {
			out[a.Name] = a.Roots(env)
		}
	}
	return out
}

// Fresh brings the index up to date with the stores env points at. When
// a watcher keeps it (stead index --watch, the daemon) for the same
// stores, it asks the watcher, which answers at once when nothing
// changed; else, or when the watcher does not answer, it refreshes the
// index itself (Refresh).
func (ix *Index) Fresh(ctx context.Context, env session.Env, progress Progress) (Refreshed, error) {
	return ix.freshFor(ctx, env, nil, progress)
}

// freshFor is Fresh for an answer about the sessions of clis alone (none
// is all of them): without a watcher, it lists those CLIs' stores only,
// taking the others' to be as the last refresh found them (a search with
// --cli does not wait for the stores it does not search).
func (ix *Index) freshFor(ctx context.Context, env session.Env, clis []string, progress Progress) (Refreshed, error) {
	if res, ok := ix.askWatcher(ctx, env, progress); ok {
		return res, nil
	}
	sc := scope{unlooked: true}
	for _, c := range clis {
		if sc.only == nil {
			sc.only = make(map[string]bool)
		}
		sc.only[c] = true
	}
	res, _, err := ix.refresh(ctx, env, progress, sc)
	return res, err
}

// askWatcher asks the index's watcher to bring it up to date; ok is false
// when there is none, it watches other stores, or it fails.
func (ix *Index) askWatcher(ctx context.Context, env session.Env, progress Progress) (res Refreshed, ok bool) {
	begin := time.Now()
	d := net.Dialer{Timeout: time.Second}
	conn, err := d.DialContext(ctx, "unix", socketPath(ix.path))
	if err != nil {
		return res, false
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	conn.SetDeadline(time.Now().Add(silent))
	dec := json.NewDecoder(bufio.NewReader(conn))
	var hello watchHello
	if err := dec.Decode(&hello); err != nil {
		ix.log.Warn("index: the watcher did not answer; refreshing here", "socket", socketPath(ix.path), "err", err)
		return res, false
	}
	if hello.Protocol != watchProtocol || hello.Schema != SchemaVersion {
		ix.log.Info("index: the watcher is another version of stead; refreshing here", "pid", hello.PID)
		return res, false
	}
	if !maps.EqualFunc(hello.Roots, storeRoots(env), slices.Equal) {
		ix.log.Debug("index: the watcher watches other stores; refreshing here", "pid", hello.PID)
		return res, false
	}
	if err := json.NewEncoder(conn).Encode(watchRequest{Op: "sync"}); err != nil {
		ix.log.Warn("index: the watcher did not answer; refreshing here", "err", err)
		return res, false
	}
	moved := time.Now() // when the watcher last said it got further
	for {
		conn.SetDeadline(time.Now().Add(silent))
		var r watchReply
		if err := dec.Decode(&r); err != nil {
			if ctx.Err() == nil {
				ix.log.Warn("index: the watcher stopped answering; refreshing here", "pid", hello.PID, "err", err)
			}
			return res, false
		}
		switch {
		case r.Error != "":
			ix.log.Warn("index: the watcher could not bring the index up to date; refreshing here", "pid", hello.PID, "err", r.Error)
			return res, false
		case r.Result != nil:
			res = *r.Result
			res.Watcher = hello.PID
			res.Took = time.Since(begin)
			return res, true
		case r.Progress != nil && r.Progress.Refreshing:
			moved = time.Now()
			if progress != nil && r.Progress.Total > 0 {
				progress(r.Progress.Done, r.Progress.Total, r.Progress.Bytes)
			}
		case time.Since(moved) > silent:
			// Heartbeats, and no refresh under way: a watcher stuck.
			ix.log.Warn("index: the watcher has run no refresh in 30 s; refreshing here", "pid", hello.PID)
			return res, false
		}
	}
}

// Watch keeps the index fresh with the stores env points at until ctx
// ends, and answers the syncs of Fresh in other processes. ready, when
// set, hears the first refresh's result, once the index is fresh and
// every folder it needs watched. It fails with ErrWatched when another
// process watches the index, and with errors.ErrUnsupported where the
// system cannot watch folders.
func (ix *Index) Watch(ctx context.Context, env session.Env, ready func(Refreshed)) error {
	lock, err := os.OpenFile(lockPath(ix.path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("index: watch: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("index: %s: %w", ix.path, ErrWatched)
		}
		return fmt.Errorf("index: watch: %w", err)
	}
	n, err := notify.New()
	if err != nil {
		return fmt.Errorf("index: watch: %w", err)
	}
	markers := markerDir(ix.path)
	if err := os.RemoveAll(markers); err != nil {
		n.Close()
		return fmt.Errorf("index: watch: %w", err)
	}
	if err := os.Mkdir(markers, 0o700); err != nil {
		n.Close()
		return fmt.Errorf("index: watch: %w", err)
	}
	defer os.RemoveAll(markers)
	sock := socketPath(ix.path)
	if len(sock) >= maxSocketPath {
		n.Close()
		return fmt.Errorf("index: watch: the socket path %s is too long (%d bytes; the system takes %d): set XDG_CACHE_HOME to a shorter folder", sock, len(sock), maxSocketPath-1)
	}
	os.Remove(sock) // left by a watcher that died: the lock is ours
	ln, err := net.Listen("unix", sock)
	if err != nil {
		n.Close()
		return fmt.Errorf("index: watch: %w", err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		n.Close()
		return fmt.Errorf("index: watch: %w", err)
	}
	file, err := os.Stat(ix.path)
	if err != nil {
		return fmt.Errorf("index: watch: %w", err)
	}
	w := &watcher{
		file: file, ix: ix, env: env, n: n, markers: markers, ready: ready,
		hello:   watchHello{Protocol: watchProtocol, Schema: SchemaVersion, PID: os.Getpid(), Roots: storeRoots(env)},
		events:  make(chan []event),
		syncs:   make(chan *syncReq),
		start:   make(chan map[string]bool),
		results: make(chan refreshResult),
		paths:   make(map[string]int),
		changed: make(map[string]bool),
		wds:     make(map[int]*watched),
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ts := newTails()
	ix.tails = ts
	defer func() { ix.tails = nil; ts.close() }()
	var g run.Group
	g.Add(func() error { return n.Run(w.events) }, func(error) { n.Close() })
	g.Add(func() error { return w.accept(ctx, ln) }, func(error) { ln.Close() })
	g.Add(func() error { return w.refresher(ctx) }, func(error) { cancel() })
	g.Add(func() error { return w.loop(ctx) }, func(error) { cancel() })
	err = g.Run()
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// watcher is Watch's state.
type watcher struct {
	ctx     context.Context
	ix      *Index
	file    os.FileInfo // the index's file
	env     session.Env
	n       folders
	markers string
	ready   func(Refreshed)
	hello   watchHello

	events  chan []event
	syncs   chan *syncReq
	start   chan map[string]bool // the CLIs to refresh; nil: all
	results chan refreshResult

	progress atomic.Pointer[watchProgress]

	// The loop's own.
	paths      map[string]int // watched folder → its watch
	wds        map[int]*watched
	owners     map[string][]string // watched folder → the CLIs whose stores it holds; none: unknown
	dirty      bool                // a change not yet refreshed
	changed    map[string]bool     // the CLIs whose stores changed
	everything bool                // or any store may have
	refreshing bool
	riding     []*syncReq // answered when the running refresh ends
	waiting    []*syncReq // need a refresh that starts after now
	marked     map[string]*syncReq
	seq        int
	last       Refreshed
	gen        int64 // the index's generation after the last refresh
	failures   int   // refreshes failed in a row
	readyDone  bool
	failed     error // what keeps the watcher from answering for the stores
}

// watched is one watch: the folders it stands for (two paths can name one
// folder), each with the names whose changes count (nil: every name).
type watched struct {
	paths map[string]map[string]bool
}

// syncReq is a client's sync, answered on done.
type syncReq struct {
	res  Refreshed // what the refreshes it rode did
	rode bool
	done chan watchReply
}

type refreshResult struct {
	res Refreshed
	lk  *looked
	err error
}

// accept serves each client on a goroutine of its own.
func (w *watcher) accept(ctx context.Context, ln net.Listener) error {
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("index: watch: %w", err)
		}
		go w.serve(ctx, conn)
	}
}

// serve answers one client: hello, then its sync.
func (w *watcher) serve(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(silent))
	enc := json.NewEncoder(conn)
	if err := enc.Encode(w.hello); err != nil {
		return
	}
	var req watchRequest
	if err := json.NewDecoder(bufio.NewReader(conn)).Decode(&req); err != nil {
		return
	}
	if req.Op != "sync" {
		enc.Encode(watchReply{Error: fmt.Sprintf("unknown request %q", req.Op)})
		return
	}
	conn.SetDeadline(time.Time{})
	s := &syncReq{done: make(chan watchReply, 1)}
	select {
	case w.syncs <- s:
	case <-ctx.Done():
		return
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var sent watchProgress
	said := time.Now()
	for {
		select {
		case r := <-s.done:
			conn.SetWriteDeadline(time.Now().Add(silent))
			enc.Encode(r)
			return
		case <-tick.C:
			p := w.progress.Load()
			if p == nil {
				p = &watchProgress{}
			}
			if *p == sent && time.Since(said) < heartbeat {
				continue
			}
			sent, said = *p, time.Now()
			conn.SetWriteDeadline(time.Now().Add(silent))
			if enc.Encode(watchReply{Progress: p}) != nil {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// refresher refreshes the index each time the loop asks.
func (w *watcher) refresher(ctx context.Context) error {
	for {
		var only map[string]bool
		select {
		case only = <-w.start:
		case <-ctx.Done():
			return ctx.Err()
		}
		w.progress.Store(&watchProgress{Refreshing: true})
		res, lk, err := w.ix.refresh(ctx, w.env, func(done, total int, bytes int64) {
			w.progress.Store(&watchProgress{Refreshing: true, Done: done, Total: total, Bytes: bytes})
		}, scope{only: only})
		w.progress.Store(nil)
		select {
		case w.results <- refreshResult{res, lk, err}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// loop is the watcher: it hears changes, syncs and refreshes' ends.
func (w *watcher) loop(ctx context.Context) error {
	w.ctx = ctx
	w.marked = make(map[string]*syncReq)
	if _, err := w.watch(w.markers, nil); err != nil {
		return err
	}
	timer := time.NewTimer(0) // the first refresh
	for {
		select {
		case evs := <-w.events:
			for _, e := range evs {
				w.heard(e, timer)
			}
		case s := <-w.syncs:
			if err := w.same(); err != nil {
				s.done <- watchReply{Error: err.Error()}
				return err
			}
			w.seq++
			name := strconv.Itoa(w.seq)
			marker := filepath.Join(w.markers, name)
			if err := os.WriteFile(marker, nil, 0o600); err != nil {
				s.done <- watchReply{Error: fmt.Sprintf("cannot mark the sync: %v", err)}
				continue
			}
			os.Remove(marker)
			w.marked[name] = s
		case <-timer.C:
			if (w.dirty || !w.readyDone) && !w.refreshing {
				w.refresh()
			}
		case r := <-w.results:
			w.refreshed(r, timer)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// same fails when the index's file is no longer the one the watcher
// keeps (stead index --rebuild, a corrupt index moved aside).
func (w *watcher) same() error {
	fi, err := os.Stat(w.ix.path)
	if err != nil || !os.SameFile(fi, w.file) {
		return fmt.Errorf("index: watch: %s: %w", w.ix.path, ErrReplaced)
	}
	return nil
}

// heard takes one event.
func (w *watcher) heard(e event, timer *time.Timer) {
	switch {
	case e.Overflow:
		// Events were lost: anything may have changed, and a sync's
		// marker may be among them: each waits for a full refresh.
		w.change(timer, nil)
		for name, s := range w.marked {
			delete(w.marked, name)
			w.synced(s)
		}
		return
	case w.wds[e.WD] == nil:
		return
	}
	if e.Ignored {
		// The folder is gone, or no longer watched.
		for p := range w.wds[e.WD].paths {
			delete(w.paths, p)
		}
		delete(w.wds, e.WD)
		w.change(timer, nil)
		return
	}
	if e.WD == w.paths[w.markers] {
		if s, ok := w.marked[e.Name]; ok && e.Created {
			delete(w.marked, e.Name)
			w.synced(s)
		}
		return
	}
	for p, names := range w.wds[e.WD].paths {
		if names == nil || names[e.Name] {
			w.change(timer, w.owners[p])
			return
		}
	}
}

// change marks the stores of clis changed (nil: any store), and has them
// refreshed once they are quiet for a while if no one asks before.
func (w *watcher) change(timer *time.Timer, clis []string) {
	if !w.dirty {
		timer.Reset(quiet)
	}
	w.mark(clis)
}

// mark marks the stores of clis changed (nil: any store).
func (w *watcher) mark(clis []string) {
	w.dirty = true
	if clis == nil {
		w.everything = true
	}
	for _, c := range clis {
		w.changed[c] = true
	}
}

// synced takes a sync whose marker arrived: every change made before it
// was asked for has been heard. Another process may have changed the
// index meanwhile (a refresh for other stores drops theirs): the index's
// generation tells.
func (w *watcher) synced(s *syncReq) {
	if gen, err := w.ix.Generation(w.ctx); err != nil || gen != w.gen {
		w.mark(nil)
	}
	switch {
	case w.dirty || !w.readyDone:
		w.waiting = append(w.waiting, s)
		if !w.refreshing {
			w.refresh()
		}
	case w.refreshing:
		w.riding = append(w.riding, s)
	default:
		w.answer(s)
	}
}

// refresh starts a refresh, which the syncs waiting ride: of the stores
// that changed, or all of them.
func (w *watcher) refresh() {
	var only map[string]bool
	if !w.everything && w.readyDone && len(w.changed) > 0 {
		only = w.changed
	}
	select {
	case w.start <- only:
	case <-w.ctx.Done():
		return
	}
	w.refreshing, w.dirty = true, false
	w.everything, w.changed = false, make(map[string]bool)
	w.riding = append(w.riding, w.waiting...)
	w.waiting = nil
}

// refreshed takes a refresh's end: it watches what the refresh looked at,
// and answers the syncs that rode it, unless a new watch calls for
// another refresh first.
func (w *watcher) refreshed(r refreshResult, timer *time.Timer) {
	w.refreshing = false
	for _, s := range w.riding {
		s.res, s.rode = merged(s.res, r.res), true
	}
	if r.err != nil {
		// Tried again later, less often each time it fails; a sync
		// asks for it at once.
		w.failures++
		delay := quiet << min(w.failures, 8)
		w.ix.log.Warn("index: watch: refresh failed", "err", r.err, "again in", delay)
		for _, s := range w.riding {
			s.done <- watchReply{Error: r.err.Error()}
		}
		w.riding = nil
		w.mark(nil)
		timer.Reset(delay)
		return
	}
	w.failures = 0
	w.last = r.res
	if gen, err := w.ix.Generation(w.ctx); err == nil {
		if gen != w.gen && w.ix.onChange != nil {
			w.ix.onChange(r.res)
		}
		w.gen = gen
	}
	added, err := w.watchAll(r.lk)
	w.failed = err
	if added > 0 {
		// A folder newly watched may have changed before its watch began.
		w.mark(nil)
		w.waiting = append(w.riding, w.waiting...)
		w.riding = nil
		w.refresh()
		return
	}
	for _, s := range w.riding {
		w.answer(s)
	}
	w.riding = nil
	if !w.readyDone {
		w.readyDone = true
		if w.ready != nil {
			w.ready(r.res)
		}
	}
	switch {
	case len(w.waiting) > 0:
		w.refresh()
	case w.dirty:
		timer.Reset(quiet)
	}
}

// answer answers a sync with what the refreshes it rode did, or, when it
// rode none, with the stores as the last refresh left them.
func (w *watcher) answer(s *syncReq) {
	if w.failed != nil {
		s.done <- watchReply{Error: w.failed.Error()}
		return
	}
	res := s.res
	if !s.rode {
		res = Refreshed{Sessions: w.last.Sessions, Unchanged: w.last.Sessions, Folders: w.last.Folders}
	}
	s.done <- watchReply{Result: &res}
}

// merged is what two refreshes did, one after the other.
func merged(a, b Refreshed) Refreshed {
	b.Added += a.Added
	b.Updated += a.Updated
	b.Removed += a.Removed
	b.Entries += a.Entries
	b.Bytes += a.Bytes
	b.Listed += a.Listed
	b.Warnings = append(a.Warnings, b.Warnings...)
	return b
}

// watchAll watches what a refresh looked at, each CLI's roots, and the
// marker folder, and drops the watches of the rest. It returns how many
// folders it began to watch, and an error when a folder that needs a
// watch cannot have one (the system's limit of watches).
func (w *watcher) watchAll(lk *looked) (int, error) {
	want := map[string]map[string]bool{w.markers: nil}
	owners := make(map[string][]string)
	own := func(dir, cli string) {
		if !slices.Contains(owners[dir], cli) {
			owners[dir] = append(owners[dir], cli)
		}
	}
	all := func(dir string) { want[dir] = nil }
	for cli, roots := range w.hello.Roots {
		for _, root := range roots {
			fi, err := os.Stat(root)
			switch {
			case err == nil && fi.IsDir():
				all(root)
				own(root, cli)
			case err == nil:
				all(filepath.Dir(root))
				own(filepath.Dir(root), cli)
			default:
				// A root yet to be made: its nearest folder that is there,
				// for the name that would lead to it.
				child := root
				for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
					if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
						own(dir, cli)
						names, ok := want[dir]
						if ok && names == nil {
							break
						}
						if names == nil {
							names = map[string]bool{}
							want[dir] = names
						}
						names[filepath.Base(child)] = true
						break
					}
					if dir == filepath.Dir(dir) {
						break
					}
					child = dir
				}
			}
		}
	}
	for d := range lk.dirs {
		all(d)
		for cli, roots := range w.hello.Roots {
			for _, root := range roots {
				if d == root || strings.HasPrefix(d, root+string(filepath.Separator)) {
					own(d, cli)
				}
			}
		}
	}
	if lk.sessions != nil {
		for k := range lk.sessions {
			all(filepath.Dir(k.path))
			own(filepath.Dir(k.path), k.cli)
		}
	}
	w.owners = owners
	added := 0
	var failed error
	for dir, names := range want {
		if wd, ok := w.paths[dir]; ok {
			w.wds[wd].paths[dir] = names
			continue
		}
		ok, err := w.watch(dir, names)
		switch {
		case err == nil && ok:
			added++
		case errors.Is(err, syscall.ENOSPC):
			failed = fmt.Errorf("cannot watch %s: the system's limit of watches is reached (raise fs.inotify.max_user_watches): %w", dir, err)
		case errors.Is(err, syscall.ENOMEM):
			failed = fmt.Errorf("cannot watch %s: %w", dir, err)
		case err != nil:
			// Gone since, or unreadable (the refresh reports that).
			w.ix.log.Debug("index: watch: cannot watch a folder", "path", dir, "err", err)
		}
	}
	for dir, wd := range w.paths {
		if _, ok := want[dir]; ok {
			continue
		}
		delete(w.paths, dir)
		if wt := w.wds[wd]; wt != nil {
			delete(wt.paths, dir)
			if len(wt.paths) == 0 {
				delete(w.wds, wd)
				w.n.Remove(wd)
			}
		}
	}
	return added, failed
}

// watch begins to watch dir; ok is false when dir was already watched
// under another name.
func (w *watcher) watch(dir string, names map[string]bool) (ok bool, err error) {
	wd, err := w.n.Add(dir)
	if err != nil {
		return false, err
	}
	w.paths[dir] = wd
	wt := w.wds[wd]
	if wt == nil {
		wt = &watched{paths: make(map[string]map[string]bool)}
		w.wds[wd] = wt
		ok = true
	}
	wt.paths[dir] = names
	return ok, nil
}

// event is one change a notifier heard.
type event = notify.Event

// folders is what the watcher's loop needs of its notifier.
type folders interface {
	// Add watches dir, returning its watch; a folder watched already
	// returns the same watch.
	Add(dir string) (int, error)
	Remove(wd int)
}
