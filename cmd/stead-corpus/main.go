// Command stead-corpus writes a deterministic synthetic corpus of Claude Code
// and Codex CLI session files for stead's benchmarks and tests.
//
// Usage:
//
//	stead-corpus -out DIR [-seed N] [-files N] [-size 1.5G] [-claude-share F] [-malformed-every N] [-force]
//
// Point CLAUDE_CONFIG_DIR at DIR/claude and CODEX_HOME at DIR/codex to read
// it; DIR/manifest.json describes what was written, with the token totals a
// correct reader must report. See package internal/corpusgen.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stead-dev/stead/internal/corpusgen"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		// -h: the usage is printed
	case err != nil:
		fmt.Fprintln(os.Stderr, "stead-corpus:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("stead-corpus", flag.ContinueOnError)
	fs.SetOutput(stderr)
	outDir := fs.String("out", "", "directory to write the corpus into (required)")
	seed := fs.Int64("seed", 1, "random seed; the same seed and options give byte-identical files")
	files := fs.Int("files", corpusgen.DefaultFiles, "number of session files")
	size := fs.String("size", "1500000000", "approximate total size in bytes; suffixes K, M, G, T (powers of 1000) or Ki, Mi, Gi, Ti are accepted, e.g. 1.5G, 200M")
	share := fs.Float64("claude-share", corpusgen.DefaultClaudeShare, "fraction of files that are Claude Code sessions (the rest are Codex)")
	malformed := fs.Int("malformed-every", corpusgen.DefaultMalformedEvery, "about one truncated line per this many files (0 means the default); negative disables")
	force := fs.Bool("force", false, "write into a non-empty directory, first removing its claude/, codex/ and manifest.json")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: stead-corpus -out DIR [flags]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *outDir == "" {
		fs.Usage()
		return errors.New("-out is required")
	}
	total, err := parseSize(*size)
	if err != nil {
		return fmt.Errorf("-size: %w", err)
	}
	if *files <= 0 {
		return fmt.Errorf("-files must be positive, got %d", *files)
	}
	if !(*share >= 0 && *share <= 1) {
		return fmt.Errorf("-claude-share must be between 0 and 1, got %g", *share)
	}
	if *share == 0 {
		*share = math.SmallestNonzeroFloat64 // Options reads 0 as "default"
	}
	if err := prepare(*outDir, *force); err != nil {
		return err
	}

	started := time.Now()
	m, err := corpusgen.Generate(*outDir, corpusgen.Options{
		Seed:           *seed,
		Files:          *files,
		TotalBytes:     total,
		ClaudeShare:    *share,
		MalformedEvery: *malformed,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d files (%d claude, %d codex), %d bytes in %.1f s\n",
		m.Files, m.ClaudeFiles, m.CodexFiles, m.Bytes, time.Since(started).Seconds())
	fmt.Fprintln(stdout, "manifest:", filepath.Join(*outDir, "manifest.json"))
	return nil
}

// prepare makes sure dir can be written: it must be missing or empty,
// unless force, in which case a previous corpus's files are removed.
func prepare(dir string, force bool) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("read output directory: %w", err)
	case len(entries) == 0:
		return nil
	case !force:
		return fmt.Errorf("output directory %s is not empty (use -force to overwrite)", dir)
	}
	for _, name := range []string{"claude", "codex", "manifest.json"} {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("clear output directory: %w", err)
		}
	}
	return nil
}

// parseSize parses a byte count such as 1500000000, 1.5G, 200M, 512Ki or
// 20MB.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "b")
	mult := 1.0
	units := []struct {
		suffix string
		mult   float64
	}{
		{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40},
		{"K", 1e3}, {"k", 1e3}, {"M", 1e6}, {"m", 1e6}, {"G", 1e9}, {"g", 1e9}, {"T", 1e12}, {"t", 1e12},
	}
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSuffix(t, u.suffix), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	n := v * mult
	if n < 1 || n > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %q out of range", s)
	}
	return int64(n), nil
}
