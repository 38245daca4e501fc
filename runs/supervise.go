package runs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	oklog "github.com/oklog/run"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/capture"
	"github.com/stead-dev/stead/inject"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
	"github.com/stead-dev/stead/supervisor"
	"github.com/stead-dev/stead/vt"
)

// Run writes s into the target CLI's store, starts the CLI on it under
// a terminal, captures it onto the bus until it exits, and stores the
// whole session. With term the user's terminal is attached; started,
// when set, is told the run's record once its CLI runs.
func (sv *Supervisor) Run(ctx context.Context, s *session.Session, spec Spec, term *Terminal, started func(live.Run)) (live.Run, error) {
	return sv.runWith(ctx, s, spec, term, started, runOpts{})
}

// runOpts are what a worker's runs add to a run: it is a job of the work
// queue, held under a lease (ctx ends with the cause ErrLeaseGone when
// it is lost), and may continue a run another worker lost.
type runOpts struct {
	durable bool
	// held is the run's lease, when it has one: nothing of the run is
	// written once it is not fresh.
	held *Held
	// resumed is set when the run continues where a lost worker left it.
	resumed *resumed
	// handover is closed when the worker stops while another is up: a
	// turn under way is given handoverWait to end, then the CLI quits and
	// the run is left as it was (ErrHandedOver), for that worker to
	// continue.
	handover     <-chan struct{}
	handoverWait time.Duration
}

// handoverSignal marks the state a run was handed over in.
const handoverSignal = "handover"

// resumed is what a run taken over from a lost worker continues from.
type resumed struct {
	prior live.Run // the run's record as the lost worker left it
	// history is the session the run first started from (the final
	// session is it plus every entry the bus captured); captured counts
	// the entries the bus holds already.
	history  *session.Session
	captured int
	// retype is the prompt whose turn's answer never came, typed again;
	// the entry the CLI writes for it is the one the bus holds already.
	retype string
	// failover is this move, as announced.
	failover live.Failover
	// handover: the worker before stopped and handed the run over.
	handover bool
}

// fenced reports whether ctx ended because the run's lease was lost:
// another worker owns the run now, and this one writes nothing more of it.
func fenced(ctx context.Context) bool { return errors.Is(context.Cause(ctx), ErrLeaseGone) }

// lost reports whether the run's lease is lost, or not renewed within its
// TTL: another worker may own the run by now.
func (o runOpts) lost(ctx context.Context) bool {
	return fenced(ctx) || o.held != nil && !o.held.Fresh() && ctx.Err() == nil
}

func (sv *Supervisor) runWith(ctx context.Context, s *session.Session, spec Spec, term *Terminal, started func(live.Run), o runOpts) (live.Run, error) {
	rec, err := sv.run(ctx, s, spec, term, started, o)
	if o.lost(ctx) {
		return rec, fmt.Errorf("run %s: %w", spec.ID, ErrLeaseGone)
	}
	if errors.Is(err, ErrHandedOver) {
		return rec, err
	}
	if err != nil && !rec.State.Done() {
		// It failed before it ran: stead runs says why.
		if res := o.resumed; res != nil {
			sv.notContinued(ctx, res.prior, err)
		} else {
			failedRun(sv.Bus, sv.host(), spec, err, sv.logger())
		}
	}
	return rec, err
}

