package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	oklog "github.com/oklog/run"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/supervisor"
)

// Steering a run that runs anywhere, through the bus: what stead send,
// stop, attach and watch --terminal do, for any front end.

// ErrEnded is a request to a run that has ended: nothing takes input.
var ErrEnded = errors.New("the run has ended")

// Running returns the record of the run ref names (see ResolveRun), or
// ErrEnded when it has ended.
func (sv *Supervisor) Running(ctx context.Context, ref string) (live.Run, error) {
	r, err := sv.ResolveRun(ctx, ref)
	if err != nil {
		return r, err
	}
	if r.State.Done() {
		return r, &saidError{msg: fmt.Sprintf("run %s has ended (%s%s): nothing takes input", r.ID, r.State, reasonSuffix(r.Reason)), is: ErrEnded}
	}
	return r, nil
}

func reasonSuffix(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + reason
}

// Prompt types prompt into run r's CLI the way it takes a prompt, once it
// is ready (its supervisor waits at most PromptWait), and returns when the
// CLI took it.
func (sv *Supervisor) Prompt(ctx context.Context, r live.Run, prompt string) error {
	b := sv.Bus
	return toSupervisor(ctx, b, r, func() error { return b.Ask(ctx, r.ID, bus.Request{Op: bus.OpPrompt, Prompt: prompt}) })
}

// Input types data into run r's terminal as it is.
func (sv *Supervisor) Input(ctx context.Context, r live.Run, data []byte) error {
	b := sv.Bus
	return toSupervisor(ctx, b, r, func() error { return b.Send(ctx, r.ID, data) })
}

// Stop makes run r's CLI exit (its quit keys, then signals to its process
// group) and returns the run's final record, once its capture has drained.
func (sv *Supervisor) Stop(ctx context.Context, r live.Run) (live.Run, error) {
	b := sv.Bus
	if err := toSupervisor(ctx, b, r, func() error { return b.Ask(ctx, r.ID, bus.Request{Op: bus.OpStop}) }); err != nil {
		return r, err
	}
	return sv.Ended(ctx, r.ID)
}

// Ended waits until run id's record says it ended, and returns it.
func (sv *Supervisor) Ended(ctx context.Context, id string) (live.Run, error) {
	b := sv.Bus
	// The record is final once the capture drained: it is read again
	// until then (a watch of the status stream would end on the final
	// status, which comes a moment before the record is stored).
	for {
		r, err := b.Run(ctx, id)
		if err != nil {
			return r, err
		}
		if r.State.Done() {
			return r, nil
		}
		select {
		case <-ctx.Done():
			return r, fmt.Errorf("run %s: its CLI stopped but the run did not end: %w", id, ctx.Err())
		case <-time.After(endedPoll):
		}
	}
}

// endedPoll is how often Ended reads the run's record (its supervisor
// stores it within milliseconds of the CLI's exit).
const endedPoll = 50 * time.Millisecond

// toSupervisor sends a request to run r's supervisor. A detached run
// whose supervisor does not answer may be moving to another worker (its
// worker was lost, or stopped and handed it over, and another is starting
// its CLI): the request is sent again until one answers, the run ends, or
// moveWait has passed.
func toSupervisor(ctx context.Context, b *bus.Bus, r live.Run, send func() error) error {
	deadline := time.Now().Add(moveWait)
	for {
		err := send()
		if !errors.Is(err, bus.ErrNotListening) || !r.Durable {
			return unanswered(ctx, b, r, err)
		}
		now, rerr := b.Run(ctx, r.ID)
		if rerr != nil || now.State.Done() || time.Now().After(deadline) {
			return unanswered(ctx, b, r, err)
		}
		r = now
		select {
		case <-ctx.Done():
			return unanswered(ctx, b, r, err)
		case <-time.After(moveAsk):
		}
	}
}

// moveWait is how long a request to a detached run waits for its next
// supervisor: a lost worker's lease expires and its job goes to another
// within bus.JobAckWait, whose CLI then starts (measured: 12-24 s in all).
// moveAsk is how often it asks meanwhile.
const (
	moveWait = 60 * time.Second
	moveAsk  = 250 * time.Millisecond
)

