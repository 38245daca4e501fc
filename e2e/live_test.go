package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stead-dev/stead/internal/clitest"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

var (
	steadOnce sync.Once
	steadBin  string
	steadErr  error
)

// steadBinary builds cmd/stead once for the package's tests.
func steadBinary(t *testing.T) string {
	t.Helper()
	steadOnce.Do(func() {
		dir, err := os.MkdirTemp("", "stead-e2e-bin")
		if err != nil {
			steadErr = err
			return
		}
		steadBin = filepath.Join(dir, "stead")
		cmd := exec.Command("go", "build", "-o", steadBin, "./cmd/stead")
		cmd.Dir = clitest.Root(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			steadErr = err
			steadBin = string(out)
		}
	})
	if steadErr != nil {
		t.Fatalf("building stead: %v\n%s", steadErr, steadBin)
	}
	return steadBin
}

// live is a stead daemon and the environment of a source and a target
// CLI sharing one home and project.
type steadCmd struct {
	t      *testing.T
	bin    string
	env    []string
	dir    string
	src    *clitest.Env
	dst    *clitest.Env
	daemon *exec.Cmd
	// daemonExited is closed when the daemon has exited (daemonErr:
	// how): wait for it (waitDaemon) rather than calling daemon.Wait.
	daemonExited chan struct{}
	daemonErr    error
	root         string
	// daemonEnv, when set, is the daemon's environment instead of env.
	daemonEnv []string
}

const (
	livePrompt = "What did we do so far? LIVE-PROMPT"
	liveReply  = "We ran the greeting command. LIVE-REPLY"
)

// sourceScript is the short conversation the source CLI records.
func sourceScript() *modelstub.Script {
	return &modelstub.Script{
		Prompts: []string{"Run the greeting command."},
		Turns: []modelstub.Turn{
			{Text: "Running it.", Tools: []modelstub.ToolUse{{Tool: session.ToolBash, Args: map[string]any{"command": "echo hello-live"}}}},
			{Text: "It printed hello-live. LIVE-SOURCE-FINAL"},
		},
	}
}

// newLive records a session with src headless, then starts a stead daemon
// whose runs of dst reach a stub playing turns.
func newLive(t *testing.T, src, dst string, turns ...modelstub.Turn) (*steadCmd, string) {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	l := &steadCmd{t: t, bin: steadBinary(t), root: root}
	l.src = clitest.New(t, src, sourceScript(), clitest.In(filepath.Join(root, "src")))
	r := l.src.Run(sourceScript().Prompts[0], "")
	succeeded(t, r, "LIVE-SOURCE-FINAL")
	if r.SessionID == "" {
		t.Fatalf("%s printed no session id\n%s", src, r.Explain())
	}
	l.dst = clitest.New(t, dst, &modelstub.Script{Prompts: []string{livePrompt}, Turns: turns}, clitest.In(filepath.Join(root, "dst")))
	l.dir = l.dst.Dir
	// The source's store is read with the source's environment, the
	// target's CLI runs with the target's.
	l.env = cliEnv(root, l.src, l.dst)
	l.startDaemon(root)
	return l, src + ":" + r.SessionID
}

