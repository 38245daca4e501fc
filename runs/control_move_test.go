package runs_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/runs"
)

// TestPromptWaitsForTheNextSupervisor: a prompt sent to a detached run
// while it moves to another worker (no supervisor answers yet) is typed
// once the next supervisor answers; to an attached run whose supervisor
// is gone, it fails at once, saying so.
func TestPromptWaitsForTheNextSupervisor(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b := listeningBus(t)
	sv := &runs.Supervisor{Bus: b}
	moving := live.Run{ID: "r-moving", CLI: "codex", State: live.RunFailover, Supervisor: "node-1/42", Durable: true, Started: time.Now().UTC()}
	if err := b.PutRun(ctx, moving); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	time.AfterFunc(time.Second, func() { // the next supervisor, its CLI started
		if _, err := b.Serve(moving.ID, bus.Control, func(req bus.Request) error { got <- req.Prompt; return nil }); err != nil {
			t.Error(err)
		}
	})
	begin := time.Now()
	if err := sv.Prompt(ctx, moving, "carry on"); err != nil {
		t.Fatalf("a prompt to a run moving to another worker: %v", err)
	}
	if p := <-got; p != "carry on" || time.Since(begin) < 900*time.Millisecond {
		t.Errorf("the next supervisor got %q after %s", p, time.Since(begin))
	}

	attached := live.Run{ID: "r-attached", CLI: "codex", State: live.RunBusy, Supervisor: "host/43", Started: time.Now().UTC()}
	if err := b.PutRun(ctx, attached); err != nil {
		t.Fatal(err)
	}
	begin = time.Now()
	err := sv.Prompt(ctx, attached, "carry on")
	if !errors.Is(err, bus.ErrNotListening) || !strings.Contains(err.Error(), "may have been killed") || time.Since(begin) > 5*time.Second {
		t.Errorf("a prompt to an attached run whose supervisor is gone: %v after %s; want it refused at once", err, time.Since(begin))
	}
}