// unanswered explains a request no supervisor took: the run ended
// meanwhile, or its supervisor is gone.
func unanswered(ctx context.Context, b *bus.Bus, r live.Run, err error) error {
	if !errors.Is(err, bus.ErrNotListening) {
		return err
	}
	if now, rerr := b.Run(ctx, r.ID); rerr == nil && now.State.Done() {
		return &saidError{msg: fmt.Sprintf("run %s has ended (%s%s)", r.ID, now.State, reasonSuffix(now.Reason)), is: ErrEnded}
	}
	if r.Durable {
		return fmt.Errorf("run %s is %s, but no supervisor answered within %s (its last, stead %s, may have been lost; another worker continues it once its lease expires, when one is up): %w",
			r.ID, r.State, moveWait, r.Supervisor, err)
	}
	return fmt.Errorf("run %s is %s, but its supervisor (stead %s) does not answer: it may have been killed; the stead daemon ends such a run within %s, keeping what the bus captured: %w",
		r.ID, r.State, r.Supervisor, RecoverEvery, err)
}

// WatchTerminal copies run id's terminal output to out, from its start,
// until ctx ends or the run has ended and out has had all of it. A
// supervisor stores the terminal output before the run's final status
// (Run), so the position of its last output, read when the status says
// the run ended, is where the copy ends.
func (sv *Supervisor) WatchTerminal(ctx context.Context, id string, out io.Writer) error {
	b := sv.Bus
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu        sync.Mutex
		seen, end uint64 // the last output copied; the run's last (0: not known)
	)
	var g oklog.Group
	g.Add(func() error { // The run's end, from its status.
		err := b.Watch(ctx, id, bus.FromStart, func(m bus.Msg) error {
			var st live.Status
			if json.Unmarshal(m.Data, &st) == nil && st.State.Done() {
				return bus.ErrStop
			}
			return nil
		}, bus.Status)
		if err != nil || ctx.Err() != nil {
			return err
		}
		last, err := b.Last(ctx, id, bus.PTY)
		if err != nil {
			return err
		}
		mu.Lock()
		caughtUp := seen >= last
		end = last
		mu.Unlock()
		if !caughtUp {
			<-ctx.Done() // the output actor ends the watch
		}
		return nil
	}, func(error) { cancel() })
	g.Add(func() error { // The output.
		return b.Watch(ctx, id, bus.FromStart, func(m bus.Msg) error {
			if _, err := out.Write(m.Data); err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			seen = m.Seq
			if end != 0 && seen >= end {
				return bus.ErrStop
			}
			return nil
		}, bus.PTY)
	}, func(error) { cancel() })
	err := g.Run()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// Attach shows run id's live terminal on out, on a screen of its own, and
// types what in gets into it, until the user detaches (Ctrl-]), the run
// ends, or ctx ends. in must be a terminal; it is in raw mode meanwhile.
func (sv *Supervisor) Attach(ctx context.Context, id string, in *os.File, out io.Writer) error {
	b := sv.Bus
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Raw before the run's screen is replayed beside Attach, not when
	// Attach gets to it (TestLiveAttach saw the replay in a cooked
	// terminal in CI at 88b37b4).
	unraw, err := supervisor.Raw(in)
	if err != nil {
		return err
	}
	defer unraw()
	// The run's terminal gets a screen of its own: detaching puts the
	// user's back as it was.
	restore := supervisor.ShowOn(out)
	defer restore()
	var g oklog.Group
	g.Add(func() error { return sv.WatchTerminal(ctx, id, out) }, func(error) { cancel() })
	g.Add(func() error {
		err := supervisor.Attach(ctx, in, busTerminal{ctx: ctx, b: b, run: id}, true)
		if errors.Is(err, supervisor.ErrDetached) {
			return nil
		}
		return err
	}, func(error) { cancel() })
	return g.Run()
}

// busTerminal is a run's terminal reached through the bus.
type busTerminal struct {
	ctx context.Context
	b   *bus.Bus
	run string
}

func (t busTerminal) Write(p []byte) (int, error) {
	if err := t.b.Send(t.ctx, t.run, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (t busTerminal) Resize(rows, cols uint16) error {
	return t.b.Ask(t.ctx, t.run, bus.Request{Op: bus.OpResize, Rows: rows, Cols: cols})
}