func (l *steadCmd) startDaemon(root string) {
	l.daemon = exec.Command(l.bin, "serve", "-v")
	l.daemon.Env = l.env
	if l.daemonEnv != nil {
		l.daemon.Env = l.daemonEnv
	}
	logf, err := os.Create(filepath.Join(root, "serve.log"))
	if err != nil {
		l.t.Fatal(err)
	}
	l.daemon.Stdout, l.daemon.Stderr = logf, logf
	l.daemon.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := l.daemon.Start(); err != nil {
		l.t.Fatal(err)
	}
	daemon, done := l.daemon, make(chan struct{})
	l.daemonExited = done
	go func() {
		l.daemonErr = daemon.Wait()
		close(done)
	}()
	l.t.Cleanup(func() {
		daemon.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			syscall.Kill(-daemon.Process.Pid, syscall.SIGKILL)
			l.t.Error("the daemon did not stop within 30 s of SIGTERM")
		}
		logf.Close()
		if l.t.Failed() {
			data, _ := os.ReadFile(logf.Name())
			daemonLog(l.t, "daemon", string(data), 6000)
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		// The daemon's own bus.json (a killed one's may still be there).
		var info struct {
			PID int `json:"pid"`
		}
		if data, err := os.ReadFile(filepath.Join(root, "state", "stead", "bus.json")); err == nil &&
			json.Unmarshal(data, &info) == nil && info.PID == l.daemon.Process.Pid {
			return
		}
		if time.Now().After(deadline) {
			l.t.Fatal("the daemon wrote no bus.json within 30 s")
		}
		select {
		case <-done:
			l.t.Fatalf("the daemon exited before it came up (%v)", l.daemonErr)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitDaemon waits for the daemon to exit, and says how it did.
func (l *steadCmd) waitDaemon() error {
	<-l.daemonExited
	return l.daemonErr
}

// daemonLog shows the last n bytes of the log of a daemon the failed test
// ran. Where STEAD_E2E_LOGS names a folder (CI sets it), the log's tail
// goes to a file there and the test's output names it: a cluster's logs
// would otherwise bury the test's own messages, which CI shows last.
func daemonLog(t *testing.T, name, log string, n int) {
	t.Helper()
	tail := tailText(log, n)
	if dir := os.Getenv("STEAD_E2E_LOGS"); dir != "" {
		file := filepath.Join(dir, strings.NewReplacer("/", "-").Replace(t.Name())+"-"+name+".log")
		if err := os.WriteFile(file, []byte(tail), 0o644); err == nil {
			t.Logf("%s log: %s", name, file)
			return
		}
	}
	t.Logf("%s log:\n%s", name, tail)
}

func tailText(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// stead runs a stead command and returns its standard output.
// cliEnv is the environment of stead commands driving the CLIs of envs:
// their test homes' environments merged (a later one wins where two set
// a variable, as HOME), each CLI's program named for stead
// (STEAD_<CLI>_BIN), a terminal, and stead's state under root.
func cliEnv(root string, envs ...*clitest.Env) []string {
	vars := map[string]string{}
	for _, e := range envs {
		for _, kv := range e.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			vars[k] = v
		}
		bin := e.Bin.Path
		if e.Bin.Runtime != "" {
			bin = e.Bin.Runtime + " " + bin
		}
		vars["STEAD_"+strings.ToUpper(e.CLI)+"_BIN"] = bin
	}
	vars["TERM"] = "xterm-256color"
	delete(vars, "NO_COLOR")
	vars["XDG_STATE_HOME"] = filepath.Join(root, "state")
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	return out
}

func (l *steadCmd) stead(args ...string) string {
	l.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, l.bin, args...)
	cmd.Env, cmd.Dir = l.env, l.dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		l.t.Fatalf("stead %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.String()
}

// watchMsg is a line of stead watch --json.
type watchMsg struct {
	Kind   string         `json:"kind"`
	Event  *session.Event `json:"event"`
	Status *live.Status   `json:"status"`
}

// watcher runs stead watch --json and collects what it prints.
type watcher struct {
	mu   sync.Mutex
	msgs []watchMsg
	more chan struct{}
	done chan error
	cmd  *exec.Cmd
	// stderr is what stead watch wrote to its standard error.
	stderr lockedBuffer
}

// lockedBuffer is a buffer a process writes to while a test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (l *steadCmd) watch(run string) *watcher {
	l.t.Helper()
	w := &watcher{more: make(chan struct{}, 1), done: make(chan error, 1)}
	w.cmd = exec.Command(l.bin, "watch", run, "--json")
	w.cmd.Env, w.cmd.Dir = l.env, l.dir
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		l.t.Fatal(err)
	}
	w.cmd.Stderr = &w.stderr
	if err := w.cmd.Start(); err != nil {
		l.t.Fatal(err)
	}
	l.t.Cleanup(func() { w.cmd.Process.Kill() })
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m watchMsg
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				l.t.Errorf("stead watch printed a line that is not JSON: %q", sc.Text())
				continue
			}
			w.mu.Lock()
			w.msgs = append(w.msgs, m)
			w.mu.Unlock()
			select {
			case w.more <- struct{}{}:
			default:
			}
		}
		err := w.cmd.Wait()
		if err != nil {
			err = &watchError{err: err, stderr: w.stderr.String()}
		}
		w.done <- err
		close(w.more)
	}()
	return w
}

