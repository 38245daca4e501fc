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
	"github.com/stead-dev/stead/internal/heappeak"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

// BenchmarkExport exports one large session file ($STEAD_BENCH_EXPORT_MB
// megabytes, default 64) in each format, read lean (as a file over
// leanAbove is) and whole, and reports its input throughput and the peak
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
			for _, lean := range []bool{true, false} {
				mode := map[bool]string{true: "lean", false: "whole"}[lean]
				b.Run(fmt.Sprintf("%s/%s/%s", file.name, format, mode), func(b *testing.B) {
					benchExport(b, file.cli, file.path, format, lean)
				})
			}
		}
	}
}

func benchExport(b *testing.B, cli, path, format string, lean bool) {
	defer func(n int64) { leanAbove = n }(leanAbove)
	leanAbove = 1 << 62
	if lean {
		leanAbove = 0
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
		if (src.entries != nil) != lean {
			b.Fatalf("read lean: %v, want %v", src.entries != nil, lean)
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
		src.close()
		peak = max(peak, stop())
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}
