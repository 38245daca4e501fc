package bus_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/live"
)

// freePorts finds n ports free on loopback.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// newClusterKey skips a test that forms a cluster in -short mode, and
// makes the key of its cluster.
func newClusterKey(t *testing.T, name string) bus.ClusterKey {
	t.Helper()
	if testing.Short() {
		t.Skip("forms a cluster of several members")
	}
	key, err := bus.NewClusterKey(name)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// routesOf is the routes of member i of a cluster whose members listen
// for routes on ports: every other member.
func routesOf(ports []int, i int) []string {
	var routes []string
	for j, p := range ports {
		if j != i {
			routes = append(routes, fmt.Sprintf("127.0.0.1:%d", p))
		}
	}
	return routes
}

// cluster starts n buses, each an embedded server routed to the others
// on loopback, as n stead daemons on n machines do.
func cluster(t *testing.T, key bus.ClusterKey, n int) []*bus.Bus {
	return clusterTLS(t, key, n, nil)
}

// TestClusterRoutePortTaken: a member whose route port another program
// holds fails at once, saying so, rather than after a timeout.
func TestClusterRoutePortTaken(t *testing.T) {
	key := newClusterKey(t, "taken")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	begin := time.Now()
	b, err := bus.New(ctx, bus.Options{StoreDir: t.TempDir(), Listen: "127.0.0.1:0",
		Cluster: &bus.Cluster{Key: key, Node: "node-0", Listen: l.Addr().String(), Routes: []string{"127.0.0.1:1"}}})
	if err == nil {
		b.Close()
		t.Fatal("a member started on a route port another program holds")
	}
	if !strings.Contains(err.Error(), "address already in use") || time.Since(begin) > 5*time.Second {
		t.Errorf("after %v: %v; want at once, naming the port in use", time.Since(begin).Round(time.Millisecond), err)
	}
}

// clusterTLS is cluster, with each member's route TLS from tlsFor.
//
// A member's route port is found free and then let go before the member
// listens on it: another process's connection may take it meanwhile (CI
// runs other packages' tests beside these). The member then cannot
// listen, the others cannot place anything on three members, and the
// cluster is formed again on other ports.
func clusterTLS(t *testing.T, key bus.ClusterKey, n int, tlsFor func(i int) *bus.ClusterTLS) []*bus.Bus {
	t.Helper()
	for try := 1; ; try++ {
		buses, err := formCluster(t, key, n, tlsFor)
		if err == nil {
			for _, b := range buses {
				t.Cleanup(func() { b.Close() })
			}
			return buses
		}
		if try == 3 || !strings.Contains(err.Error(), "address already in use") {
			t.Fatal(err)
		}
		t.Logf("forming the cluster again on other ports: %v", err)
	}
}

// formCluster starts the n members of a cluster, each routed to the
// others, and returns them, or what kept each member that failed from
// starting (a member that fails stops the others' waiting for it).
func formCluster(t *testing.T, key bus.ClusterKey, n int, tlsFor func(i int) *bus.ClusterTLS) ([]*bus.Bus, error) {
	ports := freePorts(t, n)
	buses := make([]*bus.Bus, n)
	errs := make([]error, n)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for i := range n {
		opts := bus.Options{Logger: testLogger(t, i), StoreDir: t.TempDir(), Listen: "127.0.0.1:0", Cluster: &bus.Cluster{Key: key,
			Node: fmt.Sprintf("node-%d", i), Listen: fmt.Sprintf("127.0.0.1:%d", ports[i]), Routes: routesOf(ports, i)}}
		if tlsFor != nil {
			opts.Cluster.TLS = tlsFor(i)
		}
		wg.Go(func() {
			var err error
			if buses[i], err = bus.New(ctx, opts); err != nil {
				errs[i] = fmt.Errorf("member %d (routes on %d): %w", i, ports[i], err)
				cancel()
			}
		})
	}
	wg.Wait()
	err := errors.Join(errs...)
	if err != nil {
		for _, b := range buses {
			if b != nil {
				b.Close()
			}
		}
		return nil, err
	}
	return buses, nil
}

// entries publishes n entries of run on b, numbered from first.
func publishN(t *testing.T, b *bus.Bus, run string, first, n int) {
	t.Helper()
	ctx := context.Background()
	for i := first; i < first+n; i++ {
		id := fmt.Sprintf("%s-%d", run, i)
		if err := b.Publish(ctx, run, bus.Entry, fmt.Appendf(nil, `{"line":%d}`, i), id); err != nil {
			t.Fatalf("publishing entry %d: %v", i, err)
		}
	}
}

// stored reads back every entry of run that b holds.
func stored(t *testing.T, b *bus.Bus, run string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got []string
	if err := b.Replay(ctx, run, bus.Entry, func(m bus.Msg) error {
		got = append(got, string(m.Data))
		return nil
	}); err != nil {
		t.Fatalf("replaying %s: %v", run, err)
	}
	return got
}

// TestClusterOutlivesAMember: three members keep the runs' streams and
// records on all three; when the one a run was written through dies, the
// others still hold every entry and its record, and take new ones.
func TestClusterOutlivesAMember(t *testing.T) {
	key := newClusterKey(t, "test")
	bs := cluster(t, key, 3)
	ctx := context.Background()
	run := "r1"
	if err := bs[0].PutRun(ctx, live.Run{ID: run, CLI: "codex", State: live.RunBusy, Host: "node-0", Started: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	publishN(t, bs[0], run, 0, 100)
	for i, b := range bs {
		if r, err := bus.StreamReplicas(ctx, b); err != nil || r != 3 {
			t.Errorf("member %d: the runs' stream has %d replicas (%v); want 3", i, r, err)
		}
	}
	bus.Kill(bs[0]) // its server stops as a killed process's would
	for i, b := range bs[1:] {
		if got := stored(t, b, run); len(got) != 100 {
			t.Fatalf("member %d after member 0 died: %d entries; want 100", i+1, len(got))
		}
		if r, err := b.Run(ctx, run); err != nil || r.CLI != "codex" {
			t.Errorf("member %d after member 0 died: the run's record %+v, %v", i+1, r, err)
		}
	}
	// The two left are a majority: they take new entries.
	publishN(t, bs[1], run, 100, 50)
	if got := stored(t, bs[2], run); len(got) != 150 {
		t.Fatalf("member 2: %d entries; want 150", len(got))
	}
}

// TestClusterRefusesStrangers: a client without the cluster's nkey, and a
// member with another key, are turned away.
func TestClusterRefusesStrangers(t *testing.T) {
	key := newClusterKey(t, "test")
	bs := cluster(t, key, 3)
	url := bs[0].ClientURL()
	if url == "" {
		t.Fatal("the member does not listen for clients")
	}
	if nc, err := nats.Connect(url, nats.Timeout(5*time.Second)); err == nil {
		nc.Close()
		t.Error("a client without credentials was let in")
	}
	other, _ := bus.NewClusterKey("test")
	opt, err := other.NkeyOption()
	if err != nil {
		t.Fatal(err)
	}
	if nc, err := nats.Connect(url, opt, nats.Timeout(5*time.Second)); err == nil {
		nc.Close()
		t.Error("a client with another cluster's nkey was let in")
	}
	opt, _ = key.NkeyOption()
	nc, err := nats.Connect(url, opt, nats.Timeout(5*time.Second))
	if err != nil {
		t.Fatalf("a client with the cluster's nkey: %v", err)
	}
	nc.Close()
}

// TestClusterKeyFile: a key is written for its owner only, never over
// another, and one others may read is refused.
func TestClusterKeyFile(t *testing.T) {
	key, err := bus.NewClusterKey("prod")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bus.NewClusterKey("bad name/"); err == nil {
		t.Error("a cluster name with a slash was taken")
	}
	path := filepath.Join(t.TempDir(), "key.json")
	if err := bus.WriteClusterKey(path, key); err != nil {
		t.Fatal(err)
	}
	if err := bus.WriteClusterKey(path, key); !errors.Is(err, os.ErrExist) {
		t.Errorf("writing over a key: %v; want it refused", err)
	}
	got, err := bus.ReadClusterKey(path)
	if err != nil || got != key {
		t.Fatalf("read back %+v, %v", got, err)
	}
	os.Chmod(path, 0o644)
	if _, err := bus.ReadClusterKey(path); !errors.Is(err, bus.ErrKeyExposed) {
		t.Errorf("a key others may read: %v; want ErrKeyExposed", err)
	}
}

func testLogger(t *testing.T, i int) *slog.Logger {
	if os.Getenv("STEAD_BUS_LOG") == "" {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, nil)).With("member", i)
}

// TestClusterRoutesOverTLS: members whose routes use mutual TLS (each a
// certificate of the cluster's CA) form the cluster and keep the runs.
func TestClusterRoutesOverTLS(t *testing.T) {
	key := newClusterKey(t, "tls")
	dir := t.TempDir()
	ca, caKey := newCA(t, dir)
	bs := clusterTLS(t, key, 3, func(i int) *bus.ClusterTLS {
		cert, key := newCert(t, dir, fmt.Sprintf("node-%d", i), ca, caKey)
		return &bus.ClusterTLS{Cert: cert, Key: key, CA: filepath.Join(dir, "ca.pem")}
	})
	publishN(t, bs[0], "t1", 0, 10)
	if got := stored(t, bs[2], "t1"); len(got) != 10 {
		t.Fatalf("member 2: %d entries; want 10", len(got))
	}
	if _, err := bus.New(context.Background(), bus.Options{StoreDir: t.TempDir(), Cluster: &bus.Cluster{Key: key, Listen: "127.0.0.1:0",
		Routes: []string{"127.0.0.1:1"}, TLS: &bus.ClusterTLS{Cert: filepath.Join(dir, "ca.pem")}}}); err == nil {
		t.Error("route TLS without a key and CA was taken")
	}
}

// newCA writes a CA's certificate to dir/ca.pem.
func newCA(t *testing.T, dir string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "stead test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, "ca.pem"), "CERTIFICATE", der)
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return ca, k
}

// newCert writes a member's certificate (for 127.0.0.1, client and
// server) and key, signed by the CA; it returns their files.
func newCert(t *testing.T, dir, name string, ca *x509.Certificate, caKey *ecdsa.PrivateKey) (string, string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	cert, key := filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
	writePEM(t, cert, "CERTIFICATE", der)
	writePEM(t, key, "EC PRIVATE KEY", kder)
	return cert, key
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestClusterJobGivenBackByAStoppingMember: a member that stops gives its
// job back to the work queue, and another member takes it at once, when
// the stopping member led the queue's consumer too (it hands its leads on
// first, LeaveLeads: a new leader would give the job again only after its
// AckWait, and the streams it led would wait for an election).
func TestClusterJobGivenBackByAStoppingMember(t *testing.T) {
	key := newClusterKey(t, "test")
	bs := cluster(t, key, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	jobs := make([]*bus.Jobs, 3)
	for i, b := range bs {
		var err error
		if jobs[i], err = b.Jobs(ctx); err != nil {
			t.Fatal(err)
		}
	}
	leader, err := bus.WorkLeader(ctx, bs[0])
	if err != nil {
		t.Fatal(err)
	}
	stopping := -1
	for i := range bs {
		if fmt.Sprintf("node-%d", i) == leader {
			stopping = i
		}
	}
	if stopping < 0 {
		t.Fatalf("the work queue's consumer is led by %q, no member", leader)
	}
	if err := bs[stopping].PublishJob(ctx, "r1", []byte("job")); err != nil {
		t.Fatal(err)
	}
	job, err := jobs[stopping].Next(ctx)
	if err != nil || job.Run != "r1" {
		t.Fatalf("the leading member took %+v, %v; want r1's job", job, err)
	}
	// The others pull, as idle workers do.
	taken := make(chan string, 2)
	pctx, stopPulling := context.WithCancel(ctx)
	defer stopPulling()
	for i := range bs {
		if i != stopping {
			go func() {
				if j, err := jobs[i].Next(pctx); err == nil {
					taken <- fmt.Sprintf("node-%d %s delivery %d", i, j.Run, j.Delivered)
					j.Done(ctx)
				}
			}()
		}
	}
	time.Sleep(time.Second)
	begin := time.Now()
	if err := bs[stopping].LeaveLeads(ctx); err != nil {
		t.Fatal(err)
	}
	if err := job.Later(0); err != nil {
		t.Fatal(err)
	}
	bs[stopping].Close()
	select {
	case got := <-taken:
		t.Logf("node-%d, leading the queue, gave its job back: %s after %s", stopping, got, time.Since(begin).Round(time.Millisecond))
		if took := time.Since(begin); took > 5*time.Second {
			t.Errorf("the job was taken %s after it was given back; want at once", took)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no member took the job given back within 30 s")
	}
	if l, err := bus.WorkLeader(ctx, bs[(stopping+1)%3]); err != nil || l == leader {
		t.Errorf("the queue's consumer is led by %q (%v) after its leader stopped", l, err)
	}
}

// TestTransient: a JetStream request that found no one to answer it is
// tried again, whichever of the client's two APIs it went through: a
// key listing, which subscribes through the older one, failed with its
// error type while a cluster chose a new leader, and was not retried.
func TestTransient(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"no leader, jetstream API", &jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}, true},
		{"no leader, older API", &nats.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}, true},
		{"no leader, older API, wrapped", fmt.Errorf("bus: list runs: %w", &nats.APIError{Code: 503, ErrorCode: 10008}), true},
		{"leadership moving, older API", &nats.APIError{Code: 500, ErrorCode: 10009}, true},
		{"no peers yet", &jetstream.APIError{Code: 500, ErrorCode: 10005}, true},
		{"no responders", nats.ErrNoResponders, true},
		{"a timeout", fmt.Errorf("bus: run x: %w", context.DeadlineExceeded), true},
		{"not found, older API", &nats.APIError{Code: 404, ErrorCode: 10059, Description: "stream not found"}, false},
		{"a wrong request", &jetstream.APIError{Code: 400, ErrorCode: 10025}, false},
		{"anything else", errors.New("disk full"), false},
	} {
		if got := bus.Transient(c.err); got != c.want {
			t.Errorf("%s: Transient(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}
