package kimi

import (
	"testing"

	"github.com/stead-dev/stead/internal/usftest"
)

// The decoder benchmarks read the testdata cases (real files and
// hand-written ones, both CLIs' formats) repeated to 8 MB. BenchmarkRead
// builds the whole universal session, native records included;
// BenchmarkSummarize is the fast scan behind list and stats;
// BenchmarkSummarizeCorpusFile scans the largest kimi file of
// $STEAD_BENCH_CORPUS.

func BenchmarkRead(b *testing.B) { usftest.BenchRead(b, Read) }

func BenchmarkSummarize(b *testing.B) { usftest.BenchSummarize(b, Summarize) }

func BenchmarkSummarizeCorpusFile(b *testing.B) {
	usftest.BenchSummarizeCorpusFile(b, "kimi", SummarizeFile)
}
