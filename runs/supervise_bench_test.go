package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/session"
)

// fakeCodex stands in for Codex in the supervision benchmark: it finds
// the rollout it was asked to resume, turns bracketed paste on, appends
// $RECORDS assistant messages to the rollout while printing a line for
// each ($DELAY seconds apart, when set), then waits to be interrupted (or
// exits, with $EXIT set).
const fakeCodex = `#!/bin/sh
for a; do id=$a; done
f=$(find "$CODEX_HOME/sessions" -name "*$id.jsonl" | head -n 1)
[ -n "$f" ] || { echo "no rollout for $id" >&2; exit 3; }
printf '\033[?2004h'
i=0
while [ $i -lt "$RECORDS" ]; do
  printf '{"timestamp":"2026-11-21T10:00:00.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"answer %d"}]}}\n' $i >>"$f"
  printf 'working on %d\r\n' $i
  i=$((i+1))
  [ -z "$DELAY" ] || sleep "$DELAY"
done
[ -z "$EXIT" ] || exit 0
exec cat >/dev/null
`

// rss is the process's resident memory in bytes.
func rss(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status: resident memory cannot be read here")
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}

// BenchmarkSupervise32 supervises 32 CLIs at once, as the daemon does:
// each placed in its store, started under a terminal, its terminal and
// session file captured onto a real embedded bus. It counts every entry
// on the bus (none may be lost) and reports the memory each run costs the
// supervisor.
func BenchmarkSupervise32(b *testing.B) {
	const runs, records = 32, 1000
	root := b.TempDir()
	cli := filepath.Join(root, "codex")
	if err := os.WriteFile(cli, []byte(fakeCodex), 0o755); err != nil {
		b.Fatal(err)
	}
	proj := filepath.Join(root, "proj")
	os.MkdirAll(proj, 0o755)
	env := session.Env{Home: root, Vars: map[string]string{
		"HOME": root, "PATH": os.Getenv("PATH"), "CODEX_HOME": filepath.Join(root, ".codex"),
		"STEAD_CODEX_BIN": cli, "RECORDS": strconv.Itoa(records),
	}}
	bb, err := bus.New(context.Background(), bus.Options{StoreDir: filepath.Join(root, "nats")})
	if err != nil {
		b.Fatal(err)
	}
	defer bb.Close()
	src := &session.Session{Source: session.Source{CLI: "claude", OriginalID: "s1"}, Timeline: []session.Entry{
		{ID: "u1", Type: session.User, Content: "Start the work"},
		{ID: "a1", Type: session.Assistant, Content: "On it."},
	}}

	var perRun, heapPerRun float64
	for n := range b.N {
		base, baseHeap := rss(b), liveHeap()
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		errs := make(chan error, runs)
		counts := make([]*atomic.Int64, runs)
		for i := range runs {
			id := fmt.Sprintf("bench-%d-%d", n, i)
			counts[i] = countEntries(ctx, bb, id)
			wg.Go(func() {
				spec := Spec{ID: id, To: "codex", Dir: proj}
				if _, err := (&Supervisor{Bus: bb, Env: env}).Run(ctx, src, spec, nil, nil); err != nil {
					errs <- fmt.Errorf("%s: %w", id, err)
				}
			})
		}
		deadline := time.Now().Add(2 * time.Minute)
		for i, c := range counts {
			for c.Load() < records && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if got := c.Load(); got != records {
				b.Fatalf("run %d: %d of %d entries reached the bus", i, got, records)
			}
		}
		used, heap := rss(b)-base, liveHeap()-baseHeap
		cancel()
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Error(err)
		}
		perRun = max(perRun, float64(used)/runs/(1<<20))
		heapPerRun = max(heapPerRun, float64(heap)/runs/(1<<20))
	}
	b.ReportMetric(perRun, "RSS-MB/run")
	b.ReportMetric(heapPerRun, "heap-MB/run")
}

// countEntries counts the entries a run puts on the bus.
func countEntries(ctx context.Context, bb *bus.Bus, run string) *atomic.Int64 {
	n := new(atomic.Int64)
	go bb.Watch(ctx, run, bus.FromStart, func(m bus.Msg) error {
		var ev session.Event
		if err := json.Unmarshal(m.Data, &ev); err == nil {
			n.Add(int64(len(ev.Entries)))
		}
		return nil
	}, bus.Entry)
	return n
}
