package bus

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stead-dev/stead/live"
)

// Kind is one kind of a run's messages: the last token of its subject.
type Kind string

// Subject kinds under stead.run.<run>.
const (
	PTY    Kind = "pty"
	Native Kind = "native"
	Entry  Kind = "entry"
	Status Kind = "status"
	Input  Kind = "input"
	// Control carries requests to the run's supervisor ("stop"); not
	// kept.
	Control Kind = "control"
)

// Names of what New creates in JetStream.
const (
	StreamRuns   = "STEAD_RUNS"
	StreamPTY    = "STEAD_PTY"
	BucketRuns   = "stead-runs"
	BucketObject = "stead-sessions"
	// WorkSubject is where detached runs are queued for workers.
	WorkSubject = "stead.work.start"
	WorkQueue   = "stead-workers"
)

// Subject returns the subject of one kind of a run's messages.
func Subject(run string, kind Kind) string { return "stead.run." + run + "." + string(kind) }

// ValidRun reports whether id can name a run: a NATS subject token of
// letters, digits, '-' and '_'.
func ValidRun(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// Options configures a Bus. The zero value runs an embedded server whose
// JetStream data lives in a temporary directory; cmd/stead gives it stead's
// state directory.
type Options struct {
	// URL, when set, is an external NATS server or cluster (nats://...)
	// used instead of an embedded one.
	URL string
	// Token or CredsFile authenticate to an external server. For an
	// embedded server that listens, Token is the token clients must give
	// (default: a new random one).
	Token     string
	CredsFile string
	// Key, when set, signs a client in with a cluster's nkey (a stead
	// command reaching its machine's member of a cluster).
	Key *ClusterKey
	// Reconnect bounds how long a client of an external server keeps
	// trying to reconnect once the connection is lost, after which its
	// calls fail with ErrClosed (default: forever, as a cluster client
	// should).
	Reconnect time.Duration
	// Bind makes a client use the streams, bucket and object store as
	// they are instead of creating or updating them: the process that
	// owns the server set them up.
	Bind bool
	// StoreDir is where an embedded server keeps JetStream data.
	StoreDir string
	// Listen, when set (e.g. "127.0.0.1:0"), makes an embedded server
	// accept clients on that loopback address, with a generated token
	// (ClientURL, ClientToken), for other stead processes.
	Listen string
	// MaxAge is how long run messages are kept (default 30 days; the
	// terminal output 24 hours).
	MaxAge time.Duration
	// TerminalBytes caps the terminal output kept, all runs together;
	// the oldest is discarded first. The default is 1 GiB, or a quarter
	// of what JetStream may store when that is less (an embedded server
	// may store 75% of the disk free when it starts), so that a small
	// disk still runs the bus.
	TerminalBytes int64
	// Cluster, when set, makes the embedded server a member of a NATS
	// cluster (see Cluster); its JetStream data then lives in
	// StoreDir/cluster/<name>, apart from a single server's.
	Cluster *Cluster
	// Host names this machine as its daemon does on the bus (a cluster
	// member's node name), for the runs a client starts; "" is its host
	// name.
	Host string
	// Name names the connection (default "stead").
	Name string
	// Logger receives the server's and the client's logs; nil discards
	// them.
	Logger *slog.Logger
}

// Bus is a connection to the bus, owning the embedded server if there is
// one.
type Bus struct {
	opts  Options
	log   *slog.Logger
	srvMu sync.RWMutex // guards srv, which a restart replaces
	srv   *server.Server
	so    *server.Options // the embedded server's, to start it again
	// fault is set when the store failed to write; heal restarts the
	// server once there is room again.
	fault atomic.Bool
	// faulted wakes heal when fault is set.
	faulted chan struct{}
	// fatal is the last fatal error the server reported (it cannot
	// listen on a port, say): why it did not start.
	fatal atomic.Pointer[string]
	// pull holds a watch's pull options beyond its batch.
	pull  []jetstream.PullMessagesOpt
	done  chan struct{}
	nc    *nats.Conn
	js    jetstream.JetStream
	runs  jetstream.KeyValue
	hosts jetstream.KeyValue // nil on a bus an older stead set up
	lease jetstream.KeyValue // likewise
	objs  jetstream.ObjectStore
	url   string
	token string

	closeOnce sync.Once

	// watching, when set (by tests), is told of each watch's iterator
	// and returns what to call when the watch leaves it.
	watching func(stop func()) (done func())
}

// ErrNotLoopback is returned for a Listen address that is not on loopback.
var ErrNotLoopback = errors.New("the bus listens on loopback only")

// maxPayload is the largest message an embedded server takes: NATS's
// ceiling, so that a large entry (a big tool output) fits.
const maxPayload = 64 << 20

// New starts an embedded server, or connects to Options.URL, and makes
// sure the streams, bucket and object store exist.
func New(ctx context.Context, opts Options) (*Bus, error) {
	b := &Bus{opts: opts, log: opts.Logger}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	if opts.Name == "" {
		b.opts.Name = "stead"
	}
	var err error
	if opts.URL == "" {
		err = b.embed()
	} else {
		err = b.dial()
	}
	if err != nil {
		b.Close()
		return nil, err
	}
	if b.clustered() {
		// A watch's consumer lives on one member, which may die or
		// stop: heartbeats a second apart find that out within about
		// two (the client library's defaults took ten), and the watch
		// goes on from another.
		b.pull = []jetstream.PullMessagesOpt{jetstream.PullExpiry(clusterPullExpiry), jetstream.PullHeartbeat(time.Second)}
	}
	if err := b.setup(ctx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

func (b *Bus) embed() error {
	b.faulted = make(chan struct{}, 1)
	so := &server.Options{
		ServerName: "stead",
		DontListen: true,
		JetStream:  true,
		StoreDir:   b.opts.StoreDir,
		NoSigs:     true,
		MaxPayload: maxPayload,
		// A client has 5 s, not 2, to say who it is: on a small machine
		// busy starting many runs, stead watch was turned away.
		AuthTimeout: 5,
	}
	if b.opts.Cluster != nil && b.opts.Listen == "" {
		// A member that takes no clients never says it is ready.
		b.opts.Listen = "127.0.0.1:0"
	}
	if b.opts.Listen != "" {
		host, port, err := net.SplitHostPort(b.opts.Listen)
		if err != nil {
			return fmt.Errorf("bus: listen address %q: %w", b.opts.Listen, err)
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return fmt.Errorf("bus: %q: %w", b.opts.Listen, ErrNotLoopback)
		}
		p, err := strconv.Atoi(port)
		if err != nil {
			return fmt.Errorf("bus: listen port %q: %w", port, err)
		}
		if p == 0 {
			p = server.RANDOM_PORT
		}
		so.DontListen, so.Host, so.Port = false, host, p
		b.token = b.opts.Token
		if b.token == "" {
			b.token = randomToken()
		}
		so.Authorization = b.token
	}
	var auth nats.Option = nats.Token(b.token)
	if c := b.opts.Cluster; c != nil {
		if err := c.configure(so); err != nil {
			return err
		}
		so.StoreDir = filepath.Join(b.opts.StoreDir, "cluster", c.Key.Name)
		b.token = ""
		auth, _ = c.Key.NkeyOption()
	}
	b.so = so
	if err := b.startServer(); err != nil {
		return err
	}
	if !so.DontListen {
		b.url = b.server().ClientURL()
		// A restart listens where clients already connect.
		if addr, ok := b.server().Addr().(*net.TCPAddr); ok {
			so.Port = addr.Port
		}
	}
	// The in-process connection reconnects to the server that runs now,
	// after a restart too.
	nc, err := nats.Connect("", nats.InProcessServer(inProcess{b}), nats.Name(b.opts.Name), auth,
		nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		return fmt.Errorf("bus: %w", err)
	}
	b.nc = nc
	b.done = make(chan struct{})
	// A single in-process server cannot go away unseen (its connection's
	// reconnect tells a watch at once), so a watch's pull request lives
	// long and its heartbeats are far apart: with the default 5 s, each
	// watch kept an idle daemon's server busy. In a cluster a watch's
	// consumer may live on a member that dies: the defaults find it out.
	if b.opts.Cluster == nil {
		b.pull = []jetstream.PullMessagesOpt{jetstream.PullExpiry(inProcessExpiry), jetstream.PullHeartbeat(inProcessExpiry / 4)}
	}
	go b.heal()
	return nil
}

// startServer starts the embedded server from b.so, with a fresh copy of
// them: a server must not reuse the options of another.
func (b *Bus) startServer() error {
	so := *b.so
	srv, err := server.NewServer(&so)
	if err != nil {
		return fmt.Errorf("bus: %w", err)
	}
	// The server's log is always read, for the store failures it
	// reports (storeLog); it is passed on only when asked for.
	b.fatal.Store(nil)
	srv.SetLoggerV2(serverLog{l: b.log, fault: &b.fault, faulted: b.faulted, fatal: &b.fatal}, false, false, false)
	go srv.Start()
	// A server that cannot listen says so (Fatalf) and waits: its
	// reason is the error, at once, not a timeout.
	for deadline := time.Now().Add(serverStart); !srv.ReadyForConnections(100 * time.Millisecond); {
		if msg := b.fatal.Load(); msg != nil {
			srv.Shutdown()
			return fmt.Errorf("bus: the embedded NATS server did not start: %s", *msg)
		}
		if time.Now().After(deadline) {
			srv.Shutdown()
			return fmt.Errorf("bus: the embedded NATS server did not start within %s", serverStart)
		}
	}
	b.srvMu.Lock()
	b.srv = srv
	b.srvMu.Unlock()
	return nil
}

// server is the embedded server running now.
func (b *Bus) server() *server.Server {
	b.srvMu.RLock()
	defer b.srvMu.RUnlock()
	return b.srv
}

// inProcess connects the in-process client to whichever server runs.
type inProcess struct{ b *Bus }

func (p inProcess) InProcessConn() (net.Conn, error) { return p.b.server().InProcessConn() }

// inProcessExpiry is how long a watch's pull request lives on the
// embedded server.
const inProcessExpiry = 2 * time.Minute

// clusterPullExpiry is how long a watch's pull request lives in a
// cluster.
const clusterPullExpiry = 10 * time.Second

// healEvery is how often an embedded bus whose store failed looks for the
// free space to start again.
const healEvery = 500 * time.Millisecond

// healFree is the free space an embedded bus waits for before it starts
// again after its store failed (a message block is up to a few MB).
const healFree = 8 << 20

// heal restarts the embedded server once its store, which failed to write
// (a full disk: JetStream then stops storing to that stream for good, and
// publishers get no answer), has room again. The restart recovers what was
// stored from disk; clients reconnect to the same address and token, and
// publishers that retry store what they could not (their message ids keep
// a retry from being stored twice).
func (b *Bus) heal() {
	// It sleeps until the store fails (no timer while all is well: an
	// idle daemon wakes for nothing), then looks every healEvery.
	for {
		select {
		case <-b.done:
			return
		case <-b.faulted:
		}
		b.healOnce()
	}
}

// healOnce waits for the room to restart the failed server, and restarts
// it; it returns when the restarted server runs or b is closed.
func (b *Bus) healOnce() {
	t := time.NewTicker(healEvery)
	defer t.Stop()
	for b.fault.Load() {
		select {
		case <-b.done:
			return
		case <-t.C:
		}
		if free, err := FreeBytes(b.opts.StoreDir); err == nil && free < healFree {
			continue
		}
		b.log.Warn("the bus's store failed to write (disk full?) and has room again: restarting the embedded NATS server", "store", b.opts.StoreDir)
		old := b.server()
		old.Shutdown()
		old.WaitForShutdown()
		b.fault.Store(false)
		if err := b.startServer(); err != nil {
			b.log.Error("restarting the embedded NATS server", "err", err)
			b.fault.Store(true)
		}
	}
}

// StoreFailed reports whether the embedded server's store failed to write
// and has not been restarted since.
func (b *Bus) StoreFailed() bool { return b.fault.Load() }

func (b *Bus) dial() error {
	// A server busy starting many runs on a small machine can take more
	// than nats.go's 2 s to greet a client: stead watch failed so, with
	// 16 runs starting on 2 cores.
	o := []nats.Option{nats.Name(b.opts.Name), nats.MaxReconnects(-1), nats.Timeout(5 * time.Second)}
	if b.opts.Reconnect > 0 {
		const wait = 500 * time.Millisecond
		o = append(o, nats.MaxReconnects(int(b.opts.Reconnect/wait)+1), nats.ReconnectWait(wait),
			nats.CustomReconnectDelay(func(int) time.Duration { return wait }))
	}
	if b.opts.Token != "" {
		o = append(o, nats.Token(b.opts.Token))
	}
	if b.opts.CredsFile != "" {
		o = append(o, nats.UserCredentials(b.opts.CredsFile))
	}
	if b.opts.Key != nil {
		opt, err := b.opts.Key.NkeyOption()
		if err != nil {
			return err
		}
		o = append(o, opt)
	}
	nc, err := nats.Connect(b.opts.URL, o...)
	if err != nil {
		return fmt.Errorf("bus: connecting to %s: %w", redactURL(b.opts.URL), err)
	}
	b.nc, b.url, b.token = nc, b.opts.URL, b.opts.Token
	return nil
}

// setup creates what the bus needs in JetStream, or updates it.
func (b *Bus) setup(ctx context.Context) error {
	js, err := jetstream.New(b.nc)
	if err != nil {
		return fmt.Errorf("bus: %w", err)
	}
	b.js = js
	if b.opts.Cluster != nil {
		if err := b.awaitJetStream(ctx); err != nil {
			return err
		}
	}
	if b.opts.Bind {
		return b.bind(ctx)
	}
	replicas := b.opts.Cluster.replicas()
	age := b.opts.MaxAge
	if age == 0 {
		age = 30 * 24 * time.Hour
	}
	streams := []jetstream.StreamConfig{
		{
			Name:        StreamRuns,
			Description: "stead runs: native records, universal entries and states of each run",
			Subjects:    []string{Subject("*", Native), Subject("*", Entry), Subject("*", Status)},
			Storage:     jetstream.FileStorage,
			Replicas:    replicas,
			MaxAge:      age,
			Duplicates:  10 * time.Minute,
		},
		{
			Name:        StreamPTY,
			Description: "stead runs: terminal output",
			Subjects:    []string{Subject("*", PTY)},
			Storage:     jetstream.FileStorage,
			Replicas:    replicas,
			MaxAge:      min(age, 24*time.Hour),
			MaxBytes:    b.terminalBytes(ctx),
			Discard:     jetstream.DiscardOld,
		},
		workStream(replicas),
	}
	for _, cfg := range streams {
		if err := b.settle(ctx, func(ctx context.Context) error {
			_, err := js.CreateOrUpdateStream(ctx, cfg)
			return err
		}); err != nil {
			return fmt.Errorf("bus: stream %s: %w", cfg.Name, err)
		}
	}
	if err := b.settle(ctx, func(ctx context.Context) (err error) {
		b.runs, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket: BucketRuns, Description: "stead run records", History: 1, Storage: jetstream.FileStorage, Replicas: replicas,
		})
		return err
	}); err != nil {
		return fmt.Errorf("bus: bucket %s: %w", BucketRuns, err)
	}
	if err := b.settle(ctx, func(ctx context.Context) (err error) {
		b.hosts, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket: BucketHosts, Description: "stead hosts whose daemons answer for their stores", History: 1,
			Storage: jetstream.FileStorage, Replicas: replicas,
		})
		return err
	}); err != nil {
		return fmt.Errorf("bus: bucket %s: %w", BucketHosts, err)
	}
	if err := b.settle(ctx, func(ctx context.Context) (err error) {
		b.lease, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket: BucketLeases, Description: "stead: which worker holds each run", History: 1,
			Storage: jetstream.FileStorage, Replicas: replicas,
		})
		return err
	}); err != nil {
		return fmt.Errorf("bus: bucket %s: %w", BucketLeases, err)
	}
	if err := b.settle(ctx, func(ctx context.Context) (err error) {
		b.objs, err = js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
			Bucket: BucketObject, Description: "stead: universal sessions of finished runs", Storage: jetstream.FileStorage, Replicas: replicas,
		})
		return err
	}); err != nil {
		return fmt.Errorf("bus: object store %s: %w", BucketObject, err)
	}
	return nil
}

