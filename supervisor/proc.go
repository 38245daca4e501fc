package supervisor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// Spec says what to run.
type Spec struct {
	// Path is the program; Args its arguments (without the program).
	Path string
	Args []string
	// Dir is the working directory, Env the whole environment.
	Dir string
	Env []string
	// Rows and Cols size the terminal (default 50×200).
	Rows, Cols uint16
}

// Proc is a process running under a pseudo-terminal.
type Proc struct {
	cmd  *exec.Cmd
	tty  *os.File
	done chan struct{}

	mu      sync.Mutex // guards writes to tty
	state   *os.ProcessState
	waitErr error
}

// Start starts spec's program under a new pseudo-terminal, as the leader
// of a new session and process group.
func Start(spec Spec) (*Proc, error) {
	rows, cols := spec.Rows, spec.Cols
	if rows == 0 {
		rows = 50
	}
	if cols == 0 {
		cols = 200
	}
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Dir, cmd.Env = spec.Dir, spec.Env
	// Setsid makes the child a session (and process group) leader;
	// Setctty makes the terminal its controlling terminal, so that
	// reading it does not stop the CLI with SIGTTIN.
	tty, err := pty.StartWithAttrs(cmd, &pty.Winsize{Rows: rows, Cols: cols}, &syscall.SysProcAttr{Setsid: true, Setctty: true})
	if err != nil {
		return nil, fmt.Errorf("supervisor: start %s: %w", spec.Path, err)
	}
	p := &Proc{cmd: cmd, tty: tty, done: make(chan struct{})}
	go p.wait()
	return p, nil
}

func (p *Proc) wait() {
	err := p.cmd.Wait()
	// The group outlives its leader when a child kept running: kill
	// what is left, so that nothing is orphaned.
	// The kill is delivered asynchronously: Done waits until no process
	// of the group runs (at most 2 s).
	pgid := p.cmd.Process.Pid
	if syscall.Kill(-pgid, syscall.SIGKILL) == nil {
		for deadline := time.Now().Add(2 * time.Second); groupRuns(pgid) && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
	}
	p.state, p.waitErr = p.cmd.ProcessState, err
	close(p.done)
}

// groupRuns reports whether a process of group pgid still runs. A killed
// orphan stays a zombie until its new parent reaps it, which may be never
// in a container: zombies do not count. Without /proc, any member does.
func groupRuns(pgid int) bool {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
	}
	want := strconv.Itoa(pgid)
	for _, p := range stats {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 || i+2 > len(data) {
			continue
		}
		f := strings.Fields(string(data[i+2:]))
		if len(f) > 2 && f[2] == want && f[0] != "Z" {
			return true
		}
	}
	return false
}

// Pid is the CLI's process id, which is also its process group's.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Read reads the terminal's output. After the process exited and its
// output is drained it returns io.EOF.
func (p *Proc) Read(b []byte) (int, error) {
	n, err := p.tty.Read(b)
	if err != nil && (errors.Is(err, syscall.EIO) || errors.Is(err, os.ErrClosed)) {
		// Linux reports a terminal whose other side is closed as EIO.
		err = io.EOF
	}
	return n, err
}

// Write types b into the terminal.
func (p *Proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
		return 0, ErrExited
	default:
	}
	return p.tty.Write(b)
}

// ErrExited is returned for input to a process that has exited.
var ErrExited = errors.New("the process has exited")

// Resize sets the terminal's size; the CLI gets SIGWINCH.
func (p *Proc) Resize(rows, cols uint16) error {
	return pty.Setsize(p.tty, &pty.Winsize{Rows: rows, Cols: cols})
}

// Size returns the terminal's size.
func (p *Proc) Size() (rows, cols uint16) {
	ws, err := pty.GetsizeFull(p.tty)
	if err != nil {
		return 0, 0
	}
	return ws.Rows, ws.Cols
}

// Done is closed when the process has exited and its group is gone.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Exit returns the exit code once the process exited: the code it exited
// with, or -1 when a signal killed it (sig names the signal).
func (p *Proc) Exit() (code int, sig syscall.Signal) {
	<-p.done
	if ws, ok := p.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal()
	}
	return p.state.ExitCode(), 0
}

// Signal sends sig to the process's whole group.
func (p *Proc) Signal(sig syscall.Signal) error {
	select {
	case <-p.done:
		return ErrExited
	default:
	}
	if err := syscall.Kill(-p.Pid(), sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("supervisor: signal %v to group %d: %w", sig, p.Pid(), err)
	}
	return nil
}

// Close releases the terminal. It does not stop the process: call Stop
// first.
func (p *Proc) Close() error { return p.tty.Close() }

// Step is one step of stopping a process: keys typed into its terminal,
// or a signal to its group, then a wait for it to exit.
type Step struct {
	Keys   []byte
	Signal syscall.Signal
	// Wait is how long to wait for the exit after this step.
	Wait time.Duration
}

// Escalation is the default way to stop a process after its CLI's own
// exit keys: interrupt, terminate, kill, each to the whole group.
var Escalation = []Step{
	{Signal: syscall.SIGINT, Wait: 2 * time.Second},
	{Signal: syscall.SIGTERM, Wait: 3 * time.Second},
	{Signal: syscall.SIGKILL, Wait: 5 * time.Second},
}

// Stop takes the steps in order until the process has exited, and
// returns which step stopped it (its index) or an error when none did.
// ctx cuts every wait short, going straight to the kill.
func (p *Proc) Stop(ctx context.Context, steps []Step) (int, error) {
	for i, s := range steps {
		select {
		case <-p.done:
			return i, nil
		default:
		}
		if ctx.Err() != nil && s.Signal != syscall.SIGKILL {
			continue
		}
		if len(s.Keys) > 0 {
			p.Write(s.Keys)
		}
		if s.Signal != 0 {
			p.Signal(s.Signal)
		}
		t := time.NewTimer(s.Wait)
		select {
		case <-p.done:
			t.Stop()
			return i, nil
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	select {
	case <-p.done:
		return len(steps) - 1, nil
	default:
	}
	// The last resort, whatever the steps said.
	p.Signal(syscall.SIGKILL)
	select {
	case <-p.done:
		return len(steps), nil
	case <-time.After(5 * time.Second):
		return len(steps), fmt.Errorf("supervisor: process %d did not exit after SIGKILL", p.Pid())
	}
}
