package inject_test

import (
	"io"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/inject"
	"github.com/stead-dev/stead/internal/heappeak"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

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
	b.Run("everyday-records", func(b *testing.B) { benchConvert(b, samples.Repeated(b, session.Claude, size)) })
	b.Run("20MB-records", func(b *testing.B) { benchConvert(b, samples.Generated(b, session.Claude, size)) })
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
		stop := heappeak.Start()
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		_, err = inject.ConvertStream(meta, src.StreamDecoder(f), inject.Reader{CLI: src.Name, ToolArgs: src.ToolArgs}, writerFor(dst),
			inject.Options{Env: session.Env{Home: b.TempDir()}}, io.Discard)
		f.Close()
		if p := stop(); p > peak {
			peak = p
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}
