package main

import (
	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/inject"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/scenarios"
	"github.com/stead-dev/stead/session"
)

// supervisor is the runs library's Supervisor for this command: its
// environment and logger, the bus it was given, stead's version as the
// writer of the sessions it places, and the user's stderr for notices.
func (f *Factory) supervisor(b *bus.Bus) *runs.Supervisor {
	return &runs.Supervisor{Bus: b, Env: f.Env, Log: f.Logger, Tool: "stead " + version, Notices: f.IO.ErrOut,
		Placed: func(rep *inject.Report) { logConversion(f, rep) }}
}

// runnable checks that stead can run cli, as a flag: a CLI it does not
// know or cannot drive is a bad command line.
func runnable(cli string) error {
	if err := runs.Runnable(cli); err != nil {
		return flagErrorf("%v", err)
	}
	return nil
}

// installed checks, before a command starts anything, that the program
// of a CLI it runs can be found, as the run will look for it.
func installed(env session.Env, cli string) error {
	_, _, err := scenarios.FindCLI(env, cli)
	return err
}
