package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/inject"
	"github.com/stead-dev/stead/internal/clitest"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

// TestTargetModel: a session Claude Code recorded (thinking, a shell
// call) continues in Codex, Gemini CLI, OpenCode and Kimi Code, against
// strict stubs, which refuse a model of another provider, a result
// without its call, a call without its result and thinking they did not
// sign, as the real APIs do. Each target resumes it live in its TUI (stead
// session resume), resumes a fork of it (stead session fork --at, then the
// real CLI), and runs it as an A/B variant (with Claude Code as a fifth,
// whose stub takes back the thinking another stub signed). Every request
// each target's model gets must ask for the model that CLI is configured
// with (its config file or environment, as the adapter reads them), never
// Claude's, and none may be refused; the A/B report names, and prices by,
// the model each variant ran on.
func TestTargetModel(t *testing.T) {
	targets := []string{"codex", "gemini", "opencode", "kimi"}
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	began := time.Now()
	srcScript := &modelstub.Script{
		Prompts: []string{"Run the greeting command."},
		Turns: []modelstub.Turn{
			{Thinking: "The user wants the greeting.", Text: "Running it.",
				Tools: []modelstub.ToolUse{{Tool: session.ToolBash, Args: map[string]any{"command": "echo hello-live"}}}},
			{Text: "It printed hello-live. LIVE-SOURCE-FINAL"},
		},
	}
	src := clitest.New(t, "claude", srcScript, clitest.In(filepath.Join(root, "src")))
	r := src.Run(srcScript.Prompts[0], "")
	succeeded(t, r, "LIVE-SOURCE-FINAL")
	// The source is named by its file: the Claude variant's home is
	// another one.
	from := ""
	for _, sr := range src.Sessions() {
		if sr.ID == r.SessionID {
			from = sr.Path
		}
	}
	if from == "" {
		t.Fatalf("stead found no session %s", r.SessionID)
	}
	srcModel := src.Stub.MainRequests()[0].Model

	// Each target's stub plays, in order: the live resume's reply, the
	// fork's, the A/B variant's; Claude Code's only the A/B variant's.
	envs := map[string]*clitest.Env{}
	all := []*clitest.Env{src}
	for _, cli := range append([]string{"claude"}, targets...) {
		turns := []modelstub.Turn{{Text: liveReply}, {Text: "From the fork. FORK-REPLY"}}
		if cli == "claude" {
			turns = nil
		}
		turns = append(turns, modelstub.Turn{Text: "The variant's answer. AB-ANSWER-" + cli})
		e := clitest.New(t, cli, &modelstub.Script{Prompts: []string{livePrompt}, Turns: turns}, clitest.In(filepath.Join(root, cli)))
		envs[cli] = e
		all = append(all, e)
	}
	l := &steadCmd{t: t, bin: steadBinary(t), root: root, env: cliEnv(root, all...)}
	l.dir = envs["codex"].Dir
	l.startDaemon(root)
	t.Logf("recorded the Claude session (model %s) and started the daemon in %s", srcModel, time.Since(began).Round(time.Millisecond))

	// want is the model a target's model must be asked for: the one the
	// CLI is configured with in its test home.
	want := func(t *testing.T, e *clitest.Env) string {
		t.Helper()
		m, from := e.Adapter.Model(e.StoreEnv(), e.Dir)
		if m == "" || from == "default" {
			t.Fatalf("%s has no model configured in its test home (%q from %q)", e.CLI, m, from)
		}
		if session.FamilyOf(m) == session.FamilyAnthropic {
			t.Fatalf("%s is configured with Claude's model %s", e.CLI, m)
		}
		return m
	}
	// asked checks the requests e's stub got since the seen-th: none
	// refused, each main one asking for model; it returns how many it
	// saw.
	asked := func(t *testing.T, e *clitest.Env, seen int, model string) int {
		t.Helper()
		reqs := e.Stub.Requests()
		main := 0
		for _, q := range reqs[seen:] {
			if q.Refused != "" {
				t.Errorf("the stub refused request %d (%s %s): %s", q.Seq, q.API, q.Model, q.Refused)
			}
			if q.Side {
				continue
			}
			main++
			if q.Model != model {
				t.Errorf("request %d asked for %q, want %s's configured %q", q.Seq, q.Model, e.CLI, model)
			}
		}
		if main == 0 {
			t.Errorf("%s's model got no request", e.CLI)
		}
		return len(reqs)
	}
	seen := map[string]int{}

	for _, cli := range targets {
		t.Run("resume/"+cli, func(t *testing.T) {
			l := l.in(t)
			start := time.Now()
			e := envs[cli]
			model := want(t, e)
			var rec live.Run
			out := l.stead("session", "resume", from, "--from", "claude", "--to", cli, "--cwd", e.Dir, "--prompt", livePrompt, "--detach", "--json")
			if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.ID == "" {
				t.Fatalf("resume --detach printed %q (%v)", out, err)
			}
			w := l.watch(rec.ID)
			w.until(t, "the reply, then ready", 3*time.Minute, replied)
			l.stead("stop", rec.ID)
			w.until(t, "the end of the run", time.Minute, ended)
			seen[cli] = asked(t, e, seen[cli], model)
			t.Logf("%s resumed the Claude session in its TUI asking for %s, in %s", cli, model, time.Since(start).Round(time.Millisecond))
		})
	}

	// The fork ends at the tool's result, before the final answer.
	s, err := session.Unmarshal([]byte(l.stead("session", "show", from, "--json", "--no-native")))
	if err != nil {
		t.Fatal(err)
	}
	at := ""
	for _, en := range s.Timeline {
		if en.Type == session.ToolResult {
			at = en.ID
		}
	}
	for _, cli := range targets {
		t.Run("fork/"+cli, func(t *testing.T) {
			l := l.in(t)
			start := time.Now()
			e := envs[cli]
			model := want(t, e)
			var rep inject.Report
			out := l.stead("session", "fork", from, "--from", "claude", "--at", at, "--to", cli, "--install", "--json", "--cwd", e.Dir)
			if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Target.ID == "" {
				t.Fatalf("fork printed %q (%v)", out, err)
			}
			if rep.Target.Model != model || rep.Target.SourceModel != srcModel || rep.Target.ModelFrom == "default" {
				t.Errorf("the fork continues with %q (from %q; source %q), want %q", rep.Target.Model, rep.Target.ModelFrom, rep.Target.SourceModel, model)
			}
			if cli == "codex" {
				// What Codex's TUI resumes with: the rollout's turn_context.
				data, _ := os.ReadFile(rep.Placement.Path)
				for _, line := range strings.Split(string(data), "\n") {
					if strings.Contains(line, `"type":"turn_context"`) && !strings.Contains(line, `"model":"`+model+`"`) {
						t.Errorf("the rollout's turn_context names another model: %s", line)
					}
				}
				if !strings.Contains(string(data), `"type":"turn_context"`) {
					t.Error("the rollout has no turn_context naming the model")
				}
			}
			rr := e.Run("Go on from there. FORK-PROMPT", rep.Target.ID)
			succeeded(t, rr, "FORK-REPLY")
			seen[cli] = asked(t, e, seen[cli], model)
			t.Logf("%s resumed the fork asking for %s, in %s", cli, model, time.Since(start).Round(time.Millisecond))
		})
	}

	t.Run("ab", func(t *testing.T) {
		l := l.in(t)
		start := time.Now()
		// The project: a git repository with one commit.
		l.dir = filepath.Join(root, "project")
		os.MkdirAll(l.dir, 0o755)
		os.WriteFile(filepath.Join(l.dir, "README"), []byte("the project\n"), 0o644)
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start"}} {
			if out, err := exec.Command("git", append([]string{"-C", l.dir}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		clis := append([]string{"claude"}, targets...)
		out := l.stead("ab", "--from", from, "--from-cli", "claude", "--to", strings.Join(clis, ","), "--prompt", "Answer. AB-PROMPT",
			"--auto-approve", "--cwd", l.dir, "--json", "--timeout", "150s")
		var ab struct {
			Variants []struct {
				CLI, State, Error, Answer, Model string
				Cost                             *float64
				Tokens                           session.Usage
			}
		}
		if err := json.Unmarshal([]byte(out), &ab); err != nil {
			t.Fatalf("stead ab printed %q: %v", out, err)
		}
		if len(ab.Variants) != len(clis) {
			t.Fatalf("%d variants, want %d", len(ab.Variants), len(clis))
		}
		for _, v := range ab.Variants {
			e := envs[v.CLI]
			model := srcModel // Claude Code's default, as the source's
			if v.CLI != "claude" {
				model = want(t, e)
			}
			if v.Error != "" || !strings.Contains(v.Answer, "AB-ANSWER-"+v.CLI) {
				t.Errorf("%s: state %s, error %q, answer %q", v.CLI, v.State, v.Error, v.Answer)
			}
			if v.Model != model {
				t.Errorf("%s: the report names the model %q, want the one it ran on, %q", v.CLI, v.Model, model)
			}
			if v.CLI == "codex" && v.Cost == nil {
				t.Errorf("codex: the variant's turn on %s is not priced", model)
			}
			seen[v.CLI] = asked(t, e, seen[v.CLI], model)
		}
		t.Logf("the A/B of %d variants ran in %s", len(clis), time.Since(start).Round(time.Millisecond))
	})
}

// in is l for a subtest: its failures are the subtest's.
func (l *steadCmd) in(t *testing.T) *steadCmd {
	c := *l
	c.t = t
	return &c
}
