package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/internal/atomicfile"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// BusFlags are how a command reaches the bus.
type BusFlags struct {
	URL, Token, Creds string
}

func addBusFlags(cmd *cobra.Command, f *BusFlags) {
	cmd.Flags().StringVar(&f.URL, "nats-url", "", "an external NATS server or cluster to use instead of the local stead daemon (default $STEAD_NATS_URL)")
	cmd.Flags().StringVar(&f.Creds, "nats-creds", "", "a NATS credentials file for --nats-url")
}

// stateDir is where stead keeps its state: the bus's store, the daemon's
// address and log.
func stateDir(env session.Env) string {
	if d := env.Get("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "stead")
	}
	return filepath.Join(env.Home, ".local", "state", "stead")
}

// daemonInfo is what a running daemon publishes of itself in
// <state>/bus.json (mode 0600: the token lets a process on the machine in).
type daemonInfo struct {
	URL   string `json:"url"`
	Token string `json:"token"`
	PID   int    `json:"pid"`
	// Started is when the daemon started; Version and Build say which
	// stead it is (Build: a hash of its program), Program where it runs
	// from.
	Started time.Time `json:"started,omitzero"`
	Version string    `json:"version,omitempty"`
	Build   string    `json:"build,omitempty"`
	Program string    `json:"program,omitempty"`
}

// selfBuild is a hash of this program's bytes: two stead programs built
// from the same source (go run builds one each time) have the same.
var selfBuild = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil)[:6])
})

func daemonFile(env session.Env) string { return filepath.Join(stateDir(env), "bus.json") }

// connectBus reaches the bus: the external one the flags or environment
// name, or the local daemon's, starting the daemon when none runs (unless
// start is false).
func connectBus(ctx context.Context, f *Factory, bf BusFlags, start bool) (*bus.Bus, error) {
	url := bf.URL
	if url == "" {
		url = f.Env.Get("STEAD_NATS_URL")
	}
	if url != "" {
		token := bf.Token
		if token == "" {
			token = f.Env.Get("STEAD_NATS_TOKEN")
		}
		return bus.New(ctx, bus.Options{URL: url, Token: token, CredsFile: bf.Creds, Logger: f.Logger})
	}
	dir := stateDir(f.Env)
	if err := checkFree(dir); err != nil {
		return nil, err
	}
	b, err := dialDaemon(ctx, f)
	if err == nil {
		b, err = sameBuild(ctx, f, b, start)
	}
	if err == nil {
		return b, nil
	}
	if !errors.Is(err, errNoDaemon) {
		// A daemon runs but cannot be reached: another one would not
		// help.
		return nil, err
	}
	if !start {
		return nil, errors.New("no stead daemon is running (start one with: stead serve)")
	}
	exited, err := startDaemon(f)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(daemonStartWithin)
	for {
		b, err := dialDaemon(ctx, f)
		if err == nil {
			return b, nil
		}
		if !errors.Is(err, errNoDaemon) {
			return nil, err
		}
		select {
		case why := <-exited:
			return nil, fmt.Errorf("the stead daemon did not start: %s%s", why, logTail(filepath.Join(dir, "serve.log")))
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the stead daemon did not come up within %s%s", daemonStartWithin, logTail(filepath.Join(dir, "serve.log")))
		}
	}
}

