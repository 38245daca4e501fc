package runs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	oklog "github.com/oklog/run"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// Detach stores s on the bus and asks a worker (the daemon, or any
// worker on the bus's NATS) to run it; it returns the run's record once
// the CLI runs there. The run gets sv's environment, not the worker's.
func (sv *Supervisor) Detach(ctx context.Context, s *session.Session, spec Spec) (live.Run, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return live.Run{}, err
	}
	spec.Source = HistoryObject(spec.ID)
	if err := sv.Bus.PutSession(ctx, spec.Source, bytes.NewReader(data)); err != nil {
		return live.Run{}, err
	}
	env := sv.Env
	req, err := json.Marshal(WorkRequest{V: WorkVersion, Spec: spec, Env: &env, Host: bus.HostName(sv.host())})
	if err != nil {
		return live.Run{}, fmt.Errorf("the work request for run %s: %w", spec.ID, err)
	}
	rctx, cancel := context.WithTimeout(ctx, detachWait)
	defer cancel()
	// A job of the work queue, which outlives the worker that takes it;
	// a daemon of an older stead keeps no queue, and takes requests.
	out, err := sv.Bus.RequestJob(rctx, spec.ID, req)
	if errors.Is(err, bus.ErrNoWorkQueue) {
		out, err = sv.Bus.Request(rctx, bus.WorkSubject, req)
	}
	if err != nil {
		return live.Run{}, err
	}
	var reply WorkReply
	if err := json.Unmarshal(out, &reply); err != nil || reply.Code == "" {
		return live.Run{}, fmt.Errorf("the worker's reply is not a stead work reply: %s", safetext.QuoteN(string(out), 80))
	}
	if err := reply.Err(); err != nil {
		return live.Run{}, fmt.Errorf("the worker: %w", err)
	}
	if reply.Run == nil {
		return live.Run{}, errors.New("the worker's reply names no run")
	}
	return *reply.Run, nil
}

// detachWait is how long Detach waits for a worker to place the session
// and start the CLI (chosen, not measured: a start takes a few seconds,
// more on a loaded machine).
const detachWait = 60 * time.Second

// Worker is the work of stead's daemon, in a type a test can run in its
// own process: it takes detached runs from the bus's work queue and
// supervises them, and it ends the runs of its host whose supervisor is
// gone (a command killed with SIGKILL, a daemon before a restart),
// storing their sessions from what the bus captured.
type Worker struct {
	// Supervisor runs the work: its bus, logger, and the environment
	// of a request that carries none.
	Supervisor Supervisor
	// Host names this machine in the runs' records; "" is its hostname.
	Host string
	// Projects is where the projects of runs continued from another
	// machine are rebuilt from git, when their folder is not on this
	// one; "" is a folder in the system's temporary folder.
	Projects string
	// HandoverWait is how long a stopping worker lets a turn under way
	// end before it hands its run to another worker (0: at once). A
	// worker hands its runs over when another answers on the bus; when
	// none does, they end here, interrupted.
	HandoverWait time.Duration
}

// Run takes work until ctx ends, then waits for the runs it started,
// whose CLIs ctx stops. Runs that a killed supervisor of this host left
// are ended first; it looks for more every RecoverEvery.
func (w *Worker) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sv := &w.Supervisor
	if sv.Host == "" {
		sv.Host = w.Host // the runs' records name the machine as the worker does
	}
	host := sv.host()
	var wg sync.WaitGroup // ends when the runs this worker started have
	var active sync.Map   // the runs this worker supervises now
	rc := &recoverer{sv: sv, b: sv.Bus, host: host, mine: func(id string) bool { _, ok := active.Load(id); return ok }}
	if n, err := rc.scan(ctx); err != nil {
		sv.logger().Warn("looking for runs whose supervisor is gone", "err", err)
	} else if n > 0 {
		sv.notify(fmt.Errorf("ended %d runs whose supervisor was gone (stead runs lists them)", n))
	}
	// Work is taken from the moment the worker is up (a command that
	// started the daemon asks at once): jobs of the work queue, and the
	// requests of older stead commands.
	jobs, err := sv.Bus.Jobs(ctx)
	if errors.Is(err, bus.ErrNoWorkQueue) {
		sv.logger().Warn("the bus keeps no work queue (its daemon is an older stead): runs are taken by request, and end with this worker")
	} else if err != nil {
		if ctx.Err() != nil {
			return nil // stopped as it began
		}
		return err
	}
	// Up for the runs other workers hand over as they stop, until this
	// one stops.
	stopAnswer, err := sv.Bus.AnswerWorkers(bus.HostName(host))
	if err != nil {
		return err
	}
	context.AfterFunc(ctx, stopAnswer)
	stopWork, err := sv.Bus.Handle(bus.WorkSubject, bus.WorkQueue, func(data []byte) []byte {
		out, _ := json.Marshal(w.start(ctx, data, &wg, &active))
		return out
	})
	if err != nil {
		return err
	}
	var g oklog.Group
	g.Add(func() error { // The work: taken until ctx ends, then its runs end.
		err := w.takeJobs(ctx, jobs, &wg, &active)
		stopWork()
		wg.Wait()
		return err
	}, func(error) { cancel() })
	g.Add(func() error { // The runs whose supervisor is gone.
		t := time.NewTicker(RecoverEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
				if _, err := rc.scan(ctx); err != nil && ctx.Err() == nil {
					sv.logger().Warn("looking for runs whose supervisor is gone", "err", err)
				}
			}
		}
	}, func(error) { cancel() })
	return g.Run()
}

// start starts a detached run and replies once its CLI is running.
func (w *Worker) start(ctx context.Context, data []byte, wg *sync.WaitGroup, active *sync.Map) WorkReply {
	spec, env, err := ParseWork(data)
	if err != nil {
		return workReply(nil, fmt.Errorf("%w: %w", bus.ErrBadRequest, err))
	}
	sv := w.Supervisor
	if env != nil {
		// The run is the asking command's: its environment, not the
		// worker's (which may be another shell's, or older).
		sv.Env = *env
	}
	s, err := sv.stored(ctx, spec.Source)
	if err != nil {
		sv.Failed(spec, err)
		return workReply(nil, err)
	}
	started := make(chan live.Run, 1)
	failed := make(chan error, 1)
	wg.Add(1)
	active.Store(spec.ID, true)
	go func() {
		defer wg.Done()
		defer active.Delete(spec.ID)
		rec, err := sv.Run(ctx, s, spec, nil, func(r live.Run) { started <- r })
		if err != nil {
			sv.logger().Warn("run ended", "run", spec.ID, "err", err)
			failed <- err
			return
		}
		sv.logger().Info("run ended", "run", rec.ID, "state", rec.State)
	}()
	select {
	case r := <-started:
		return workReply(&r, nil)
	case err := <-failed:
		return workReply(nil, err)
	}
}

// stored reads a universal session stored on the bus under name.
func (sv *Supervisor) stored(ctx context.Context, name string) (*session.Session, error) {
	r, err := sv.Bus.Session(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("the run's session %s: %w", name, err)
	}
	defer r.Close()
	var s session.Session
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return nil, fmt.Errorf("the run's session %s: %w", name, err)
	}
	return &s, nil
}
