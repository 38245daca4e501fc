package hosts_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/hosts"
	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/internal/corpusgen"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// BenchmarkListThreeHosts measures stead session list --hosts all's work
// over three machines of 1,000 sessions each: a cluster of three embedded
// buses on loopback, each machine answering with a scan of its stores (a
// corpus of 1,000 sessions of the five CLIs, 64 MB), asked all at once.
func BenchmarkListThreeHosts(b *testing.B) {
	dir := filepath.Join(os.TempDir(), "stead-bench-hosts-1000")
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		os.RemoveAll(dir)
		if _, err := corpusgen.Generate(dir, corpusgen.Options{Seed: 11, Files: 1000, TotalBytes: 64 << 20, Mix: corpusgen.EqualMix()}); err != nil {
			b.Fatal(err)
		}
	}
	env := session.Env{Home: dir, Vars: map[string]string{}}
	for _, kv := range corpusgen.Env(dir) {
		k, v, _ := strings.Cut(kv, "=")
		env.Vars[k] = v
	}
	list := scanStore{env}
	buses := clusterOf(b, 3)
	ctx := context.Background()
	for i, bb := range buses {
		name := fmt.Sprintf("machine-%d", i)
		stop, err := hosts.Serve(ctx, bb, name, list)
		if err != nil {
			b.Fatal(err)
		}
		defer stop()
		if err := bb.PutHost(ctx, live.Host{Name: name, Started: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
	var n int
	for b.Loop() {
		got, err := hosts.List(ctx, buses[0], hosts.Query{}, nil, time.Minute)
		if err != nil {
			b.Fatal(err)
		}
		n = 0
		for _, h := range got {
			if h.Err != nil {
				b.Fatal(h.Err)
			}
			n += len(h.Sessions)
		}
	}
	b.ReportMetric(float64(n), "sessions")
}

// clusterOf starts n buses forming a cluster on loopback.
func clusterOf(tb testing.TB, n int) []*bus.Bus {
	tb.Helper()
	key, err := bus.NewClusterKey("bench")
	if err != nil {
		tb.Fatal(err)
	}
	var addrs []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		addrs = append(addrs, l.Addr().String())
		l.Close()
	}
	out := make([]*bus.Bus, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		routes := append(append([]string(nil), addrs[:i]...), addrs[i+1:]...)
		wg.Go(func() {
			out[i], errs[i] = bus.New(context.Background(), bus.Options{StoreDir: tb.TempDir(),
				Cluster: &bus.Cluster{Key: key, Node: fmt.Sprintf("m%d", i), Listen: addrs[i], Routes: routes}})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { out[i].Close() })
	}
	return out
}

// scanStore answers with a scan of its stores.
type scanStore struct{ env session.Env }

func (s scanStore) Sessions(ctx context.Context, q hosts.Query) (*catalog.Result, error) {
	return catalog.Scan(ctx, catalog.Options{Env: s.env, CLIs: q.CLIs, Detail: session.DetailList})
}

func (s scanStore) Session(ctx context.Context, ref string) (*session.Session, error) {
	a, r, err := catalog.Resolve(s.env, ref, "")
	if err != nil {
		return nil, err
	}
	return a.Open(s.env, r)
}

func (s scanStore) Search(context.Context, index.Query) ([]index.Hit, error) {
	return nil, fmt.Errorf("not searched in this benchmark")
}