type watchError struct {
	err    error
	stderr string
}

func (e *watchError) Error() string { return e.err.Error() + ": " + e.stderr }

// until waits for cond to hold over what was printed.
func (w *watcher) until(t *testing.T, what string, timeout time.Duration, cond func([]watchMsg) bool) []watchMsg {
	t.Helper()
	deadline := time.After(timeout)
	for {
		w.mu.Lock()
		msgs := append([]watchMsg(nil), w.msgs...)
		w.mu.Unlock()
		if cond(msgs) {
			return msgs
		}
		select {
		case _, ok := <-w.more:
			if !ok {
				w.mu.Lock()
				msgs := append([]watchMsg(nil), w.msgs...)
				w.mu.Unlock()
				if cond(msgs) {
					return msgs
				}
				t.Fatalf("stead watch ended before %s:\n%s\nand on its standard error:\n%s", what, describe(msgs), w.stderr.String())
			}
		case <-deadline:
			t.Fatalf("no %s within %s; stead watch printed:\n%s\nand on its standard error:\n%s", what, timeout, describe(msgs), w.stderr.String())
		}
	}
}

func describe(msgs []watchMsg) string {
	var b strings.Builder
	for _, m := range msgs {
		switch {
		case m.Status != nil:
			b.WriteString("  [" + string(m.Status.State) + "] " + m.Status.Signal + " " + m.Status.Detail + "\n")
		case m.Event != nil:
			for _, e := range m.Event.Entries {
				b.WriteString("  " + string(e.Type) + "/" + e.Kind + " " + e.CLI + ": " + clip(e.Content+e.Output) + "\n")
			}
		}
	}
	return b.String()
}

func entries(msgs []watchMsg) []session.Entry {
	var out []session.Entry
	for _, m := range msgs {
		if m.Event != nil {
			out = append(out, m.Event.Entries...)
		}
	}
	return out
}

func states(msgs []watchMsg) []live.Status {
	var out []live.Status
	for _, m := range msgs {
		if m.Status != nil {
			out = append(out, *m.Status)
		}
	}
	return out
}

// replied holds once the reply arrived after the prompt and the CLI went
// back to ready.
func replied(msgs []watchMsg) bool {
	sawPrompt, sawReply := false, false
	for _, m := range msgs {
		if m.Event != nil {
			for _, e := range m.Event.Entries {
				if e.Type == session.User && strings.Contains(e.Content, "LIVE-PROMPT") {
					sawPrompt = true
				}
				if sawPrompt && e.Type == session.Assistant && strings.Contains(e.Content, "LIVE-REPLY") {
					sawReply = true
				}
			}
		}
		if sawReply && m.Status != nil && m.Status.State == live.RunReady {
			return true
		}
	}
	return false
}

func ended(msgs []watchMsg) bool {
	for _, st := range states(msgs) {
		if st.State.Done() {
			return true
		}
	}
	return false
}

// processesIn lists live processes in process group pgid.
func processesIn(pgid int) []string {
	var out []string
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(data, ')')
		f := strings.Fields(string(data[i+2:]))
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			out = append(out, string(data[:i+1]))
		}
	}
	return out
}