func (sv *Supervisor) run(ctx context.Context, s *session.Session, spec Spec, term *Terminal, started func(live.Run), o runOpts) (live.Run, error) {
	b := sv.Bus
	log := sv.logger().With("run", spec.ID)
	if err := Runnable(spec.To); err != nil {
		return live.Run{}, err
	}
	dst, _ := adapters.Lookup(spec.To)
	r, w := Injector(s.Source.CLI, dst)
	rep, err := inject.Install(s, r, w, inject.Options{Env: sv.Env, Dir: spec.Dir, Model: spec.Model, Tool: sv.Tool})
	if err != nil {
		return live.Run{}, fmt.Errorf("placing the session in %s: %w", dst.Name, err)
	}
	if sv.Placed != nil {
		sv.Placed(rep)
	}
	if spec.Source == "" {
		// Kept so that a run whose supervisor dies can still be
		// stored whole (stead's recovery of runs whose supervisor died).
		if err := putHistory(ctx, b, spec.ID, s); err != nil {
			log.Warn("storing the run's history", "err", err)
		}
	}
	host := sv.host()
	rec := live.Run{ID: spec.ID, CLI: dst.Name, SessionID: rep.Target.ID, Dir: spec.Dir, Source: &rep.Source,
		Path: rep.Placement.Path, Host: host, Supervisor: SupervisorName(host),
		State: live.RunStarting, Started: time.Now().UTC(), Durable: o.durable}
	whole := s // the final session: it, then what the bus captured
	base := 0  // entries the bus held before this run's CLI started
	if o.durable {
		// The project follows the run to another machine by git.
		if rec.Project = locateProject(spec.Dir); rec.Project != nil {
			rec.Project.Changes = ProjectObject(spec.ID)
		}
	}
	keepProject := make(chan struct{}, 1) // the project's changes are to be kept
	if res := o.resumed; res != nil {
		whole, base = res.history, res.captured
		rec.Started, rec.Failovers, rec.Project = res.prior.Started, res.prior.Failovers, res.prior.Project
		rec.Failovers = append(rec.Failovers[:len(rec.Failovers):len(rec.Failovers)], res.failover)
	}

	tui := *dst.TUI
	l := live.Launch{Home: sv.Env.Home, Dir: spec.Dir, Resume: rep.Target.ID, Model: spec.Model, Auto: spec.Auto}
	bin, prefix, err := Program(sv.Env, dst.Name)
	if err != nil {
		return rec, err
	}
	// STEAD_RUN tells a later stead that the process is this run's CLI
	// (the recovery of runs whose supervisor died stops it only then).
	env := append(Environ(sv.Env), append(tui.Env, "STEAD_RUN="+spec.ID)...)
	var debugLog string // the CLI's debug log, and its length before the run
	var debugFrom int64
	if tui.DebugLog != nil {
		dir, err := os.MkdirTemp("", "stead-run-")
		if err != nil {
			return rec, fmt.Errorf("a directory for the run of %s: %w", dst.Name, err)
		}
		defer os.RemoveAll(dir)
		var vars []string
		vars, debugLog = tui.DebugLog(sv.Env, dir)
		if fi, err := os.Stat(debugLog); err == nil {
			debugFrom = fi.Size()
		}
		env = append(env, vars...)
	}
	ps := supervisor.Spec{Path: bin, Args: append(prefix, tui.Argv(l)...), Dir: spec.Dir, Env: env, Rows: 50, Cols: 200}
	if term != nil {
		if rows, cols, ok := termSize(term.In); ok {
			ps.Rows, ps.Cols = rows, cols
		}
	}

	giveUp, stopTrying := context.WithCancel(context.Background())
	defer stopTrying()
	drain := sv.Drain
	if drain <= 0 {
		drain = publishDrain
	}
	// handing is set once the run is being handed to another worker,
	// with the state it was handed over in.
	var handing atomic.Bool
	var handState live.RunState
	pub := &runPublisher{b: b, run: spec.ID, log: log, giveUp: giveUp, drain: drain, fenced: func() bool { return o.lost(ctx) }, quiet: handing.Load}
	if o.resumed != nil {
		pub.retyped = o.resumed.retype
		pub.epoch = fmt.Sprintf("f%d:", len(rec.Failovers))
	}
	c := capture.New(capture.Config{Run: spec.ID, CLI: dst.Name, TUI: tui, Env: sv.Env, Log: log,
		Screen: vt.New(int(ps.Rows), int(ps.Cols))}, pub)
	entries := func() int { return base + c.Entries() - int(pub.skipped.Load()) }
	pub.onStatus = func(st live.Status) {
		pub.mu.Lock()
		rec.State = st.State
		rec.Entries = entries()
		snapshot := rec
		pub.mu.Unlock()
		if st.State == live.RunReady || st.State == live.RunBusy {
			select {
			case keepProject <- struct{}{}:
			default:
			}
		}
		if !pub.failing.Load() && !o.lost(ctx) { // the final record is stored however long it takes
			PutRun(b, snapshot, log)
		}
	}

	// The project's changes, kept on the bus as the run goes from turn
	// to turn (a state of ready or busy), and at its end.
	var kept []byte
	keep := func() {
		pub.mu.Lock()
		p := rec.Project
		pub.mu.Unlock()
		if p == nil || o.lost(ctx) {
			return
		}
		patch, err := projectChanges(spec.Dir, p.Commit)
		if err != nil {
			log.Warn("keeping the project's changes", "err", err)
			return
		}
		if bytes.Equal(patch, kept) {
			return
		}
		if len(patch) > maxProjectPatch {
			log.Warn("the project's changes are too large to keep on the bus; a worker continuing the run elsewhere gets those kept before", "bytes", len(patch), "max", maxProjectPatch)
			return
		}
		sctx, scancel := context.WithTimeout(context.Background(), recordWait)
		defer scancel()
		if err := b.PutSession(sctx, ProjectObject(spec.ID), bytes.NewReader(patch)); err != nil {
			log.Warn("keeping the project's changes", "err", err)
			return
		}
		kept = patch
		np := *p
		np.Kept, np.Bytes = time.Now().UTC(), len(patch)
		pub.mu.Lock()
		rec.Project = &np
		snapshot := rec
		pub.mu.Unlock()
		if !o.lost(ctx) {
			PutRun(b, snapshot, log)
		}
	}

	// The history's length: what the CLI appends after it is new.
	var history int64
	var snap func() ([]session.Entry, error)
	if dst.NewDecoder != nil {
		if fi, err := os.Stat(rep.Placement.Path); err == nil {
			history = fi.Size()
		}
	} else {
		ref := session.Ref{CLI: dst.Name, ID: rep.Target.ID, Path: rep.Placement.Path}
		snap = func() ([]session.Entry, error) {
			s, err := dst.Open(sv.Env, ref)
			if err != nil {
				return nil, err
			}
			return s.Timeline, nil
		}
		if known, err := snap(); err == nil {
			c.Known(known)
		}
	}

	proc, err := supervisor.Start(ps)
	if err != nil {
		rec.State, rec.Reason, rec.Ended = live.RunFailed, err.Error(), time.Now().UTC()
		PutRun(b, rec, log)
		return rec, err
	}
	defer proc.Close()
	rec.PID = proc.Pid()
	PutRun(b, rec, log)
	pub.Status(live.Status{Run: spec.ID, State: live.RunStarting, Time: rec.Started, Signal: "process",
		Detail: fmt.Sprintf("%s %s (pid %d)", dst.Name, strings.Join(ps.Args, " "), proc.Pid())})
	if started != nil {
		started(rec)
	}
	log.Info("started", "cli", dst.Name, "pid", proc.Pid(), "session", rep.Target.ID)

	var stopped sync.Once
	onRequest := false
	var onceErr error        // why a run of one turn did not finish its turn
	var turnOver atomic.Bool // a run of one turn: its turn ended
	// The screen when stead cut the run short, taken by whichever actor
	// stops the CLI first, before it is stopped: what the CLI was doing,
	// not its goodbye.
	var cutScreen string
	stop := func() {
		stopped.Do(func() {
			if ctx.Err() != nil {
				cutScreen = screenTail(c)
			}
			onRequest = true
			steps := make([]supervisor.Step, 0, len(tui.Quit)+3)
			for _, k := range tui.Quit {
				steps = append(steps, supervisor.Step{Keys: []byte(k.Bytes), Wait: k.Wait})
			}
			i, err := proc.Stop(context.Background(), append(steps, supervisor.Escalation...))
			log.Info("stopped", "step", i, "err", err)
		})
	}

	var g oklog.Group
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	// What the bus could not store yet is retried while the run goes
	// on, and for publishDrain after it ended; then it is given up.
	context.AfterFunc(runCtx, func() { time.AfterFunc(pub.drain, stopTrying) })
	{ // The process: the run ends when it exits.
		g.Add(func() error {
			select {
			case <-proc.Done():
				return nil
			case <-runCtx.Done():
				stop()
				<-proc.Done()
				return nil
			}
		}, func(error) { cancel() })
	}
	{ // Terminal output: published, and shown on an attached terminal.
		var tee io.Writer
		if term != nil {
			tee = term.Out
		}
		done := make(chan struct{})
		g.Add(func() error {
			defer close(done)
			err := c.Terminal(proc, tee)
			// The terminal closes as the process exits, a moment
			// before it is reaped: the run ends with the process
			// (which would otherwise be stopped, as if on request).
			<-runCtx.Done()
			return err
		}, func(error) {
			// After the process exits the terminal reports EOF; wait
			// for the drain, but not forever (a grandchild may hold it).
			select {
			case <-done:
			case <-time.After(terminalDrain):
				proc.Close()
			}
		})
	}
	if snap == nil { // The session file.
		fol := capture.Follow(rep.Placement.Path, 0)
		decode := func(rd io.Reader) capture.Decoder { return dst.NewDecoder(rd) }
		g.Add(func() error {
			defer fol.Close()
			if err := c.File(fol, history, decode); err != nil {
				log.Warn("capturing the session file", "err", err)
			}
			<-runCtx.Done()
			return nil
		}, func(error) { fol.Stop() })
	} else {
		g.Add(func() error {
			return c.Snapshot(runCtx, snapshotEvery, snap)
		}, func(error) { cancel() })
	}
	if debugLog != "" { // The CLI's debug log: a model request failed for good.
		fol := capture.Follow(debugLog, debugLogEvery)
		g.Add(func() error {
			defer fol.Close()
			if err := c.DebugLog(fol, debugFrom); err != nil {
				log.Warn("following the CLI's debug log", "err", err)
			}
			<-runCtx.Done()
			return nil
		}, func(error) { fol.Stop() })
	}
	{ // Structural state: readiness, and the CLI's status file, each an
		// actor of the run's group (the status file's was a goroutine
		// no one joined: it could set a state after the run's record
		// was written).
		g.Add(func() error {
			c.Readiness(runCtx)
			<-runCtx.Done()
			return nil
		}, func(error) { cancel() })
		g.Add(func() error {
			c.StatusFile(runCtx, proc.Pid(), capture.StatusEvery)
			<-runCtx.Done()
			return nil
		}, func(error) { cancel() })
	}
	// typing is held while a prompt is delivered: the run's first prompt
	// and those sent on the bus are typed one at a time.
	var typing sync.Mutex
	{ // Input and control through the bus.
		stopInput, err := b.Serve(spec.ID, bus.Input, func(req bus.Request) error {
			_, err := proc.Write(req.Data)
			return exited(err)
		})
		if err != nil {
			return rec, err
		}
		stopControl, err := b.Serve(spec.ID, bus.Control, func(req bus.Request) error {
			switch req.Op {
			case bus.OpStop:
				stop()
				return nil
			case bus.OpPrompt:
				typing.Lock()
				defer typing.Unlock()
				_, err := deliver(runCtx, c, proc, tui, req.Prompt)
				return exited(err)
			default: // bus.OpResize
				return sized{proc, c}.Resize(req.Rows, req.Cols)
			}
		})
		if err != nil {
			stopInput()
			return rec, err
		}
		g.Add(func() error {
			<-runCtx.Done()
			return nil
		}, func(error) {
			// The run's end first: a prompt being delivered waits
			// on it, and stopControl waits for the prompt.
			cancel()
			stopInput()
			stopControl()
		})
	}
	if o.handover != nil { // The worker stops, and hands the run over.
		g.Add(func() error {
			select {
			case <-runCtx.Done():
				return nil
			case <-o.handover:
			}
			if c.State() == live.RunBusy {
				// A turn under way is let end: the worker taking
				// the run need not do it again.
				log.Info("this worker stops: the turn under way may end before the run is handed over", "wait", o.handoverWait)
				wait := time.NewTimer(o.handoverWait)
				defer wait.Stop()
				tick := time.NewTicker(100 * time.Millisecond)
				defer tick.Stop()
			turn:
				for c.State() == live.RunBusy {
					select {
					case <-runCtx.Done():
						return nil
					case <-wait.C:
						break turn
					case <-tick.C:
					}
				}
			}
			pub.mu.Lock()
			handState = c.State()
			pub.mu.Unlock()
			handing.Store(true)
			stop()
			<-runCtx.Done()
			return nil
		}, func(error) { cancel() })
	}
	if rec.Project != nil {
		g.Add(func() error {
			for {
				select {
				case <-runCtx.Done():
					return nil
				case <-keepProject:
					keep()
				}
			}
		}, func(error) { cancel() })
	}
	if spec.Trust && len(tui.Dialogs) > 0 {
		g.Add(func() error {
			answerTrust(runCtx, c, proc, log)
			<-runCtx.Done()
			return nil
		}, func(error) { cancel() })
	}
	if term == nil && (giveUpDialogs(tui.Dialogs) || tui.Failed != nil && len(tui.Cancel) > 0) {
		g.Add(func() error {
			answerGiveUp(runCtx, c, proc, tui.Cancel, log)
			<-runCtx.Done()
			return nil
		}, func(error) { cancel() })
	}
	if spec.Prompt != "" {
		g.Add(func() error {
			typing.Lock()
			turns, err := deliver(runCtx, c, proc, tui, spec.Prompt)
			typing.Unlock()
			if err != nil && runCtx.Err() == nil {
				log.Warn("delivering the prompt", "err", err)
				sv.notify(err)
			}
			if spec.Once {
				if err == nil {
					if err = waitTurn(runCtx, c, turns); err != nil {
						err = fmt.Errorf("%w (the run was %s)%s", err, c.State(), screenTail(c))
					} else if t := c.LastTurn(); t.Error != "" {
						turnOver.Store(true)
						err = fmt.Errorf("the turn ended in an error: %s", t.Error)
					} else if turnOver.Store(true); !t.Answered && !answerComes(runCtx, c) {
						err = fmt.Errorf("the turn ended without an answer from the model%s", screenTail(c))
					}
				}
				if err != nil && runCtx.Err() == nil {
					onceErr = err
				}
				stop()
			}
			<-runCtx.Done()
			return nil
		}, func(error) { cancel() })
	}
	if term != nil {
		// Raw before the CLI's screen is shown (the terminal actor
		// writes it beside Attach), as stead attach does.
		if unraw, err := supervisor.Raw(term.In); err != nil {
			log.Warn("terminal", "err", err)
		} else {
			defer unraw()
		}
		g.Add(func() error {
			err := supervisor.Attach(runCtx, term.In, sized{proc, c}, false)
			if err != nil && runCtx.Err() == nil {
				log.Warn("terminal", "err", err)
			}
			<-runCtx.Done()
			return nil
		}, func(error) { cancel() })
	}
	g.Run()
	if term != nil {
		// A CLI that was stopped, or killed, did not turn its
		// terminal modes off.
		supervisor.ResetModes(term.Out)
	}

	code, sig := proc.Exit()
	if o.lost(ctx) {
		// Another worker owns the run: its record, states and session
		// are that worker's to write.
		log.Warn("the run's lease was lost: its CLI is stopped, and the worker that took it continues the run", "cause", context.Cause(ctx))
		return rec, context.Cause(ctx)
	}
	if handing.Load() {
		return sv.handOver(b, pub, rec, handState, entries(), keep)
	}
	keep() // the project as the run left it
	rec.Ended = time.Now().UTC()
	rec.ExitCode = &code
	rec.Entries = entries()
	state, signal := live.RunExited, "process"
	// The command (or the daemon) running it was stopped or timed out,
	// and stopped the CLI: before its turn was over, the run was
	// interrupted, not finished.
	cut := ctx.Err() != nil && onceErr == nil && !turnOver.Load()
	was := c.State()
	switch {
	case cut && errors.Is(ctx.Err(), context.DeadlineExceeded):
		state, rec.Reason = live.RunFailed, fmt.Sprintf("%s: it was %s%s", OutOfTime, was, cutScreen)
	case cut && (spec.Once || was == live.RunBusy || was == live.RunWaiting || was == live.RunStarting):
		state, rec.Reason = live.RunInterrupted, fmt.Sprintf("interrupted while %s (stead was interrupted or stopped)", was)
	case cut:
		rec.Reason = "stopped: stead was interrupted or stopped"
	case sig != 0 && !onRequest:
		state, rec.Reason = live.RunFailed, fmt.Sprintf("%s was killed by %s", dst.Name, SignalName(sig))
	case onceErr != nil:
		state, rec.Reason = live.RunFailed, onceErr.Error()
	case sig == syscall.SIGKILL:
		state, rec.Reason = live.RunFailed, fmt.Sprintf("%s did not quit when asked, nor on interrupt or terminate: killed", dst.Name)
	case sig != 0:
		rec.Reason = fmt.Sprintf("stopped on request (%s)", SignalName(sig))
	case code != 0:
		state, rec.Reason = live.RunFailed, fmt.Sprintf("%s exited with code %d%s", dst.Name, code, screenTail(c))
	case spec.Once:
		rec.Reason = "the turn is over"
	case onRequest:
		rec.Reason = "stopped on request"
	}
	if lost := pub.lost(); lost != "" {
		state = live.RunFailed
		rec.Reason = strings.TrimPrefix(rec.Reason+"; "+lost, "; ")
	}
	rec.State = state
	// The terminal output is stored before the final status, so that a
	// watcher who sees the run end has all of it (see WatchTerminal).
	fctx, fcancel := context.WithTimeout(context.Background(), flushWait)
	b.Flush(fctx)
	fcancel()
	// The session is stored before the run's end is announced: a
	// watcher who sees the end reads it at once (run:<id>).
	if pub.failing.Load() {
		log.Error("the run's session is not stored: the bus cannot store")
	} else if _, err := StoreSession(b, spec.ID, whole, dst.Name, rep.Placement.Path); err != nil {
		log.Warn("storing the session", "err", err)
	}
	c.Set(state, signal, rec.Reason, &code)
	pub.retry("storing the run record", func(ctx context.Context) error { return b.PutRun(ctx, rec) })
	fctx, fcancel = context.WithTimeout(context.Background(), flushWait)
	b.Flush(fctx)
	fcancel()
	switch state {
	case live.RunFailed:
		return rec, fmt.Errorf("run %s: %s: %w", spec.ID, rec.Reason, ErrRunFailed)
	case live.RunInterrupted:
		return rec, fmt.Errorf("run %s: %s: %w", spec.ID, rec.Reason, context.Canceled)
	}
	return rec, nil
}

