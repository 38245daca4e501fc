package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// TestDetachedRunFailsVisibly: a detached run whose start fails in the
// worker (here: the target's store cannot be written) is in stead runs,
// failed, with why.
func TestDetachedRunFailsVisibly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b, err := bus.New(ctx, bus.Options{StoreDir: t.TempDir(), Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	env := homes(t)
	env.Vars["STEAD_NATS_URL"], env.Vars["STEAD_NATS_TOKEN"] = b.ClientURL(), b.ClientToken()
	env.Vars["STEAD_CODEX_BIN"] = "/bin/true"
	// A worker, as stead serve --nats-url runs.
	worker := make(chan ExitCode, 1)
	go func() {
		worker <- MainContext(ctx, []string{"serve"}, &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, env)
	}()
	// The asking command's own environment: its Codex home is a file.
	blocked := filepath.Join(t.TempDir(), "not-a-folder")
	os.WriteFile(blocked, nil, 0o600)
	asking := session.Env{Home: env.Home, Vars: map[string]string{}}
	for k, v := range env.Vars {
		asking.Vars[k] = v
	}
	asking.Vars["CODEX_HOME"] = blocked
	var code ExitCode
	var errOut string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, errOut, code = run(t, asking, "session", "resume", claudeSession, "--to", "codex", "--cwd", t.TempDir(), "--detach")
		if !strings.Contains(errOut, "no worker") || time.Now().After(deadline) {
			break
		}
	}
	if code == ExitOK || !strings.Contains(errOut, "placing the session in codex") {
		t.Fatalf("resume --detach: exit %d, %q", code, errOut)
	}
	var runs []live.Run
	json.Unmarshal([]byte(mustRun(t, env, "runs", "--json")), &runs)
	if len(runs) != 1 || runs[0].State != live.RunFailed || !strings.Contains(runs[0].Reason, "placing the session in codex") {
		t.Fatalf("stead runs: %+v", runs)
	}
	cancel()
	<-worker
}
