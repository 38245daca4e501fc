package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stead-dev/stead/agenthistory"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/internal/heappeak"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

// BenchmarkExport exports one large session file ($STEAD_BENCH_EXPORT_MB
// megabytes, default 64) in each format, read in two passes (as a file
// over catalog.TwoPassAbove is) and whole, and reports its input throughput and the peak
// live heap. The sessions: Claude Code and Codex testdata repeated
// (records of everyday sizes), and the corpus generator's Claude Code
// session, which holds records of up to 20 MB.
func BenchmarkExport(b *testing.B) {
	size := int64(64)
	if v, err := strconv.ParseInt(os.Getenv("STEAD_BENCH_EXPORT_MB"), 10, 64); err == nil && v > 0 {
		size = v
	}
	size <<= 20
	files := []struct{ name, cli, path string }{
		{"claude-everyday", session.Claude, samples.Repeated(b, session.Claude, size)},
		{"codex-everyday", session.Codex, samples.Repeated(b, session.Codex, size)},
		{"claude-20MB-records", session.Claude, samples.Generated(b, session.Claude, size)},
	}
	for _, file := range files {
		for _, format := range []string{formatCUSF, formatNDJSON} {
			for _, twoPass := range []bool{true, false} {
				mode := map[bool]string{true: "two-pass", false: "whole"}[twoPass]
				b.Run(fmt.Sprintf("%s/%s/%s", file.name, format, mode), func(b *testing.B) {
					benchExport(b, file.cli, file.path, format, twoPass)
				})
			}
		}
	}
}

func benchExport(b *testing.B, cli, path, format string, twoPass bool) {
	defer func(n int64) { catalog.TwoPassAbove = n }(catalog.TwoPassAbove)
	catalog.TwoPassAbove = 1 << 62
	if twoPass {
		catalog.TwoPassAbove = 0
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	f := &Factory{Env: session.Env{Home: b.TempDir()}}
	opts := &ExportOptions{Format: format}
	it := exportItem{ref: path, cli: cli, sref: session.Ref{CLI: cli, Path: path, Size: fi.Size()}}
	now := time.Now()
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	runtime.GC()
	b.ResetTimer()
	var peak uint64
	for i := 0; i < b.N; i++ {
		stop := heappeak.Start()
		src, err := openExport(context.Background(), f, opts, it)
		if err != nil {
			b.Fatal(err)
		}
		if (src.Entries != nil) != twoPass {
			b.Fatalf("read in two passes: %v, want %v", src.Entries != nil, twoPass)
		}
		if format == formatNDJSON {
			var w *agenthistory.Writer
			if w, err = agenthistory.NewWriter(io.Discard, agenthistory.Header{ExportTimestamp: now}); err == nil {
				if err = writeNDJSON(w, src); err == nil {
					err = w.Close()
				}
			}
		} else {
			err = encodeOne(io.Discard, format, src, now)
		}
		src.Close()
		peak = max(peak, stop())
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	if twoPass {
		b.StopTimer()
		perEntry, entries := outlineCost(b, f, opts, it)
		b.ReportMetric(perEntry, "outline-B/entry")
		b.ReportMetric(float64(entries), "entries")
	}
}

// outlineCost reads it for its outline, and returns the heap it holds
// then (the outline, plus the buffers of the open record spool and
// decoder) per entry, and the number of entries.
func outlineCost(b *testing.B, f *Factory, opts *ExportOptions, it exportItem) (float64, int) {
	var before, after runtime.MemStats
	runtime.GC() // twice: what the last run left to finalizers goes too
	runtime.GC()
	runtime.ReadMemStats(&before)
	src, err := openExport(context.Background(), f, opts, it)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	n := src.Entries.Len()
	src.Close()
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(max(n, 1)), n
}
