// Package daemon is stead's daemon and how a program reaches it.
//
// A Daemon embeds the NATS server (its JetStream store in stead's state
// directory, clients on a loopback port with a generated token), publishes
// its address in <state>/bus.json (mode 0600), and does the work of
// runs.Worker: detached runs from the work queue, and the runs whose
// supervisor is gone. With an external NATS deployment it embeds nothing
// and is one of several workers sharing it. A test, the stead command and
// any other front end start one the same way:
//
//	d := &daemon.Daemon{Env: env, Logger: log, Supervisor: runs.Supervisor{Env: env}}
//	go d.Run(ctx)
//	<-d.Ready()
//
// Connect is the other side: it reaches the bus a command should use (an
// external one the options or environment name, else the local daemon's),
// starting the local daemon in the background when none runs and
// replacing one of another build that runs nothing. Read, Status and Stop
// tell of and stop the local daemon.
package daemon