// bind finds what setup creates, without changing it.
func (b *Bus) bind(ctx context.Context) error {
	if err := b.settle(ctx, func(ctx context.Context) (err error) {
		b.runs, err = b.js.KeyValue(ctx, BucketRuns)
		return err
	}); err != nil {
		return fmt.Errorf("bus: bucket %s: %w", BucketRuns, err)
	}
	if err := b.settle(ctx, func(ctx context.Context) (err error) {
		b.objs, err = b.js.ObjectStore(ctx, BucketObject)
		return err
	}); err != nil {
		return fmt.Errorf("bus: object store %s: %w", BucketObject, err)
	}
	// A bus an older stead set up has no hosts: this client then lists
	// none (ErrNoHosts), and works otherwise.
	if err := b.settle(ctx, func(ctx context.Context) (err error) {
		b.hosts, err = b.js.KeyValue(ctx, BucketHosts)
		return err
	}); err != nil {
		b.hosts = nil
		if !errors.Is(err, jetstream.ErrBucketNotFound) {
			return fmt.Errorf("bus: bucket %s: %w", BucketHosts, err)
		}
	}
	if err := b.settle(ctx, func(ctx context.Context) (err error) {
		b.lease, err = b.js.KeyValue(ctx, BucketLeases)
		return err
	}); err != nil {
		b.lease = nil
		if !errors.Is(err, jetstream.ErrBucketNotFound) {
			return fmt.Errorf("bus: bucket %s: %w", BucketLeases, err)
		}
	}
	return nil
}

