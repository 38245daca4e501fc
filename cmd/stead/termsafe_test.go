package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/adapters/claude"
	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// hostile is text a session could hold to take over a terminal: a window
// title, a clipboard write (OSC 52), a cleared screen, colours, a bell, a
// C1 CSI and a bidi override.
const hostile = "\x1b]0;owned\x07 \x1b]52;c;cm0gLXJmIH4=\x07 \x1b[2J\x1b[31mred \x9b\u009b1m \u202eevil"

// controls reports the first character of out that a terminal would obey.
func controls(out string) (string, bool) {
	for _, c := range []string{"\x1b", "\x07", "\u009b", "\u202e"} {
		if i := strings.Index(out, c); i >= 0 {
			return out[max(0, i-20):min(len(out), i+20)], true
		}
	}
	return "", false
}

func hostileClaudeSession(t *testing.T, env session.Env) (id string) {
	t.Helper()
	id = "0b5c0000-0000-4000-8000-00000000e5c0"
	cwd := "/tmp/proj " + hostile
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	lines := []string{
		`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"` + id + `","cwd":` + q(cwd) + `,"timestamp":"2026-11-20T10:00:00.000Z","message":{"role":"user","content":` + q("title "+hostile) + `}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"` + id + `","cwd":` + q(cwd) + `,"timestamp":"2026-11-20T10:00:01.000Z","message":{"id":"m1","role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":` + q("echo "+hostile) + `}}],"usage":{"input_tokens":5,"output_tokens":5}}}`,
		`{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"` + id + `","cwd":` + q(cwd) + `,"timestamp":"2026-11-20T10:00:02.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":` + q("out "+hostile) + `}]}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"` + id + `","cwd":` + q(cwd) + `,"timestamp":"2026-11-20T10:00:03.000Z","message":{"id":"m2","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":` + q("answer "+hostile) + `}],"usage":{"input_tokens":5,"output_tokens":5}}}`,
	}
	write(t, filepath.Join(env.Vars["CLAUDE_CONFIG_DIR"], "projects", claude.EncodeProjectDir(cwd), id+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"))
	return id
}

// TestHostileTextNeutralised: what a session holds reaches the terminal
// only as visible text, in every output for a person; --json keeps it,
// escaped.
func TestHostileTextNeutralised(t *testing.T) {
	env := homes(t)
	id := hostileClaudeSession(t, env)
	for _, args := range [][]string{
		{"session", "list"},
		{"session", "show", "claude:" + id},
		{"session", "show", "claude:" + id, "--all", "--full"},
		{"session", "stats"},
		{"session", "show", "claude:nothing" + hostile},
		{"session", "convert", "claude:" + id, "--to", "codex", "--install"},
	} {
		out, errOut, _ := run(t, env, args...)
		if bad, ok := controls(out + errOut); ok {
			t.Errorf("stead %s printed a control character: %q", strings.Join(args, " "), bad)
		}
	}
	out := mustRun(t, env, "session", "show", "claude:"+id)
	if !strings.Contains(out, `\x1b]52;c;`) {
		t.Errorf("show hid the escape instead of showing it:\n%s", out)
	}
	var s session.Session
	if err := json.Unmarshal([]byte(mustRun(t, env, "session", "show", "claude:"+id, "--json")), &s); err != nil {
		t.Fatal(err)
	}
	// (The raw \x9b byte is not UTF-8: JSON holds U+FFFD for it.)
	if got := s.Timeline[len(s.Timeline)-1].Content; got != strings.ToValidUTF8("answer "+hostile, "\ufffd") {
		t.Errorf("--json changed the text: %q", got)
	}
}

// TestHostileRunNeutralised: runs and watch print a run's record, entries
// and states from the bus safely.
func TestHostileRunNeutralised(t *testing.T) {
	ctx := context.Background()
	b, err := bus.New(ctx, bus.Options{StoreDir: t.TempDir(), Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{"STEAD_NATS_URL": b.ClientURL(), "STEAD_NATS_TOKEN": b.ClientToken()}}
	run1 := "20261120-100000-hostile"
	rec := live.Run{ID: run1, CLI: "codex", Dir: "/tmp/" + hostile, State: live.RunFailed, Started: time.Now(),
		Source: &session.Origin{CLI: "claude", ID: hostile}, Reason: hostile}
	if err := b.PutRun(ctx, rec); err != nil {
		t.Fatal(err)
	}
	ev, _ := json.Marshal(session.Event{Entries: []session.Entry{{ID: "e1", Type: session.Assistant, Content: hostile, Timestamp: time.Now()}}})
	st, _ := json.Marshal(live.Status{Run: run1, State: live.RunFailed, Time: time.Now(), Detail: hostile, Signal: hostile})
	if err := b.Publish(ctx, run1, bus.Entry, ev, ""); err != nil {
		t.Fatal(err)
	}
	if err := b.Publish(ctx, run1, bus.Status, st, ""); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"runs"}, {"watch", run1}} {
		out, errOut, code := run(t, env, args...)
		if code != ExitOK {
			t.Fatalf("stead %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
		if bad, ok := controls(out + errOut); ok {
			t.Errorf("stead %s printed a control character: %q", strings.Join(args, " "), bad)
		}
		if !strings.Contains(out, `\x1b]0;owned\x07`) {
			t.Errorf("stead %s: the text is not shown:\n%s", strings.Join(args, " "), out)
		}
	}
	out := mustRun(t, env, "watch", run1, "--json")
	if !strings.Contains(out, `\u001b]0;owned\u0007`) {
		t.Errorf("watch --json lost the text:\n%s", out)
	}
}

// TestHostileABNeutralised: an A/B comparison (its prompt, answers, errors)
// is shown safely by ab show and ab list; ab show --json keeps it.
func TestHostileABNeutralised(t *testing.T) {
	env := session.Env{Home: t.TempDir(), Vars: map[string]string{"XDG_STATE_HOME": t.TempDir()}}
	ab := &runs.AB{ID: "ab-20261120-hostile", Prompt: "do " + hostile, Project: "/tmp/p", Started: time.Now(),
		Variants: []runs.Variant{
			{Name: "codex", CLI: "codex", State: "exited", Answer: "answer " + hostile, Tools: map[string]int{}},
			{Name: "claude", CLI: "claude", State: "failed", Error: "failed " + hostile, Tools: map[string]int{}},
		}}
	if err := runs.SaveAB(abRoot(env), ab); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"ab", "show", ab.ID}, {"ab", "list"}} {
		out, errOut, code := run(t, env, args...)
		if code != ExitOK {
			t.Fatalf("stead %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
		if bad, ok := controls(out + errOut); ok {
			t.Errorf("stead %s printed a control character: %q", strings.Join(args, " "), bad)
		}
		if !strings.Contains(out, `\x1b]0;owned\x07`) {
			t.Errorf("stead %s: the text is not shown:\n%s", strings.Join(args, " "), out)
		}
	}
	var back runs.AB
	if err := json.Unmarshal([]byte(mustRun(t, env, "ab", "show", ab.ID, "--json")), &back); err != nil || back.Variants[0].Answer != strings.ToValidUTF8(ab.Variants[0].Answer, "\ufffd") {
		t.Errorf("ab show --json: %v, %q", err, back.Variants[0].Answer)
	}
}
