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
// The decision is a pure step function, machine (machine.go): each
// signal comes to it as an input with the time it came, and it returns
// the changes of state to publish and keeps the counts (entries, prompts,
// turns, how the last turn ended). It holds no lock and reads no clock:
// its timers (readiness on quiet output, a ready settling while the
// session file catches up, a busy only the screen said going stale) fire
// on the first tick at or after their deadline, which it tells (next).
// Capture is the shell around it: the actors (Terminal, StatusFile, File,
// Snapshot, DebugLog, and Readiness, which ticks it every 10 ms), the
// lock, the clock, the terminal emulator, and publishing, in the order
// the machine made its changes and each after the entries that caused
// it. The machine's tests drive it on a clock of their own, with no
// terminal and no sleep.
//
// capture knows no CLI: what to read and how comes in as a live.TUI,
// decoder constructors and snapshot functions. It publishes through its
// own Publisher interface, which the bus satisfies through cmd's wiring.
package capture