// defaultTerminalBytes is the terminal output kept when the store is
// large enough.
const defaultTerminalBytes = 1 << 30

// terminalBytes is the size of the terminal stream: a stream's MaxBytes is
// reserved from JetStream's storage when it is created, so it must fit.
func (b *Bus) terminalBytes(ctx context.Context) int64 {
	if b.opts.TerminalBytes > 0 {
		return b.opts.TerminalBytes
	}
	n := int64(defaultTerminalBytes)
	if srv := b.server(); srv != nil {
		if cfg := srv.JetStreamConfig(); cfg != nil && cfg.MaxStore > 0 {
			n = min(n, cfg.MaxStore/4)
		}
	} else if ai, err := b.js.AccountInfo(ctx); err == nil && ai.Limits.MaxStore > 0 {
		n = min(n, ai.Limits.MaxStore/4)
	}
	return max(n, 1)
}

// Host names this machine as its daemon does on the bus; "" when the bus
// was not told (Options.Host).
func (b *Bus) Host() string { return b.opts.Host }

// ClientURL is the URL other processes connect to: the embedded server's
// loopback listener, or the external URL. It is "" for an embedded server
// that does not listen.
func (b *Bus) ClientURL() string { return b.url }

// ClientToken is the token that goes with ClientURL.
func (b *Bus) ClientToken() string { return b.token }

