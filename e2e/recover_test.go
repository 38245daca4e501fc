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
// run's model is answering, then starts a new one. The run is a job of the
// bus's work queue: once the lost worker's lease has expired, the new
// daemon takes the job and continues the run (a failover). The watch that
// was running sees a failover state naming the lost and the new worker,
// then the answer to the prompt typed again; the run keeps its id; the
// lost worker's CLI is stopped; the stored session holds the history, the
// prompt once and its answer; and it resumes.
func TestLiveDaemonKilled(t *testing.T) {
	// The answer streams slowly: the daemon dies during it. (Whichever
	// request takes which turn, the continued run gets an answer.)
	slow := modelstub.Turn{Text: liveReply, DelayMs: 1500}
	l, ref := newLive(t, "claude", "codex", slow, slow, modelstub.Turn{Text: liveReply})
	rec, w := l.startRun(t, ref, "codex")
	if !rec.Durable {
		t.Errorf("a detached run is not a job of the work queue: %+v", rec)
	}
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
	killedAt := time.Now()
	l.waitDaemon()
	l.startDaemon(l.root)

	// The watch started before the kill reconnects to the new daemon,
	// and sees the failover, then the answer.
	var failover live.Status
	msgs := w.until(t, "the failover", 2*time.Minute, func(msgs []watchMsg) bool {
		for _, st := range states(msgs) {
			if st.State == live.RunFailover {
				failover = st
				return true
			}
		}
		return false
	})
	detected := failover.Time.Sub(killedAt)
	if failover.From != rec.Supervisor || failover.To == "" || failover.To == rec.Supervisor || !strings.Contains(failover.Detail, "LIVE-PROMPT") {
		t.Errorf("the failover state: %+v; want it from %s to the new daemon, retyping the prompt", failover, rec.Supervisor)
	}
	answered := func(msgs []watchMsg) bool {
		after := false
		for _, m := range msgs {
			after = after || m.Status != nil && m.Status.State == live.RunFailover
			if after && m.Event != nil {
				for _, e := range m.Event.Entries {
					if e.Type == session.Assistant && strings.Contains(e.Content, "LIVE-REPLY") {
						return true
					}
				}
			}
		}
		return false
	}
	msgs = w.until(t, "the answer after the failover", 3*time.Minute, answered)
	continued := time.Since(killedAt)
	t.Logf("SIGKILL of the daemon mid-turn: failover after %s, the answer after %s", detected.Round(time.Millisecond), continued.Round(time.Millisecond))
	if detected > 30*time.Second {
		t.Errorf("the failover came %s after the kill; want within 30 s", detected)
	}
	for _, e := range entries(msgs) {
		if e.Type == session.User && strings.Contains(e.Content, "LIVE-PROMPT") && e.ID == "" {
			t.Errorf("a prompt entry with no id: %+v", e)
		}
	}
	if n := countMarker(entries(msgs), session.User, "LIVE-PROMPT"); n != 1 {
		t.Errorf("the watch shows the prompt %d times; want once (it was captured, then typed again, not repeated):\n%s", n, describe(msgs))
	}
	if left := processesIn(rec.PID); len(left) > 0 {
		t.Errorf("processes of the lost worker's CLI left behind: %v", left)
	}
	l.stead("stop", rec.ID)
	msgs = w.until(t, "the end of the run", time.Minute, ended)
	if err := <-w.done; err != nil {
		t.Errorf("the watch that ran across the restart: %v", err)
	}
	var runs []live.Run
	json.Unmarshal([]byte(l.stead("runs", "--json")), &runs)
	if len(runs) != 1 || runs[0].ID != rec.ID || !runs[0].State.Done() || len(runs[0].Failovers) != 1 ||
		runs[0].Failovers[0].From != rec.Supervisor || runs[0].PID == rec.PID || !runs[0].Started.Equal(rec.Started) {
		t.Fatalf("stead runs: %+v", runs)
	}
	// The stored session: the history, the prompt once, its answer.
	var whole session.Session
	if err := json.Unmarshal([]byte(l.stead("session", "show", "run:"+rec.ID, "--json", "--no-native")), &whole); err != nil {
		t.Fatalf("stead session show run:%s: %v", rec.ID, err)
	}
	var marks []string
	for _, e := range whole.Timeline {
		for _, m := range []string{"LIVE-SOURCE-FINAL", "LIVE-PROMPT", "LIVE-REPLY"} {
			if (e.Type == session.User || e.Type == session.Assistant) && strings.Contains(e.Content, m) {
				marks = append(marks, m+"@"+e.CLI)
			}
		}
	}
	// The lost worker's CLI may have written the first answer before
	// its worker died: it is kept, and the continued run's follows.
	got := strings.Join(marks, " ")
	if got != "LIVE-SOURCE-FINAL@claude LIVE-PROMPT@codex LIVE-REPLY@codex" && got != "LIVE-SOURCE-FINAL@claude LIVE-PROMPT@codex LIVE-REPLY@codex LIVE-REPLY@codex" {
		t.Errorf("stored session has %q, want the history, the prompt once, then its answer", marks)
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
	// Its model got the history, the prompt once, then the new one.
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
	if i, j, k := strings.Index(all, "LIVE-SOURCE-FINAL"), strings.Index(all, "LIVE-PROMPT"), strings.Index(all, "AFTER-CRASH"); i < 0 || j < i || k < j || strings.Count(all, "LIVE-PROMPT") != 1 {
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
	l.waitDaemon()
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
	if err := l.waitDaemon(); err != nil {
		t.Errorf("the daemon, stopped: %v", err)
	}
	if out, err := l.steadErr("serve", "status"); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("serve status after stop: %q, %v", out, err)
	}
}
