package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/session"
)

// smallDisk mounts a tmpfs of size bytes at a new folder: a disk that
// fills up.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root (CI runs as root)")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// fill writes a file until the disk holding dir is full, and returns a
// function that frees it.
func fill(t *testing.T, dir string) (free func()) {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	// The last bytes, a page at a time.
	for _, err := f.Write(buf[:4096]); err == nil; _, err = f.Write(buf[:4096]) {
	}
	f.Close()
	return func() { os.Remove(p) }
}

// diskFullRun supervises the stand-in Codex with the bus's store on a
// small disk, and returns the bus, the run's id and a channel with what
// superviseRun returned.
func diskFullRun(t *testing.T, records int, exit bool) (*bus.Bus, string, string, context.CancelFunc, chan error) {
	t.Helper()
	disk := smallDisk(t, "24m")
	root := t.TempDir()
	cli := filepath.Join(root, "codex")
	if err := os.WriteFile(cli, []byte(fakeCodex), 0o755); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(root, "proj")
	os.MkdirAll(proj, 0o755)
	env := session.Env{Home: root, Vars: map[string]string{
		"HOME": root, "PATH": os.Getenv("PATH"), "CODEX_HOME": filepath.Join(root, ".codex"),
		"XDG_STATE_HOME":  filepath.Join(root, "state"),
		"STEAD_CODEX_BIN": cli, "RECORDS": strconv.Itoa(records), "DELAY": "0.05",
	}}
	if exit {
		env.Vars["EXIT"] = "1"
	}
	log := slog.New(slog.DiscardHandler)
	if os.Getenv("STEAD_TEST_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	f := &Factory{IO: &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, Env: env, Logger: log}
	b, err := bus.New(context.Background(), bus.Options{StoreDir: filepath.Join(disk, "nats"), Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	src := &session.Session{Source: session.Source{CLI: "claude", OriginalID: "s1"}, Timeline: []session.Entry{
		{ID: "u1", Type: session.User, Content: "Start the work"},
	}}
	id := "diskfull-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() {
		rec, err := superviseRun(ctx, f, b, src, RunSpec{ID: id, To: "codex", Dir: proj}, nil, nil)
		if err == nil && rec.State != session.RunExited {
			err = errors.New("ended " + string(rec.State) + ": " + rec.Reason)
		}
		if err != nil && rec.Reason != "" && !strings.Contains(err.Error(), rec.Reason) {
			err = errors.New(err.Error() + " (" + rec.Reason + ")")
		}
		done <- err
	}()
	return b, id, disk, cancel, done
}

func waitCount(t *testing.T, n interface{ Load() int64 }, want int64, within time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for n.Load() < want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d of %d entries on the bus after %s", what, n.Load(), want, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRunDiskFull fills the disk holding the bus's store in the middle of
// a run, then frees it: the run goes on, and every entry the CLI wrote
// reaches the bus and the stored session, none lost, none twice.
func TestRunDiskFull(t *testing.T) {
	const records = 120
	b, id, disk, stop, done := diskFullRun(t, records, false)
	count := countEntries(context.Background(), b, id)
	waitCount(t, count, 20, time.Minute, "before the disk filled")
	free := fill(t, disk)
	time.Sleep(3 * time.Second) // the CLI writes on; the bus stores nothing
	during := count.Load()
	free()
	waitCount(t, count, records, 2*time.Minute, "after the disk was freed")
	if during >= records {
		t.Fatalf("all %d entries were stored while the disk was full: the test filled nothing", during)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("the run: %v", err)
	}
	rd, err := b.Session(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var s session.Session
	if err := json.NewDecoder(rd).Decode(&s); err != nil {
		t.Fatal(err)
	}
	rd.Close()
	var got []string
	for _, e := range s.Timeline {
		if e.Type == session.Assistant {
			got = append(got, e.Content)
		}
	}
	if len(got) != records {
		t.Fatalf("the stored session has %d answers, want %d", len(got), records)
	}
	for i, g := range got {
		if want := "answer " + strconv.Itoa(i); g != want {
			t.Fatalf("answer %d is %q, want %q", i, g, want)
		}
	}
	t.Logf("%d of %d entries were stored while the disk was full; all %d after it was freed", during, records, records)
}

// TestRunDiskStaysFull: a disk that stays full until the run is over
// loses entries, and the run says so and which, instead of succeeding.
func TestRunDiskStaysFull(t *testing.T) {
	old := publishDrain
	publishDrain = 2 * time.Second
	defer func() { publishDrain = old }()
	const records = 60
	b, id, disk, _, done := diskFullRun(t, records, true)
	count := countEntries(context.Background(), b, id)
	waitCount(t, count, 10, time.Minute, "before the disk filled")
	free := fill(t, disk)
	defer free()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the run did not end within 2 minutes of its CLI")
	}
	if err == nil || !errors.Is(err, ErrRunFailed) || !strings.Contains(err.Error(), "could not store") {
		t.Fatalf("the run ended with %v, want it failed, saying entries were lost", err)
	}
	t.Log(err)
}

// TestCommandsOnFullDisk: with the disk holding stead's state full, a
// command that needs the bus fails at once, saying why, instead of
// waiting for a daemon that cannot start.
func TestCommandsOnFullDisk(t *testing.T) {
	disk := smallDisk(t, "1m")
	defer fill(t, disk)()
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{"XDG_STATE_HOME": disk}}
	for _, args := range [][]string{{"runs"}, {"watch", "20261120-100000-abc"}, {"serve"}} {
		begin := time.Now()
		_, errOut, code := run(t, env, args...)
		if took := time.Since(begin); took > 3*time.Second {
			t.Errorf("stead %s took %s", args[0], took)
		}
		if code != ExitError || !strings.Contains(errOut, "free some space") || !strings.Contains(errOut, disk) {
			t.Errorf("stead %s: exit %d, %q; want it to say the disk holding %s is full", args[0], code, errOut, disk)
		}
	}
}

// TestDaemonOnSmallDisk: the bus starts on a disk of a few tens of MB (its
// terminal stream sized to it), where it needed 1.34 GB free before.
func TestDaemonOnSmallDisk(t *testing.T) {
	disk := smallDisk(t, "40m")
	b, err := bus.New(context.Background(), bus.Options{StoreDir: filepath.Join(disk, "nats")})
	if err != nil {
		t.Fatalf("the bus does not start with 40 MB free: %v", err)
	}
	b.Close()
	b, err = bus.New(context.Background(), bus.Options{StoreDir: filepath.Join(disk, "nats"), TerminalBytes: 4 << 20})
	if err != nil {
		t.Fatalf("the bus with 4 MB of terminal output: %v", err)
	}
	b.Close()
}

// TestDaemonStartFailureExplained: a daemon that cannot start is reported
// at once with why (the end of its log), not after 20 s of waiting.
func TestDaemonStartFailureExplained(t *testing.T) {
	root := t.TempDir()
	fake := filepath.Join(root, "stead")
	script := "#!/bin/sh\necho 'stead: bus: stream STEAD_PTY: insufficient storage resources available' >&2\nexit 1\n"
	if err := os.WriteFile(fake, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	old := daemonProgram
	daemonProgram = func() (string, error) { return fake, nil }
	defer func() { daemonProgram = old }()
	env := session.Env{Home: root, Vars: map[string]string{"XDG_STATE_HOME": filepath.Join(root, "state")}}
	begin := time.Now()
	_, errOut, code := run(t, env, "runs")
	if took := time.Since(begin); took > 5*time.Second {
		t.Errorf("reporting the failure took %s", took)
	}
	if code != ExitError || !strings.Contains(errOut, "did not start") || !strings.Contains(errOut, "insufficient storage") {
		t.Errorf("exit %d, %q; want why the daemon did not start", code, errOut)
	}
}