// Embedded reports whether the bus runs its own server.
func (b *Bus) Embedded() bool { return b.so != nil }

// MaxPayload is the largest message the server takes.
func (b *Bus) MaxPayload() int64 { return b.nc.MaxPayload() }

// Close drains the connection and stops an embedded server. It is safe to
// call more than once.
func (b *Bus) Close() error {
	var err error
	b.closeOnce.Do(func() {
		if b.nc != nil {
			if derr := b.nc.Drain(); derr != nil && !errors.Is(derr, nats.ErrConnectionClosed) {
				err = derr
			}
			for i := 0; i < 200 && !b.nc.IsClosed(); i++ {
				time.Sleep(10 * time.Millisecond)
			}
			b.nc.Close()
		}
		if b.done != nil {
			close(b.done)
		}
		if srv := b.server(); srv != nil {
			if b.opts.Cluster != nil {
				// A member hands what it leads (its streams and the
				// cluster's metadata) to the others before it goes,
				// in lame duck mode: they need not wait for an
				// election.
				srv.LameDuckShutdown()
			}
			srv.Shutdown()
			srv.WaitForShutdown()
		}
	})
	return err
}

func randomToken() string {
	var t [24]byte
	rand.Read(t[:])
	return hex.EncodeToString(t[:])
}

// redactURL hides credentials in a URL for messages.
func redactURL(u string) string {
	if i := strings.Index(u, "@"); i >= 0 {
		if j := strings.Index(u, "://"); j >= 0 && j < i {
			return u[:j+3] + "***" + u[i:]
		}
	}
	return u
}

// serverLog passes the embedded server's logs to slog, and notes the
// store failures it reports in fault.
type serverLog struct {
	l       *slog.Logger
	fault   *atomic.Bool
	faulted chan<- struct{}
	fatal   *atomic.Pointer[string]
}

// serverStart is how long the embedded server has to start listening.
const serverStart = 10 * time.Second

// storeFailure reports whether a server error says its store failed to
// write: nats-server's own test for running out of space is this string.
func storeFailure(msg string) bool {
	return strings.Contains(msg, "no space left") || strings.Contains(msg, "Critical write error") ||
		strings.Contains(msg, "critical write error")
}

