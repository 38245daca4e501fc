package catalog

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stead-dev/stead/session"
)

// BenchmarkScan summarises a corpus made by cmd/stead-corpus, named by
// STEAD_BENCH_CORPUS (skipped when unset): the work of stead session stats.
func BenchmarkScan(b *testing.B) {
	dir := os.Getenv("STEAD_BENCH_CORPUS")
	if dir == "" {
		b.Skip("set STEAD_BENCH_CORPUS to a corpus made by go run ./cmd/stead-corpus")
	}
	env := session.Env{Vars: map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(dir, "claude"), "CODEX_HOME": filepath.Join(dir, "codex")}}
	refs, _, err := Discover(Options{Env: env})
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	for _, r := range refs {
		total += r.Size
	}
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Summarize(context.Background(), Options{Env: env}, refs); err != nil {
			b.Fatal(err)
		}
	}
}
