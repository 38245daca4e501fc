package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/internal/atomicfile"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// Options say how to reach the bus.
type Options struct {
	// Env is the environment: it locates stead's state (and the local
	// daemon), and may name an external bus ($STEAD_NATS_URL,
	// $STEAD_NATS_TOKEN).
	Env    session.Env
	Logger *slog.Logger
	// URL, Token and Creds name an external NATS server or cluster to
	// use instead of the local daemon; "" takes the environment's.
	URL, Token, Creds string
	// Start starts the local daemon when none runs (in the background,
	// in a session of its own, logging to Log), and replaces one of
	// another build that supervises no run.
	Start bool
	// Notices hears what the user should know: a daemon started or
	// replaced, one of another build kept. Nil discards them.
	Notices io.Writer
	// Program is the stead program started as the daemon, with the
	// argument serve; nil is this program.
	Program func() (string, error)
}

// External is the external bus the options or the environment name, if
// any.
func (o Options) External() string {
	if o.URL != "" {
		return o.URL
	}
	return o.Env.Get("STEAD_NATS_URL")
}

func (o Options) notify(format string, args ...any) {
	if o.Notices != nil {
		fmt.Fprintf(o.Notices, "stead: "+format+"\n", args...)
	}
}

// StartWithin is how long Connect waits for the daemon it started (it
// starts in well under a second; a slow disk recovering a large store
// can take a few).
const StartWithin = 20 * time.Second

// reconnect is how long a client of the local daemon waits for it to
// come back after the connection is lost: a daemon that restarts takes
// the same address and token back, so a watch goes on across the restart.
const reconnect = 30 * time.Second

// Connect reaches the bus: the external one the options or environment
// name, or the local daemon's, starting the daemon when none runs and
// o.Start is set.
func Connect(ctx context.Context, o Options) (*bus.Bus, error) {
	if url := o.External(); url != "" {
		token := o.Token
		if token == "" {
			token = o.Env.Get("STEAD_NATS_TOKEN")
		}
		return bus.New(ctx, bus.Options{URL: url, Token: token, CredsFile: o.Creds, Logger: o.Logger})
	}
	if err := CheckFree(StateDir(o.Env)); err != nil {
		return nil, err
	}
	b, err := Dial(ctx, o.Env, o.Logger)
	if err == nil {
		b, err = sameBuild(ctx, o, b)
	}
	if err == nil {
		return b, nil
	}
	if !errors.Is(err, ErrNoDaemon) {
		// A daemon runs but cannot be reached: another one would not
		// help.
		return nil, err
	}
	if !o.Start {
		return nil, errors.New("no stead daemon is running (start one with: stead serve)")
	}
	exited, err := start(o)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(StartWithin)
	for {
		b, err := Dial(ctx, o.Env, o.Logger)
		if err == nil {
			return b, nil
		}
		if !errors.Is(err, ErrNoDaemon) {
			return nil, err
		}
		select {
		case why := <-exited:
			return nil, fmt.Errorf("the stead daemon did not start: %s%s", why, logTail(Log(o.Env)))
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the stead daemon did not come up within %s%s", StartWithin, logTail(Log(o.Env)))
		}
	}
}

// clusterDial is how long a command waits for its daemon's cluster to
// answer.
const clusterDial = 45 * time.Second

