package capture_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/capture"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// busPub publishes a capture onto a real embedded bus, as stead does.
type busPub struct {
	b   *bus.Bus
	run string
}

func (p busPub) Terminal(d []byte) error { return p.b.PublishTerminal(p.run, d) }
func (p busPub) Native(line []byte, n int) error {
	return p.b.Publish(context.Background(), p.run, bus.Native, line, fmt.Sprintf("%s:n%d", p.run, n))
}
func (p busPub) Entry(ev session.Event) error {
	data, _ := json.Marshal(ev)
	return p.b.Publish(context.Background(), p.run, bus.Entry, data, "")
}
func (p busPub) Status(st live.Status) error {
	data, _ := json.Marshal(st)
	return p.b.Publish(context.Background(), p.run, bus.Status, data, "")
}

func benchBus(b *testing.B) *bus.Bus {
	bb, err := bus.New(context.Background(), bus.Options{StoreDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { bb.Close() })
	return bb
}

// subscribe delivers the run's messages of kind to a channel.
func subscribe(b *testing.B, bb *bus.Bus, run string, kind bus.Kind) chan time.Time {
	ch := make(chan time.Time, 1024)
	ctx, cancel := context.WithCancel(context.Background())
	start(b, "Watch", func() error {
		return watch(ctx, bb, run, kind, func(bus.Msg) {
			select {
			case ch <- time.Now():
			case <-ctx.Done():
			}
		})
	}, cancel)
	return ch
}

// watch watches a run on the bus until ctx ends.
func watch(ctx context.Context, bb *bus.Bus, run string, kind bus.Kind, fn func(bus.Msg)) error {
	err := bb.Watch(ctx, run, bus.FromStart, func(m bus.Msg) error { fn(m); return nil }, kind)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(p(0.50), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
}

// BenchmarkRecordToSubscriber: a Claude record appended to the session
// file, followed by the capture, decoded and published, until a bus
// subscriber has its universal entry.
func BenchmarkRecordToSubscriber(b *testing.B) {
	bb := benchBus(b)
	a, _ := adapters.Lookup("claude")
	path := filepath.Join(b.TempDir(), "s.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	c := capture.New(capture.Config{Run: "bench", CLI: "claude"}, busPub{bb, "bench"})
	fol := capture.Follow(path, 0)
	start(b, "File", func() error {
		defer fol.Close()
		return c.File(fol, 0, func(r io.Reader) capture.Decoder { return a.NewDecoder(r) })
	}, fol.Stop)
	got := subscribe(b, bb, "bench", bus.Entry)
	pad := strings.Repeat("x", 400)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		rec := fmt.Sprintf(`{"type":"user","uuid":"u-%d","parentUuid":null,"sessionId":"s","timestamp":"2026-11-21T10:00:00Z","message":{"role":"user","content":"prompt %d %s"}}`+"\n", i, i, pad)
		start := time.Now()
		if _, err := f.WriteString(rec); err != nil {
			b.Fatal(err)
		}
		select {
		case t := <-got:
			lat = append(lat, t.Sub(start))
		case <-time.After(5 * time.Second):
			b.Fatalf("record %d: no entry on the bus within 5 s", i)
		}
	}
	b.StopTimer()
	reportLatency(b, lat)
}

// BenchmarkTerminalToSubscriber: bytes a CLI writes to its terminal,
// until a bus subscriber has them.
func BenchmarkTerminalToSubscriber(b *testing.B) {
	bb := benchBus(b)
	c := capture.New(capture.Config{Run: "tty"}, busPub{bb, "tty"})
	r, w := io.Pipe()
	start(b, "Terminal", func() error { return c.Terminal(r, nil) }, func() { w.Close() })
	got := subscribe(b, bb, "tty", bus.PTY)
	chunk := []byte(strings.Repeat("\x1b[2Kline of output ", 50))
	lat := make([]time.Duration, 0, b.N)
	b.SetBytes(int64(len(chunk)))
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		w.Write(chunk)
		select {
		case t := <-got:
			lat = append(lat, t.Sub(start))
		case <-time.After(5 * time.Second):
			b.Fatal("no terminal output on the bus within 5 s")
		}
	}
	b.StopTimer()
	reportLatency(b, lat)
}

// statusWaiter delivers the states published for a run.
func statusWaiter(b *testing.B, bb *bus.Bus, run string) chan live.RunState {
	ch := make(chan live.RunState, 64)
	ctx, cancel := context.WithCancel(context.Background())
	start(b, "Watch", func() error {
		return watch(ctx, bb, run, bus.Status, func(m bus.Msg) {
			var st live.Status
			if json.Unmarshal(m.Data, &st) != nil {
				return
			}
			select {
			case ch <- st.State:
			case <-ctx.Done():
			}
		})
	}, cancel)
	return ch
}

func awaitState(b *testing.B, ch chan live.RunState, want live.RunState) time.Time {
	b.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case st := <-ch:
			if st == want {
				return time.Now()
			}
		case <-timeout:
			b.Fatalf("no %s status on the bus within 5 s", want)
		}
	}
}

