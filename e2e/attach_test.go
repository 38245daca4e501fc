package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
	"github.com/stead-dev/stead/vt"
)

// userTerminal is a terminal a user types into, with the screen it
// shows.
type userTerminal struct {
	master, slave *os.File
	mu            sync.Mutex
	screen        *vt.Screen
	more          chan struct{}
}

func newUserTerminal(t *testing.T, rows, cols int) *userTerminal {
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	pty.Setsize(master, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
	u := &userTerminal{master: master, slave: slave, screen: vt.New(rows, cols), more: make(chan struct{}, 1)}
	t.Cleanup(func() { master.Close(); slave.Close() })
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := master.Read(buf)
			u.mu.Lock()
			u.screen.Write(buf[:n])
			u.mu.Unlock()
			select {
			case u.more <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return u
}

// run starts a stead command in the terminal, as a user does in a shell
// (its own session, the terminal its controlling one), and reports its
// end.
func (u *userTerminal) run(t *testing.T, l *steadCmd, args ...string) chan error {
	cmd := exec.Command(l.bin, args...)
	cmd.Env, cmd.Dir = l.env, l.dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = u.slave, u.slave, u.slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	return exited
}

func (u *userTerminal) text() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.screen.String()
}

// waitFor waits until the screen shows text.
func (u *userTerminal) waitFor(t *testing.T, text string, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for !strings.Contains(u.text(), text) {
		select {
		case <-u.more:
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatalf("the terminal never showed %q; it shows:\n%s", text, u.text())
		}
	}
}

// raw reports whether the terminal is in raw mode (no line editing, no
// echo), as a program that took the keyboard leaves it.
func (u *userTerminal) raw(t *testing.T) bool {
	tio, err := unix.IoctlGetTermios(int(u.slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return tio.Lflag&(unix.ICANON|unix.ECHO) == 0
}

// TestLiveAttach attaches a user's terminal to a run in the daemon: the
// terminal shows the CLI's screen (its history replayed), what the user
// types reaches the CLI and gets its answer, Ctrl-] detaches and gives
// the terminal back as it was, and the run goes on.
func TestLiveAttach(t *testing.T) {
	l, ref := newLive(t, "claude", "codex", modelstub.Turn{Text: liveReply}, modelstub.Turn{Text: "Typed through attach. ATTACH-REPLY"})
	rec, w := l.startRun(t, ref, "codex")
	w.until(t, "the reply", 3*time.Minute, replied)

	u := newUserTerminal(t, 40, 140)
	if u.raw(t) {
		t.Fatal("a new terminal is already raw")
	}
	// What the user's shell showed before attaching.
	u.mu.Lock()
	u.screen.Write([]byte("$ ls\r\nUSER-SCREEN-BEFORE\r\n$ stead attach\r\n"))
	u.mu.Unlock()
	exited := u.run(t, l, "attach", rec.ID)

	u.waitFor(t, "LIVE-REPLY", 30*time.Second)
	if !u.raw(t) {
		t.Error("attached, the terminal is not in raw mode")
	}
	// Codex takes typed text, then Enter half a second later.
	u.master.WriteString("And now? ATTACH-PROMPT")
	time.Sleep(700 * time.Millisecond)
	u.master.WriteString("\r")
	w.until(t, "the typed prompt's reply", 2*time.Minute, func(msgs []watchMsg) bool {
		for _, e := range entries(msgs) {
			if e.Type == session.Assistant && strings.Contains(e.Content, "ATTACH-REPLY") {
				return true
			}
		}
		return false
	})
	u.waitFor(t, "ATTACH-REPLY", 30*time.Second)

	u.master.Write([]byte{0x1d}) // Ctrl-]
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Errorf("stead attach exited with %v; the terminal shows:\n%s", err, u.text())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("Ctrl-] did not detach; the terminal shows:\n%s", u.text())
	}
	u.waitFor(t, "detached from "+rec.ID, 5*time.Second)
	if u.raw(t) {
		t.Error("after detaching, the terminal is still raw")
	}
	// The user's screen is back as it was, the CLI's gone from it.
	if text := u.text(); !strings.Contains(text, "USER-SCREEN-BEFORE") || strings.Contains(text, "ATTACH-REPLY") {
		t.Errorf("after detaching, the terminal does not show what it showed before:\n%s", text)
	}
	run, err := runRecord(l, rec.ID)
	if err != nil || run.State.Done() {
		t.Errorf("after detaching the run is %s (%v), want it still running", run.State, err)
	}
	l.stead("stop", rec.ID)
	w.until(t, "the end of the run", time.Minute, ended)
}

// runRecord reads a run's record with stead runs --json.
func runRecord(l *steadCmd, id string) (live.Run, error) {
	var runs []live.Run
	if err := json.Unmarshal([]byte(l.stead("runs", "--json")), &runs); err != nil {
		return live.Run{}, err
	}
	for _, r := range runs {
		if r.ID == id {
			return r, nil
		}
	}
	return live.Run{}, fmt.Errorf("stead runs does not list %s", id)
}

// TestLiveResumeAttached is the first thing a user does: in a terminal,
// stead session resume claude:<id> --to codex --prompt "...". Codex
// takes over the terminal with the Claude history loaded and shows the
// reply, while stead watch in another terminal prints the new entries;
// when the CLI ends, the terminal is given back as it was.
func TestLiveResumeAttached(t *testing.T) {
	l, ref := newLive(t, "claude", "codex", modelstub.Turn{Text: liveReply})
	u := newUserTerminal(t, 50, 160)
	exited := u.run(t, l, "session", "resume", ref, "--to", "codex", "--prompt", livePrompt)

	var id string
	deadline := time.Now().Add(time.Minute)
	for id == "" {
		var runs []live.Run
		json.Unmarshal([]byte(l.stead("runs", "--json")), &runs)
		if len(runs) == 1 {
			id = runs[0].ID
		} else if time.Now().After(deadline) {
			t.Fatalf("no run listed; the terminal shows:\n%s", u.text())
		} else {
			time.Sleep(200 * time.Millisecond)
		}
	}
	w := l.watch(id)
	w.until(t, "the reply on the bus", 3*time.Minute, replied)
	u.waitFor(t, "LIVE-SOURCE-FINAL", 30*time.Second) // the history, on Codex's screen
	u.waitFor(t, "LIVE-REPLY", 30*time.Second)
	if !u.raw(t) {
		t.Error("while Codex runs, the terminal is not in raw mode")
	}
	l.stead("stop", id)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("stead session resume exited with %v; the terminal shows:\n%s", err, u.text())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("stead session resume did not end after stop; the terminal shows:\n%s", u.text())
	}
	u.waitFor(t, "stead: run "+id+" exited (exit code 0)", 5*time.Second)
	if u.raw(t) {
		t.Error("after the run, the terminal is still raw")
	}
}
