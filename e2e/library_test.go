package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/daemon"
	"github.com/stead-dev/stead/internal/clitest"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// TestLibraryResume runs a live resume through the library, with no stead
// program built or started: the daemon (daemon.Daemon) runs in the test's
// own process, a client reaches it as stead's commands do
// (daemon.Connect, through the address it publishes), the daemon takes a detached run of
// a Claude Code session in Codex (runs.Supervisor.Detach), and Codex,
// resumed in its TUI, answers the prompt. The run's record, its status
// trail on the bus and its stored session say so, and the model got the
// Claude session's history and the prompt.
func TestLibraryResume(t *testing.T) {
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	src := clitest.New(t, "claude", sourceScript(), clitest.In(filepath.Join(root, "src")))
	r := src.Run(sourceScript().Prompts[0], "")
	succeeded(t, r, "LIVE-SOURCE-FINAL")
	var ref session.Ref
	for _, sr := range src.Sessions() {
		if sr.ID == r.SessionID {
			ref = sr
		}
	}
	claude, _ := adapters.Lookup("claude")
	s, err := claude.Open(src.StoreEnv(), ref)
	if err != nil {
		t.Fatalf("reading the Claude session %s: %v", r.SessionID, err)
	}

	const prompt, answer = "Carry on from the library. LIB-PROMPT", "Carried on. LIB-ANSWER"
	dst := clitest.New(t, "codex", &modelstub.Script{Prompts: []string{prompt}, Turns: []modelstub.Turn{{Text: answer}}},
		clitest.In(filepath.Join(root, "dst")))
	vars := map[string]string{}
	for _, kv := range cliEnv(root, dst) {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	env := session.Env{Home: dst.Home, Vars: vars}

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// The daemon, in this process, on the state directory of env; the
	// client finds it as stead's commands do, through the address it
	// publishes there.
	env.Vars["XDG_STATE_HOME"] = filepath.Join(root, "state")
	d := &daemon.Daemon{Env: env, Supervisor: runs.Supervisor{Tool: "stead e2e"}}
	served := make(chan error, 1)
	go func() { served <- d.Run(ctx) }()
	defer func() {
		d.Close()
		if err := <-served; err != nil {
			t.Errorf("the daemon: %v", err)
		}
		if _, err := daemon.Read(env); !errors.Is(err, daemon.ErrNoDaemon) {
			t.Errorf("the daemon left its address behind: %v", err)
		}
	}()
	select {
	case <-d.Ready():
	case err := <-served:
		t.Fatalf("the daemon did not come up: %v", err)
	}
	b, err := daemon.Connect(ctx, daemon.Options{Env: env})
	if err != nil {
		t.Fatalf("reaching the daemon: %v", err)
	}
	defer b.Close()

	sv := &runs.Supervisor{Bus: b, Env: env}
	started, err := sv.Detach(ctx, s, runs.Spec{ID: runs.NewID(), To: "codex", Dir: dst.Dir, Prompt: prompt, Once: true})
	if err != nil {
		t.Fatalf("detaching the run: %v", err)
	}
	if started.CLI != "codex" || started.PID == 0 {
		t.Fatalf("the worker started %+v", started)
	}
	var rec live.Run
	for rec = started; !rec.State.Done(); time.Sleep(100 * time.Millisecond) {
		if rec, err = b.Run(ctx, started.ID); err != nil {
			t.Fatalf("the run's record: %v", err)
		}
	}
	var trail []string
	b.Replay(ctx, started.ID, bus.Status, func(m bus.Msg) error {
		var st live.Status
		json.Unmarshal(m.Data, &st)
		trail = append(trail, string(st.State)+" ("+st.Signal+") "+st.Detail)
		return nil
	})
	if rec.State != live.RunExited || rec.Entries == 0 {
		t.Fatalf("the run ended %s with %d entries: %s\nstatuses:\n%s", rec.State, rec.Entries, rec.Reason, strings.Join(trail, "\n"))
	}
	stored, err := b.Session(ctx, started.ID)
	if err != nil {
		t.Fatalf("the run's stored session: %v", err)
	}
	defer stored.Close()
	var whole session.Session
	if err := json.NewDecoder(stored).Decode(&whole); err != nil {
		t.Fatal(err)
	}
	var history, answered bool
	for _, e := range whole.Timeline {
		history = history || e.Type == session.Assistant && strings.Contains(e.Content, "LIVE-SOURCE-FINAL")
		answered = answered || e.Type == session.Assistant && strings.Contains(e.Content, "LIB-ANSWER") && e.CLI == "codex"
	}
	if !history || !answered {
		t.Errorf("the stored session holds the history: %v, Codex's answer: %v (%d entries)", history, answered, len(whole.Timeline))
	}
	var asked bool
	for _, req := range dst.Stub.MainRequests() {
		joined := strings.Join(req.Texts("user"), "\n")
		asked = asked || strings.Contains(joined, "LIB-PROMPT") && strings.Contains(strings.Join(req.Texts("assistant"), "\n"), "LIVE-SOURCE-FINAL")
	}
	if !asked {
		t.Errorf("no request to the model held both the Claude history and the prompt (%d requests)", len(dst.Stub.MainRequests()))
	}
}
