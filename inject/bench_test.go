package inject_test

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/inject"
	"github.com/stead-dev/stead/internal/corpusgen"
	"github.com/stead-dev/stead/session"
)

// bigClaudeSession writes one synthetic Claude Code session of about size
// bytes (the corpus generator's records: prompts, thinking, tool calls
// with large outputs, attachments) and returns its path.
func bigClaudeSession(b *testing.B, size int64) string {
	b.Helper()
	dir := b.TempDir()
	if _, err := corpusgen.Generate(dir, corpusgen.Options{Seed: 1, Files: 1, TotalBytes: size, ClaudeShare: 1, MalformedEvery: -1}); err != nil {
		b.Fatal(err)
	}
	var path string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && filepath.Ext(p) == ".jsonl" {
			path = p
		}
		return nil
	})
	return path
}

// peakHeap samples the live heap until stop is closed and returns its
// peak in bytes.
func peakHeap(stop <-chan struct{}) func() uint64 {
	var mu sync.Mutex
	var peak uint64
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			mu.Lock()
			if v := sample[0].Value.Uint64(); v > peak {
				peak = v
			}
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		<-done
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// repeatedClaudeSession writes the Claude Code testdata sessions (real
// files and hand-written cases) repeated to about size bytes: records of
// everyday sizes.
func repeatedClaudeSession(b *testing.B, size int64) string {
	b.Helper()
	cases, _ := filepath.Glob(filepath.Join("..", "adapters", "claude", "testdata", "*.txtar"))
	var one []byte
	for _, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range ar.Files {
			if strings.HasPrefix(f.Name, "native/") && strings.HasSuffix(f.Name, ".jsonl") {
				one = append(one, f.Data...)
			}
		}
	}
	path := filepath.Join(b.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	for n := int64(0); n < size; n += int64(len(one)) {
		f.Write(one)
	}
	f.Close()
	return path
}

// benchMB is $STEAD_BENCH_CONVERT_MB, or def.
func benchMB(def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv("STEAD_BENCH_CONVERT_MB"), 10, 64); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkConvertStream converts a large Claude Code session into Codex
// as it is read ($STEAD_BENCH_CONVERT_MB megabytes, default 256): one of
// everyday records (the testdata repeated), and one of the corpus
// generator's, which holds records of up to 20 MB.
func BenchmarkConvertStream(b *testing.B) {
	size := benchMB(256) << 20
	b.Run("everyday-records", func(b *testing.B) { benchConvert(b, repeatedClaudeSession(b, size)) })
	b.Run("20MB-records", func(b *testing.B) { benchConvert(b, bigClaudeSession(b, size)) })
}

func benchConvert(b *testing.B, path string) {
	fi, _ := os.Stat(path)
	src, _ := adapters.Lookup(session.Claude)
	dst, _ := adapters.Lookup(session.Codex)
	sum, err := src.SummarizeFile(session.Ref{CLI: src.Name, Path: path, Size: fi.Size()}, session.DetailFull)
	if err != nil {
		b.Fatal(err)
	}
	meta := &session.Session{ID: sum.ID, Source: session.Source{CLI: src.Name}, Project: session.Project{Path: "/p"},
		Metadata: session.Metadata{Created: sum.Start}}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	runtime.GC()
	b.ResetTimer()
	var peak uint64
	for i := 0; i < b.N; i++ {
		stop := make(chan struct{})
		wait := peakHeap(stop)
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		_, err = inject.ConvertStream(meta, src.StreamDecoder(f), inject.Reader{CLI: src.Name, ToolArgs: src.ToolArgs}, writerFor(dst),
			inject.Options{Env: session.Env{Home: b.TempDir()}}, io.Discard)
		f.Close()
		close(stop)
		if p := wait(); p > peak {
			peak = p
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}
