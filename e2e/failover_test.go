package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stead-dev/stead/internal/clitest"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// secondPrompt is the prompt sent to the run after its first failover.
const secondPrompt = "And now? SECOND-PROMPT"

// failoverRig is three stead daemons in a NATS cluster on loopback, each
// with its own home, state, Codex store and model stub, as three
// machines; a Claude session to resume; and a project, a clone of a
// repository every machine can reach (here a folder; a URL on a real
// network).
type failoverRig struct {
	bin, root, origin, project string
	source                     string // the Claude session's id
	ms                         []*member
	stubs                      []*clitest.Env
}

func newFailoverRig(t *testing.T) *failoverRig {
	rg := &failoverRig{bin: steadBinary(t), root: t.TempDir()}
	if r, err := filepath.EvalSymlinks(rg.root); err == nil {
		rg.root = r
	}
	root := rg.root
	src := clitest.New(t, "claude", sourceScript(), clitest.In(filepath.Join(root, "src")))
	r := src.Run(sourceScript().Prompts[0], "")
	succeeded(t, r, "LIVE-SOURCE-FINAL")
	rg.source = r.SessionID
	rg.origin = filepath.Join(root, "origin.git")
	rg.project = filepath.Join(root, "project")
	for _, args := range [][]string{{"init", "-q", "--bare", rg.origin}, {"clone", "-q", rg.origin, rg.project}} {
		if _, err := runs.Git(root, args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(rg.project, "README"), []byte("the project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "first"}, {"push", "-q", "origin", "HEAD"}} {
		if _, err := runs.Git(rg.project, args...); err != nil {
			t.Fatal(err)
		}
	}
	// Each machine's Codex answers slowly, so that a turn is under way
	// when its machine is stopped or killed.
	slow := func(i int) modelstub.Turn {
		return modelstub.Turn{Text: fmt.Sprintf("Answer %d. LIVE-REPLY", i), DelayMs: 1500}
	}
	rg.stubs = make([]*clitest.Env, 3)
	_, rg.ms = steadClusterOf(t, rg.bin, 3, func(i int) []string {
		rg.stubs[i] = clitest.New(t, "codex", &modelstub.Script{Prompts: []string{livePrompt, secondPrompt}, Turns: []modelstub.Turn{slow(1), slow(2), slow(3)}},
			clitest.In(filepath.Join(root, fmt.Sprintf("node-%d", i))))
		return cliEnv(filepath.Join(root, fmt.Sprintf("node-%d", i)), src, rg.stubs[i])
	})
	for i, m := range rg.ms {
		m.info(t)
		// Each machine's user trusts the project in Codex, as its own.
		trustProject(t, rg.stubs[i], rg.project)
	}
	return rg
}

// cmd runs stead on machine i.
func (rg *failoverRig) cmd(t *testing.T, i int) *steadCmd {
	return &steadCmd{t: t, bin: rg.bin, env: rg.ms[i].env, dir: rg.root}
}

// holder is the machine whose daemon is supervisor (<host>/<pid>).
func (rg *failoverRig) holder(t *testing.T, supervisor string) int {
	t.Helper()
	for i, m := range rg.ms {
		if strings.HasSuffix(supervisor, fmt.Sprintf("/%d", m.cmd.Process.Pid)) {
			return i
		}
	}
	t.Fatalf("no member supervises the run: %s", supervisor)
	return -1
}

// detach starts a detached Codex run of the Claude session on machine 0,
// in the project, with livePrompt.
func (rg *failoverRig) detach(t *testing.T) live.Run {
	t.Helper()
	var rec live.Run
	out := rg.cmd(t, 0).stead("session", "resume", "claude:"+rg.source, "--to", "codex", "--cwd", rg.project, "--prompt", livePrompt, "--detach", "--json")
	if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.ID == "" {
		t.Fatalf("resume --detach on node-0 printed %q (%v)", out, err)
	}
	if rg.holder(t, rec.Supervisor) != 0 || !rec.Durable || rec.Project == nil || rec.Project.Repo != rg.origin {
		t.Fatalf("the run asked on node-0: %+v; want it durable, on node-0, its project in %s", rec, rg.origin)
	}
	return rec
}

// busyWith holds once a user entry holding marker came and the run is busy.
func busyWith(marker string) func([]watchMsg) bool {
	return func(msgs []watchMsg) bool {
		prompt := false
		for _, m := range msgs {
			if m.Event != nil {
				for _, e := range m.Event.Entries {
					prompt = prompt || e.Type == session.User && strings.Contains(e.Content, marker)
				}
			}
		}
		return prompt && len(states(msgs)) > 0 && lastState(msgs).State == live.RunBusy
	}
}

// failoverOf is the failover state from the supervisor from.
func failoverOf(msgs []watchMsg, from string) (live.Status, bool) {
	for _, st := range states(msgs) {
		if st.State == live.RunFailover && st.From == from {
			return st, true
		}
	}
	return live.Status{}, false
}

// failoverFrom holds once the run failed over from the supervisor from.
func failoverFrom(from string) func([]watchMsg) bool {
	return func(msgs []watchMsg) bool {
		_, ok := failoverOf(msgs, from)
		return ok
	}
}

// answeredAfter holds once an answer came after the failover from from.
func answeredAfter(from string) func([]watchMsg) bool {
	return func(msgs []watchMsg) bool {
		after := false
		for _, m := range msgs {
			after = after || m.Status != nil && m.Status.State == live.RunFailover && m.Status.From == from
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
}

// storedMarks is the markers of the run's stored session's prompts and
// answers, in order.
func storedMarks(t *testing.T, c *steadCmd, run string) string {
	t.Helper()
	var whole session.Session
	if err := json.Unmarshal([]byte(c.stead("session", "show", "run:"+run, "--json", "--no-native")), &whole); err != nil {
		t.Fatalf("stead session show run:%s: %v", run, err)
	}
	var marks []string
	for _, e := range whole.Timeline {
		for _, m := range []string{"LIVE-SOURCE-FINAL", "LIVE-PROMPT", "SECOND-PROMPT", "LIVE-REPLY"} {
			if (e.Type == session.User || e.Type == session.Assistant) && strings.Contains(e.Content, m) {
				marks = append(marks, m)
			}
		}
	}
	return strings.Join(marks, " ")
}

// TestClusterRunFailover: three stead daemons form a NATS cluster on
// loopback, each with its own home, state, Codex store and model stub, as
// three machines. A detached Codex run asked on node-0 runs there.
//
//  1. node-0's daemon is stopped (SIGSTOP) while the model answers, past
//     its lease: another member takes the run and continues it, typing the
//     prompt again. node-0, continued (SIGCONT), gives the run up: it stops
//     its CLI and writes nothing more of the run (never two owners).
//  2. A second prompt is sent; while the model answers it, the machine
//     running the run dies: its daemon, which is also a NATS server of the
//     cluster, and its CLI are killed with SIGKILL. The third member
//     continues the run.
//
// The run keeps its id throughout; its stored session holds the history,
// each prompt once and an answer after each.
func TestClusterRunFailover(t *testing.T) {
	rg := newFailoverRig(t)
	project, ms := rg.project, rg.ms
	cmd := func(i int) *steadCmd { return rg.cmd(t, i) }
	holder := func(supervisor string) int { return rg.holder(t, supervisor) }
	rec := rg.detach(t)
	w := cmd(2).watch(rec.ID) // watched from the third machine

	// 1. node-0 stopped past its lease, mid-turn.
	w.until(t, "the first prompt, with the model answering", 3*time.Minute, busyWith("LIVE-PROMPT"))
	stopped := ms[0].cmd.Process.Pid
	if err := syscall.Kill(stopped, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(stopped, syscall.SIGCONT) }) // for the members' cleanup, if the test fails
	stoppedAt := time.Now()
	msgs := w.until(t, "the failover from the stopped node-0", 2*time.Minute, failoverFrom(rec.Supervisor))
	first, _ := failoverOf(msgs, rec.Supervisor)
	t.Logf("node-0 stopped mid-turn: failover to %s after %s", first.To, first.Time.Sub(stoppedAt).Round(time.Millisecond))
	w.until(t, "the answer after the first failover", 3*time.Minute, answeredAfter(rec.Supervisor))
	if err := syscall.Kill(stopped, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	// node-0 gives the run up: its CLI stops, and it writes nothing.
	deadline := time.Now().Add(30 * time.Second)
	for len(processesIn(rec.PID)) > 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	if left := processesIn(rec.PID); len(left) > 0 {
		t.Errorf("node-0, continued, did not stop its CLI: %v", left)
	}
	time.Sleep(3 * time.Second) // what node-0 would have written, it has by now
	var runs []live.Run
	json.Unmarshal([]byte(cmd(1).stead("runs", "--json")), &runs)
	if len(runs) != 1 || runs[0].Supervisor != first.To || runs[0].State.Done() {
		t.Fatalf("after node-0 continued, stead runs: %+v; want the run going on under %s", runs, first.To)
	}
	second := runs[0]

	// 2. The machine now running it dies mid-turn: daemon (and NATS
	// server), CLI and disk. The agent had written a file in the
	// project: the run's worker keeps the working tree's changes as the
	// run goes from turn to turn.
	edited := time.Now()
	if err := os.WriteFile(filepath.Join(project, "AGENT-EDIT.txt"), []byte("made by the agent\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd(0).stead("send", rec.ID, secondPrompt)
	// Watched from here on through node-0, which gave the run up and
	// lives on (the watch replays the run from its start).
	w = cmd(0).watch(rec.ID)
	w.until(t, "the second prompt, with the model answering", 3*time.Minute, busyWith("SECOND-PROMPT"))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		json.Unmarshal([]byte(cmd(0).stead("runs", "--json")), &runs)
		if len(runs) == 1 && runs[0].Project != nil && runs[0].Project.Kept.After(edited) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the project's changes were not kept after the edit: %+v", runs)
		}
	}
	dead := holder(second.Supervisor)
	ms[dead].cmd.Process.Signal(syscall.SIGKILL)
	syscall.Kill(-second.PID, syscall.SIGKILL)
	killedAt := time.Now()
	if err := os.Rename(project, project+".lost"); err != nil { // its disk is gone with it
		t.Fatal(err)
	}
	msgs = w.until(t, "the failover from the dead machine", 2*time.Minute, failoverFrom(second.Supervisor))
	last, _ := failoverOf(msgs, second.Supervisor)
	detected := last.Time.Sub(killedAt)
	var continued time.Duration
	for _, st := range states(msgs) {
		if st.Time.After(last.Time) && (st.State == live.RunReady || st.State == live.RunBusy) && continued == 0 {
			continued = st.Time.Sub(killedAt)
		}
	}
	msgs = w.until(t, "the answer after the second failover", 3*time.Minute, answeredAfter(second.Supervisor))
	for _, st := range states(msgs) {
		if st.Time.After(last.Time) && (st.State == live.RunReady || st.State == live.RunBusy) && continued == 0 {
			continued = st.Time.Sub(killedAt)
		}
	}
	t.Logf("%s killed mid-turn: failover to %s after %s, its CLI running after %s, the answer after %s",
		ms[dead].name, last.To, detected.Round(time.Millisecond), continued.Round(time.Millisecond), time.Since(killedAt).Round(time.Millisecond))
	if detected > 30*time.Second || continued == 0 || continued > 60*time.Second {
		t.Errorf("after the kill: failover at %s (want ≤ 30 s), the run going on at %s (want ≤ 60 s)", detected, continued)
	}
	if holder(last.To) == dead {
		t.Errorf("the second failover went to the dead machine: %s", last.To)
	}
	// The project followed the run: rebuilt from its repository, with
	// the agent's file.
	json.Unmarshal([]byte(cmd(0).stead("runs", "--json")), &runs)
	if len(runs) != 1 || runs[0].Dir == project {
		t.Fatalf("after the machine died with the project, stead runs: %+v; want the run in a rebuilt project", runs)
	}
	for name, want := range map[string]string{"README": "the project\n", "AGENT-EDIT.txt": "made by the agent\n"} {
		if b, err := os.ReadFile(filepath.Join(runs[0].Dir, name)); err != nil || string(b) != want {
			t.Errorf("%s in the rebuilt project %s: %q, %v; want %q", name, runs[0].Dir, b, err, want)
		}
	}

	// Each prompt once, an answer after each, nothing of node-0's after
	// it gave the run up.
	if n := countMarker(entries(msgs), session.User, "LIVE-PROMPT"); n != 1 {
		t.Errorf("the watch shows the first prompt %d times:\n%s", n, describe(msgs))
	}
	if n := countMarker(entries(msgs), session.User, "SECOND-PROMPT"); n != 1 {
		t.Errorf("the watch shows the second prompt %d times:\n%s", n, describe(msgs))
	}
	alive := 0 // node-0 lives on (it gave the run up)
	cmd(alive).stead("stop", rec.ID)
	w.until(t, "the end of the run", time.Minute, ended)
	got := storedMarks(t, cmd(alive), rec.ID)
	if !strings.HasPrefix(got, "LIVE-SOURCE-FINAL LIVE-PROMPT LIVE-REPLY") || strings.Count(got, "LIVE-PROMPT") != 1 ||
		strings.Count(got, "SECOND-PROMPT") != 1 || !strings.HasSuffix(got, "SECOND-PROMPT LIVE-REPLY") && !strings.HasSuffix(got, "SECOND-PROMPT LIVE-REPLY LIVE-REPLY") {
		t.Errorf("the stored session holds %q; want the history, each prompt once, an answer after each", got)
	}
	json.Unmarshal([]byte(cmd(alive).stead("runs", "--json")), &runs)
	if len(runs) != 1 || runs[0].ID != rec.ID || len(runs[0].Failovers) != 2 || !runs[0].Started.Equal(rec.Started) {
		t.Errorf("stead runs at the end: %+v; want run %s with its two failovers", runs, rec.ID)
	}
}

// countMarker counts the entries of type typ holding marker.
func countMarker(es []session.Entry, typ session.EntryType, marker string) int {
	n := 0
	for _, e := range es {
		if e.Type == typ && strings.Contains(e.Content, marker) {
			n++
		}
	}
	return n
}

// trustProject marks dir trusted in the Codex home of env, as its user
// would have answered Codex's question once.
func trustProject(t *testing.T, env *clitest.Env, dir string) {
	t.Helper()
	home := ""
	for _, kv := range env.Environ() {
		if v, ok := strings.CutPrefix(kv, "CODEX_HOME="); ok {
			home = v
		}
	}
	f, err := os.OpenFile(filepath.Join(home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "\n[projects.%q]\ntrust_level = \"trusted\"\n", dir); err != nil {
		t.Fatal(err)
	}
}
