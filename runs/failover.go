package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// A detached run is a job of the bus's work queue. The worker that takes
// it holds the run's lease while it runs it, renewing it every
// LeaseTTL/3 and telling the queue the job is in progress as often; it
// acknowledges the job once the run's end is stored. When that worker is
// lost (killed, its machine dead, cut off from the bus), the queue gives
// the job to another worker after bus.JobAckWait, which takes the lease,
// now expired, and continues the run from what the bus captured (a
// failover). A worker that could not renew its lease for LeaseTTL gives
// the run up (its CLI is stopped, and it writes nothing more of it)
// before any other can take it: never two owners.

// ErrHandedOver ends a run its worker handed to another as it stopped
// (its CLI quit, its record and states left as they were, its job given
// back to the queue at once).
var ErrHandedOver = errors.New("its worker stopped and handed the run over to another")

// handoverAsk is how long a stopping worker waits for another to say it
// is up before it ends its runs itself.
const handoverAsk = time.Second

// LeaseTTL is how long a worker's hold on a run lasts without a renewal.
// It is well below bus.JobAckWait: a job goes to another worker only
// after the lost one has given it up.
const LeaseTTL = 10 * time.Second

// A job that another machine asked for is left to that machine's worker
// (its project and environment are there) for hostPatience deliveries,
// hostWait apart; then any worker takes it.
const (
	hostPatience = 20
	hostWait     = 100 * time.Millisecond
)

// takeJobs takes jobs from the work queue until ctx ends, each run on a
// goroutine of its own that wg waits for.
func (w *Worker) takeJobs(ctx context.Context, jobs *bus.Jobs, wg *sync.WaitGroup, active *sync.Map) error {
	if jobs == nil {
		<-ctx.Done()
		return nil
	}
	for {
		job, err := jobs.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.take(ctx, job, active)
		}()
	}
}

