// Package runs runs CLIs live on universal sessions: it places a session
// in the target CLI's store (inject), starts the CLI on it under a
// pseudo-terminal (supervisor), drives its TUI (waits until it is ready,
// types the prompt the way it takes one, answers the dialogs it may,
// stops it), and captures what it does onto the bus (capture, bus) until
// it exits, then stores the whole session.
//
// A Supervisor holds the bus, the environment and the logger; Run runs
// one Spec. Everything a run does is an actor of its one run.Group,
// ended with the run. The timings that drive a TUI are named constants
// saying what was measured to choose them.
//
// Non-goals: the command line (cmd/stead), and A/B, chains and templates,
// which are being moved here from cmd/stead (issue 18).
package runs
