package codex

import (
	"bytes"
	"os"
	"testing"

	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// The decoder benchmarks read the testdata cases (real files and
// hand-written ones) repeated to 8 MB. BenchmarkRead builds the whole
// universal session, native records included; BenchmarkSummarize is the
// fast scan behind list and stats.

func BenchmarkRead(b *testing.B) {
	data := usftest.NativeCorpus(b, 8<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSummarize(b *testing.B) {
	data := usftest.NativeCorpus(b, 8<<20)
	for _, d := range []struct {
		name   string
		detail session.Detail
	}{{"stats", session.DetailFull}, {"list", session.DetailList}} {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Summarize(bytes.NewReader(data), d.detail); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSummarizeCorpusFile scans the largest codex file of the corpus
// named by STEAD_BENCH_CORPUS (skipped when unset), from the page cache.
func BenchmarkSummarizeCorpusFile(b *testing.B) {
	path := usftest.CorpusFile(b, "codex")
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(info.Size())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SummarizeFile(session.Ref{Path: path}, session.DetailFull); err != nil {
			b.Fatal(err)
		}
	}
}
