package e2e

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// TestClusterRunHandover: the daemon running a detached run is stopped on
// purpose (SIGTERM, as stead serve stop sends) while its model answers,
// in a cluster of three. It lets the turn end, then hands the run to
// another member at once, without waiting for its lease to expire: that
// member continues the run in its own Codex, with nothing typed again,
// and answers the next prompt. The stopped daemon exits cleanly.
func TestClusterRunHandover(t *testing.T) {
	rg := newFailoverRig(t)
	rec := rg.detach(t)
	w := rg.cmd(t, 1).watch(rec.ID)
	w.until(t, "the first prompt, with the model answering", 3*time.Minute, busyWith("LIVE-PROMPT"))

	node0 := rg.ms[0]
	if err := node0.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	stoppedAt := time.Now()
	msgs := w.until(t, "the handover from node-0", 2*time.Minute, failoverFrom(rec.Supervisor))
	moved, _ := failoverOf(msgs, rec.Supervisor)
	// The turn under way ended on node-0 before the run moved: its
	// answer came first, and nothing is typed again.
	answered := false
	for _, m := range msgs {
		if m.Status != nil && m.Status.State == live.RunFailover {
			break
		}
		if m.Event != nil {
			for _, e := range m.Event.Entries {
				answered = answered || e.Type == session.Assistant && strings.Contains(e.Content, "LIVE-REPLY")
			}
		}
	}
	if !answered {
		t.Errorf("the turn under way did not end before the handover:\n%s", describe(msgs))
	}
	if !strings.Contains(moved.Detail, "handed the run over") {
		t.Errorf("the failover's detail %q does not say the run was handed over", moved.Detail)
	}
	select {
	case <-node0.exited:
		if st := node0.cmd.ProcessState; node0.waitErr != nil || st == nil || st.ExitCode() != 0 {
			t.Errorf("node-0 after SIGTERM: %v; want it exited with code 0", node0.waitErr)
		}
	case <-time.After(time.Minute):
		t.Fatalf("node-0 had not exited a minute after SIGTERM")
	}
	var handed time.Time // when node-0's CLI had quit, the turn over
	for _, st := range states(msgs) {
		if st.Signal == "handover" {
			handed = st.Time
		}
	}
	if handed.IsZero() {
		t.Errorf("node-0 announced no handover:\n%s", describe(msgs))
	}
	t.Logf("node-0 stopped mid-turn: its turn ended and its CLI quit after %s; %s took the run %s later",
		handed.Sub(stoppedAt).Round(time.Millisecond), moved.To, moved.Time.Sub(handed).Round(time.Millisecond))
	if took := moved.Time.Sub(handed); took > 5*time.Second {
		t.Errorf("the run was taken %s after node-0 handed it over; want at once (not after its lease or job expired)", took)
	}
	if to := rg.holder(t, moved.To); to == 0 {
		t.Fatalf("the run was handed over to node-0 itself: %s", moved.To)
	}
	var runs []live.Run
	json.Unmarshal([]byte(rg.cmd(t, 1).stead("runs", "--json")), &runs)
	if len(runs) != 1 || len(runs[0].Failovers) != 1 || !runs[0].Failovers[0].Handover || runs[0].Failovers[0].Retyped != "" || runs[0].State.Done() {
		t.Fatalf("stead runs after the handover: %+v; want the run going on, with one handover and nothing typed again", runs)
	}

	// The member that took it answers the next prompt.
	rg.cmd(t, 1).stead("send", rec.ID, secondPrompt)
	msgs = w.until(t, "the answer to the second prompt", 3*time.Minute, func(msgs []watchMsg) bool {
		second := false
		for _, m := range msgs {
			if m.Event != nil {
				for _, e := range m.Event.Entries {
					second = second || e.Type == session.User && strings.Contains(e.Content, "SECOND-PROMPT")
					if second && e.Type == session.Assistant && strings.Contains(e.Content, "LIVE-REPLY") {
						return true
					}
				}
			}
		}
		return false
	})
	for _, marker := range []string{"LIVE-PROMPT", "SECOND-PROMPT"} {
		if n := countMarker(entries(msgs), session.User, marker); n != 1 {
			t.Errorf("the watch shows the prompt %s %d times:\n%s", marker, n, describe(msgs))
		}
	}
	rg.cmd(t, 1).stead("stop", rec.ID)
	w.until(t, "the end of the run", time.Minute, ended)
	if got := storedMarks(t, rg.cmd(t, 1), rec.ID); got != "LIVE-SOURCE-FINAL LIVE-PROMPT LIVE-REPLY SECOND-PROMPT LIVE-REPLY" {
		t.Errorf("the stored session holds %q; want the history, then each prompt once with its answer", got)
	}
}
