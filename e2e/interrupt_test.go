package e2e

import (
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/modelstub"
)

// interrupt starts stead with args, waits until one of its runs is busy,
// sends it SIGINT (Ctrl-C), and returns its exit code, output and that
// run's record.
func (l *steadCmd) interrupt(t *testing.T, args ...string) (int, string, string, live.Run) {
	t.Helper()
	cmd := exec.Command(l.bin, args...)
	cmd.Env, cmd.Dir = l.env, l.dir
	var out, errOut lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var busy live.Run
	for deadline := time.Now().Add(3 * time.Minute); busy.ID == ""; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no run went busy within 3 minutes:\n%s", errOut.String())
		}
		var runs []live.Run
		json.Unmarshal([]byte(l.stead("runs", "--json")), &runs)
		for _, r := range runs {
			if r.State == live.RunBusy {
				busy = r
			}
		}
	}
	begin := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("stead %s did not end within a minute of Ctrl-C:\n%s", args[0], errOut.String())
	}
	t.Logf("stead %s ended %s after Ctrl-C", args[0], time.Since(begin).Round(10*time.Millisecond))
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	rec := busy
	var runs []live.Run
	json.Unmarshal([]byte(l.stead("runs", "--json")), &runs)
	for _, r := range runs {
		if r.ID == busy.ID {
			rec = r
		}
	}
	if left := processesIn(busy.PID); busy.PID != 0 && len(left) > 0 {
		t.Errorf("processes left behind: %v", left)
	}
	return code, out.String(), errOut.String(), rec
}

// TestInterruptAB: Ctrl-C in stead ab stops the CLIs, reports the variant
// interrupted (not exited, and without the history's last answer as its
// answer) and exits 130.
func TestInterruptAB(t *testing.T) {
	l, ref := newLive(t, "claude", "codex", modelstub.Turn{Text: liveReply, DelayMs: 3000})
	code, out, errOut, rec := l.interrupt(t, "ab", "--from", ref, "--to", "codex", "--prompt", livePrompt, "--json", "--cwd", l.dir)
	if code != 130 || !strings.Contains(errOut, "interrupted") {
		t.Errorf("exit %d (want 130); stderr:\n%s", code, errOut)
	}
	if rec.State != live.RunInterrupted {
		t.Errorf("the run is %s (%s), want interrupted", rec.State, rec.Reason)
	}
	var ab struct {
		Variants []struct {
			State  string `json:"state"`
			Answer string `json:"answer"`
		} `json:"variants"`
	}
	if err := json.Unmarshal([]byte(out), &ab); err != nil || len(ab.Variants) != 1 {
		t.Fatalf("ab --json printed %q (%v)", out, err)
	}
	if v := ab.Variants[0]; v.State != "interrupted" || strings.Contains(v.Answer, "LIVE-SOURCE-FINAL") {
		t.Errorf("the variant: %+v", v)
	}
}

// TestInterruptChain: Ctrl-C in stead chain stops the step's CLI, reports
// the step interrupted and exits 130.
func TestInterruptChain(t *testing.T) {
	l, ref := newLive(t, "claude", "codex", modelstub.Turn{Text: liveReply, DelayMs: 3000})
	code, out, errOut, rec := l.interrupt(t, "chain", "--from", ref, "--json", "--cwd", l.dir, "codex:"+livePrompt)
	if code != 130 || !strings.Contains(errOut, "interrupted") {
		t.Errorf("exit %d (want 130); stderr:\n%s", code, errOut)
	}
	if rec.State != live.RunInterrupted {
		t.Errorf("the run is %s (%s), want interrupted", rec.State, rec.Reason)
	}
	var res struct {
		Steps []struct {
			State string `json:"state"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Steps) != 1 || res.Steps[0].State != "interrupted" {
		t.Errorf("chain --json printed %q (%v)", out, err)
	}
}
