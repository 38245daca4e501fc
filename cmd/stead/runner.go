package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	oklog "github.com/oklog/run"
	"golang.org/x/sys/unix"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/capture"
	"github.com/stead-dev/stead/inject"
	"github.com/stead-dev/stead/scenarios"
	"github.com/stead-dev/stead/session"
	"github.com/stead-dev/stead/supervisor"
	"github.com/stead-dev/stead/vt"
)

// RunSpec is a run to start: a universal session resumed in a CLI.
type RunSpec struct {
	ID     string `json:"id"`
	To     string `json:"to"`
	Dir    string `json:"dir"`
	Prompt string `json:"prompt,omitempty"`
	Model  string `json:"model,omitempty"`
	Auto   bool   `json:"auto,omitempty"`
	// Source names the stored universal session to start from (the
	// object store), for a run a worker starts.
	Source string `json:"source,omitempty"`
	// Once ends the run when the prompt's turn is over: the CLI is asked
	// to quit once it is ready again.
	Once bool `json:"once,omitempty"`
	// Trust answers yes when the CLI asks whether to trust the project
	// folder: for folders stead made (an A/B variant's copy of the
	// project), never for the user's own.
	Trust bool `json:"trust,omitempty"`
}

// terminalIO is the user's terminal for an attached run.
type terminalIO struct {
	In  *os.File
	Out io.Writer
}

func newRunID() string {
	var b [6]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// runnable checks that stead can run cli under its supervisor: it knows
// the CLI, writes its sessions and drives its TUI.
func runnable(cli string) error {
	a, ok := adapters.Lookup(cli)
	switch {
	case !ok:
		return flagErrorf("unknown CLI %q (known: %s)", cli, strings.Join(adapters.Names(), ", "))
	case !a.Runs():
		return flagErrorf("stead cannot run %s", cli)
	}
	return nil
}

// supervisorName names this process as the supervisor of a run.
func supervisorName(host string) string { return fmt.Sprintf("%s/%d", host, os.Getpid()) }

// failedRun records a run that failed before its CLI started, so that
// stead runs shows it with its error (a record superviseRun stored is
// kept).
func failedRun(b *bus.Bus, spec RunSpec, cause error, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), recordWait)
	defer cancel()
	if r, err := b.Run(ctx, spec.ID); err == nil && r.State.Done() {
		return
	}
	host, _ := os.Hostname()
	now := time.Now().UTC()
	putRun(b, session.Run{ID: spec.ID, CLI: spec.To, Dir: spec.Dir, Host: host, Supervisor: supervisorName(host),
		State: session.RunFailed, Started: now, Ended: now, Reason: "it did not start: " + cause.Error()}, log)
}

// errOutOfTime starts the reason of a run stopped by its deadline.
const errOutOfTime = "it did not finish in the time it was given"

// How a run drives its CLI, in time. Where a figure was measured it says
// so; the others were chosen and have held in every end-to-end run since.
const (
	// dialogSteady is how long a dialog must stay on screen before it
	// is answered: a TUI draws a dialog in several frames, and the keys
	// must reach the dialog, not a frame before it is ready for them
	// (chosen, not measured; the capture's screen settles in 30 ms).
	dialogSteady = 700 * time.Millisecond
	// answerPoll is how often the answerers of dialogs look at the
	// screen; dialogPoll how often a prompt waiting for a dialog to go
	// does.
	answerPoll = 50 * time.Millisecond
	dialogPoll = 200 * time.Millisecond
	// statePoll is how often the run's state is read while waiting for a
	// prompt to be taken or a late answer (the capture reads the screen
	// every 10 ms).
	statePoll = 20 * time.Millisecond
	// cancelAgain is how long a cancelled model request that the CLI
	// keeps retrying waits before it is cancelled again.
	cancelAgain = 2 * time.Second
	// firstEnterAgain is when Enter is pressed again if the CLI shows no
	// sign of taking the prompt: Gemini CLI drops an Enter for a few
	// seconds after it drew its prompt (with 10 s here, Gemini's A/B
	// variants took 10 s longer).
	firstEnterAgain = 2 * time.Second
	// retypeAfter is when a prompt that is nowhere on the screen is typed
	// again: even a CLI slowed by a loaded machine shows typed keys
	// within it.
	retypeAfter = 10 * time.Second
	// enterAgain is how often Enter is pressed again after that, up to
	// promptTake (ab-failure under a 2-core load took 11.9-27.5 s).
	enterAgain = 10 * time.Second
	// terminalDrain is how long the terminal's last output may take
	// after the CLI exited (a grandchild may hold it open for good).
	terminalDrain = 2 * time.Second
	// snapshotEvery is how often a CLI whose session is a database
	// (OpenCode) is read; debugLogEvery how often a CLI's debug log is.
	snapshotEvery = 100 * time.Millisecond
	debugLogEvery = 50 * time.Millisecond
	// recordWait bounds storing or reading a run's record; storeWait
	// storing its whole session; flushWait the bus's last flush.
	recordWait = 10 * time.Second
	storeWait  = 30 * time.Second
	flushWait  = 5 * time.Second
)

