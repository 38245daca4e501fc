package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

// BenchmarkBigRecord runs each command that reads one session, as a stead
// process of its own, on a Claude Code session holding one record of
// $STEAD_BENCH_LINE_MB megabytes (default 200: a command output of half
// that, written twice, as Claude Code writes it), and reports the
// process's peak resident memory (peak-RSS-MB, the kernel's count) and
// the input read per second. validate and import read the session as
// exported by stead (NDJSON: one line holding the session's entries and
// native records; CUSF: one line a message); import stores it on a real
// bus served by the benchmark.
//
//	STEAD_BENCH_LINE_MB=200 go test -run '^$' -bench BigRecord -benchtime 1x ./cmd/stead/
func BenchmarkBigRecord(b *testing.B) {
	benchCommands(b, samples.BigLine(b, benchMB(b, "STEAD_BENCH_LINE_MB", 200)))
}

// BenchmarkBigSession runs the same commands on a Claude Code session of
// $STEAD_BENCH_SESSION_MB megabytes (default 256) of records of everyday
// sizes (the testdata repeated): what they hold beyond the largest record.
//
//	STEAD_BENCH_SESSION_MB=256 go test -run '^$' -bench BigSession -benchtime 1x ./cmd/stead/
func BenchmarkBigSession(b *testing.B) {
	benchCommands(b, samples.Repeated(b, session.Claude, benchMB(b, "STEAD_BENCH_SESSION_MB", 256)))
}

func benchMB(b *testing.B, env string, def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(env), 10, 64); err == nil && v > 0 {
		def = v
	}
	return def << 20
}

// benchCommands runs each command that reads a session on the session
// file native, as a stead process, and reports its peak RSS.
func benchCommands(b *testing.B, native string) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "stead")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	bb, err := bus.New(context.Background(), bus.Options{StoreDir: filepath.Join(dir, "nats"), Listen: "127.0.0.1:0"})
	if err != nil {
		b.Fatal(err)
	}
	defer bb.Close()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(dir, "home"), "XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"STEAD_NATS_URL=" + bb.ClientURL(), "STEAD_NATS_TOKEN=" + bb.ClientToken()}
	// The interchange files, exported by stead when a benchmark needs them.
	exported := func(format string) func() string {
		return sync.OnceValue(func() string {
			path := filepath.Join(dir, "big."+format)
			cmd := exec.Command(bin, "session", "export", native, "--format", format, "-o", path)
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("export %s: %v\n%s", format, err, out)
			}
			return path
		})
	}
	ndjson, cusfFile := exported(formatNDJSON), exported(formatCUSF)
	nativeFile := func() string { return native }
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		name  string
		input func() string
		args  []string
	}{
		{"show-json", nativeFile, []string{"session", "show", native, "--json"}},
		{"show-md", nativeFile, []string{"session", "show", native}},
		{"show-md-full", nativeFile, []string{"session", "show", native, "--full"}},
		{"export-usf", nativeFile, []string{"session", "export", native, "--format", "usf", "-o", out}},
		{"export-ndjson", nativeFile, []string{"session", "export", native, "--format", "ndjson", "-o", out}},
		{"convert-codex", nativeFile, []string{"session", "convert", native, "--to", "codex", "-o", out}},
		{"validate-ndjson", ndjson, []string{"session", "validate"}},
		{"validate-cusf", cusfFile, []string{"session", "validate"}},
		{"import-ndjson", ndjson, []string{"session", "import"}},
		{"import-cusf", cusfFile, []string{"session", "import"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			input := c.input()
			args := c.args
			if input != native {
				args = append(args[:len(args):len(args)], input)
			}
			fi, err := os.Stat(input)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(fi.Size())
			peak := 0.0
			for i := 0; i < b.N; i++ {
				os.Remove(out)
				// Stdout goes to /dev/null, as a file: no pipe to drain.
				devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
				if err != nil {
					b.Fatal(err)
				}
				cmd := exec.Command(bin, args...)
				cmd.Env, cmd.Stdout = env, devnull
				var errOut bytes.Buffer
				cmd.Stderr = &errOut
				hwm, err := runPeak(cmd)
				devnull.Close()
				if err != nil {
					b.Fatalf("stead %v: %v\n%s", args, err, errOut.Bytes())
				}
				peak = max(peak, float64(hwm)/(1<<20))
			}
			b.ReportMetric(peak, "peak-RSS-MB")
			b.ReportMetric(float64(fi.Size())/(1<<20), "input-MB")
		})
	}
	os.Remove(out)
}

// runPeak runs cmd and returns its peak resident memory: the high-water
// mark the kernel keeps for its memory (VmHWM in /proc/<pid>/status),
// read every 2 ms while it runs. (The rusage of a child started by os/exec
// would not do: it counts the parent's peak too, as the child shares the
// parent's memory until it execs.)
func runPeak(cmd *exec.Cmd) (int64, error) {
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var peak int64
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for {
		if data, err := os.ReadFile(status); err == nil {
			for line := range strings.SplitSeq(string(data), "\n") {
				if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
					peak = max(peak, kb<<10)
				}
			}
		}
		select {
		case err := <-done:
			if peak == 0 {
				return 0, fmt.Errorf("no /proc/%d/status: resident memory cannot be read here", cmd.Process.Pid)
			}
			return peak, err
		case <-t.C:
		}
	}
}
