package runs

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// busyCodex stands in for a Codex that takes the prompt and then works
// for ever: its working line ticks until it is interrupted, when it says
// goodbye as Codex does.
const busyCodex = `#!/bin/sh
trap 'printf "\033[2J\033[HToken usage: total=10\r\nTo continue this session, run:\r\n  codex resume x\r\n"; exit 0' INT
printf '\033[?2004h'
printf '\033[2J\033[H> Ask Codex to do anything\r\n'
read line
i=0
while :; do
  printf '\033[2J\033[H  Working (%ds - esc to interrupt)\r\n' $i
  i=$((i+1))
  sleep 0.2
done
`

// TestRunOutOfTimeSaysWhatItWasDoing gives a run of one turn less time
// than its CLI takes: the run fails as out of time, and says what the
// CLI's screen showed while it worked, not the goodbye it printed when
// it was stopped.
func TestRunOutOfTimeSaysWhatItWasDoing(t *testing.T) {
	root := t.TempDir()
	cli := filepath.Join(root, "codex")
	if err := os.WriteFile(cli, []byte(busyCodex), 0o755); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(root, "proj")
	os.MkdirAll(proj, 0o755)
	env := session.Env{Home: root, Vars: map[string]string{
		"HOME": root, "PATH": os.Getenv("PATH"), "CODEX_HOME": filepath.Join(root, ".codex"),
		"STEAD_CODEX_BIN": cli,
	}}
	b, err := bus.New(context.Background(), bus.Options{StoreDir: filepath.Join(root, "nats")})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	src := &session.Session{Source: session.Source{CLI: "claude", OriginalID: "s1"}, Timeline: []session.Entry{
		{ID: "u1", Type: session.User, Content: "Start the work"},
		{ID: "a1", Type: session.Assistant, Content: "On it."},
	}}
	// The run's time runs out once it is busy with the prompt (however
	// long a loaded machine takes to get there), a second later.
	ctx := &deadline{Context: context.Background(), done: make(chan struct{})}
	watch, stopWatch := context.WithTimeout(context.Background(), time.Minute)
	defer stopWatch()
	watched := make(chan struct{})
	defer func() { stopWatch(); <-watched }()
	go func() {
		defer close(watched)
		b.Watch(watch, "out-of-time", bus.FromStart, func(m bus.Msg) error {
			var st live.Status
			if json.Unmarshal(m.Data, &st) == nil && st.State == live.RunBusy {
				time.AfterFunc(time.Second, ctx.expire)
				return bus.ErrStop
			}
			return nil
		}, bus.Status)
	}()
	rec, err := (&Supervisor{Bus: b, Env: env}).Run(ctx, src, Spec{ID: "out-of-time", To: "codex", Dir: proj, Prompt: "Do the work", Once: true}, nil, nil)
	if !errors.Is(err, ErrRunFailed) || rec.State != live.RunFailed {
		t.Fatalf("the run ended %s (%v), want failed", rec.State, err)
	}
	if !strings.HasPrefix(rec.Reason, OutOfTime+": it was busy") {
		t.Errorf("reason %q, want it to start %q", rec.Reason, OutOfTime+": it was busy")
	}
	if !strings.Contains(rec.Reason, "Working (") || strings.Contains(rec.Reason, "To continue") {
		t.Errorf("reason %q: want the working screen, not the goodbye", rec.Reason)
	}
}

// deadline is a context whose deadline comes when expire is called.
type deadline struct {
	context.Context
	once sync.Once
	done chan struct{}
}

func (d *deadline) expire()               { d.once.Do(func() { close(d.done) }) }
func (d *deadline) Done() <-chan struct{} { return d.done }

func (d *deadline) Err() error {
	select {
	case <-d.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}
