package usftest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
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