func (s serverLog) Noticef(format string, v ...any) {
	s.l.Info(fmt.Sprintf(format, v...), "from", "nats")
}
func (s serverLog) Warnf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	if strings.HasPrefix(msg, "Maximum payloads over") {
		// The large max payload is deliberate (a stored session is
		// one message); the server's advice about it is not news.
		s.l.Debug(msg, "from", "nats")
		return
	}
	s.l.Warn(msg, "from", "nats")
}
func (s serverLog) Fatalf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	if s.fatal != nil {
		s.fatal.Store(&msg)
	}
	s.Errorf("%s", msg)
}
func (s serverLog) Errorf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	if storeFailure(msg) {
		s.fault.Store(true)
		select {
		case s.faulted <- struct{}{}:
		default: // heal is awake already
		}
	}
	s.l.Error(msg, "from", "nats")
}
func (s serverLog) Debugf(format string, v ...any) {
	s.l.Debug(fmt.Sprintf(format, v...), "from", "nats")
}
func (s serverLog) Tracef(format string, v ...any) {
	s.l.Debug(fmt.Sprintf(format, v...), "from", "nats")
}

// Msg is a message of a run, as a watcher receives it.
type Msg struct {
	Run  string
	Kind Kind
	Data []byte
	// Seq is the message's position in its stream, Time when it was
	// stored.
	Seq  uint64
	Time time.Time
}

// ErrNoRun is returned for a run id that names no run.
var ErrNoRun = errors.New("no such run")

// ErrClosed is returned once the connection to the bus is lost for good
// (Options.Reconnect ran out).
var ErrClosed = errors.New("the connection to the bus was lost")

// ErrNotListening is returned by Send when no supervisor takes the run's
// input.
var ErrNotListening = errors.New("no supervisor is listening for the run's input")

func kindOf(subject string) (run string, kind Kind) {
	rest, ok := strings.CutPrefix(subject, "stead.run.")
	if !ok {
		return "", ""
	}
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return "", ""
	}
	return rest[:i], Kind(rest[i+1:])
}

// Publish stores one message of a run (kind Native, Entry or Status) in
// JetStream and waits for the server to acknowledge it. A non-empty id is
// the message's Nats-Msg-Id: the server drops a second message with the
// same id.
func (b *Bus) Publish(ctx context.Context, run string, kind Kind, data []byte, id string) error {
	m := &nats.Msg{Subject: Subject(run, kind), Data: data}
	if id != "" {
		m.Header = nats.Header{nats.MsgIdHdr: []string{id}}
	}
	if _, err := b.js.PublishMsg(ctx, m); err != nil {
		return fmt.Errorf("bus: publish %s: %w", m.Subject, err)
	}
	return nil
}

// PublishTerminal stores a chunk of a run's terminal output without waiting
// for the acknowledgement, so that a fast terminal is never slowed by the
// bus; Flush waits for what is outstanding. When too many chunks are
// outstanding it waits (at most a few seconds) before giving up.
func (b *Bus) PublishTerminal(run string, data []byte) error {
	if _, err := b.js.PublishAsync(Subject(run, PTY), data); err != nil {
		return fmt.Errorf("bus: publish terminal output of %s: %w", run, err)
	}
	return nil
}

// Flush waits until every message published without acknowledgement is
// stored, or ctx ends.
func (b *Bus) Flush(ctx context.Context) error {
	select {
	case <-b.js.PublishAsyncComplete():
		return nil
	case <-ctx.Done():
		return fmt.Errorf("bus: flush: %w", ctx.Err())
	}
}

// From says where a watch starts.
type From int

const (
	// FromStart delivers a run's messages from its first one: a watcher
	// that joins late, or restarts, gets everything.
	FromStart From = iota
	// FromNew delivers only messages stored after the watch starts.
	FromNew
)

// Watch calls fn for each message of the run of the given kinds, in the
// order they were stored, until ctx ends or fn returns an error (which
// Watch returns; ErrStop ends it with nil). Terminal output (PTY) cannot
// be mixed with other kinds in one watch: it lives in its own stream.
func (b *Bus) Watch(ctx context.Context, run string, from From, fn func(Msg) error, kinds ...Kind) error {
	if !ValidRun(run) {
		return fmt.Errorf("bus: run %q: %w", run, ErrNoRun)
	}
	if len(kinds) == 0 {
		kinds = []Kind{Entry, Status}
	}
	stream := StreamRuns
	subjects := make([]string, len(kinds))
	for i, k := range kinds {
		if k == PTY {
			stream = StreamPTY
		}
		subjects[i] = Subject(run, k)
	}
	if stream == StreamPTY && len(kinds) > 1 {
		return errors.New("bus: terminal output is watched on its own")
	}
	w := watchSpec{stream: stream, subjects: subjects, policy: jetstream.DeliverAllPolicy}
	if from == FromNew {
		w.policy = jetstream.DeliverNewPolicy
	}
	return b.follow(ctx, run, w, fn)
}

// Follow calls fn for each message of every run of the given kinds
// (Native, Entry, Status: the kinds STEAD_RUNS keeps), in the order they
// were stored, from the one after stream position after (0: the first),
// until ctx ends or fn returns an error (as Watch). It is how a reader of
// all runs (the daemon's search index) takes them, and goes on where it
// left off.
func (b *Bus) Follow(ctx context.Context, after uint64, fn func(Msg) error, kinds ...Kind) error {
	if len(kinds) == 0 {
		kinds = []Kind{Entry, Status}
	}
	subjects := make([]string, len(kinds))
	for i, k := range kinds {
		if k == PTY {
			return errors.New("bus: terminal output is not followed across runs")
		}
		subjects[i] = Subject("*", k)
	}
	w := watchSpec{stream: StreamRuns, subjects: subjects, policy: jetstream.DeliverAllPolicy}
	if after > 0 {
		w.policy, w.start = jetstream.DeliverByStartSequencePolicy, after+1
	}
	return b.follow(ctx, "every run", w, fn)
}

