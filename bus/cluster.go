package bus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
)

// Cluster makes an embedded server a member of a NATS cluster: it routes
// to the other members, and keeps the streams, the bucket of runs and the
// object store on Replicas of them (JetStream's Raft groups), so that what
// the bus holds outlives any one member. Every member shares Key.
type Cluster struct {
	Key ClusterKey
	// Node names this member, unique in the cluster (default: the
	// machine's name).
	Node string
	// Listen is where the other members' routes connect (host:port; it
	// may be beyond loopback: that is what a cluster is for).
	Listen string
	// Routes are the other members' route addresses (host:port, or
	// nats-route://host:port).
	Routes []string
	// Replicas is how many members keep each stream: 1 to 5, default
	// 3, or the cluster's size when it is smaller.
	Replicas int
	// TLS, when set, encrypts the routes: each member presents its
	// certificate and checks the others' against the CA (mutual TLS).
	// Without it, routes are plain TCP, authenticated by the key's
	// password: a network you trust, or a tunnel (WireGuard).
	TLS *ClusterTLS
}

// ClusterTLS names the PEM files of a member's route TLS.
type ClusterTLS struct {
	Cert, Key, CA string
}

// ClusterKey is the secret every member of a cluster shares: the cluster's
// name, the password its routes give each other, and the nkey seed its
// clients sign in with (the embedded server's in-process connection, the
// stead commands of each machine). Anyone holding it can join the cluster
// and read every run: keep it like an SSH key.
type ClusterKey struct {
	Name          string `json:"name"`
	RoutePassword string `json:"routePassword"`
	Seed          string `json:"seed"`
}

// validClusterName is what a cluster or member name may hold: NATS puts
// them in subjects and paths.
var validClusterName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

// NewClusterKey makes a new cluster's key.
func NewClusterKey(name string) (ClusterKey, error) {
	if !validClusterName().MatchString(name) {
		return ClusterKey{}, fmt.Errorf("bus: %q is not a cluster name (letters, digits, '.', '_', '-'; at most 64)", name)
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		return ClusterKey{}, fmt.Errorf("bus: cluster key: %w", err)
	}
	seed, err := kp.Seed()
	if err != nil {
		return ClusterKey{}, fmt.Errorf("bus: cluster key: %w", err)
	}
	return ClusterKey{Name: name, RoutePassword: randomToken(), Seed: string(seed)}, nil
}

// ErrKeyExposed is returned for a cluster key file others may read.
var ErrKeyExposed = errors.New("the cluster key is readable by others (chmod 600 it)")

