package runs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// RecoverEvery is how often the daemon looks for runs whose supervisor is
// gone: a stead command killed with SIGKILL, or a daemon before a restart.
const RecoverEvery = 30 * time.Second

// recoverer ends the runs of this host whose supervisor is gone. The
// daemon runs one: at its start, it ends what a killed daemon left; while
// it runs, what a killed attached command left.
type recoverer struct {
	sv   *Supervisor
	b    *bus.Bus
	host string
	// mine reports whether this process supervises the run now.
	mine func(run string) bool
	// over holds runs seen over, not looked at again.
	over map[string]bool
}

// scan ends every orphaned run once and returns how many it ended.
func (rc *recoverer) scan(ctx context.Context) (int, error) {
	if rc.over == nil {
		rc.over = map[string]bool{}
	}
	runs, err := rc.b.Runs(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range runs {
		if rc.over[r.ID] {
			continue
		}
		if r.State.Done() {
			rc.over[r.ID] = true
			continue
		}
		if r.Durable {
			continue // a job of the work queue: another worker continues it
		}
		host, pid, ok := ParseSupervisor(r.Supervisor)
		if !ok || host != rc.host {
			continue // another machine's: its workers' business
		}
		if pid == os.Getpid() && rc.mine(r.ID) || pid != os.Getpid() && steadRuns(pid) {
			continue
		}
		if err := rc.end(ctx, r, pid); err != nil {
			rc.sv.logger().Warn("ending a run whose supervisor is gone", "run", r.ID, "err", err)
			continue
		}
		rc.over[r.ID] = true
		n++
	}
	return n, nil
}

// end marks an orphaned run failed and stores its session from what the
// bus captured.
func (rc *recoverer) end(ctx context.Context, r live.Run, supervisor int) error {
	reason := fmt.Sprintf("its supervisor (stead pid %d on %s) ended without ending the run; stead (pid %d) ended it",
		supervisor, rc.host, os.Getpid())
	added, err := rc.sv.endLost(ctx, r, reason, "recovery")
	if err != nil {
		return err
	}
	rc.sv.logger().Warn("ended a run whose supervisor is gone", "run", r.ID, "supervisor", r.Supervisor, "entries", added)
	return nil
}

// endLost marks a run whose supervisor is gone failed, for reason, and
// stores its session from what the bus captured: the history it started
// from, then its entries. Its CLI, if it still runs on this machine, is
// stopped first, so that nothing writes on. It returns the entries kept.
func (sv *Supervisor) endLost(ctx context.Context, r live.Run, reason, signal string) (int, error) {
	if r.PID > 0 && r.Host == sv.host() && runsFor(r.PID, r.ID) {
		sv.logger().Info("stopping the CLI of a run whose supervisor is gone", "run", r.ID, "pid", r.PID)
		stopGroup(r.PID)
	}
	history, err := sv.runHistory(ctx, r)
	if err != nil {
		return 0, err
	}
	added, err := StoreSession(sv.Bus, r.ID, history, r.CLI, r.Path)
	if err != nil {
		return 0, fmt.Errorf("storing its session: %w", err)
	}
	now := time.Now().UTC()
	r.State, r.Ended, r.Entries = live.RunFailed, now, added
	r.Reason = fmt.Sprintf("%s, keeping the %d entries the bus had captured", reason, added)
	if err := sv.Bus.PutRun(ctx, r); err != nil {
		return 0, err
	}
	st, _ := json.Marshal(live.Status{Run: r.ID, State: live.RunFailed, Time: now, Signal: signal, Detail: r.Reason})
	if err := sv.Bus.Publish(ctx, r.ID, bus.Status, st, ""); err != nil {
		return 0, err
	}
	return added, nil
}

// runHistory is the session run r started from: stored on the bus when
// the run started, or else (a run of an older stead) read from the native
// file the run's CLI wrote, which holds it too.
func (sv *Supervisor) runHistory(ctx context.Context, r live.Run) (*session.Session, error) {
	s, err := sv.stored(ctx, HistoryObject(r.ID))
	if err == nil {
		return s, nil
	}
	if !errors.Is(err, bus.ErrNoRun) {
		return nil, err
	}
	a, ok := adapters.Lookup(r.CLI)
	if !ok || r.Path == "" || !a.Reads() {
		return &session.Session{Source: session.Source{CLI: r.CLI}}, nil
	}
	s, err = a.Open(sv.Env, session.Ref{CLI: r.CLI, ID: r.SessionID, Path: r.Path})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", r.Path, err)
	}
	// Its new entries come from the bus: keep what the file held before.
	s.Timeline = nil
	return s, nil
}

// ParseSupervisor splits a run's supervisor, <host>/<pid> (SupervisorName).
func ParseSupervisor(s string) (host string, pid int, ok bool) {
	i := strings.LastIndexByte(s, '/')
	if i < 0 {
		return "", 0, false
	}
	pid, err := strconv.Atoi(s[i+1:])
	return s[:i], pid, err == nil && pid > 0
}

// steadRuns reports whether process pid runs and is a stead (its program's
// name holds "stead"): a pid that a new process took is not the
// supervisor. Where /proc cannot tell, a running process counts.
func steadRuns(pid int) bool {
	if !ProcessRuns(pid) {
		return false
	}
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return true
	}
	prog, _, _ := bytes.Cut(cmdline, []byte{0})
	return strings.Contains(filepath.Base(string(prog)), "stead")
}

// ProcessRuns reports whether process pid runs: it exists and is not a
// zombie (a process that ended, not yet reaped by its parent, still takes
// signals).
func ProcessRuns(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// runsFor reports whether process pid runs with STEAD_RUN=run in its
// environment: the CLI stead started for that run, not a process that
// took its pid since.
func runsFor(pid int, run string) bool {
	env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if string(kv) == "STEAD_RUN="+run {
			return true
		}
	}
	return false
}

// stopGroup ends process group pgid: terminate, then kill what is left
// after a moment.
func stopGroup(pgid int) {
	if syscall.Kill(-pgid, syscall.SIGTERM) != nil {
		return
	}
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
}