// RunsStream says what the stream of runs' messages holds: when it was
// made (a stream made again numbers its messages from 1 again) and the
// position of its last message.
func (b *Bus) RunsStream(ctx context.Context) (created time.Time, last uint64, err error) {
	st, err := b.js.Stream(ctx, StreamRuns)
	if err != nil {
		return time.Time{}, 0, fmt.Errorf("bus: %s: %w", StreamRuns, err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return time.Time{}, 0, fmt.Errorf("bus: %s: %w", StreamRuns, err)
	}
	return info.Created, info.State.LastSeq, nil
}

// watchSpec is what a watch's consumer delivers: the messages of stream
// on subjects, from where policy (and start) say.
type watchSpec struct {
	stream   string
	subjects []string
	policy   jetstream.DeliverPolicy
	start    uint64 // the first stream position, for DeliverByStartSequencePolicy
}

// follow is Watch's and Follow's loop. Each consumer it makes has a name
// of its own, and is made again, after the last message delivered, when
// it fails: its member stopped or died (heartbeats stop), it was deleted,
// a message went missing, or the client library closed the iterator.
//
// It does not use the client library's ordered consumer: that makes its
// consumer again under the same name, and a cluster keeps a name on the
// member it was placed on. A consumer placed on a member just stopped
// (SIGSTOP, a machine asleep: not yet known to be gone) was asked for
// again and again on that member, and the watch hung until it came back.
func (b *Bus) follow(ctx context.Context, run string, w watchSpec, fn func(Msg) error) error {
	var last uint64
	for cuts := 0; ; cuts++ {
		if last > 0 {
			w.policy, w.start = jetstream.DeliverByStartSequencePolicy, last+1
		}
		got, err := b.watch(ctx, run, w, fn)
		if got > 0 {
			last, cuts = got, 0
		}
		var cut *watchCut
		if !errors.As(err, &cut) {
			return err
		}
		if cuts == maxCuts {
			return fmt.Errorf("bus: watch %s: cut %d times in a row after message %d: %w", run, maxCuts+1, last, err)
		}
		b.log.Warn("bus: a watch was cut; resuming", "run", run, "after", last, "why", cut.why)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(cuts) * 100 * time.Millisecond):
		}
	}
}

// maxCuts is how many times in a row a watch resumes, with nothing
// delivered in between, before giving up.
const maxCuts = 5

// watchCut says a watch's consumer failed while its context was live:
// the watch goes on from a new one.
type watchCut struct{ why error }

func (c *watchCut) Error() string { return "the watch's consumer was cut: " + c.why.Error() }
func (c *watchCut) Unwrap() error { return c.why }

// watchInactive is how long a watch's consumer outlives its watcher
// (a process killed does not delete it).
const watchInactive = 5 * time.Minute

// watchTry is how long the first try to make a watch's consumer in a
// cluster waits for an answer before it tries again, under a new name;
// each try after waits twice as long as the one before, up to settleTry.
// The cluster may place the consumer on a member stopped a moment ago,
// still thought up: that one never answers, and a try on another member
// answers in milliseconds.
const watchTry = time.Second

// watch is one consumer of follow. It returns the stream position of the
// last message fn took (0 for none).
func (b *Bus) watch(ctx context.Context, run string, w watchSpec, fn func(Msg) error) (uint64, error) {
	cfg := jetstream.ConsumerConfig{
		DeliverPolicy:     w.policy,
		OptStartSeq:       w.start,
		AckPolicy:         jetstream.AckNonePolicy,
		InactiveThreshold: watchInactive,
		Replicas:          1,
		MemoryStorage:     true,
	}
	if len(w.subjects) == 1 {
		cfg.FilterSubject = w.subjects[0]
	} else {
		cfg.FilterSubjects = w.subjects
	}
	var cons jetstream.Consumer
	tries := 0
	err := b.settle(ctx, func(ctx context.Context) (err error) {
		// A new name each try: a try that got no answer may have left
		// its consumer on a member that is gone (it is deleted once
		// unused for watchInactive).
		cfg.Name = "stead-watch-" + randomToken()[:20]
		if b.clustered() {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, watchTry<<min(tries, 3))
			defer cancel()
			tries++
		}
		cons, err = b.js.CreateConsumer(ctx, w.stream, cfg)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("bus: watch %s: %w", run, err)
	}
	name := cfg.Name
	defer func() {
		// Deleted once left, rather than after watchInactive; without
		// waiting: its member may be gone.
		go func() {
			dctx, cancel := context.WithTimeout(context.Background(), settleTry)
			defer cancel()
			b.js.DeleteConsumer(dctx, w.stream, name)
		}()
	}()
	opts := append([]jetstream.PullMessagesOpt{jetstream.PullMaxMessages(256), jetstream.WithMessagesErrOnMissingHeartbeat(true)}, b.pull...)
	it, err := cons.Messages(opts...)
	if err != nil {
		return 0, fmt.Errorf("bus: watch %s: %w", run, err)
	}
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	if b.watching != nil {
		defer b.watching(it.Stop)()
	}
	var last, delivered uint64
	for {
		m, err := it.Next()
		if err != nil {
			if ctx.Err() != nil {
				return last, ctx.Err()
			}
			if b.nc.IsClosed() {
				return last, fmt.Errorf("bus: watch %s: %w", run, ErrClosed)
			}
			return last, &watchCut{err}
		}
		md, err := m.Metadata()
		if err != nil {
			return last, &watchCut{fmt.Errorf("a message without its metadata: %w", err)}
		}
		if md.Sequence.Consumer != delivered+1 {
			// A message lost on its way (a slow client's are dropped):
			// the watch goes on from the one after the last it took.
			return last, &watchCut{fmt.Errorf("message %d came after %d", md.Sequence.Consumer, delivered)}
		}
		delivered = md.Sequence.Consumer
		r, kind := kindOf(m.Subject())
		msg := Msg{Run: r, Kind: kind, Data: m.Data(), Seq: md.Sequence.Stream, Time: md.Timestamp}
		err = fn(msg)
		last = msg.Seq
		if err != nil {
			if errors.Is(err, ErrStop) {
				return last, nil
			}
			return last, err
		}
	}
}

