// Package capture turns a supervised CLI's output into what goes on the
// bus, as it happens: the raw terminal output; the native session records
// the CLI appends to its file (followed by offset, polled every few
// milliseconds, with no line-length limit) or keeps in a database
// (polled); the universal entries an adapter's decoder makes of those
// records, in order and each once; and the CLI's state (starting, ready,
// busy, waiting, exited), read from structural signals first: the CLI's
// own status file, its terminal title, the turn boundaries in its
// records, its debug log where a CLI says only there that a model request
// failed for good, and the terminal's bracketed-paste mode and quiet time
// for readiness; then from the screen (working lines, approval dialogs).
// A dialog only the screen shows holds the run waiting until it is gone
// from the screen, whatever records arrive meanwhile.
//
// capture knows no CLI: what to read and how comes in as a live.TUI,
// decoder constructors and snapshot functions. It publishes through its
// own Publisher interface, which the bus satisfies through cmd's wiring.
package capture
