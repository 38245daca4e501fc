package supervisor_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"

	"github.com/stead-dev/stead/supervisor"
)

// screen collects a Proc's output and lets a test wait for text.
type screen struct {
	t    *testing.T
	mu   chan struct{}
	buf  bytes.Buffer
	more chan struct{}
}

func watch(t *testing.T, p *supervisor.Proc) *screen {
	s := &screen{t: t, mu: make(chan struct{}, 1), more: make(chan struct{}, 1)}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := p.Read(b)
			s.mu <- struct{}{}
			s.buf.Write(b[:n])
			<-s.mu
			select {
			case s.more <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return s
}

func (s *screen) waitFor(text string) {
	s.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		s.mu <- struct{}{}
		got := s.buf.String()
		<-s.mu
		if strings.Contains(got, text) {
			return
		}
		select {
		case <-s.more:
		case <-deadline:
			s.t.Fatalf("no %q on the terminal; it shows %q", text, got)
		}
	}
}

func start(t *testing.T, script string) *supervisor.Proc {
	t.Helper()
	p, err := supervisor.Start(supervisor.Spec{Path: "/bin/sh", Args: []string{"-c", script}, Env: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Stop(context.Background(), []supervisor.Step{{Signal: syscall.SIGKILL, Wait: 5 * time.Second}})
		p.Close()
	})
	return p
}

// group lists the processes in process group pgid.
func group(pgid int) []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		data, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces.
		rest := string(data[bytes.LastIndexByte(data, ')')+2:])
		f := strings.Fields(rest)
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			pid, _ := strconv.Atoi(strings.Fields(string(data))[0])
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestTerminalSessionAndInput(t *testing.T) {
	p := start(t, `stty size; tty; read line; echo "got:$line"; exit 3`)
	s := watch(t, p)
	s.waitFor("50 200")
	s.waitFor("/dev/pts/")
	if sid, _ := getsid(p.Pid()); sid != p.Pid() {
		t.Errorf("session id %d, want the CLI's own %d", sid, p.Pid())
	}
	if pgid, _ := syscall.Getpgid(p.Pid()); pgid != p.Pid() {
		t.Errorf("process group %d, want the CLI's own %d", pgid, p.Pid())
	}
	if _, err := p.Write([]byte("hello\r")); err != nil {
		t.Fatal(err)
	}
	s.waitFor("got:hello")
	if code, sig := p.Exit(); code != 3 || sig != 0 {
		t.Errorf("exit %d signal %v, want 3", code, sig)
	}
	if _, err := p.Write([]byte("x")); err != supervisor.ErrExited {
		t.Errorf("write after exit: %v", err)
	}
}

func getsid(pid int) (int, error) {
	sid, _, errno := syscall.RawSyscall(syscall.SYS_GETSID, uintptr(pid), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(sid), nil
}

func TestResize(t *testing.T) {
	p := start(t, `trap 'stty size' WINCH; echo ready; while :; do sleep 0.05; done`)
	s := watch(t, p)
	s.waitFor("ready")
	if err := p.Resize(30, 100); err != nil {
		t.Fatal(err)
	}
	s.waitFor("30 100")
}

func TestStopEscalatesToTheWholeGroup(t *testing.T) {
	// The CLI ignores interrupt and terminate, and has a child that
	// would outlive it.
	p := start(t, `trap '' INT TERM; sleep 1000 & echo started; while :; do sleep 0.05; done`)
	s := watch(t, p)
	s.waitFor("started")
	if n := len(group(p.Pid())); n < 2 {
		t.Fatalf("%d processes in the group, want the CLI and its child", n)
	}
	steps := []supervisor.Step{
		{Keys: []byte("\x03"), Wait: 100 * time.Millisecond},
		{Signal: syscall.SIGINT, Wait: 100 * time.Millisecond},
		{Signal: syscall.SIGTERM, Wait: 100 * time.Millisecond},
		{Signal: syscall.SIGKILL, Wait: 2 * time.Second},
	}
	begin := time.Now()
	i, err := p.Stop(context.Background(), steps)
	if err != nil {
		t.Fatal(err)
	}
	if i != 3 {
		t.Errorf("stopped by step %d, want the kill (3)", i)
	}
	if took := time.Since(begin); took > 3*time.Second {
		t.Errorf("stopping took %s", took)
	}
	if code, sig := p.Exit(); code != -1 || sig != syscall.SIGKILL {
		t.Errorf("exit %d signal %v, want killed", code, sig)
	}
	if left := group(p.Pid()); len(left) > 0 {
		t.Errorf("processes left behind: %v", left)
	}
}

func TestStopByKeys(t *testing.T) {
	p := start(t, `echo ready; read line; exit 0`)
	s := watch(t, p)
	s.waitFor("ready")
	i, err := p.Stop(context.Background(), append([]supervisor.Step{{Keys: []byte("\r"), Wait: 5 * time.Second}}, supervisor.Escalation...))
	if err != nil || i != 0 {
		t.Errorf("stopped by step %d (%v), want the keys (0)", i, err)
	}
	if code, _ := p.Exit(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

func TestNoOrphanAfterTheCLIExits(t *testing.T) {
	p := start(t, `sleep 1000 & echo started; exit 0`)
	s := watch(t, p)
	s.waitFor("started")
	<-p.Done()
	if left := group(p.Pid()); len(left) > 0 {
		t.Errorf("processes left behind: %v", left)
	}
}

type recorder struct {
	bytes.Buffer
	sizes []string
}

func (r *recorder) Resize(rows, cols uint16) error {
	r.sizes = append(r.sizes, strconv.Itoa(int(rows))+"x"+strconv.Itoa(int(cols)))
	return nil
}

func TestAttachRawModeRestoredAndDetach(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 120})
	before, err := term.GetState(int(tty.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder
	done := make(chan error, 1)
	go func() { done <- supervisor.Attach(context.Background(), tty, &rec, true) }()
	time.Sleep(100 * time.Millisecond)
	// In raw mode the line discipline passes Ctrl-C through as a byte.
	ptmx.Write([]byte("ab\x03"))
	time.Sleep(100 * time.Millisecond)
	ptmx.Write([]byte{supervisor.DetachKey})
	select {
	case err := <-done:
		if err != supervisor.ErrDetached {
			t.Errorf("attach ended with %v, want detached", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the detach key did not end the attachment")
	}
	if got := rec.String(); got != "ab\x03" {
		t.Errorf("typed %q", got)
	}
	if len(rec.sizes) == 0 || rec.sizes[0] != "40x120" {
		t.Errorf("sizes %v, want 40x120 first", rec.sizes)
	}
	after, _ := term.GetState(int(tty.Fd()))
	if *after != *before {
		t.Error("the terminal's mode was not restored")
	}
}

func TestAttachEndsWithContext(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var rec recorder
	done := make(chan error, 1)
	go func() { done <- supervisor.Attach(ctx, r, &rec, false) }()
	io.WriteString(w, "line\n")
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("attach: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelling did not end the attachment")
	}
	if rec.String() != "line\n" {
		t.Errorf("copied %q", rec.String())
	}
}
