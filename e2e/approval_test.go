package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

// askedStates is the run's states from its first waiting on, joined.
func askedStates(msgs []watchMsg) string {
	var seq []string
	for _, st := range states(msgs) {
		if len(seq) > 0 || st.State == live.RunWaiting {
			seq = append(seq, string(st.State))
		}
	}
	return strings.Join(seq, " ")
}

// answeredStates reports whether states from a dialog on (askedStates)
// are the dialog's waiting, then work, then ready, and nothing else.
func answeredStates(states string) bool {
	f := strings.Fields(states)
	if len(f) < 2 || f[0] != string(live.RunWaiting) || f[len(f)-1] != string(live.RunReady) {
		return false
	}
	for _, st := range f[1 : len(f)-1] {
		if st != string(live.RunBusy) && st != string(live.RunWaiting) {
			return false
		}
	}
	return true
}

// trail is what a run said, in order: its state changes, and the
// session file's entries from the first prompt the file recorded (the
// history before it is the resumed session's). A failure of the capture
// machine's rules is read from it.
func trail(msgs []watchMsg) string {
	var b strings.Builder
	prompted := false
	for _, m := range msgs {
		switch {
		case m.Status != nil:
			fmt.Fprintf(&b, "  %s  %s (%s: %s)\n", m.Status.Time.Format("15:04:05.000"), m.Status.State, m.Status.Signal, m.Status.Detail)
		case m.Event != nil:
			for _, e := range m.Event.Entries {
				prompted = prompted || e.Type == session.User && e.Kind == ""
				if prompted {
					fmt.Fprintf(&b, "  line %d: %s %s %.60q\n", m.Event.Line, e.Type, e.Kind, e.Content)
				}
			}
		}
	}
	return b.String()
}

func waited(msgs []watchMsg) bool {
	for _, st := range states(msgs) {
		if st.State == live.RunWaiting {
			return true
		}
	}
	return false
}

// TestLiveApproval: a detached run without --auto-approve whose model
// asks for a shell command. The CLI's approval dialog reads as waiting on
// the bus, with what it asks; an Enter typed through `stead send --raw`
// approves it; the command runs, and the turn goes on (busy) to the
// model's answer (ready). Codex asks in its default policy when the model
// asks to leave the sandbox; OpenCode allows bash unless configured to
// ask (the test says "ask"); Kimi Code asks in its default mode.
func TestLiveApproval(t *testing.T) {
	const marker = "approved-by-user.txt"
	for _, tc := range []struct {
		src, dst string
		call     modelstub.ToolUse
		ask      func(t *testing.T, l *steadCmd)
	}{
		{src: "claude", dst: "codex", call: modelstub.ToolUse{Tool: session.ToolBash, Name: "exec_command", Args: map[string]any{
			"cmd": "touch " + marker, "sandbox_permissions": "require_escalated", "justification": "May I create the marker file?"}}},
		{src: "codex", dst: "opencode", call: modelstub.ToolUse{Tool: session.ToolBash, Args: map[string]any{
			"command": "touch " + marker, "description": "Create the marker file"}},
			ask: func(t *testing.T, l *steadCmd) {
				path := filepath.Join(l.dst.Home, ".config", "opencode", "opencode.json")
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				asking := strings.Replace(string(data), `"bash": "allow"`, `"bash": "ask"`, 1)
				if asking == string(data) {
					t.Fatalf("no bash permission to change in %s:\n%s", path, data)
				}
				if err := os.WriteFile(path, []byte(asking), 0o600); err != nil {
					t.Fatal(err)
				}
			}},
		{src: "codex", dst: "kimi", call: modelstub.ToolUse{Tool: session.ToolBash, Args: map[string]any{
			"command": "touch " + marker, "description": "Create the marker file"}}},
	} {
		t.Run(tc.dst, func(t *testing.T) {
			l, ref := newLive(t, tc.src, tc.dst,
				modelstub.Turn{Text: "Making it.", Tools: []modelstub.ToolUse{tc.call}},
				modelstub.Turn{Text: liveReply})
			if tc.ask != nil {
				tc.ask(t, l)
			}
			begin := time.Now()
			rec, w := l.startRun(t, ref, tc.dst)
			msgs := w.until(t, "waiting", 3*time.Minute, waited)
			asked := time.Since(begin)
			var ask live.Status
			for _, st := range states(msgs) {
				if st.State == live.RunWaiting {
					ask = st
				}
			}
			if ask.Signal != "screen" || !strings.HasPrefix(ask.Detail, "approval: ") {
				t.Errorf("waiting said by %q: %q, want the screen's approval", ask.Signal, ask.Detail)
			}
			if _, err := os.Stat(filepath.Join(l.dir, marker)); err == nil {
				t.Fatal("the command ran before it was approved")
			}
			// Still waiting a moment later: nothing else moves the run
			// while the dialog shows.
			time.Sleep(time.Second)
			now := w.until(t, "what it printed", time.Second, func([]watchMsg) bool { return true })
			if st := lastState(now); st.State != live.RunWaiting {
				t.Fatalf("the run went %s (%s: %s) with the dialog still up; what the run said from its prompt on:\n%s",
					st.State, st.Signal, st.Detail, trail(now))
			}
			l.stead("send", "--raw", rec.ID, "\r")
			msgs = w.until(t, "the reply, then ready", 3*time.Minute, replied)
			if _, err := os.Stat(filepath.Join(l.dir, marker)); err != nil {
				t.Errorf("the approved command did not run: %v", err)
			}
			// Once answered the run works, then is ready; a CLI that
			// runs the command and answers before its screen is read
			// again (Codex, in about a second) goes to ready at once.
			if got := askedStates(msgs); !answeredStates(got) {
				t.Errorf("states from the dialog on: %q, want waiting, busy while it works, then ready", got)
			}
			t.Logf("%s asked after %s; answered, its turn ended %s later", tc.dst, asked.Round(100*time.Millisecond),
				time.Since(begin.Add(asked)).Round(100*time.Millisecond))
			l.stead("stop", rec.ID)
			w.until(t, "the end of the run", time.Minute, ended)
		})
	}
}