// Replay calls fn for each stored message of the run of one kind, in
// order, and returns once it has delivered the last one stored when
// Replay was called.
func (b *Bus) Replay(ctx context.Context, run string, kind Kind, fn func(Msg) error) error {
	if !ValidRun(run) {
		return fmt.Errorf("bus: run %q: %w", run, ErrNoRun)
	}
	last, err := b.Last(ctx, run, kind)
	if err != nil || last == 0 {
		return err
	}
	return b.Watch(ctx, run, FromStart, func(m Msg) error {
		if err := fn(m); err != nil {
			return err
		}
		if m.Seq >= last {
			return ErrStop
		}
		return nil
	}, kind)
}

// Last is the stream position (Msg.Seq) of the run's last stored message
// of one kind; 0 when there is none.
func (b *Bus) Last(ctx context.Context, run string, kind Kind) (uint64, error) {
	if !ValidRun(run) {
		return 0, fmt.Errorf("bus: run %q: %w", run, ErrNoRun)
	}
	name := StreamRuns
	if kind == PTY {
		name = StreamPTY
	}
	var last *jetstream.RawStreamMsg
	err := b.settle(ctx, func(ctx context.Context) error {
		st, err := b.js.Stream(ctx, name)
		if err != nil {
			return err
		}
		last, err = st.GetLastMsgForSubject(ctx, Subject(run, kind))
		return err
	})
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("bus: %s: %w", run, err)
	}
	return last.Sequence, nil
}

// ErrStop, returned by a Watch callback, ends the watch without error.
var ErrStop = errors.New("stop watching")

// Send types data into the run's terminal through the supervisor that
// runs it, wherever that is, and waits for it to say the bytes were
// written.
func (b *Bus) Send(ctx context.Context, run string, data []byte) error {
	return b.ask(ctx, run, Input, Request{Op: OpInput, Data: data})
}

// Ask sends a control request (OpStop, OpPrompt, OpResize) to the run's
// supervisor and waits for it to be carried out. Its error wraps the
// sentinel the reply's code names (ErrBadRequest, ErrNoRun,
// ErrNotRunning, ErrFailed), or ErrNotListening when no supervisor
// answers.
func (b *Bus) Ask(ctx context.Context, run string, req Request) error {
	return b.ask(ctx, run, Control, req)
}

func (b *Bus) ask(ctx context.Context, run string, kind Kind, req Request) error {
	if !ValidRun(run) {
		return fmt.Errorf("bus: run %q: %w", run, ErrNoRun)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
	}
	req.V = Version
	data, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("bus: %s request: %w", req.Op, err)
	}
	reply, err := b.nc.RequestWithContext(ctx, Subject(run, kind), data)
	if errors.Is(err, nats.ErrNoResponders) {
		return fmt.Errorf("bus: %s: %w", run, ErrNotListening)
	}
	if b.nc.IsClosed() {
		return fmt.Errorf("bus: send to %s: %w", run, ErrClosed)
	}
	if err != nil {
		return fmt.Errorf("bus: send to %s: %w", run, err)
	}
	r, err := ParseReply(reply.Data)
	if err != nil {
		return err
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("bus: %s: %w", run, err)
	}
	return nil
}

// Serve answers Send requests (kind Input) or Ask requests (kind
// Control) for run with handle until stop is called. Requests are read
// and checked (ParseRequest) before handle sees them; one of the wrong
// kind is refused. handle's error is what Send or Ask returns: its text,
// and the code of the sentinel it wraps (ErrBadRequest, ErrNoRun,
// ErrNotRunning; any other error is CodeFailed).
//
// Input is handled in order, one request at a time: it is keystrokes.
// Each control request is handled on a goroutine of its own, so that a
// stop is not held up behind a prompt waiting for the CLI to be ready;
// stop waits for the handlers under way.
func (b *Bus) Serve(run string, kind Kind, handle func(Request) error) (stop func(), err error) {
	answer := func(m *nats.Msg) {
		req, err := ParseRequest(m.Data)
		switch {
		case err != nil:
		case (kind == Input) != (req.Op == OpInput):
			err = fmt.Errorf("%w: a %s request on the %s subject", ErrBadRequest, req.Op, kind)
		default:
			err = handle(req)
		}
		out, _ := json.Marshal(ReplyOf(err))
		m.Respond(out)
	}
	if kind == Input {
		sub, err := b.nc.Subscribe(Subject(run, kind), answer)
		if err != nil {
			return nil, fmt.Errorf("bus: take input of %s: %w", run, err)
		}
		return func() { sub.Unsubscribe() }, nil
	}
	var h handlers
	sub, err := b.nc.Subscribe(Subject(run, kind), func(m *nats.Msg) { h.do(func() { answer(m) }) })
	if err != nil {
		return nil, fmt.Errorf("bus: take requests for %s: %w", run, err)
	}
	return func() { sub.Unsubscribe(); h.close() }, nil
}