// take runs a job: it starts the run, or continues it when a worker that
// ran it was lost, or acknowledges it when the run had ended.
func (w *Worker) take(ctx context.Context, job *bus.Job, active *sync.Map) {
	sv := w.Supervisor // a copy: the run may take its asker's environment
	b := sv.Bus
	host := bus.HostName(sv.host())
	log := sv.logger().With("run", job.Run, "delivery", job.Delivered)
	req, err := parseWork(job.Data)
	if err == nil && req.Spec.ID != job.Run {
		err = fmt.Errorf("bad work request: run %s queued as %s", safetext.QuoteN(req.Spec.ID, 80), job.Run)
	}
	if err != nil {
		log.Warn("a job that is not a stead work request: dropped", "err", err)
		job.Drop()
		answerJob(b, job.Run, workReply(nil, fmt.Errorf("%w: %w", bus.ErrBadRequest, err)))
		return
	}
	spec := req.Spec
	local := req.Host == "" || req.Host == host
	if !local && job.Delivered <= hostPatience {
		switch _, err := b.Run(ctx, spec.ID); {
		case errors.Is(err, bus.ErrNoRun):
			job.Later(hostWait) // not started yet: its own machine's to start
			return
		case err != nil:
			log.Warn("reading the run's record", "err", err)
			job.Later(time.Second)
			return
		}
	}
	// The lease outlives the worker's stop: a run handed over is held
	// until its CLI has quit.
	h, err := Hold(context.WithoutCancel(ctx), b, spec.ID, SupervisorName(sv.host()), LeaseTTL, log)
	if errors.Is(err, bus.ErrLeaseHeld) {
		job.Later(LeaseTTL / 3) // its worker lives; looked at again
		return
	}
	if err != nil {
		if ctx.Err() == nil {
			log.Warn("taking the run's lease", "err", err)
			job.Later(time.Second)
		}
		return
	}
	active.Store(spec.ID, true)
	defer active.Delete(spec.ID)
	// When the worker stops, the run goes to another worker if one is
	// up (handed over: that worker continues it at once, as after a
	// failover); else it ends here, as a run of a single machine does.
	handover := make(chan struct{})
	stopWatch := context.AfterFunc(ctx, func() {
		other, err := b.OtherWorker(h.Context, host, handoverAsk)
		if other != "" {
			log.Info("this worker stops: its run is handed to another worker", "up", other)
			close(handover)
			// While the turn under way ends, what this member
			// leads (the work queue's consumer, streams) goes to
			// members that stay.
			lctx, cancel := context.WithTimeout(h.Context, recordWait)
			defer cancel()
			if err := b.LeaveLeads(lctx); err != nil {
				log.Warn("handing what this member leads to the others", "err", err)
			}
			return
		}
		if err != nil {
			log.Warn("asking whether another worker is up to take the run", "err", err)
		}
		h.end()
	})
	defer stopWatch()
	o := runOpts{durable: true, held: h, handover: handover, handoverWait: w.HandoverWait}
	// The record as it is now the lease is held: a worker that held it
	// before may have ended the run meanwhile.
	prior, err := b.Run(h.Context, spec.ID)
	known := err == nil
	if err != nil && !errors.Is(err, bus.ErrNoRun) {
		log.Warn("reading the run's record", "err", err)
		h.Release(context.Background())
		job.Later(time.Second)
		return
	}
	if req.Env != nil && (local || !known) {
		// The run is the asking command's: its environment, not the
		// worker's (which may be another shell's, or older). On another
		// machine continuing it, the worker's own is used.
		sv.Env = *req.Env
	}

	beat := make(chan struct{})
	beating := make(chan struct{})
	stopBeat := sync.OnceFunc(func() { close(beat); <-beating })
	go func() { // The job's heartbeat, while the lease is held.
		defer close(beating)
		t := time.NewTicker(LeaseTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-beat:
				return
			case <-h.Context.Done():
				return
			case <-t.C:
				if err := job.InProgress(); err != nil {
					log.Debug("telling the work queue the run goes on", "err", err)
				}
			}
		}
	}()
	var ran error
	switch {
	case known && prior.State.Done():
		log.Info("the run had ended; its job is done")
	case known && prior.PID > 0:
		var taken bool
		if taken, ran = w.failover(&sv, prior, spec, o, log); !taken {
			// The bus did not answer: the job is looked at again, by
			// this worker or another, a moment later.
			stopBeat()
			h.Release(context.Background())
			job.Later(time.Second)
			return
		}
	default:
		ran = w.first(&sv, spec, o, log)
	}
	stopBeat()
	if errors.Is(ran, ErrHandedOver) {
		// Given back at once: the worker that takes the job need not
		// wait for the lease to expire.
		dctx, cancel := context.WithTimeout(context.Background(), recordWait)
		defer cancel()
		if err := h.Release(dctx); err != nil {
			log.Warn("releasing the run's lease", "err", err)
		}
		// This member stops: what it still leads goes to members that
		// stay, whose queue gives the job again at once.
		if err := b.LeaveLeads(dctx); err != nil {
			log.Warn("handing what this member leads to the others", "err", err)
		}
		if err := job.Later(0); err != nil {
			log.Warn("giving the run's job back to the queue (another worker takes it once the job's wait is over)", "err", err)
		}
		return
	}
	if fenced(h.Context) || !h.Fresh() && h.Context.Err() == nil {
		log.Warn("this worker lost the run's lease: the worker that took it continues the run", "cause", context.Cause(h.Context))
		return
	}
	dctx, cancel := context.WithTimeout(context.Background(), recordWait)
	defer cancel()
	if err := job.Done(dctx); err != nil {
		log.Warn("acknowledging the run's job", "err", err)
	}
	if err := h.Release(dctx); err != nil {
		log.Warn("releasing the run's lease", "err", err)
	}
}

// answerJob tells the command that queued run how its start went.
func answerJob(b *bus.Bus, run string, reply WorkReply) {
	data, _ := json.Marshal(reply)
	b.AnswerJob(run, data)
}

// first starts a run no worker ran yet, answering the command that
// queued it once its CLI runs (or why it did not start).
func (w *Worker) first(sv *Supervisor, spec Spec, o runOpts, log *slog.Logger) error {
	ctx := o.held.Context
	var once sync.Once
	answer := func(r *live.Run, err error) { once.Do(func() { answerJob(sv.Bus, spec.ID, workReply(r, err)) }) }
	s, err := sv.stored(ctx, spec.Source)
	if err != nil {
		sv.Failed(spec, err)
		answer(nil, err)
		return err
	}
	rec, err := sv.runWith(ctx, s, spec, nil, func(r live.Run) { answer(&r, nil) }, o)
	answer(nil, err)
	ranOut(log, rec, err)
	return err
}

// ranOut logs how a worker's run ended here.
func ranOut(log *slog.Logger, rec live.Run, err error) {
	switch {
	case errors.Is(err, ErrHandedOver):
		log.Info("the run is handed over", "state", rec.State)
	case err != nil:
		log.Warn("run ended", "err", err)
	default:
		log.Info("run ended", "state", rec.State)
	}
}

