package daemon_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/daemon"
	"github.com/stead-dev/stead/session"
)

func testEnv(t *testing.T) session.Env {
	root := t.TempDir()
	return session.Env{Home: root, Vars: map[string]string{"XDG_STATE_HOME": filepath.Join(root, "state")}}
}

// start runs a daemon on env until the test ends.
func start(t *testing.T, env session.Env) *daemon.Daemon {
	t.Helper()
	return run(t, &daemon.Daemon{Env: env})
}

// run runs d until the test ends.
func run(t *testing.T, d *daemon.Daemon) *daemon.Daemon {
	t.Helper()
	served := make(chan error, 1)
	go func() { served <- d.Run(context.Background()) }()
	select {
	case <-d.Ready():
	case err := <-served:
		t.Fatalf("the daemon did not come up: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the daemon did not come up in 30 s")
	}
	t.Cleanup(func() {
		d.Close()
		if err := <-served; err != nil {
			t.Errorf("the daemon's Run: %v", err)
		}
	})
	return d
}

// TestDaemonInProcess: a daemon started in the test's process publishes
// its address where Connect finds it, answers on its bus, says so in its
// status, refuses a second daemon on the same state, and withdraws its
// address on Close.
func TestDaemonInProcess(t *testing.T) {
	env := testEnv(t)
	ctx := context.Background()
	if _, err := daemon.Connect(ctx, daemon.Options{Env: env}); err == nil || !strings.Contains(err.Error(), "no stead daemon is running") {
		t.Fatalf("Connect with no daemon and Start unset: %v; want that none runs", err)
	}
	d := start(t, env)
	info, err := daemon.Read(env)
	if err != nil || info.URL != d.Bus().ClientURL() || info.Token == "" {
		t.Fatalf("the published address: %+v, %v; want the daemon's bus %s with a token", info, err, d.Bus().ClientURL())
	}
	b, err := daemon.Connect(ctx, daemon.Options{Env: env})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if _, err := b.Runs(ctx); err != nil {
		t.Errorf("listing runs on the daemon's bus: %v", err)
	}
	b.Close()
	if st := daemon.StatusOf(ctx, env); st.URL != info.URL || st.Runs != 0 || !st.SameBuild {
		t.Errorf("status %+v; want the daemon's address, no runs, this build", st)
	}

	second := &daemon.Daemon{Env: env}
	if err := second.Run(ctx); err == nil || !strings.Contains(err.Error(), "another stead daemon") {
		t.Errorf("a second daemon on the same state: %v; want it refused", err)
	}

	d.Close()
	if _, err := daemon.Read(env); !errors.Is(err, daemon.ErrNoDaemon) {
		t.Errorf("after Close, the address is still published: %v", err)
	}
}

// TestCloseBeforeRun: closing a daemon that never ran returns at once.
func TestCloseBeforeRun(t *testing.T) {
	d := &daemon.Daemon{Env: testEnv(t)}
	done := make(chan struct{})
	go func() { d.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close of a daemon that never ran did not return")
	}
}
