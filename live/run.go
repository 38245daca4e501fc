package live

import (
	"time"

	"github.com/stead-dev/stead/session"
)

// Run is one supervised run of a CLI: a session resumed in a CLI under a
// terminal, watched live.
type Run struct {
	// ID names the run; it is safe in a NATS subject token.
	ID string `json:"id"`
	// CLI is the CLI the run drives, SessionID the native session it
	// continues, Dir the project directory it runs in.
	CLI       string `json:"cli"`
	SessionID string `json:"sessionId,omitempty"`
	Dir       string `json:"dir,omitempty"`
	// Source is the session the run started from, when it was
	// converted from another.
	Source *session.Origin `json:"source,omitempty"`
	// Path is the native session file the run's CLI writes.
	Path string `json:"path,omitempty"`
	// Host and PID say where the CLI runs.
	Host string `json:"host,omitempty"`
	PID  int    `json:"pid,omitempty"`
	// Supervisor names the stead process that supervises the run,
	// <host>/<pid>: the command itself for an attached run, a worker
	// (stead serve) for a detached one.
	Supervisor string `json:"supervisor,omitempty"`
	// State is the run's latest state (the RunState constants).
	State   RunState  `json:"state"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended,omitzero"`
	// ExitCode is the CLI's exit status once it exited (-1 when it was
	// killed by a signal).
	ExitCode *int `json:"exitCode,omitempty"`
	// Reason says why the run failed or stopped, for a person.
	Reason string `json:"reason,omitempty"`
	// Entries counts the universal entries captured so far.
	Entries int `json:"entries"`
	// Durable marks a detached run taken from the bus's work queue: when
	// its worker is lost, another worker continues it (Failovers).
	Durable bool `json:"durable,omitempty"`
	// Failovers are the times the run moved to another worker, oldest
	// first.
	Failovers []Failover `json:"failovers,omitempty"`
	// Project says where the run's project comes from, for a durable
	// run whose folder is in git: a worker of another machine rebuilds it
	// from there when the folder is not on its machine.
	Project *Project `json:"project,omitempty"`
}

// Project is a run's project as a git repository: a worker continuing
// the run on another machine clones Repo, checks out Commit and applies
// the working tree's changes the run's worker kept at each change of
// state (a patch in the bus's object store).
type Project struct {
	// Repo is the repository's origin (its URL), or the top folder's
	// path when it has none (shared storage).
	Repo   string `json:"repo"`
	Commit string `json:"commit"`
	// Sub is the run's folder inside the repository ("" for its top).
	Sub string `json:"sub,omitempty"`
	// Changes names the stored patch of the working tree against Commit
	// (untracked files included, ignored ones not); Kept is when it was
	// last stored, and Bytes its size.
	Changes string    `json:"changes,omitempty"`
	Kept    time.Time `json:"kept,omitzero"`
	Bytes   int       `json:"bytes,omitempty"`
}

// Failover is a run's move from a worker that was lost to another, which
// continues the run's session from what the bus captured.
type Failover struct {
	Time time.Time `json:"time"`
	// From and To are the lost and the new supervisor (<host>/<pid>).
	From string `json:"from"`
	To   string `json:"to"`
	// Retyped is the prompt typed again: its turn's answer never came
	// while the lost worker ran it.
	Retyped string `json:"retyped,omitempty"`
	// Handover is set when the worker was not lost but stopping (stead
	// serve stop, a machine taken down on purpose): it handed the run
	// over at once rather than letting its lease expire.
	Handover bool `json:"handover,omitempty"`
}

// RunState is what a run's CLI is doing.
type RunState string

// Run states.
const (
	RunStarting RunState = "starting" // launched, not yet ready for input
	RunReady    RunState = "ready"    // idle, waiting for a prompt
	RunBusy     RunState = "busy"     // the model or a tool is working
	RunWaiting  RunState = "waiting"  // waiting for the user: an approval, a question
	RunExited   RunState = "exited"   // the CLI exited on its own or on request
	RunFailed   RunState = "failed"   // the CLI could not start, crashed, or was killed
	// RunInterrupted: the command (or daemon) running it was interrupted
	// (Ctrl-C, SIGTERM) and stopped its CLI before its turn was over.
	RunInterrupted RunState = "interrupted"
	// RunFailover: the run's worker was lost; another is continuing the
	// run (Status.From and To name them).
	RunFailover RunState = "failover"
)

// Done reports whether the run is over.
func (s RunState) Done() bool { return s == RunExited || s == RunFailed || s == RunInterrupted }

// Status is a change of a run's state, as published on its status
// subject.
type Status struct {
	Run   string    `json:"run"`
	State RunState  `json:"state"`
	Time  time.Time `json:"time"`
	// Signal says what the state was read from: a CLI's own status file,
	// its terminal title, its session records, the screen, the process.
	Signal string `json:"signal,omitempty"`
	// Detail explains, for a person (what the CLI waits for, why it
	// failed).
	Detail   string `json:"detail,omitempty"`
	ExitCode *int   `json:"exitCode,omitempty"`
	// From and To name the lost and the new supervisor of a failover.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}
