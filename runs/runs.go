package runs

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/inject"
	"github.com/stead-dev/stead/session"
)

// Supervisor runs CLIs on universal sessions, live, captured onto its
// bus. A command, the daemon and a test each make one; it holds no state
// of its own between runs, so one may run many at once.
type Supervisor struct {
	Bus *bus.Bus
	// Env is the environment the CLIs run in: their homes, PATH, keys.
	Env session.Env
	// Log receives the runs' logs; nil discards them.
	Log *slog.Logger
	// Tool names the program that wrote the sessions it places
	// ("stead 0.9.0"), recorded in their provenance.
	Tool string
	// Placed, when set, is told of each session placed in a CLI's store
	// (what the conversion kept and lost).
	Placed func(*inject.Report)
	// Notices, when set, receives what the user should see as it
	// happens (a prompt the CLI did not take), one line each.
	Notices io.Writer
	// Drain is how long a run that ended goes on retrying what the bus
	// could not store (its disk is full) before it gives that up and
	// fails; 0 is 2 minutes.
	Drain time.Duration
	// Host names this machine in the runs' records (live.Run.Host and
	// Supervisor): "" is the name its bus was given (Bus.Host: the node
	// of the machine's daemon in a cluster), else its host name. A daemon
	// that is a member of a cluster names it as the member.
	Host string
}

// host is the name of this machine in the runs' records.
func (sv *Supervisor) host() string {
	if sv.Host != "" {
		return sv.Host
	}
	if sv.Bus != nil && sv.Bus.Host() != "" {
		return sv.Bus.Host() // as the machine's daemon names it
	}
	h, _ := os.Hostname()
	return h
}

// Failed records a run that failed before its CLI started (its session
// could not be read), so that stead runs shows it with its error. A
// record of the run that has ended is kept.
func (sv *Supervisor) Failed(spec Spec, cause error) {
	failedRun(sv.Bus, sv.host(), spec, cause, sv.logger())
}

func (sv *Supervisor) logger() *slog.Logger {
	if sv.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return sv.Log
}

func (sv *Supervisor) notify(err error) {
	if sv.Notices != nil {
		fmt.Fprintf(sv.Notices, "stead: %v\n", err)
	}
}

// Terminal is the user's terminal for an attached run.
type Terminal struct {
	In  *os.File
	Out io.Writer
}

// termSize is the size of the terminal f, if it is one.
func termSize(f *os.File) (rows, cols uint16, ok bool) {
	w, h, err := term.GetSize(int(f.Fd()))
	if err != nil || w <= 0 || h <= 0 {
		return 0, 0, false
	}
	return uint16(h), uint16(w), true
}

// ErrCannotRun is wrapped by the error of a run of a CLI stead does not
// know, or cannot drive.
var ErrCannotRun = errors.New("stead cannot run this CLI")

// cannotRun is an error that is ErrCannotRun, with a message of its own.
type cannotRun string

func (e cannotRun) Error() string        { return string(e) }
func (e cannotRun) Is(target error) bool { return target == ErrCannotRun }

// Runnable checks that stead can run cli under its supervisor: it knows
// the CLI, writes its sessions and drives its TUI.
func Runnable(cli string) error {
	a, ok := adapters.Lookup(cli)
	switch {
	case !ok:
		return cannotRun(fmt.Sprintf("unknown CLI %q (known: %s)", cli, strings.Join(adapters.Names(), ", ")))
	case !a.Runs():
		return cannotRun(fmt.Sprintf("stead cannot run %s", cli))
	}
	return nil
}

// Injector is how a session made by CLI from (its Source.CLI, which may
// be no CLI stead knows) is read, and written into dst's store: the tool
// calls of the other CLIs a session holds (a resumed one) are read by
// their own CLI's adapter.
func Injector(from string, dst adapters.Adapter) (inject.Reader, inject.Writer) {
	src, _ := adapters.Lookup(from)
	r := inject.Reader{CLI: from, ToolArgs: src.ToolArgs, ToolArgsOf: toolArgsOf}
	w := inject.Writer{CLI: dst.Name, Place: dst.Place, ToolCall: dst.ToolCall, Commit: dst.Commit,
		NewEncoder: func(out io.Writer, t session.Target, lost func(session.Loss)) inject.Encoder {
			return dst.NewEncoder(out, t, lost)
		}}
	return r, w
}

// toolArgsOf reads the native tool calls of a CLI, for the entries of a
// session that several CLIs made.
func toolArgsOf(cli string) inject.ToolArgs {
	a, ok := adapters.Lookup(cli)
	if !ok {
		return nil
	}
	return a.ToolArgs
}