// ReadClusterKey reads a key that WriteClusterKey wrote, refusing one
// that other users may read.
func ReadClusterKey(path string) (ClusterKey, error) {
	var k ClusterKey
	fi, err := os.Stat(path)
	if err != nil {
		return k, fmt.Errorf("bus: cluster key: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return k, fmt.Errorf("bus: %s (mode %v): %w", path, fi.Mode().Perm(), ErrKeyExposed)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return k, fmt.Errorf("bus: cluster key: %w", err)
	}
	if err := json.Unmarshal(data, &k); err != nil {
		return k, fmt.Errorf("bus: cluster key %s: %w", path, err)
	}
	if err := k.check(); err != nil {
		return k, fmt.Errorf("bus: cluster key %s: %w", path, err)
	}
	return k, nil
}

// WriteClusterKey writes k to path, readable by its owner only; it never
// replaces a file (a cluster's key replaced locks its members out).
func WriteClusterKey(path string, k ClusterKey) error {
	data, err := json.MarshalIndent(k, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("bus: cluster key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("bus: cluster key: %w", err)
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("bus: cluster key: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("bus: cluster key: %w", err)
	}
	return nil
}

func (k ClusterKey) check() error {
	if !validClusterName().MatchString(k.Name) {
		return fmt.Errorf("%q is not a cluster name", k.Name)
	}
	if len(k.RoutePassword) < 16 {
		return errors.New("its route password is missing or short")
	}
	if _, err := k.keyPair(); err != nil {
		return err
	}
	return nil
}

// keyPair is the clients' nkey.
func (k ClusterKey) keyPair() (nkeys.KeyPair, error) {
	kp, err := nkeys.FromSeed([]byte(k.Seed))
	if err != nil {
		return nil, fmt.Errorf("its seed: %w", err)
	}
	if pre, _, err := nkeys.DecodeSeed([]byte(k.Seed)); err != nil || pre != nkeys.PrefixByteUser {
		return nil, errors.New("its seed is not a user's nkey seed")
	}
	return kp, nil
}

// NkeyOption signs a client in with the key's nkey.
func (k ClusterKey) NkeyOption() (nats.Option, error) {
	kp, err := k.keyPair()
	if err != nil {
		return nil, fmt.Errorf("bus: cluster key: %w", err)
	}
	pub, err := kp.PublicKey()
	if err != nil {
		return nil, fmt.Errorf("bus: cluster key: %w", err)
	}
	return nats.Nkey(pub, kp.Sign), nil
}

// routeUser is the user name routes give each other.
const routeUser = "stead-route"

// cluster sets so up as a member of c's cluster: its name, its routes and
// their credentials, and clients signed in with the key's nkey instead of
// a token.
func (c *Cluster) configure(so *server.Options) error {
	if err := c.Key.check(); err != nil {
		return fmt.Errorf("bus: cluster key: %w", err)
	}
	node := c.Node
	if node == "" {
		h, err := os.Hostname()
		if err != nil {
			return fmt.Errorf("bus: this member's name: %w", err)
		}
		node = h
	}
	if !validClusterName().MatchString(node) {
		return fmt.Errorf("bus: %q is not a member name (letters, digits, '.', '_', '-')", node)
	}
	host, port, err := splitPort(c.Listen, "cluster listen address")
	if err != nil {
		return err
	}
	if len(c.Routes) == 0 {
		// JetStream refuses a cluster of one, and the server then never
		// says it is ready.
		return errors.New("bus: a cluster member needs the routes of the others")
	}
	kp, _ := c.Key.keyPair()
	pub, err := kp.PublicKey()
	if err != nil {
		return fmt.Errorf("bus: cluster key: %w", err)
	}
	so.ServerName = node
	so.Cluster = server.ClusterOpts{Name: c.Key.Name, Host: host, Port: port,
		Username: routeUser, Password: c.Key.RoutePassword}
	for _, r := range c.Routes {
		u, err := routeURL(r, c.Key.RoutePassword)
		if err != nil {
			return err
		}
		so.Routes = append(so.Routes, u)
	}
	if t := c.TLS; t != nil {
		if t.Cert == "" || t.Key == "" || t.CA == "" {
			return errors.New("bus: route TLS needs a certificate, its key and the CA that signed the members'")
		}
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: t.Cert, KeyFile: t.Key, CaFile: t.CA, Verify: true})
		if err != nil {
			return fmt.Errorf("bus: route TLS: %w", err)
		}
		// A member connects to the others as a client too: it checks
		// their certificates against the same CA (nats-server's config
		// file does the same for a cluster's ca_file).
		tc.RootCAs = tc.ClientCAs
		so.Cluster.TLSConfig, so.Cluster.TLSTimeout = tc, 5
	}
	so.Authorization = ""
	so.Nkeys = []*server.NkeyUser{{Nkey: pub}}
	// A member stopped (Bus.Close) hands its leads on, then closes its
	// clients within 2 s, at once.
	so.LameDuckDuration, so.LameDuckGracePeriod = 2*time.Second, time.Millisecond
	return nil
}

// routeURL is a route to another member, with the routes' credentials.
func routeURL(r, password string) (*url.URL, error) {
	addr := strings.TrimPrefix(r, "nats-route://")
	if strings.Contains(addr, "/") || strings.Contains(addr, "@") {
		return nil, fmt.Errorf("bus: route %q: want host:port", r)
	}
	if _, _, err := splitPort(addr, "route"); err != nil {
		return nil, err
	}
	return &url.URL{Scheme: "nats-route", User: url.UserPassword(routeUser, password), Host: addr}, nil
}

func splitPort(addr, what string) (string, int, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("bus: %s %q: %w", what, addr, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return "", 0, fmt.Errorf("bus: %s %q: bad port", what, addr)
	}
	return host, p, nil
}

// replicas is how many members keep each stream.
func (c *Cluster) replicas() int {
	if c == nil {
		return 1
	}
	if c.Replicas > 0 {
		return min(c.Replicas, 5)
	}
	return min(3, len(c.Routes)+1)
}

// clusterWait is how long a member waits for its cluster to have the
// members JetStream needs (a majority), after which New fails.
const clusterWait = 2 * time.Minute

// awaitJetStream waits until JetStream answers: in a cluster, once a
// majority of its members found each other and chose a leader.
func (b *Bus) awaitJetStream(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, clusterWait)
	defer cancel()
	said := time.Now()
	for {
		err := errors.New("no JetStream leader yet")
		if srv := b.server(); srv == nil || srv.JetStreamIsCurrent() {
			actx, acancel := context.WithTimeout(ctx, 2*time.Second)
			_, err = b.js.AccountInfo(actx)
			acancel()
		}
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("bus: the cluster's JetStream did not come up within %s (are a majority of its members up, and their routes reachable?): %w", clusterWait, err)
		}
		if time.Since(said) > 10*time.Second {
			b.log.Info("bus: waiting for a majority of the cluster's members", "err", err)
			said = time.Now()
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// clustered reports whether the bus is a cluster's: a member's, or a
// client's signed in with a cluster's key. A cluster's requests may go
// unanswered for a few seconds while it chooses a new leader (a member
// died).
func (b *Bus) clustered() bool { return b.opts.Cluster != nil || b.opts.Key != nil }

// settleTry is how long one try of a cluster's JetStream request waits.
const settleTry = 5 * time.Second

// settle runs a JetStream request, again and again in a cluster while it
// fails (a request sent while the cluster chooses a leader is not
// answered: it would wait for its whole context), until clusterWait or
// ctx ends.
func (b *Bus) settle(ctx context.Context, fn func(context.Context) error) error {
	if !b.clustered() {
		return fn(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, clusterWait)
	defer cancel()
	return b.retry(ctx, true, func() error {
		tctx, tcancel := context.WithTimeout(ctx, settleTry)
		defer tcancel()
		return fn(tctx)
	})
}

// retry is settle for a request whose result outlives it (an object
// being read or written keeps its context): fn runs with the caller's
// context, again while a cluster's JetStream fails for want of an answer,
// until clusterWait or ctx ends. Unless again, it runs once.
func (b *Bus) retry(ctx context.Context, again bool, fn func() error) error {
	deadline := time.Now().Add(clusterWait)
	for {
		err := fn()
		if err == nil || !again || !b.clustered() || ctx.Err() != nil || !transient(err) || time.Now().After(deadline) {
			return err
		}
		b.log.Debug("bus: a request to the cluster's JetStream failed; trying again", "err", err)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Transient reports whether a JetStream request failed for want of an
// answer (no leader yet, or one that just died), not for its answer: the
// same request may take a moment later.
func Transient(err error) bool { return transient(err) }

// transient reports whether a JetStream request failed for want of an
// answer (no leader yet, or one that just died), not for its answer.
//
// The API's errors come in two types: jetstream's, and the older nats
// API's, which a key-value store's watches and key listings go through
// (they subscribe with an ordered push consumer). Both are read.
func transient(err error) bool {
	var apiErr *jetstream.APIError
	var legacyErr *nats.APIError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout), errors.Is(err, nats.ErrNoResponders),
		errors.Is(err, jetstream.ErrNoStreamResponse), errors.Is(err, nats.ErrConnectionReconnecting):
		return true
	case errors.As(err, &apiErr):
		return unavailable(apiErr.Code, int(apiErr.ErrorCode))
	case errors.As(err, &legacyErr):
		return unavailable(legacyErr.Code, int(legacyErr.ErrorCode))
	}
	return false
}

// unavailable reports whether a JetStream API error's status and code
// say the request found no one to answer it: 503, JetStream temporarily
// unavailable (no leader, no quorum; 10008 among them); 10005, no
// suitable peers for placement (a member not yet known to the leader as
// the cluster forms); 10009, this member cannot handle the request
// (leadership moving).
func unavailable(status, code int) bool {
	return status == 503 || code == 10005 || code == 10009
}