// TestLiveResume resumes a session each source CLI recorded in a target
// CLI under stead's supervisor (a detached run in the daemon): the target
// becomes ready, the prompt is typed, the stub's reply arrives on the bus
// as universal entries in order, the state goes busy then ready, and the
// CLI exits with code 0 when asked, leaving no process behind.
func TestLiveResume(t *testing.T) {
	pairs := [][2]string{{"claude", "codex"}, {"codex", "claude"}, {"gemini", "opencode"}, {"opencode", "kimi"}, {"kimi", "gemini"}}
	for _, p := range pairs {
		t.Run(p[0]+"->"+p[1], func(t *testing.T) {
			l, ref := newLive(t, p[0], p[1], modelstub.Turn{Text: liveReply})
			var rec live.Run
			out := l.stead("session", "resume", ref, "--to", p[1], "--cwd", l.dir, "--prompt", livePrompt, "--detach", "--json")
			if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.ID == "" {
				t.Fatalf("resume --detach printed %q (%v)", out, err)
			}
			if rec.CLI != p[1] || rec.PID == 0 || rec.Source == nil || rec.Source.CLI != p[0] {
				t.Errorf("run record %+v", rec)
			}
			w := l.watch(rec.ID)
			msgs := w.until(t, "the reply, then ready", 3*time.Minute, replied)

			// Entries in order: the prompt, then the reply, each once,
			// each marked with the target CLI; no history repeated.
			var texts []string
			ids := map[string]bool{}
			for _, e := range entries(msgs) {
				if ids[e.ID] {
					t.Errorf("entry %s published twice", e.ID)
				}
				ids[e.ID] = true
				if e.CLI != p[1] {
					t.Errorf("entry %s marked %q, want %q", e.ID, e.CLI, p[1])
				}
				if strings.Contains(e.Content, "LIVE-SOURCE-FINAL") {
					t.Errorf("the history was published as new: %s", clip(e.Content))
				}
				if e.Type == session.User || e.Type == session.Assistant {
					texts = append(texts, string(e.Type)+": "+e.Content)
				}
			}
			if i, j := indexOf(texts, "LIVE-PROMPT"), indexOf(texts, "LIVE-REPLY"); i < 0 || j < i {
				t.Errorf("prompt at %d, reply at %d in %q", i, j, texts)
			}
			// States: starting, ready, busy ... ready.
			var seq []string
			for _, st := range states(msgs) {
				seq = append(seq, string(st.State))
			}
			got := strings.Join(seq, " ")
			if !strings.HasPrefix(got, "starting ready busy") || !strings.HasSuffix(got, "ready") {
				t.Errorf("states %q, want starting ready busy ... ready", got)
			}

			l.stead("stop", rec.ID)
			msgs = w.until(t, "the end of the run", time.Minute, ended)
			last := states(msgs)[len(states(msgs))-1]
			if last.State != live.RunExited || last.ExitCode == nil || *last.ExitCode != 0 {
				t.Errorf("the run ended %s (exit code %v, %s), want exited with 0", last.State, last.ExitCode, last.Detail)
			}
			if left := processesIn(rec.PID); len(left) > 0 {
				t.Errorf("processes left behind: %v", left)
			}
			if err := <-w.done; err != nil {
				t.Errorf("stead watch: %v", err)
			}
			var runs []live.Run
			json.Unmarshal([]byte(l.stead("runs", "--json")), &runs)
			if len(runs) != 1 || runs[0].State != live.RunExited || runs[0].Entries < 2 {
				t.Errorf("stead runs: %+v", runs)
			}
			// The whole session is stored: the history, marked with the
			// source CLI, then the run's entries, marked with the target.
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
			if want := "LIVE-SOURCE-FINAL@" + p[0] + " LIVE-PROMPT@" + p[1] + " LIVE-REPLY@" + p[1]; strings.Join(marks, " ") != want {
				t.Errorf("stored session has %q, want %q", marks, want)
			}
		})
	}
}

func indexOf(texts []string, marker string) int {
	for i, s := range texts {
		if strings.Contains(s, marker) {
			return i
		}
	}
	return -1
}

