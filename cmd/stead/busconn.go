package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/daemon"
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

// stateDir is where stead keeps its state.
func stateDir(env session.Env) string { return daemon.StateDir(env) }

// connectBus reaches the bus: the external one the flags or environment
// name, or the local daemon's, starting the daemon when none runs (unless
// start is false).
func connectBus(ctx context.Context, f *Factory, bf BusFlags, start bool) (*bus.Bus, error) {
	return daemon.Connect(ctx, daemon.Options{Env: f.Env, Logger: f.Logger, URL: bf.URL, Token: bf.Token, Creds: bf.Creds,
		Start: start, Notices: f.IO.ErrOut, Program: daemonProgram})
}

// daemonProgram is the program started as the daemon: this one (a test
// replaces it).
var daemonProgram = os.Executable
