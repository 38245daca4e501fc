package e2e

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

// TestLiveDaemonKilled kills the stead daemon with SIGKILL while a detached
// run's model is answering, then starts a new one: the run must end as
// failed, saying why; the watch that was running must reconnect and end
// with it; its session must be stored from what the bus captured (the
// history, then the prompt), so that show run:, watch, stop and resume
// work on it.
func TestLiveDaemonKilled(t *testing.T) {
	// The answer streams slowly: the daemon dies during it. (Whichever
	// request takes which turn, the resumed run gets an answer.)
	slow := modelstub.Turn{Text: liveReply, DelayMs: 1500}
	l, ref := newLive(t, "claude", "codex", slow, slow)
	rec, w := l.startRun(t, ref, "codex")
	w.until(t, "the prompt, with the model answering", 3*time.Minute, func(msgs []watchMsg) bool {
		prompt := false
		for _, e := range entries(msgs) {
			prompt = prompt || e.Type == session.User && strings.Contains(e.Content, "LIVE-PROMPT")
		}
		return prompt && len(states(msgs)) > 0 && lastState(msgs).State == live.RunBusy
	})
	killed := l.daemon.Process.Pid
	if err := syscall.Kill(killed, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	l.daemon.Wait()
	l.startDaemon(l.root)

	// The watch started before the kill reconnects to the new daemon
	// and ends with the run.
	msgs := w.until(t, "the end of the run, after the restart", 2*time.Minute, ended)
	last := lastState(msgs)
	if last.State != live.RunFailed || !strings.Contains(last.Detail, "supervisor") {
		t.Errorf("the run ended %s (%q), want failed, saying its supervisor is gone", last.State, last.Detail)
	}
	if err := <-w.done; err != nil {
		t.Errorf("the watch that ran across the restart: %v", err)
	}
	var runs []live.Run
	json.Unmarshal([]byte(l.stead("runs", "--json")), &runs)
	if len(runs) != 1 || runs[0].State != live.RunFailed || runs[0].Ended.IsZero() || !strings.Contains(runs[0].Reason, "supervisor") {
		t.Fatalf("stead runs: %+v", runs)
	}
	if left := processesIn(rec.PID); len(left) > 0 {
		t.Errorf("processes of the run left behind: %v", left)
	}
	// A new watch replays the run and ends.
	w2 := l.watch(rec.ID)
	msgs = w2.until(t, "the end of the run", time.Minute, ended)
	if err := <-w2.done; err != nil {
		t.Errorf("stead watch after the restart: %v", err)
	}
	if !hasText(entries(msgs), "LIVE-PROMPT") {
		t.Errorf("stead watch after the restart:\n%s", describe(msgs))
	}
	// Stop says the run had ended, and succeeds.
	l.stead("stop", rec.ID)
	// The stored session: the history, then the prompt the bus captured.
	var whole session.Session
	if err := json.Unmarshal([]byte(l.stead("session", "show", "run:"+rec.ID, "--json", "--no-native")), &whole); err != nil {
		t.Fatalf("stead session show run:%s: %v", rec.ID, err)
	}
	var marks []string
	for _, e := range whole.Timeline {
		for _, m := range []string{"LIVE-SOURCE-FINAL", "LIVE-PROMPT"} {
			if (e.Type == session.User || e.Type == session.Assistant) && strings.Contains(e.Content, m) {
				marks = append(marks, m+"@"+e.CLI)
			}
		}
	}
	if want := "LIVE-SOURCE-FINAL@claude LIVE-PROMPT@codex"; strings.Join(marks, " ") != want {
		t.Errorf("stored session has %q, want %q", marks, want)
	}
	// It resumes: a new run continues it.
	var next live.Run
	out := l.stead("session", "resume", "run:"+rec.ID, "--to", "codex", "--cwd", l.dir, "--prompt", "Go on. AFTER-CRASH", "--detach", "--json")
	if err := json.Unmarshal([]byte(out), &next); err != nil || next.ID == "" {
		t.Fatalf("resume run:%s printed %q (%v)", rec.ID, out, err)
	}
	w3 := l.watch(next.ID)
	w3.until(t, "the answer of the resumed run", 3*time.Minute, func(msgs []watchMsg) bool {
		after := false
		for _, e := range entries(msgs) {
			after = after || e.Type == session.User && strings.Contains(e.Content, "AFTER-CRASH")
			if after && e.Type == session.Assistant && e.Content != "" {
				return true
			}
		}
		return false
	})
	l.stead("stop", next.ID)
	w3.until(t, "the end of the resumed run", time.Minute, ended)
	// Its model got the history, the prompt cut by the crash, then the
	// new one.
	var texts []string
	for _, r := range l.dst.Stub.Requests() {
		if !r.Side {
			texts = texts[:0]
			for _, m := range r.Messages {
				texts = append(texts, m.Text)
			}
		}
	}
	all := strings.Join(texts, "\n")
	if i, j, k := strings.Index(all, "LIVE-SOURCE-FINAL"), strings.Index(all, "LIVE-PROMPT"), strings.Index(all, "AFTER-CRASH"); i < 0 || j < i || k < j {
		t.Errorf("the resumed run's model got:\n%s", all)
	}
}

func hasText(es []session.Entry, marker string) bool {
	for _, e := range es {
		if strings.Contains(e.Content, marker) {
			return true
		}
	}
	return false
}

// TestLiveDetachedCallerEnv: a detached run uses the environment of the
// command that asked for it, not the daemon's: here the daemon was started
// from a shell that cannot find Codex at all.
func TestLiveDetachedCallerEnv(t *testing.T) {
	l, ref := newLive(t, "claude", "codex", modelstub.Turn{Text: liveReply})
	l.daemon.Process.Signal(syscall.SIGTERM)
	l.daemon.Wait()
	var env []string
	for _, kv := range l.env {
		switch k, _, _ := strings.Cut(kv, "="); {
		case strings.HasPrefix(k, "STEAD_") && strings.HasSuffix(k, "_BIN"), k == "STEAD_CLI_CACHE", k == "CODEX_HOME":
		case k == "PATH":
			env = append(env, "PATH=/usr/bin:/bin")
		default:
			env = append(env, kv)
		}
	}
	env = append(env, "STEAD_CLI_CACHE="+t.TempDir())
	l.daemonEnv = env
	l.startDaemon(l.root)
	rec, w := l.startRun(t, ref, "codex")
	w.until(t, "the reply, then ready", 3*time.Minute, replied)
	l.stead("stop", rec.ID)
	w.until(t, "the end of the run", time.Minute, ended)

	// stead serve status and stop.
	var st struct {
		Running   bool `json:"running"`
		PID       int  `json:"pid"`
		SameBuild bool `json:"sameBuild"`
		Runs      int  `json:"runs"`
		Active    int  `json:"active"`
	}
	if err := json.Unmarshal([]byte(l.stead("serve", "status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if !st.Running || st.PID != l.daemon.Process.Pid || !st.SameBuild || st.Runs != 1 || st.Active != 0 {
		t.Errorf("serve status: %+v (daemon pid %d)", st, l.daemon.Process.Pid)
	}
	l.stead("serve", "stop")
	if err := l.daemon.Wait(); err != nil {
		t.Errorf("the daemon, stopped: %v", err)
	}
	if out, err := l.steadErr("serve", "status"); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("serve status after stop: %q, %v", out, err)
	}
}
