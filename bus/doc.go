// Package bus is stead's message bus: an embedded NATS server with
// JetStream (the default), or an external NATS deployment reached through
// the same code, so that several stead workers on several machines share
// runs.
//
// # Subjects
//
// Everything about a run travels under stead.run.<run>:
//
//	stead.run.<run>.pty     the CLI's terminal output, raw bytes, in order (kept 24 h)
//	stead.run.<run>.native  the CLI's native session records, one per message, as written
//	stead.run.<run>.entry   universal entries (session.Event JSON), in order, each once
//	stead.run.<run>.status  state changes (live.Status JSON): starting, ready, busy, waiting, exited, failed
//	stead.run.<run>.input   bytes to type into the CLI's terminal (not kept)
//	stead.run.<run>.control stop, prompt and resize requests to the run's supervisor (not kept)
//
// # Requests and replies
//
// The input and control subjects take a Request as JSON, with the
// protocol's Version; the supervisor answers with a Reply whose Code maps
// back to an error (ErrBadRequest, ErrNoRun, ErrNotRunning, ErrFailed), so
// that an error of a supervisor on another machine is the same error to
// the client that asked. Send and Ask send them; Serve answers them.
//
// The pty, native, entry and status subjects are kept in JetStream (streams
// STEAD_PTY and STEAD_RUNS), so a watcher that joins late, or restarts, gets
// a run from its start. Each entry message carries a Nats-Msg-Id of run and
// entry id, so a capture that restarts does not publish an entry twice.
// The key-value bucket stead-runs holds each run's record (live.Run,
// key: run id); the object store stead-sessions holds each finished run's
// whole universal session (object name: run id). Workers take detached runs
// from the queue subject stead.work.start (queue group stead-workers).
//
// # Embedded or external
//
// With no URL, New runs nats-server in the process: clients in the process
// connect in memory, and no port is opened unless Options.Listen asks for
// one (on loopback, with a generated token), which is how other stead
// processes on the machine reach it. With a URL, New connects to that
// server or cluster (token or credentials file) and creates the streams
// there if they are missing.
package bus
