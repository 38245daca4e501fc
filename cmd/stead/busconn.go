package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/internal/atomicfile"
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
}

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
	if b, err := dialDaemon(ctx, f); err == nil {
		return b, nil
	}
	if !start {
		return nil, errors.New("no stead daemon is running (start one with: stead serve)")
	}
	if err := startDaemon(f); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := dialDaemon(ctx, f)
		if err == nil {
			return b, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the stead daemon did not come up within 20 s (see %s): %w",
				filepath.Join(stateDir(f.Env), "serve.log"), err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func dialDaemon(ctx context.Context, f *Factory) (*bus.Bus, error) {
	data, err := os.ReadFile(daemonFile(f.Env))
	if err != nil {
		return nil, err
	}
	var info daemonInfo
	if err := json.Unmarshal(data, &info); err != nil {
		return nil, fmt.Errorf("%s: %w", daemonFile(f.Env), err)
	}
	if info.PID > 0 && syscall.Kill(info.PID, 0) != nil {
		return nil, fmt.Errorf("the daemon (pid %d) is gone", info.PID)
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return bus.New(cctx, bus.Options{URL: info.URL, Token: info.Token, Logger: f.Logger})
}

// startDaemon starts stead serve in the background, in a session of its
// own so that it outlives this command and the terminal.
func startDaemon(f *Factory) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	dir := stateDir(f.Env)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	logf, err := os.OpenFile(filepath.Join(dir, "serve.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(self, "serve")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the stead daemon: %w", err)
	}
	fmt.Fprintf(f.IO.ErrOut, "stead: started the daemon (pid %d); its log is %s\n", cmd.Process.Pid, logf.Name())
	return cmd.Process.Release()
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
