package index_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/internal/corpusgen"
	"github.com/stead-dev/stead/internal/heappeak"
	"github.com/stead-dev/stead/session"
)

// The benchmarks run on the corpus STEAD_BENCH_CORPUS names (made by
// `go run ./cmd/stead-corpus -out DIR`), else on one of 300 sessions of
// all five CLIs, equal shares (150 MB), generated once into the temporary
// folder.
var (
	corpusOnce sync.Once
	corpusDir  string
	corpusErr  error
)

func benchCorpus(b *testing.B) (session.Env, int64) {
	b.Helper()
	corpusOnce.Do(func() {
		if corpusDir = os.Getenv("STEAD_BENCH_CORPUS"); corpusDir != "" {
			return
		}
		corpusDir = filepath.Join(os.TempDir(), "stead-index-bench-corpus-5")
		if _, err := os.Stat(filepath.Join(corpusDir, "manifest.json")); err == nil {
			return
		}
		mix := map[string]float64{}
		for _, cli := range corpusgen.CLIs {
			mix[cli] = 1
		}
		_, corpusErr = corpusgen.Generate(corpusDir, corpusgen.Options{Seed: 1, Files: 300, TotalBytes: 150 << 20, Mix: mix})
	})
	if corpusErr != nil {
		b.Fatal(corpusErr)
	}
	vars := map[string]string{}
	for _, kv := range corpusgen.Env(corpusDir) {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	var size int64
	filepath.WalkDir(corpusDir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != "manifest.json" {
			if fi, err := d.Info(); err == nil {
				size += fi.Size()
			}
		}
		return nil
	})
	return session.Env{Home: filepath.Join(corpusDir, "home"), Vars: vars}, size
}

// BenchmarkRefreshCold builds the index of the whole corpus: its
// throughput is of session bytes read, peak-heap-MB the most the Go heap
// held, index-% the index's size as a share of the corpus.
func BenchmarkRefreshCold(b *testing.B) {
	env, size := benchCorpus(b)
	ctx := context.Background()
	b.SetBytes(size)
	var peak uint64
	var st index.Status
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		runtime.GC()
		stop := heappeak.Start()
		b.StartTimer()
		ix, err := index.Open(ctx, filepath.Join(dir, "index.db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ix.Refresh(ctx, env, nil); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		peak = max(peak, stop())
		st, _ = ix.Status(ctx)
		ix.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(100*float64(st.Bytes)/float64(size), "index-%")
	b.ReportMetric(float64(st.Sessions), "sessions")
}

// openBuilt is an index of the corpus, built once per benchmark.
func openBuilt(b *testing.B) (*index.Index, session.Env) {
	b.Helper()
	env, _ := benchCorpus(b)
	ctx := context.Background()
	ix, err := index.Open(ctx, filepath.Join(b.TempDir(), "index.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	if _, err := ix.Refresh(ctx, env, nil); err != nil {
		b.Fatal(err)
	}
	return ix, env
}

// BenchmarkRefreshUnchanged is the freshness check when nothing changed:
// every store listed and compared with the index, nothing read.
func BenchmarkRefreshUnchanged(b *testing.B) {
	ix, env := openBuilt(b)
	ctx := context.Background()
	for b.Loop() {
		res, err := ix.Refresh(ctx, env, nil)
		if err != nil || res.Added+res.Updated+res.Removed != 0 {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// BenchmarkFreshWatched is the freshness check when nothing changed and a
// watcher keeps the index fresh: Fresh asks it, and it answers once the
// marker it makes has come back.
func BenchmarkFreshWatched(b *testing.B) {
	ix, env := openBuilt(b)
	watch(b, ix.Path(), env)
	ctx := context.Background()
	for b.Loop() {
		res, err := ix.Fresh(ctx, env, nil)
		if err != nil || res.Watcher == 0 || res.Added+res.Updated+res.Removed != 0 {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// BenchmarkSearch is a query in process on the built index.
func BenchmarkSearch(b *testing.B) {
	ix, _ := openBuilt(b)
	ctx := context.Background()
	for _, q := range []struct {
		name string
		q    index.Query
	}{
		{"common", index.Query{Text: "the"}},
		{"rare", index.Query{Text: "zanzibar"}},
		{"phrase", index.Query{Text: `"run the tests"`}},
		{"prefix", index.Query{Text: "migrat*"}},
		{"filtered", index.Query{Text: "error", CLIs: []string{"codex"}, Roles: []string{"tool_result"}}},
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := ix.Search(ctx, q.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
