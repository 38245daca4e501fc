package usftest

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/session"
)

// NativeCorpus returns the native files of an adapter's testdata cases,
// concatenated and repeated to at least size bytes: a realistic mix of
// records for decoder benchmarks. Each file is kept whole and ends with a
// newline, so the result is a valid stream of records.
func NativeCorpus(tb testing.TB, size int) []byte {
	tb.Helper()
	cases, _ := filepath.Glob("testdata/*.txtar")
	var one bytes.Buffer
	for _, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			tb.Fatal(err)
		}
		for _, f := range ar.Files {
			if strings.HasPrefix(f.Name, "native/") {
				one.Write(f.Data)
			}
		}
	}
	if one.Len() == 0 {
		tb.Fatal("no native files in testdata")
	}
	var out bytes.Buffer
	for out.Len() < size {
		out.Write(one.Bytes())
	}
	return out.Bytes()
}

// CorpusFile returns the path of the largest file of a kind in the corpus
// named by STEAD_BENCH_CORPUS, or skips.
func CorpusFile(tb testing.TB, sub string) string {
	dir := os.Getenv("STEAD_BENCH_CORPUS")
	if dir == "" {
		tb.Skip("set STEAD_BENCH_CORPUS to a corpus made by go run ./cmd/stead-corpus")
	}
	var best string
	var bestSize int64
	filepath.Walk(filepath.Join(dir, sub), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".jsonl") && info.Size() > bestSize {
			best, bestSize = p, info.Size()
		}
		return nil
	})
	if best == "" {
		tb.Skip("no files under " + sub)
	}
	return best
}

// BenchRead benchmarks a whole-session decoder over the testdata cases
// (real files and hand-written ones) repeated to 8 MB.
func BenchRead(b *testing.B, read func(io.Reader) (*session.Session, error)) {
	data := NativeCorpus(b, 8<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := read(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchSummarize benchmarks a summarizer, at both details, over the same
// data.
func BenchSummarize(b *testing.B, summarize func(io.Reader, session.Detail) (session.Summary, error)) {
	data := NativeCorpus(b, 8<<20)
	for _, d := range []struct {
		name   string
		detail session.Detail
	}{{"stats", session.DetailFull}, {"list", session.DetailList}} {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := summarize(bytes.NewReader(data), d.detail); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchSummarizeCorpusFile benchmarks a file summarizer on the largest file
// under sub of the corpus named by STEAD_BENCH_CORPUS (skipped when unset),
// read from the page cache.
func BenchSummarizeCorpusFile(b *testing.B, sub string, summarize func(session.Ref, session.Detail) (session.Summary, error)) {
	path := CorpusFile(b, sub)
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(info.Size())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := summarize(session.Ref{Path: path}, session.DetailFull); err != nil {
			b.Fatal(err)
		}
	}
}

// Allocated returns how many bytes fn allocates.
func Allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