// exited marks an error of input to a CLI that has exited as the bus's
// ErrNotRunning, so that the client asking gets that code.
func exited(err error) error {
	if errors.Is(err, supervisor.ErrExited) {
		return bus.ErrNotRunning
	}
	return err
}

// handOver leaves a run that its worker handed to another as its CLI
// quit: the project's changes and every entry captured are stored, and the
// run's record and last state are those it was handed over in (busy: the
// taking worker types its prompt again), so that the worker taking it
// continues it as after a failover.
func (sv *Supervisor) handOver(b *bus.Bus, pub *runPublisher, rec live.Run, state live.RunState, entries int, keep func()) (live.Run, error) {
	keep()
	fctx, fcancel := context.WithTimeout(context.Background(), flushWait)
	b.Flush(fctx)
	fcancel()
	rec.State, rec.Entries = state, entries
	st, _ := json.Marshal(live.Status{Run: rec.ID, State: state, Time: time.Now().UTC(), Signal: handoverSignal,
		Detail: fmt.Sprintf("its worker %s stops: the run goes to another worker, which continues it", rec.Supervisor)})
	pub.retry("storing the handover", func(ctx context.Context) error { return b.Publish(ctx, rec.ID, bus.Status, st, "") })
	pub.retry("storing the run record", func(ctx context.Context) error { return b.PutRun(ctx, rec) })
	fctx, fcancel = context.WithTimeout(context.Background(), flushWait)
	b.Flush(fctx)
	fcancel()
	sv.logger().Info("the run is handed over as its worker stops", "run", rec.ID, "state", state)
	return rec, fmt.Errorf("run %s: %w", rec.ID, ErrHandedOver)
}
