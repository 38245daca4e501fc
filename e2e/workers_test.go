package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/modelstub"
)

// externalNATS starts a NATS server with JetStream on loopback, as a
// deployment stead does not own would run, and returns its URL and token.
func externalNATS(t *testing.T) (url, token string) {
	token = "external-" + strconv.Itoa(os.Getpid())
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: t.TempDir(), Authorization: token, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	t.Cleanup(ns.Shutdown)
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("the NATS server did not come up")
	}
	return ns.ClientURL(), token
}

// worker starts stead serve as a worker of an external NATS, with a
// state directory of its own.
func (l *steadCmd) worker(t *testing.T, name string) *exec.Cmd {
	dir := filepath.Join(t.TempDir(), name)
	cmd := exec.Command(l.bin, "serve", "-v")
	cmd.Env = append(append([]string(nil), l.env...), "XDG_STATE_HOME="+dir)
	logf, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			data, _ := os.ReadFile(logf.Name())
			daemonLog(t, name, string(data), 4000)
		}
	})
	return cmd
}

// TestWorkersShareAnExternalNATS: two stead workers on one external NATS
// server (no daemon of stead's own). A detached run goes to a worker;
// when that worker stops, the next run goes to the other; any client of
// the same NATS sees both runs and their entries.
func TestWorkersShareAnExternalNATS(t *testing.T) {
	url, token := externalNATS(t)
	l, ref := newLive(t, "claude", "codex", modelstub.Turn{Text: liveReply}, modelstub.Turn{Text: liveReply})
	// Every stead command below reaches the external NATS, not the
	// local daemon.
	l.env = append(l.env, "STEAD_NATS_URL="+url, "STEAD_NATS_TOKEN="+token)

	first := l.worker(t, "worker-1")
	time.Sleep(500 * time.Millisecond) // let it subscribe
	rec1, w1 := l.startRun(t, ref, "codex")
	w1.until(t, "the first run's reply", 3*time.Minute, replied)
	if want := "/" + strconv.Itoa(first.Process.Pid); !strings.HasSuffix(rec1.Supervisor, want) {
		t.Errorf("the first run is supervised by %q, want worker 1 (%s)", rec1.Supervisor, want)
	}

	second := l.worker(t, "worker-2")
	time.Sleep(500 * time.Millisecond)
	// Worker 1 stops: it takes no more work and stops its run's CLI.
	first.Process.Signal(syscall.SIGTERM)
	w1.until(t, "the first run's end when its worker stops", time.Minute, ended)
	if err := first.Wait(); err != nil {
		t.Errorf("worker 1 exited with %v", err)
	}

	rec2, w2 := l.startRun(t, ref, "codex")
	w2.until(t, "the second run's reply", 3*time.Minute, replied)
	if want := "/" + strconv.Itoa(second.Process.Pid); !strings.HasSuffix(rec2.Supervisor, want) {
		t.Errorf("the second run is supervised by %q, want worker 2 (%s)", rec2.Supervisor, want)
	}
	var runs []live.Run
	if err := json.Unmarshal([]byte(l.stead("runs", "--json")), &runs); err != nil {
		t.Fatal(err)
	}
	seen := map[string]live.RunState{}
	for _, r := range runs {
		seen[r.ID] = r.State
	}
	if !seen[rec1.ID].Done() || seen[rec2.ID] == "" || seen[rec2.ID].Done() {
		t.Errorf("stead runs on the external NATS: %v; want %s over and %s running", seen, rec1.ID, rec2.ID)
	}
	l.stead("stop", rec2.ID)
	w2.until(t, "the second run's end", time.Minute, ended)
}
