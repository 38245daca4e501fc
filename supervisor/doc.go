// Package supervisor runs a CLI under a pseudo-terminal and keeps it on a
// leash: the CLI is the leader of its own session and process group with
// the terminal as its controlling terminal (TUIs that are not stop at
// their first read), its window size follows the user's, and stopping it
// escalates (the CLI's own exit keys, then interrupt, terminate and kill,
// each to the whole group) with bounded waits, so that no process is left
// behind.
//
// A Proc is only the process and its terminal. What the CLI's output
// means, and when to type into it, is capture's and the caller's business.
// Attach passes a user's terminal through to a Proc in raw mode and
// restores it on every way out.
package supervisor