// sameBuild checks that the daemon b reaches runs this build of stead. One
// of another build (an older stead) is replaced when it supervises no run
// (errNoDaemon then: the caller starts this one), and kept, with a
// warning, when it does.
func sameBuild(ctx context.Context, f *Factory, b *bus.Bus, replace bool) (*bus.Bus, error) {
	info, err := readDaemonInfo(f.Env)
	mine := selfBuild()
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
	if active > 0 || !replace {
		fmt.Fprintf(f.IO.ErrOut, "stead: warning: %s; it goes on supervising its %d runs: stop it with stead serve stop to use this one\n", what, active)
		return b, nil
	}
	b.Close()
	fmt.Fprintf(f.IO.ErrOut, "stead: %s, and runs nothing: replacing it\n", what)
	if err := stopDaemon(info, time.Minute); err != nil {
		return nil, err
	}
	return nil, errNoDaemon
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// stopDaemon asks the daemon to stop (SIGTERM: it stops its runs' CLIs
// and stores their sessions) and waits until it is gone, killing it after
// within.
func stopDaemon(info daemonInfo, within time.Duration) error {
	if !info.alive() {
		return nil
	}
	if err := syscall.Kill(info.PID, syscall.SIGTERM); err != nil {
		return fmt.Errorf("stopping the stead daemon (pid %d): %w", info.PID, err)
	}
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if !info.alive() {
			return nil
		}
	}
	syscall.Kill(info.PID, syscall.SIGKILL)
	return fmt.Errorf("the stead daemon (pid %d) did not stop within %s of SIGTERM: killed", info.PID, within)
}

// daemonStartWithin is how long a command waits for the daemon it started
// (it starts in well under a second; a slow disk recovering a large store
// can take a few).
const daemonStartWithin = 20 * time.Second

// daemonReconnect is how long a client of the local daemon waits for it to
// come back after the connection is lost: a daemon that restarts takes
// the same address and token back, so a watch goes on across the restart.
const daemonReconnect = 30 * time.Second

// errNoDaemon is returned by dialDaemon when no daemon runs.
var errNoDaemon = errors.New("no stead daemon runs")

// dialDaemon connects to the running daemon.
func dialDaemon(ctx context.Context, f *Factory) (*bus.Bus, error) {
	info, err := readDaemonInfo(f.Env)
	if err != nil {
		return nil, err
	}
	if !info.alive() {
		return nil, fmt.Errorf("the daemon (pid %d) is gone: %w", info.PID, errNoDaemon)
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	b, err := bus.New(cctx, bus.Options{URL: info.URL, Token: info.Token, Logger: f.Logger, Reconnect: daemonReconnect, Bind: true})
	if err != nil {
		return nil, fmt.Errorf("the stead daemon (pid %d) runs but does not answer on %s: %w", info.PID, info.URL, err)
	}
	return b, nil
}

// readDaemonInfo reads what the daemon published of itself; errNoDaemon
// when it published nothing.
func readDaemonInfo(env session.Env) (daemonInfo, error) {
	var info daemonInfo
	data, err := os.ReadFile(daemonFile(env))
	if errors.Is(err, fs.ErrNotExist) {
		return info, errNoDaemon
	}
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return info, fmt.Errorf("%s: %w", daemonFile(env), err)
	}
	return info, nil
}

// alive reports whether the daemon's process runs.
func (d daemonInfo) alive() bool {
	return d.PID > 0 && d.PID != os.Getpid() && runs.ProcessRuns(d.PID)
}

// startDaemon starts stead serve in the background, in a session of its
// own so that it outlives this command and the terminal. exited says why,
// if the daemon ends before this command stops waiting for it.
func startDaemon(f *Factory) (exited <-chan string, err error) {
	self, err := daemonProgram()
	if err != nil {
		return nil, err
	}
	dir := stateDir(f.Env)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	logf, err := atomicfile.OpenAppend(filepath.Join(dir, "serve.log"), 0o600)
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
	fmt.Fprintf(f.IO.ErrOut, "stead: started the daemon (pid %d); its log is %s\n", cmd.Process.Pid, logf.Name())
	why := make(chan string, 1)
	go func() {
		// Reaped here while this command runs; once it exits, init
		// adopts the daemon.
		err := cmd.Wait()
		if err == nil {
			err = errors.New("it exited")
		}
		why <- err.Error()
	}()
	return why, nil
}

// daemonProgram is the program started as the daemon: this one (a test
// replaces it).
var daemonProgram = os.Executable

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

// writeDaemonInfo publishes the daemon's address, atomically.
func writeDaemonInfo(env session.Env, info daemonInfo) error {
	data, _ := json.Marshal(info)
	path := daemonFile(env)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o600)
}