// ErrRunFailed is returned when the CLI of a run failed.
var ErrRunFailed = errors.New("the run failed")

// superviseRun writes s into the target CLI's store, starts the CLI on
// it under a terminal, captures it onto the bus until it exits, and
// stores the whole session. With term the user's terminal is attached.
func superviseRun(ctx context.Context, f *Factory, b *bus.Bus, s *session.Session, spec RunSpec, term *terminalIO, started func(session.Run)) (session.Run, error) {
	rec, err := supervise(ctx, f, b, s, spec, term, started)
	if err != nil && !rec.State.Done() {
		// It failed before it ran: stead runs says why.
		failedRun(b, spec, err, f.Logger)
	}
	return rec, err
}

func supervise(ctx context.Context, f *Factory, b *bus.Bus, s *session.Session, spec RunSpec, term *terminalIO, started func(session.Run)) (session.Run, error) {
	log := f.Logger.With("run", spec.ID)
	if err := runnable(spec.To); err != nil {
		return session.Run{}, err
	}
	dst, _ := adapters.Lookup(spec.To)
	src, _ := adapters.Lookup(s.Source.CLI)
	r := inject.Reader{CLI: s.Source.CLI, ToolArgs: src.ToolArgs, ToolArgsOf: toolArgsOf}
	w := inject.Writer{CLI: dst.Name, Place: dst.Place, ToolCall: dst.ToolCall, Commit: dst.Commit,
		NewEncoder: func(out io.Writer, t session.Target, lost func(session.Loss)) inject.Encoder {
			return dst.NewEncoder(out, t, lost)
		}}
	rep, err := inject.Install(s, r, w, inject.Options{Env: f.Env, Dir: spec.Dir, Model: spec.Model, Tool: "stead " + version})
	if err != nil {
		return session.Run{}, fmt.Errorf("placing the session in %s: %w", dst.Name, err)
	}
	logConversion(f, rep)
	if spec.Source == "" {
		// Kept so that a run whose supervisor dies can still be
		// stored whole (recoverRuns).
		if err := putHistory(ctx, b, spec.ID, s); err != nil {
			log.Warn("storing the run's history", "err", err)
		}
	}
	host, _ := os.Hostname()
	rec := session.Run{ID: spec.ID, CLI: dst.Name, SessionID: rep.Target.ID, Dir: spec.Dir, Source: &rep.Source,
		Path: rep.Placement.Path, Host: host, Supervisor: supervisorName(host),
		State: session.RunStarting, Started: time.Now().UTC()}

	tui := *dst.TUI
	l := session.Launch{Home: f.Env.Home, Dir: spec.Dir, Resume: rep.Target.ID, Model: spec.Model, Auto: spec.Auto}
	bin, prefix, err := cliBinary(f.Env, dst.Name)
	if err != nil {
		return rec, err
	}
	// STEAD_RUN tells a later stead that the process is this run's CLI
	// (recoverRuns stops it only then).
	env := append(environ(f.Env), append(tui.Env, "STEAD_RUN="+spec.ID)...)
	var debugLog string // the CLI's debug log, and its length before the run
	var debugFrom int64
	if tui.DebugLog != nil {
		dir, err := os.MkdirTemp("", "stead-run-")
		if err != nil {
			return rec, fmt.Errorf("a directory for the run of %s: %w", dst.Name, err)
		}
		defer os.RemoveAll(dir)
		var vars []string
		vars, debugLog = tui.DebugLog(f.Env, dir)
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
	pub := &runPublisher{b: b, run: spec.ID, log: log, giveUp: giveUp}
	c := capture.New(capture.Config{Run: spec.ID, CLI: dst.Name, TUI: tui, Env: f.Env, Log: log,
		Screen: vt.New(int(ps.Rows), int(ps.Cols))}, pub)
	pub.onStatus = func(st session.Status) {
		pub.mu.Lock()
		rec.State = st.State
		rec.Entries = c.Entries()
		snapshot := rec
		pub.mu.Unlock()
		if !pub.failing.Load() { // the final record is stored however long it takes
			putRun(b, snapshot, log)
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
			s, err := dst.Open(f.Env, ref)
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
		rec.State, rec.Reason, rec.Ended = session.RunFailed, err.Error(), time.Now().UTC()
		putRun(b, rec, log)
		return rec, err
	}
	defer proc.Close()
	rec.PID = proc.Pid()
	putRun(b, rec, log)
	pub.Status(session.Status{Run: spec.ID, State: session.RunStarting, Time: rec.Started, Signal: "process",
		Detail: fmt.Sprintf("%s %s (pid %d)", dst.Name, strings.Join(ps.Args, " "), proc.Pid())})
	if started != nil {
		started(rec)
	}
	log.Info("started", "cli", dst.Name, "pid", proc.Pid(), "session", rep.Target.ID)

	var stopped sync.Once
	onRequest := false
	var onceErr error        // why a run of one turn did not finish its turn
	var turnOver atomic.Bool // a run of one turn: its turn ended
	stop := func() {
		stopped.Do(func() {
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
	context.AfterFunc(runCtx, func() { time.AfterFunc(publishDrain, stopTrying) })
	// The screen when stead cut the run short, before the CLI was stopped.
	var cutScreen string
	{ // The process: the run ends when it exits.
		g.Add(func() error {
			select {
			case <-proc.Done():
				return nil
			case <-runCtx.Done():
				if ctx.Err() != nil {
					// What the CLI was doing, not its goodbye.
					cutScreen = screenTail(c)
				}
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
		}, func(error) { stopInput(); stopControl(); cancel() })
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
			turns, err := deliver(runCtx, c, proc, tui, spec.Prompt)
			if err != nil && runCtx.Err() == nil {
				log.Warn("delivering the prompt", "err", err)
				fmt.Fprintf(f.IO.ErrOut, "stead: %v\n", err)
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
	rec.Ended = time.Now().UTC()
	rec.ExitCode = &code
	rec.Entries = c.Entries()
	state, signal := session.RunExited, "process"
	// The command (or the daemon) running it was stopped or timed out,
	// and stopped the CLI: before its turn was over, the run was
	// interrupted, not finished.
	cut := ctx.Err() != nil && onceErr == nil && !turnOver.Load()
	live := c.State()
	switch {
	case cut && errors.Is(ctx.Err(), context.DeadlineExceeded):
		state, rec.Reason = session.RunFailed, fmt.Sprintf("%s: it was %s%s", errOutOfTime, live, cutScreen)
	case cut && (spec.Once || live == session.RunBusy || live == session.RunWaiting || live == session.RunStarting):
		state, rec.Reason = session.RunInterrupted, fmt.Sprintf("interrupted while %s (stead was interrupted or stopped)", live)
	case cut:
		rec.Reason = "stopped: stead was interrupted or stopped"
	case sig != 0 && !onRequest:
		state, rec.Reason = session.RunFailed, fmt.Sprintf("%s was killed by %s", dst.Name, signalName(sig))
	case onceErr != nil:
		state, rec.Reason = session.RunFailed, onceErr.Error()
	case sig == syscall.SIGKILL:
		state, rec.Reason = session.RunFailed, fmt.Sprintf("%s did not quit when asked, nor on interrupt or terminate: killed", dst.Name)
	case sig != 0:
		rec.Reason = fmt.Sprintf("stopped on request (%s)", signalName(sig))
	case code != 0:
		state, rec.Reason = session.RunFailed, fmt.Sprintf("%s exited with code %d%s", dst.Name, code, screenTail(c))
	case spec.Once:
		rec.Reason = "the turn is over"
	case onRequest:
		rec.Reason = "stopped on request"
	}
	if lost := pub.lost(); lost != "" {
		state = session.RunFailed
		rec.Reason = strings.TrimPrefix(rec.Reason+"; "+lost, "; ")
	}
	rec.State = state
	c.Set(state, signal, rec.Reason, &code)
	pub.retry("storing the run record", func(ctx context.Context) error { return b.PutRun(ctx, rec) })
	if pub.failing.Load() {
		log.Error("the run's session is not stored: the bus cannot store")
	} else if _, err := storeSession(b, spec.ID, s, dst.Name, rep.Placement.Path); err != nil {
		log.Warn("storing the session", "err", err)
	}
	fctx, fcancel := context.WithTimeout(context.Background(), flushWait)
	b.Flush(fctx)
	fcancel()
	switch state {
	case session.RunFailed:
		return rec, fmt.Errorf("run %s: %s: %w", spec.ID, rec.Reason, ErrRunFailed)
	case session.RunInterrupted:
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

// answerTrust accepts the CLI's folder-trust dialogs until it has taken
// a prompt: the CLI records the trust itself. It answers a dialog that
// has stayed on screen a moment, and confirms only once the screen shows
// yes chosen.
func answerTrust(ctx context.Context, c *capture.Capture, w io.Writer, log *slog.Logger) {
	var since time.Time // when the dialog on screen was first seen
	for n, _ := c.Prompts(); n == 0 && !c.State().Done(); n, _ = c.Prompts() {
		d, ok := c.Dialog()
		switch {
		case !ok || !d.Trust:
			since = time.Time{}
		case since.IsZero():
			since = time.Now()
		case time.Since(since) >= dialogSteady:
			if choose(c, w, d) {
				log.Info("trusting the folder", "dialog", d.Name)
			}
			since = time.Now() // try again later if it is still there
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(answerPoll):
		}
	}
}

// choose answers dialog d on the screen: it presses d's Select keys
// unless its choice already shows, and confirms only once it does.
func choose(c *capture.Capture, w io.Writer, d session.Dialog) bool {
	chosen := func() bool { return strings.Contains(c.Screen(), d.Selected) }
	if !chosen() {
		for _, k := range d.Select {
			w.Write([]byte(k.Bytes))
			time.Sleep(k.Wait)
		}
	}
	if !chosen() {
		return false
	}
	w.Write([]byte(d.Confirm.Bytes))
	time.Sleep(d.Confirm.Wait)
	return true
}

func giveUpDialogs(ds []session.Dialog) bool {
	for _, d := range ds {
		if d.GiveUp {
			return true
		}
	}
	return false
}

// answerGiveUp, for a run nobody watches, gives up a model request that
// failed after the CLI's own retries, where the CLI would retry it for
// ever (Gemini CLI): it answers the CLI's question to stop (a GiveUp
// dialog), or, where the CLI asks nothing and only its debug log said so,
// types cancel. The turn then ends in the error, not at the run's
// timeout. It waits a moment first, so that the run's waiting shows on
// the bus and a question coming up is answered rather than cancelled.
func answerGiveUp(ctx context.Context, c *capture.Capture, w io.Writer, cancel []session.Key, log *slog.Logger) {
	var since time.Time // when the run was first seen stuck
	for !c.State().Done() {
		d, asks := c.Dialog()
		asks = asks && d.GiveUp
		failed := c.Failure() != "" && c.State() == session.RunWaiting && len(cancel) > 0
		switch {
		case !asks && !failed:
			since = time.Time{}
		case since.IsZero():
			since = time.Now()
		case time.Since(since) < dialogSteady:
		case asks:
			if choose(c, w, d) {
				log.Info("stopping a failed model request", "dialog", d.Name)
			}
			since = time.Now() // try again later if it is still there
		default:
			log.Info("cancelling a failed model request the CLI keeps retrying", "failure", c.Failure())
			for _, k := range cancel {
				w.Write([]byte(k.Bytes))
				time.Sleep(k.Wait)
			}
			since = time.Now().Add(cancelAgain) // again in a while if it is still stuck
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(answerPoll):
		}
	}
}

// waitTurn waits until a turn ends after turns had: the CLI went busy
// with the prompt and is ready again.
func waitTurn(ctx context.Context, c *capture.Capture, turns int) error {
	for c.Turns() <= turns {
		if _, err := c.Wait(ctx, session.RunBusy, session.RunWaiting); err != nil {
			return fmt.Errorf("the turn did not end: %w", err)
		}
		if _, err := c.Wait(ctx, session.RunReady); err != nil {
			return fmt.Errorf("the turn did not end: %w", err)
		}
	}
	return nil
}

// lateAnswer is how long a turn that ended without text from the model
// waits for it: a CLI may write its last record just after its screen or
// status said the turn was over.
const lateAnswer = 2 * time.Second

// answerComes waits up to lateAnswer for text from the model.
func answerComes(ctx context.Context, c *capture.Capture) bool {
	for deadline := time.Now().Add(lateAnswer); time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(statePoll) {
		if c.Answered() {
			return true
		}
	}
	return c.Answered()
}

// sized resizes the CLI's terminal and the capture's screen together.
type sized struct {
	*supervisor.Proc
	c *capture.Capture
}

func (s sized) Resize(rows, cols uint16) error {
	s.c.Resize(int(rows), int(cols))
	return s.Proc.Resize(rows, cols)
}

// promptWait is how long a prompt waits for its CLI to be ready for it.
const promptWait = 90 * time.Second

// deliver waits until the CLI takes input, types the prompt the way it
// accepts one, and checks that it was taken: the CLI went busy or
// recorded the prompt; if not, it presses Enter once more. It returns
// how many turns had ended when the prompt was typed: the prompt's turn
// is the next one. (Counted before the CLI was ready, a dialog answered
// at startup, which ends a waiting spell, passed for the prompt's turn:
// a Codex A/B variant was stopped as "ended without an answer" before it
// had sent the prompt.)
func deliver(ctx context.Context, c *capture.Capture, w io.Writer, tui session.TUI, prompt string) (turns int, err error) {
	wctx, cancel := context.WithTimeout(ctx, promptWait)
	defer cancel()
	for {
		if _, err := c.Wait(wctx, session.RunReady); err != nil {
			return 0, fmt.Errorf("the CLI did not become ready for the prompt within %s (it is %s): %w%s", promptWait, c.State(), err, screenTail(c))
		}
		// A dialog that came up after the terminal went quiet takes
		// the keys: wait until it is gone.
		if _, ok := c.Dialog(); !ok {
			break
		}
		select {
		case <-wctx.Done():
			return 0, fmt.Errorf("the CLI shows a dialog and never became ready for the prompt%s", screenTail(c))
		case <-time.After(dialogPoll):
		}
	}
	turns = c.Turns()
	// Taken means the CLI went busy or recorded a new prompt; other
	// entries prove nothing (Gemini writes its startup context a few
	// seconds in, after it may already be ready).
	before, _ := c.Prompts()
	recorded := func() bool {
		n, last := c.Prompts()
		return n > before && strings.Contains(strings.Join(strings.Fields(last), " "), promptHead(prompt))
	}
	text := prompt
	if tui.Paste {
		text = "\x1b[200~" + prompt + "\x1b[201~"
	}
	if _, err := w.Write([]byte(text)); err != nil {
		return turns, err
	}
	// Enter again while the CLI shows no sign of taking the prompt: a
	// CLI that was still setting up its input (Gemini CLI, a few seconds
	// after it drew its prompt) drops the Enter and keeps the text, so
	// Enter goes again after 2 s (it waited 10 s: Gemini's A/B variants
	// took 10 s longer), then every 10 s (a CLI slowed by a loaded
	// machine). Keys that went nowhere at all are typed again once,
	// after 10 s, when even a slow CLI would have shown that it took
	// them.
	waited, retyped := time.Duration(0), false
	for try := 0; waited < promptTake; try++ {
		wait := enterAgain
		switch try {
		case 0:
			wait = firstEnterAgain
		case 1:
			wait = retypeAfter - firstEnterAgain
		}
		if try > 0 {
			// A dialog that came up over the prompt (and took its keys)
			// must go first.
			for _, ok := c.Dialog(); ok && ctx.Err() == nil; _, ok = c.Dialog() {
				time.Sleep(dialogPoll)
			}
		}
		if try >= 2 && !retyped && lost(c, prompt) {
			// The keys went nowhere (typed while the CLI was still
			// setting up its input): type the prompt again.
			if _, err := w.Write([]byte(text)); err != nil {
				return turns, err
			}
			retyped = true
		}
		if try != 1 || !lost(c, prompt) {
			time.Sleep(tui.EnterAfter)
			// Not into a dialog that came up over the prompt: the
			// Enter would answer it (Codex draws its folder-trust
			// dialog half a second after its prompt: it took an A/B
			// variant's Enter, trusting the folder, and the prompt sat
			// unsent).
			if _, ok := c.Dialog(); !ok && c.State() != session.RunWaiting {
				if _, err := w.Write([]byte("\r")); err != nil {
					return turns, err
				}
			}
		}
		if taken(ctx, c, recorded, wait) {
			return turns, ctx.Err()
		}
		waited += wait
	}
	return turns, fmt.Errorf("the CLI did not take the prompt: it showed no sign of work within %s%s", waited, screenTail(c))
}

// promptTake is how long a CLI has to show it took a prompt.
const promptTake = 60 * time.Second

// taken waits up to wait for a sign that the CLI took a prompt: it went
// busy, or waiting on something other than a dialog the prompt did not
// cause, or recorded it, or ended; or for ctx to end.
func taken(ctx context.Context, c *capture.Capture, recorded func() bool, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		// Waiting counts only when no dialog shows: a dialog that came
		// up as the prompt was typed is not the prompt's turn.
		_, dialog := c.Dialog()
		if st := c.State(); st == session.RunBusy || st == session.RunWaiting && !dialog || recorded() || st.Done() {
			return true
		}
		select {
		case <-ctx.Done():
			return true
		case <-time.After(statePoll):
		}
	}
	return false
}

// lost reports whether a short one-line prompt is nowhere on the CLI's
// screen. Longer prompts may show as a placeholder ("[Pasted text]"), so
// their absence proves nothing.
func lost(c *capture.Capture, prompt string) bool {
	if strings.ContainsAny(prompt, "\n\r") || len(prompt) > 80 {
		return false
	}
	screen := strings.Join(strings.Fields(c.Screen()), " ")
	return screen != "" && !strings.Contains(screen, promptHead(prompt))
}

// promptHead is the start of a prompt, spaces folded, as a CLI records
// it.
func promptHead(p string) string {
	h := strings.Join(strings.Fields(p), " ")
	if r := []rune(h); len(r) > 30 {
		h = string(r[:30])
	}
	return h
}

// screenTail is the end of what the CLI's screen shows, to explain why it
// did not do what was asked (a dialog, an error).
func screenTail(c *capture.Capture) string {
	lines := strings.Split(strings.TrimSpace(c.Screen()), "\n")
	var keep []string
	for _, l := range lines[max(0, len(lines)-12):] {
		if strings.TrimSpace(l) != "" {
			keep = append(keep, "  | "+strings.TrimRight(l, " "))
		}
	}
	if len(keep) == 0 {
		return ""
	}
	return "; its screen ends:\n" + strings.Join(keep, "\n")
}

// runPublisher puts a capture's output on the bus. What the bus cannot
// store (its disk is full, its server restarts) is retried with backoff
// until it can, the capture waiting meanwhile (the CLI's session file
// holds what is not read yet); only once giveUp ends is it counted lost,
// and the run says so.
type runPublisher struct {
	b        *bus.Bus
	run      string
	log      *slog.Logger
	onStatus func(session.Status)
	giveUp   context.Context

	mu sync.Mutex // guards the run record onStatus updates

	failing      atomic.Bool // the last publish failed
	gaveUp       atomic.Bool // what could not be stored is given up
	lostMu       sync.Mutex
	lostEntries  []string // ids of entries given up
	lostNative   int      // native records given up
	droppedBytes atomic.Int64
}

// publishTimeout bounds one attempt to store a message.
const publishTimeout = 10 * time.Second

// publishDrain is how long a run that ended goes on retrying what the bus
// could not store.
var publishDrain = 2 * time.Minute

// retry calls publish until it succeeds or giveUp ends.
func (p *runPublisher) retry(what string, publish func(ctx context.Context) error) error {
	delay := 100 * time.Millisecond
	for {
		ctx, cancel := context.WithTimeout(p.giveUp, publishTimeout)
		err := publish(ctx)
		cancel()
		if err == nil {
			if p.failing.Swap(false) {
				p.log.Warn("the bus stores the run's messages again")
			}
			return nil
		}
		if !p.failing.Swap(true) {
			p.log.Warn("the bus cannot store the run's messages; retrying until it can", "what", what, "err", err)
		}
		select {
		case <-p.giveUp.Done():
			if !p.gaveUp.Swap(true) {
				p.log.Error("the bus cannot store the run's messages: giving up what is left", "what", what, "err", err)
			}
			return err
		case <-time.After(delay):
		}
		delay = min(2*delay, 5*time.Second)
	}
}

// Terminal publishes terminal output without waiting. While the bus fails
// it is dropped (the terminal stream keeps only the latest output anyway),
// so that a CLI's screen is never slowed by it.
func (p *runPublisher) Terminal(data []byte) error {
	if p.failing.Load() {
		p.droppedBytes.Add(int64(len(data)))
		return nil
	}
	return p.b.PublishTerminal(p.run, data)
}

func (p *runPublisher) Native(line []byte, n int) error {
	err := p.retry("storing a native record", func(ctx context.Context) error {
		return p.b.Publish(ctx, p.run, bus.Native, line, fmt.Sprintf("%s:n%d", p.run, n))
	})
	if err != nil {
		// Counted, and said when the run ends.
		p.lostMu.Lock()
		p.lostNative++
		p.lostMu.Unlock()
	}
	return nil
}

func (p *runPublisher) Entry(ev session.Event) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	id := ""
	if len(ev.Entries) > 0 {
		id = p.run + ":e:" + ev.Entries[0].ID
	}
	err = p.retry("storing an entry", func(ctx context.Context) error {
		return p.b.Publish(ctx, p.run, bus.Entry, data, id)
	})
	if err != nil {
		p.lostMu.Lock()
		for _, e := range ev.Entries {
			p.lostEntries = append(p.lostEntries, e.ID)
		}
		for _, u := range ev.Updates {
			p.lostEntries = append(p.lostEntries, "an update of "+u.EntryID)
		}
		p.lostMu.Unlock()
	}
	return nil // counted, and said when the run ends
}

func (p *runPublisher) Status(st session.Status) error {
	data, _ := json.Marshal(st)
	p.retry("storing a state", func(ctx context.Context) error {
		return p.b.Publish(ctx, p.run, bus.Status, data, "")
	})
	if p.onStatus != nil {
		p.onStatus(st)
	}
	return nil // the final state is in the run's record, stored however long it takes
}

// lost says what the bus never stored, for the run's reason; "" when
// nothing was lost.
func (p *runPublisher) lost() string {
	p.lostMu.Lock()
	defer p.lostMu.Unlock()
	if len(p.lostEntries) == 0 && p.lostNative == 0 {
		return ""
	}
	ids := p.lostEntries
	if len(ids) > 20 {
		ids = append(ids[:20:20], fmt.Sprintf("and %d more", len(ids)-20))
	}
	msg := fmt.Sprintf("the bus could not store %d entries and %d native records within %s of the run's end (is the disk holding it full?)",
		len(p.lostEntries), p.lostNative, publishDrain)
	if len(ids) > 0 {
		msg += "; lost: " + strings.Join(ids, ", ")
	}
	return msg
}

func putRun(b *bus.Bus, r session.Run, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), recordWait)
	defer cancel()
	if err := b.PutRun(ctx, r); err != nil {
		log.Warn("storing the run record", "err", err)
	}
}

// storeSession stores the whole universal session of a run: the history
// it started from, then the entries the run added (read back from the
// bus, so a run holds none in memory), each marked with the CLI that
// produced it.
// It returns how many entries the run added.
func storeSession(b *bus.Bus, id string, history *session.Session, cli, path string) (int, error) {
	sctx, cancel := context.WithTimeout(context.Background(), storeWait)
	defer cancel()
	build := session.NewBuilder(cli, path)
	err := b.Replay(sctx, id, bus.Entry, func(m bus.Msg) error {
		var ev session.Event
		if err := json.Unmarshal(m.Data, &ev); err != nil {
			return fmt.Errorf("entry message %d: %w", m.Seq, err)
		}
		build.Add(ev)
		return nil
	})
	if err != nil {
		return 0, err
	}
	added := build.Session()
	whole := *history
	whole.Timeline = append(append([]session.Entry(nil), history.Timeline...), added.Timeline...)
	for i := range whole.Timeline[:len(history.Timeline)] {
		if whole.Timeline[i].CLI == "" {
			whole.Timeline[i].CLI = history.Source.CLI
		}
	}
	whole.Records = nil
	data, err := json.Marshal(&whole)
	if err != nil {
		return 0, err
	}
	return len(added.Timeline), b.PutSession(sctx, id, bytes.NewReader(data))
}

// signalName names a signal as a person looks it up: SIGKILL (killed).
func signalName(sig syscall.Signal) string {
	if name := unix.SignalName(sig); name != "" {
		return name + " (" + sig.String() + ")"
	}
	return sig.String()
}

// historyObject names the stored session a run starts from.
func historyObject(run string) string { return "source-" + run }

// putHistory stores the session a run starts from, without its native
// records, encoded as it is sent.
func putHistory(ctx context.Context, b *bus.Bus, run string, s *session.Session) error {
	lean := *s
	lean.Records = nil
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(session.Encode(pw, &lean, false)) }()
	err := b.PutSession(ctx, historyObject(run), pr)
	pr.CloseWithError(err)
	return err
}

// installed checks, before a command starts anything, that the program
// of a CLI it runs can be found, as the run will look for it.
func installed(env session.Env, cli string) error {
	_, _, err := scenarios.FindCLI(env, cli)
	return err
}

// cliBinary finds the program of a CLI as a scenario does (see
// scenarios.FindCLI): $STEAD_<CLI>_BIN, the pinned install, then PATH.
func cliBinary(env session.Env, cli string) (string, []string, error) {
	argv, _, err := scenarios.FindCLI(env, cli)
	if err != nil {
		return "", nil, err
	}
	return argv[0], argv[1:], nil
}

// environ is env as a process environment.
func environ(env session.Env) []string {
	out := make([]string, 0, len(env.Vars))
	for k, v := range env.Vars {
		out = append(out, k+"="+v)
	}
	return out
}
