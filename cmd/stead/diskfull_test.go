package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/internal/testdisk"
	"github.com/stead-dev/stead/session"
)

// TestCommandsOnFullDisk: with the disk holding stead's state full, a
// command that needs the bus fails at once, saying why, instead of
// waiting for a daemon that cannot start.
func TestCommandsOnFullDisk(t *testing.T) {
	disk := testdisk.Small(t, "1m")
	defer testdisk.Fill(t, disk)()
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
	disk := testdisk.Small(t, "40m")
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