// Dial connects to the running local daemon; ErrNoDaemon (wrapped) when
// none runs.
func Dial(ctx context.Context, env session.Env, log *slog.Logger) (*bus.Bus, error) {
	info, err := Read(env)
	if err != nil {
		return nil, err
	}
	// A daemon of this process (a test's, a front end's) is dialled
	// too; an address left with this process's pid by another that died
	// is not answered, and is no daemon.
	self := info.PID == os.Getpid()
	if !self && !info.Alive() {
		return nil, fmt.Errorf("the daemon (pid %d) is gone: %w", info.PID, ErrNoDaemon)
	}
	opts := bus.Options{URL: info.URL, Token: info.Token, Logger: log, Reconnect: reconnect, Bind: true, Host: info.Node}
	wait := 5 * time.Second
	if info.ClusterKey != "" {
		// A cluster that lost a member answers again once it chose new
		// leaders, a few seconds later.
		wait = clusterDial
		key, err := bus.ReadClusterKey(info.ClusterKey)
		if err != nil {
			return nil, fmt.Errorf("the stead daemon (pid %d) is a cluster member: %w", info.PID, err)
		}
		opts.Key = &key
	}
	cctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	b, err := bus.New(cctx, opts)
	if err != nil && self {
		return nil, fmt.Errorf("the daemon (pid %d) is gone: %w", info.PID, ErrNoDaemon)
	}
	if err != nil {
		return nil, fmt.Errorf("the stead daemon (pid %d) runs but does not answer on %s: %w", info.PID, info.URL, err)
	}
	return b, nil
}

// sameBuild checks that the daemon b reaches runs this build of stead. One
// of another build (an older stead) is replaced when it supervises no run
// and o.Start is set (ErrNoDaemon then: the caller starts this one), and
// kept, with a notice, otherwise.
func sameBuild(ctx context.Context, o Options, b *bus.Bus) (*bus.Bus, error) {
	info, err := Read(o.Env)
	mine := Build()
	if err != nil || mine == "" || info.Build == mine {
		return b, nil
	}
	active := 0
	if all, err := b.Runs(ctx); err == nil {
		for _, r := range all {
			if _, pid, ok := runs.ParseSupervisor(r.Supervisor); ok && pid == info.PID && !r.State.Done() {
				active++
			}
		}
	}
	what := fmt.Sprintf("the stead daemon (pid %d, started %s from %s) is another build of stead (%s, this one is %s)",
		info.PID, info.Started.Local().Format("2006-01-02 15:04"), orUnknown(info.Program), orUnknown(info.Build), mine)
	if active > 0 || !o.Start {
		o.notify("warning: %s; it goes on supervising its %d runs: stop it with stead serve stop to use this one", what, active)
		return b, nil
	}
	b.Close()
	o.notify("%s, and runs nothing: replacing it", what)
	if err := Stop(info, time.Minute); err != nil {
		return nil, err
	}
	return nil, ErrNoDaemon
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// Stop asks the daemon to stop (SIGTERM: it stops its runs' CLIs and
// stores their sessions) and waits until it is gone, killing it after
// within.
func Stop(info Info, within time.Duration) error {
	if !info.Alive() {
		return nil
	}
	if err := syscall.Kill(info.PID, syscall.SIGTERM); err != nil {
		return fmt.Errorf("stopping the stead daemon (pid %d): %w", info.PID, err)
	}
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if !info.Alive() {
			return nil
		}
	}
	syscall.Kill(info.PID, syscall.SIGKILL)
	return fmt.Errorf("the stead daemon (pid %d) did not stop within %s of SIGTERM: killed", info.PID, within)
}

// start starts stead serve in the background, in a session of its own so
// that it outlives the command and the terminal. exited says why, if the
// daemon ends before the command stops waiting for it.
func start(o Options) (exited <-chan string, err error) {
	program := o.Program
	if program == nil {
		program = os.Executable
	}
	self, err := program()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(StateDir(o.Env), 0o700); err != nil {
		return nil, err
	}
	logf, err := atomicfile.OpenAppend(Log(o.Env), 0o600)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(self, "serve")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the stead daemon: %w", err)
	}
	o.notify("started the daemon (pid %d); its log is %s", cmd.Process.Pid, logf.Name())
	why := make(chan string, 1)
	go func() {
		// Reaped here while the command runs; once it exits, init
		// adopts the daemon.
		err := cmd.Wait()
		if err == nil {
			err = errors.New("it exited")
		}
		why <- err.Error()
	}()
	return why, nil
}

// logTail is the end of a log, to explain a failure.
func logTail(path string) string {
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data[max(0, len(data)-4096):]), "\n"), "\n")
	lines = lines[max(0, len(lines)-6):]
	return "; the end of " + path + ":\n  " + strings.Join(lines, "\n  ")
}