// handlers runs each request's handler on a goroutine of its own, and
// waits for them on close; a request that arrives after close is
// dropped (its sender's request times out, as with no supervisor).
type handlers struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

func (h *handlers) do(f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		f()
	}()
}

func (h *handlers) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.wg.Wait()
}

// Request sends a request on a core subject (not kept) and returns the
// reply; Handle answers such requests in a queue group, so that one of
// several workers takes each.
func (b *Bus) Request(ctx context.Context, subject string, data []byte) ([]byte, error) {
	reply, err := b.nc.RequestWithContext(ctx, subject, data)
	if errors.Is(err, nats.ErrNoResponders) {
		return nil, fmt.Errorf("bus: %s: no worker is running (start one with stead serve): %w", subject, ErrNotListening)
	}
	if err != nil {
		return nil, fmt.Errorf("bus: %s: %w", subject, err)
	}
	return reply.Data, nil
}

// Handle answers requests on subject in queue group queue with handle's
// reply until stop is called. Each request is handled on a goroutine of
// its own (a worker starting one run does not hold up the next); stop
// waits for the handlers under way.
func (b *Bus) Handle(subject, queue string, handle func(data []byte) []byte) (stop func(), err error) {
	var h handlers
	sub, err := b.nc.QueueSubscribe(subject, queue, func(m *nats.Msg) {
		h.do(func() { m.Respond(handle(m.Data)) })
	})
	if err != nil {
		return nil, fmt.Errorf("bus: serve %s: %w", subject, err)
	}
	return func() { sub.Unsubscribe(); h.close() }, nil
}

// PutRun stores a run's record.
func (b *Bus) PutRun(ctx context.Context, r live.Run) error {
	if !ValidRun(r.ID) {
		return fmt.Errorf("bus: run %q: %w", r.ID, ErrNoRun)
	}
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("bus: run %s: %w", r.ID, err)
	}
	if err := b.settle(ctx, func(ctx context.Context) error {
		_, err := b.runs.Put(ctx, r.ID, data)
		return err
	}); err != nil {
		return fmt.Errorf("bus: store run %s: %w", r.ID, err)
	}
	return nil
}

// Run returns a run's record.
func (b *Bus) Run(ctx context.Context, id string) (live.Run, error) {
	var r live.Run
	if !ValidRun(id) {
		return r, fmt.Errorf("bus: run %q: %w", id, ErrNoRun)
	}
	var e jetstream.KeyValueEntry
	err := b.settle(ctx, func(ctx context.Context) (err error) {
		e, err = b.runs.Get(ctx, id)
		return err
	})
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return r, fmt.Errorf("run %s: %w", id, ErrNoRun)
	}
	if err != nil {
		return r, fmt.Errorf("bus: run %s: %w", id, err)
	}
	if err := json.Unmarshal(e.Value(), &r); err != nil {
		return r, fmt.Errorf("bus: run %s: %w", id, err)
	}
	return r, nil
}

// RunIDs lists the id of every run's record, in no order, without
// reading the records.
func (b *Bus) RunIDs(ctx context.Context) ([]string, error) {
	var ids []string
	err := b.settle(ctx, func(ctx context.Context) error {
		lister, err := b.runs.ListKeys(ctx)
		if err != nil {
			return err
		}
		defer lister.Stop()
		ids = ids[:0]
		for key := range lister.Keys() {
			ids = append(ids, key)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("bus: list runs: %w", err)
	}
	return ids, nil
}

// Runs lists every run's record, newest first.
func (b *Bus) Runs(ctx context.Context) ([]live.Run, error) {
	ids, err := b.RunIDs(ctx)
	if err != nil {
		return nil, err
	}
	var runs []live.Run
	for _, key := range ids {
		r, err := b.Run(ctx, key)
		if errors.Is(err, ErrNoRun) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].Started.After(runs[j].Started) })
	return runs, nil
}

// PutSession stores a run's universal session (USF JSON) under name.
// In a cluster choosing a leader, a session that can be read again (an
// io.Seeker) is stored again until it takes.
func (b *Bus) PutSession(ctx context.Context, name string, r io.Reader) error {
	seeker, again := r.(io.Seeker)
	err := b.retry(ctx, again, func() error {
		if again {
			if _, err := seeker.Seek(0, io.SeekStart); err != nil {
				return err
			}
		}
		_, err := b.objs.Put(ctx, jetstream.ObjectMeta{Name: name}, r)
		return err
	})
	if err != nil {
		return fmt.Errorf("bus: store session %s: %w", name, err)
	}
	return nil
}

// Session opens a stored universal session.
func (b *Bus) Session(ctx context.Context, name string) (io.ReadCloser, error) {
	var r jetstream.ObjectResult
	err := b.retry(ctx, true, func() (err error) {
		r, err = b.objs.Get(ctx, name)
		return err
	})
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, fmt.Errorf("session %s: %w", name, ErrNoRun)
	}
	if err != nil {
		return nil, fmt.Errorf("bus: session %s: %w", name, err)
	}
	return r, nil
}