// failover continues a run whose worker was lost: its session as the bus
// captured it is written into this machine's store of the run's CLI and
// resumed there, the prompt whose answer never came typed again; ran is
// how the run went on here. taken is false, nothing having been done,
// when the bus did not answer (a cluster choosing leaders): the job is to
// be taken again.
func (w *Worker) failover(sv *Supervisor, prior live.Run, spec Spec, o runOpts, log *slog.Logger) (taken bool, ran error) {
	ctx := o.held.Context
	log = log.With("lost", prior.Supervisor)
	log.Warn("the run's worker is gone (lost, or stopped and handing it over): continuing the run here")
	if prior.PID > 0 && prior.Host == sv.host() && runsFor(prior.PID, prior.ID) {
		// The lost worker's CLI, on this machine: stopped, so that
		// nothing writes on.
		stopGroup(prior.PID)
	}
	giveUp := func(why error) { sv.notContinued(ctx, prior, why) }
	res, s, err := sv.continuation(ctx, prior, spec)
	if err != nil && bus.Transient(err) && ctx.Err() == nil {
		log.Warn("reading what the bus captured of the run; trying again", "err", err)
		return false, nil
	}
	if err != nil {
		giveUp(err)
		return true, nil
	}
	if res.retype == "" && spec.Once {
		// The run's one turn was over when its worker was lost, before
		// the CLI quit: its end is stored here.
		if _, err := sv.endLost(context.WithoutCancel(ctx), prior, "its worker ("+prior.Supervisor+") was lost after the turn was over", "failover"); err != nil {
			log.Warn("ending the run", "err", err)
		}
		return true, nil
	}
	to, err := continueIn(sv.Env, spec)
	if err != nil {
		giveUp(err)
		return true, nil
	}
	if to != spec.To {
		log.Warn("the run's CLI is not installed here: it continues in the run's fallback", "cli", spec.To, "fallback", to)
		spec.To, spec.Model = to, "" // a model is one CLI's: the fallback's own default
	}
	if _, err := os.Stat(spec.Dir); err != nil {
		// The project is not on this machine: rebuilt from its
		// repository and the changes its worker kept.
		dir, err := w.rebuild(ctx, sv, prior)
		if err != nil && bus.Transient(err) && ctx.Err() == nil {
			log.Warn("reading the run's project changes; trying again", "err", err)
			return false, nil
		}
		if err != nil {
			giveUp(fmt.Errorf("its project folder %s is not on this machine, and could not be rebuilt: %w", spec.Dir, err))
			return true, nil
		}
		log.Info("the run's project is rebuilt from git", "repo", prior.Project.Repo, "commit", prior.Project.Commit, "dir", dir)
		// A folder stead made: the CLI's question whether to trust it
		// is answered yes, as for an A/B variant's copy.
		spec.Dir, spec.Trust = dir, true
	}
	spec.Prompt = res.retype
	// Announced before the session is placed and the CLI started: the
	// run's watchers and stead runs see the move at once.
	res.failover = live.Failover{Time: time.Now().UTC(), From: prior.Supervisor, To: SupervisorName(sv.host()), Retyped: res.retype, Handover: res.handover}
	moved := prior
	moved.State, moved.Supervisor, moved.Host = live.RunFailover, res.failover.To, sv.host()
	moved.Failovers = append(moved.Failovers[:len(moved.Failovers):len(moved.Failovers)], res.failover)
	PutRun(sv.Bus, moved, log)
	st, _ := json.Marshal(live.Status{Run: spec.ID, State: live.RunFailover, Time: res.failover.Time, Signal: "failover",
		From: res.failover.From, To: res.failover.To, Detail: failoverDetail(res.failover, res.captured)})
	if err := sv.Bus.Publish(ctx, spec.ID, bus.Status, st, ""); err != nil {
		log.Warn("announcing the failover", "err", err)
	}
	o.resumed = res
	rec, err := sv.runWith(ctx, s, spec, nil, nil, o)
	ranOut(log, rec, err)
	return true, err
}

// notContinued ends a run whose worker was lost, and that this one could
// not continue (why), keeping what the bus captured.
func (sv *Supervisor) notContinued(ctx context.Context, prior live.Run, why error) {
	reason := fmt.Sprintf("its worker (%s) was lost, and %s could not continue it: %v", prior.Supervisor, SupervisorName(sv.host()), why)
	if _, err := sv.endLost(context.WithoutCancel(ctx), prior, reason, "failover"); err != nil {
		sv.logger().Warn("ending the run", "run", prior.ID, "err", err)
	}
}