// liveCapture starts a capture of cli's session file at path with its
// TUI's live signals, already past startup; term, when not nil, is the
// CLI's terminal, and endTerm ends it.
func liveCapture(b *testing.B, bb *bus.Bus, run, cli, path string, env session.Env, term io.Reader, endTerm func()) *capture.Capture {
	a, _ := adapters.Lookup(cli)
	c := capture.New(capture.Config{Run: run, CLI: cli, TUI: *a.TUI, Env: env}, busPub{bb, run})
	ctx, cancel := context.WithCancel(context.Background())
	fol := capture.Follow(path, 0)
	start(b, "File", func() error {
		defer fol.Close()
		return c.File(fol, 0, func(r io.Reader) capture.Decoder { return a.NewDecoder(r) })
	}, fol.Stop)
	start(b, "Readiness", func() error { return c.Readiness(ctx) }, cancel)
	start(b, "StatusFile", func() error { return c.StatusFile(ctx, 4242, capture.StatusEvery) }, cancel)
	if term != nil {
		start(b, "Terminal", func() error { return c.Terminal(term, nil) }, endTerm)
	}
	c.Set(live.RunReady, "bench", "", nil)
	return c
}

// BenchmarkIdleFromStatusFile: Claude's turn is in its session file and
// its status file turns "idle"; the time until the ready status reaches
// a bus subscriber.
func BenchmarkIdleFromStatusFile(b *testing.B) {
	bb := benchBus(b)
	root := b.TempDir()
	env := session.Env{Home: root, Vars: map[string]string{"CLAUDE_CONFIG_DIR": root}}
	os.MkdirAll(filepath.Join(root, "sessions"), 0o755)
	statusPath := filepath.Join(root, "sessions", "4242.json")
	setStatus := func(s string) {
		tmp := statusPath + ".tmp"
		os.WriteFile(tmp, []byte(`{"pid":4242,"sessionId":"s","status":"`+s+`","updatedAt":`+fmt.Sprint(time.Now().UnixMilli())+`}`), 0o644)
		os.Rename(tmp, statusPath)
	}
	path := filepath.Join(root, "s.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	states := statusWaiter(b, bb, "idle-claude")
	liveCapture(b, bb, "idle-claude", "claude", path, env, nil, nil)
	awaitState(b, states, live.RunReady)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		setStatus("busy")
		awaitState(b, states, live.RunBusy)
		fmt.Fprintf(f, `{"type":"assistant","uuid":"a-%d","parentUuid":null,"sessionId":"s","timestamp":"2026-11-21T10:00:00Z","message":{"id":"m-%d","role":"assistant","model":"m","content":[{"type":"text","text":"answer %d"}],"usage":{"input_tokens":1,"output_tokens":1}}}`+"\n", i, i, i)
		fmt.Fprintf(f, `{"type":"system","subtype":"turn_duration","durationMs":900,"uuid":"t-%d","parentUuid":null,"sessionId":"s","timestamp":"2026-11-21T10:00:01Z"}`+"\n", i)
		// The file is written before the status turns idle; the idle
		// comes at any point of the poll's period.
		time.Sleep(20*time.Millisecond + time.Duration(rand.Int64N(int64(capture.StatusEvery))))
		start := time.Now()
		setStatus("idle")
		lat = append(lat, awaitState(b, states, live.RunReady).Sub(start))
	}
	b.StopTimer()
	reportLatency(b, lat)
}

// BenchmarkIdleFromTitle: Gemini sets its title to "◇  Ready" and, as
// measured, writes its answer to the session file 5 to 10 ms later; the
// time from the title until the ready status reaches a bus subscriber.
func BenchmarkIdleFromTitle(b *testing.B) {
	bb := benchBus(b)
	path := filepath.Join(b.TempDir(), "session.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	f.WriteString(`{"sessionId":"s","projectHash":"p","startTime":"2026-11-21T10:00:00Z","lastUpdated":"2026-11-21T10:00:00Z","kind":"main"}` + "\n")
	term, tw := io.Pipe()
	defer tw.Close()
	title := func(t string) { fmt.Fprintf(tw, "\x1b]0;%-80s\x07", t) }
	states := statusWaiter(b, bb, "idle-gemini")
	liveCapture(b, bb, "idle-gemini", "gemini", path, session.Env{}, term, func() { tw.Close() })
	awaitState(b, states, live.RunReady)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		title("✦  Working… (proj)")
		awaitState(b, states, live.RunBusy)
		fmt.Fprintf(f, `{"id":"u-%d","timestamp":"2026-11-21T10:00:00Z","type":"user","content":[{"text":"prompt %d"}]}`+"\n", i, i)
		time.Sleep(20*time.Millisecond + time.Duration(rand.Int64N(int64(10*time.Millisecond))))
		start := time.Now()
		title("◇  Ready (proj)")
		time.Sleep(7 * time.Millisecond)
		fmt.Fprintf(f, `{"id":"g-%d","timestamp":"2026-11-21T10:00:01Z","type":"gemini","content":"answer %d","thoughts":[],"tokens":{"input":1,"output":1,"total":2},"model":"m"}`+"\n", i, i)
		lat = append(lat, awaitState(b, states, live.RunReady).Sub(start))
	}
	b.StopTimer()
	reportLatency(b, lat)
}
