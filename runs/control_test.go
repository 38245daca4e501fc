package runs

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/live"
)

// TestWatchTerminalToTheEnd: a terminal watch gets every byte a run wrote
// and returns when the run has ended, however its output and its final
// status arrive: output before the watch starts, output while it runs, and
// a run with no output at all. No sleep stands in for "the last output
// got through".
func TestWatchTerminalToTheEnd(t *testing.T) {
	b, err := bus.New(context.Background(), bus.Options{StoreDir: filepath.Join(t.TempDir(), "nats")})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	status := func(id string, st live.RunState) {
		data, _ := json.Marshal(live.Status{Run: id, State: st, Time: time.Now()})
		if err := b.Publish(ctx, id, bus.Status, data, ""); err != nil {
			t.Fatal(err)
		}
	}
	write := func(id string, chunks int) string {
		var want strings.Builder
		for i := range chunks {
			chunk := strings.Repeat(string(rune('a'+i%26)), 1000)
			want.WriteString(chunk)
			if err := b.PublishTerminal(id, []byte(chunk)); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Flush(ctx); err != nil { // as a supervisor does before the final status
			t.Fatal(err)
		}
		return want.String()
	}
	for _, tc := range []struct {
		name   string
		before int // chunks written before the watch starts
		during int // and while it runs
	}{
		{"all before", 300, 0},
		{"all during", 0, 300},
		{"both", 50, 250},
		{"no output", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := NewID()
			status(id, live.RunStarting)
			want := write(id, tc.before)
			var out bytes.Buffer
			done := make(chan error, 1)
			sv := &Supervisor{Bus: b}
			go func() { done <- sv.WatchTerminal(ctx, id, &out) }()
			want += write(id, tc.during)
			status(id, live.RunExited)
			if err := <-done; err != nil {
				t.Fatalf("WatchTerminal: %v", err)
			}
			if out.String() != want {
				t.Errorf("the watch copied %d bytes; want all %d the run wrote", out.Len(), len(want))
			}
		})
	}
}