// continueIn is the CLI a run continues in on this machine: its own, or
// else the first of its fallbacks installed here.
func continueIn(env session.Env, spec Spec) (string, error) {
	var missing []string
	for _, cli := range append([]string{spec.To}, spec.Fallback...) {
		if err := Runnable(cli); err != nil {
			missing = append(missing, err.Error())
			continue
		}
		if _, _, err := Program(env, cli); err != nil {
			missing = append(missing, err.Error())
			continue
		}
		return cli, nil
	}
	return "", fmt.Errorf("none of the CLIs it may continue in is installed on this machine (%s): %s",
		strings.Join(append([]string{spec.To}, spec.Fallback...), ", "), strings.Join(missing, "; "))
}

// rebuild makes the project of a run whose folder is not on this machine:
// its repository cloned, its commit checked out, the changes its worker
// kept applied. It returns the run's folder there.
func (w *Worker) rebuild(ctx context.Context, sv *Supervisor, prior live.Run) (string, error) {
	if prior.Project == nil {
		return "", errors.New("its folder is not in git (a run continues on another machine when its project is at the same path there, or in a git repository that machine can clone)")
	}
	var patch []byte
	if prior.Project.Changes != "" {
		r, err := sv.Bus.Session(ctx, ProjectObject(prior.ID))
		switch {
		case errors.Is(err, bus.ErrNoRun): // nothing changed yet
		case err != nil:
			return "", err
		default:
			patch, err = io.ReadAll(r)
			r.Close()
			if err != nil {
				return "", fmt.Errorf("reading the run's project changes: %w", err)
			}
		}
	}
	root := w.Projects
	if root == "" {
		root = filepath.Join(os.TempDir(), "stead-projects")
	}
	return restoreProject(prior.Project, patch, filepath.Join(root, fmt.Sprintf("%s-%d", prior.ID, len(prior.Failovers)+1)))
}

// continuation is what a run whose worker was lost continues from: the
// session it started from, then every entry the bus captured, up to the
// prompt whose turn was not over (typed again).
func (sv *Supervisor) continuation(ctx context.Context, prior live.Run, spec Spec) (*resumed, *session.Session, error) {
	history, err := sv.runHistory(ctx, prior)
	if err != nil {
		return nil, nil, err
	}
	captured, err := capturedEntries(ctx, sv.Bus, prior.ID, prior.CLI, prior.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("its captured entries: %w", err)
	}
	last, handover := live.RunStarting, false
	if err := sv.Bus.Replay(ctx, prior.ID, bus.Status, func(m bus.Msg) error {
		var st live.Status
		if json.Unmarshal(m.Data, &st) == nil && st.State != live.RunFailover {
			last, handover = st.State, st.Signal == handoverSignal
		}
		return nil
	}); err != nil {
		return nil, nil, fmt.Errorf("its states: %w", err)
	}
	res := &resumed{prior: prior, history: history, captured: len(captured), handover: handover}
	cut := len(captured)
	prompt := -1 // the last prompt the bus captured
	for i, e := range captured {
		if e.Type == session.User && e.Kind == "" && strings.TrimSpace(e.Content) != "" {
			prompt = i
		}
	}
	switch {
	case spec.Prompt != "" && !promptIn(captured, spec.Prompt):
		// The run's first prompt never reached the CLI's session.
		res.retype = spec.Prompt
	case prompt >= 0 && (last == live.RunBusy || last == live.RunWaiting):
		// Its turn was not over: what the lost worker captured of it is
		// kept on the bus, and the prompt typed again on a session
		// that ends before it.
		res.retype, cut = captured[prompt].Content, prompt
	}
	return res, joined(history, captured[:cut]), nil
}

// promptIn reports whether a user entry holds prompt.
func promptIn(entries []session.Entry, prompt string) bool {
	prompt = strings.TrimSpace(prompt)
	for _, e := range entries {
		if e.Type == session.User && strings.Contains(e.Content, prompt) {
			return true
		}
	}
	return false
}

// failoverDetail says what a failover did, for a person.
func failoverDetail(f live.Failover, captured int) string {
	how := "was lost (its lease expired)"
	if f.Handover {
		how = "stopped and handed the run over"
	}
	d := fmt.Sprintf("its worker %s %s; %s continues the run from the %d entries the bus captured", f.From, how, f.To, captured)
	if f.Retyped != "" {
		d += "; the prompt whose answer never came is typed again: " + safetext.QuoteN(f.Retyped, 80)
	}
	return d
}
