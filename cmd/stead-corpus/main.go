// Command stead-corpus writes a deterministic synthetic corpus of AI coding
// CLI sessions for stead's benchmarks and tests: Claude Code and Codex CLI
// by default, and Gemini CLI, OpenCode and Kimi Code when asked.
//
// Usage:
//
//	stead-corpus -out DIR [-seed N] [-files N] [-size 1.5G] [-clis LIST] [-mix CLI=W,...]
//	             [-claude-share F] [-malformed-every N] [-force]
//
// For example, 10,000 sessions of all five CLIs, about 5 GB:
//
//	stead-corpus -out /tmp/corpus5 -clis all -files 10000 -size 5G
//
// It prints the environment variables that point stead at the corpus
// (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME, XDG_DATA_HOME,
// KIMI_CODE_HOME, KIMI_SHARE_DIR); DIR/manifest.json describes what was
// written, with the totals a correct reader must report. See package
// internal/corpusgen.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
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
	files := fs.Int("files", corpusgen.DefaultFiles, "number of sessions")
	size := fs.String("size", "1500000000", "approximate total size in bytes; suffixes K, M, G, T (powers of 1000) or Ki, Mi, Gi, Ti are accepted, e.g. 1.5G, 200M")
	clis := fs.String("clis", "claude,codex", "CLIs to write sessions of, comma-separated, or all: "+strings.Join(corpusgen.CLIs, ", ")+"; they share the sessions equally unless -mix weighs them")
	mix := fs.String("mix", "", "weights of the CLIs, e.g. claude=3,codex=2,gemini=1,opencode=1,kimi=1 (CLIs not named get none); overrides -clis")
	share := fs.Float64("claude-share", corpusgen.DefaultClaudeShare, "with -clis claude,codex and no -mix: fraction of sessions that are Claude Code (the rest are Codex)")
	malformed := fs.Int("malformed-every", corpusgen.DefaultMalformedEvery, "about one truncated line per this many JSON Lines sessions (0 means the default); negative disables")
	force := fs.Bool("force", false, "write into a non-empty directory, first removing a previous corpus's stores and manifest.json")
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
	weights, err := parseMix(*clis, *mix)
	if err != nil {
		return err
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
		Mix:            weights,
	})
	if err != nil {
		return err
	}
	var per []string
	for _, c := range corpusgen.CLIs {
		if t := m.CLIs[c]; t != nil {
			per = append(per, fmt.Sprintf("%d %s", t.Sessions, c))
		}
	}
	fmt.Fprintf(stdout, "wrote %d sessions (%s), %d bytes in %.1f s\n",
		m.Files, strings.Join(per, ", "), m.Bytes, time.Since(started).Seconds())
	fmt.Fprintln(stdout, "manifest:", filepath.Join(*outDir, "manifest.json"))
	abs, err := filepath.Abs(*outDir)
	if err != nil {
		abs = *outDir
	}
	fmt.Fprintln(stdout, "to read it with stead (HOME pointing at an empty folder keeps anything else out):")
	for _, kv := range corpusgen.Env(abs) {
		name, value, _ := strings.Cut(kv, "=")
		fmt.Fprintf(stdout, "export %s=%s\n", name, shellQuote(value))
	}
	return nil
}

// parseMix turns -clis and -mix into Options.Mix: nil for the Claude Code
// and Codex corpus of -claude-share.
func parseMix(clis, mix string) (map[string]float64, error) {
	weights := map[string]float64{}
	if mix != "" {
		for _, item := range strings.Split(mix, ",") {
			name, w, ok := strings.Cut(strings.TrimSpace(item), "=")
			if !ok {
				return nil, fmt.Errorf("-mix: %q is not CLI=weight", item)
			}
			v, err := strconv.ParseFloat(w, 64)
			if err != nil || !(v >= 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("-mix: weight of %s must be a non-negative number, got %q", name, w)
			}
			if !slices.Contains(corpusgen.CLIs, name) {
				return nil, fmt.Errorf("-mix: unknown CLI %q (known: %s)", name, strings.Join(corpusgen.CLIs, ", "))
			}
			weights[name] = v
		}
		return weights, nil
	}
	if strings.TrimSpace(clis) == "all" {
		return corpusgen.EqualMix(), nil
	}
	for _, name := range strings.Split(clis, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(corpusgen.CLIs, name) {
			return nil, fmt.Errorf("-clis: unknown CLI %q (known: %s, or all)", name, strings.Join(corpusgen.CLIs, ", "))
		}
		weights[name] = 1
	}
	if len(weights) == 2 && weights["claude"] == 1 && weights["codex"] == 1 {
		return nil, nil // -claude-share splits them, as it always did
	}
	return weights, nil
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._-+:,@", c))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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
	for _, name := range corpusgen.Entries {
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