// startRun starts a detached run of the live prompt and watches it until
// want holds.
func (l *steadCmd) startRun(t *testing.T, ref, to string) (live.Run, *watcher) {
	t.Helper()
	var rec live.Run
	out := l.stead("session", "resume", ref, "--to", to, "--cwd", l.dir, "--prompt", livePrompt, "--detach", "--json")
	if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.ID == "" {
		t.Fatalf("resume --detach printed %q (%v)", out, err)
	}
	return rec, l.watch(rec.ID)
}

func lastState(msgs []watchMsg) live.Status {
	st := states(msgs)
	return st[len(st)-1]
}

// TestLiveFaults: a CLI killed mid-run, a model that fails, a CLI that
// hangs.
func TestLiveFaults(t *testing.T) {
	t.Run("killed", func(t *testing.T) {
		l, ref := newLive(t, "claude", "codex", modelstub.Turn{Text: liveReply})
		rec, w := l.startRun(t, ref, "codex")
		w.until(t, "the reply", 3*time.Minute, replied)
		if err := syscall.Kill(rec.PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		msgs := w.until(t, "the end of the run", time.Minute, ended)
		last := lastState(msgs)
		if last.State != live.RunFailed || last.ExitCode == nil || *last.ExitCode != -1 || !strings.Contains(last.Detail, "killed") {
			t.Errorf("the run ended %s (exit code %v, %q), want failed, -1, killed", last.State, last.ExitCode, last.Detail)
		}
		var runs []live.Run
		json.Unmarshal([]byte(l.stead("runs", "--json")), &runs)
		if len(runs) != 1 || runs[0].State != live.RunFailed || runs[0].Entries < 2 || !strings.Contains(runs[0].Reason, "killed") {
			t.Errorf("stead runs: %+v", runs)
		}
		if left := processesIn(rec.PID); len(left) > 0 {
			t.Errorf("processes left behind: %v", left)
		}
	})
	t.Run("model-500", func(t *testing.T) {
		l, ref := newLive(t, "claude", "kimi", modelstub.Turn{Fault: modelstub.Fault500})
		rec, w := l.startRun(t, ref, "kimi")
		msgs := w.until(t, "an error entry, then ready", 3*time.Minute, func(msgs []watchMsg) bool {
			sawErr := false
			for _, m := range msgs {
				if m.Event != nil {
					for _, e := range m.Event.Entries {
						if e.Type == session.System && e.Kind == session.KindError {
							sawErr = true
						}
					}
				}
				if sawErr && m.Status != nil && m.Status.State == live.RunReady {
					return true
				}
			}
			return false
		})
		if last := lastState(msgs); !strings.Contains(last.Detail, "error") || !strings.Contains(last.Detail, "500") {
			t.Errorf("the status after the error says %q, want why", last.Detail)
		}
		l.stead("stop", rec.ID)
		w.until(t, "the end of the run", time.Minute, ended)
	})
	t.Run("hung", func(t *testing.T) {
		l, ref := newLive(t, "claude", "codex", modelstub.Turn{Text: liveReply})
		rec, w := l.startRun(t, ref, "codex")
		w.until(t, "the reply", 3*time.Minute, replied)
		// A CLI that reacts to nothing: no keys, no interrupt, no
		// terminate.
		if err := syscall.Kill(rec.PID, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		begin := time.Now()
		l.stead("stop", rec.ID)
		took := time.Since(begin)
		msgs := w.until(t, "the end of the run", time.Minute, ended)
		last := lastState(msgs)
		if last.State != live.RunFailed || !strings.Contains(last.Detail, "killed") {
			t.Errorf("the run ended %s (%q), want failed: killed", last.State, last.Detail)
		}
		if took > 20*time.Second {
			t.Errorf("stopping took %s", took)
		}
		if left := processesIn(rec.PID); len(left) > 0 {
			t.Errorf("processes left behind: %v", left)
		}
		t.Logf("a hung %s stopped by escalation in %s", rec.CLI, took.Round(time.Millisecond))
	})
}
