package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"golang.org/x/term"
)

// Attachment is what a user's terminal is attached to: something to type
// into that can be resized. A Proc is one; so is a run reached through
// the bus.
type Attachment interface {
	io.Writer
	Resize(rows, cols uint16) error
}

// DetachKey (Ctrl-]) typed alone ends an attachment without stopping
// the CLI.
const DetachKey = 0x1d

// ErrDetached is returned by Attach when the user typed DetachKey.
var ErrDetached = errors.New("detached")

// Raw puts in, when it is a terminal, in raw mode, and returns what gives
// it back as it was. A caller that shows output before Attach runs (the
// run's screen, replayed) makes the terminal raw first, so that nothing
// is shown in a cooked terminal; Attach's own raw mode is then the same.
func Raw(in *os.File) (restore func(), err error) {
	fd := int(in.Fd())
	if !term.IsTerminal(fd) {
		return func() {}, nil
	}
	old, err := term.MakeRaw(fd)
	if err != nil {
		return nil, fmt.Errorf("supervisor: raw mode: %w", err)
	}
	return func() { term.Restore(fd, old) }, nil
}

// Attach passes the user's terminal in through to a: keystrokes, in raw
// mode, and window size, until ctx ends or, when detach is set, the user
// types DetachKey. The terminal's mode is restored on every way out.
// Output goes the other way and is the caller's: it comes from the bus
// or the Proc, not from here. When in is not a terminal Attach copies it
// as it is.
func Attach(ctx context.Context, in *os.File, a Attachment, detach bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup // the window size follower, ended on the way out
	defer wg.Wait()
	defer cancel()
	fd := int(in.Fd())
	if term.IsTerminal(fd) {
		old, err := term.MakeRaw(fd)
		if err != nil {
			return fmt.Errorf("supervisor: raw mode: %w", err)
		}
		defer term.Restore(fd, old)
		resize := func() {
			if w, h, err := term.GetSize(fd); err == nil {
				a.Resize(uint16(h), uint16(w))
			}
		}
		resize()
		winch := make(chan os.Signal, 1)
		signal.Notify(winch, syscall.SIGWINCH)
		defer signal.Stop(winch)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-winch:
					resize()
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	// Read a duplicate of the descriptor in non-blocking mode, so that
	// closing it ends a pending read when ctx ends.
	dup, err := syscall.Dup(fd)
	if err != nil {
		return fmt.Errorf("supervisor: %w", err)
	}
	if err := syscall.SetNonblock(dup, true); err != nil {
		syscall.Close(dup)
		return fmt.Errorf("supervisor: %w", err)
	}
	// The flag belongs to the open file, which the shell shares: put it
	// back.
	defer syscall.SetNonblock(fd, false)
	f := os.NewFile(uintptr(dup), in.Name())
	defer f.Close()
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer stop()
	buf := make([]byte, 32<<10)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if detach && n == 1 && chunk[0] == DetachKey {
				return ErrDetached
			}
			if _, werr := a.Write(chunk); werr != nil {
				return werr
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("supervisor: read the terminal: %w", err)
		}
	}
}
