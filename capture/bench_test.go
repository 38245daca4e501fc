package capture_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/capture"
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
func (p busPub) Status(st session.Status) error {
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
func subscribe(b *testing.B, bb *bus.Bus, run, kind string) chan time.Time {
	ch := make(chan time.Time, 1024)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	go bb.Watch(ctx, run, bus.FromStart, func(bus.Msg) error { ch <- time.Now(); return nil }, kind)
	return ch
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
	go c.File(fol, 0, func(r io.Reader) capture.Decoder { return a.NewDecoder(r) })
	defer fol.Stop()
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
	go c.Terminal(r, nil)
	defer w.Close()
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