// TestLiveGeminiModelError: the model fails for good. Gemini CLI would
// retry for ever: behind its spinner for a 500 (only its debug log says
// the attempts are used up), under its question "Keep trying / Stop" for
// a model that does not exist. Either way the run reads waiting, stead
// (nobody is at the terminal) gives the request up (Esc, or Stop), and
// the turn ends in the error, saying so; the CLI sends no more requests.
func TestLiveGeminiModelError(t *testing.T) {
	for _, tc := range []struct {
		name, model, signal, why string
		turn                     modelstub.Turn
	}{
		{name: "500", signal: "debug log", why: "HTTP 500", turn: modelstub.Turn{Fault: modelstub.Fault500}},
		{name: "unknown-model", model: "claude-sonnet-4-5", signal: "screen", why: "not found", turn: modelstub.Turn{Text: liveReply}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, ref := newLive(t, "codex", "gemini", tc.turn)
			begin := time.Now()
			args := []string{"session", "resume", ref, "--to", "gemini", "--cwd", l.dir, "--prompt", livePrompt, "--detach", "--json"}
			if tc.model != "" {
				args = append(args, "--model", tc.model)
			}
			var rec live.Run
			if err := json.Unmarshal([]byte(l.stead(args...)), &rec); err != nil || rec.ID == "" {
				t.Fatalf("resume --detach: %v", err)
			}
			w := l.watch(rec.ID)
			msgs := w.until(t, "waiting, then ready", 3*time.Minute, func(msgs []watchMsg) bool {
				return strings.HasPrefix(askedStates(msgs), "waiting") && lastState(msgs).State == live.RunReady
			})
			took := time.Since(begin)
			for _, st := range states(msgs) {
				if st.State == live.RunWaiting && (st.Signal != tc.signal || !strings.Contains(st.Detail, tc.why)) {
					t.Errorf("waiting said by %q: %q, want the %s, with %q", st.Signal, st.Detail, tc.signal, tc.why)
				}
			}
			if last := lastState(msgs); !strings.Contains(last.Detail, "the turn ended in an error") || !strings.Contains(last.Detail, tc.why) {
				t.Errorf("the status after the error says %q, want why", last.Detail)
			}
			// The requests stopped with the turn.
			count := func() int {
				data, _ := os.ReadFile(l.dst.LogPath())
				return strings.Count(string(data), "\n")
			}
			n := count()
			time.Sleep(2 * time.Second)
			if m := count(); m != n {
				t.Errorf("%d more requests after the turn ended", m-n)
			}
			t.Logf("the failed turn ended %s after the run started, after %d requests", took.Round(100*time.Millisecond), n)
			l.stead("stop", rec.ID)
			w.until(t, "the end of the run", time.Minute, ended)
		})
	}
}
