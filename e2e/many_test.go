package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

// steadErr runs a stead command, returning its output or an error: for
// goroutines, which must not stop the test.
func (l *steadCmd) steadErr(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, l.bin, args...)
	cmd.Env, cmd.Dir = l.env, l.dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("stead %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.String(), nil
}

// TestLiveManyRuns runs 16 detached Codex runs at once in one daemon, and
// sends each a prompt in 5 rounds: after every turn every run must reach
// ready again, with the answer on the bus, and take the next prompt.
// (Under this load Codex's working line used to outlive the turn on
// screen, leaving runs busy for good and send blocked.)
func TestLiveManyRuns(t *testing.T) {
	const runs, rounds = 16, 5
	turns := make([]modelstub.Turn, runs*rounds)
	for i := range turns {
		turns[i] = modelstub.Turn{Text: "Noted. MANY-REPLY"}
	}
	l, ref := newLive(t, "claude", "codex", turns...)
	begin := time.Now()
	ids := make([]string, runs)
	var wg sync.WaitGroup
	errs := make(chan error, runs*rounds)
	for i := range runs {
		wg.Go(func() {
			out, err := l.steadErr("session", "resume", ref, "--to", "codex", "--cwd", l.dir, "--detach", "--json")
			if err != nil {
				errs <- err
				return
			}
			var rec live.Run
			if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.ID == "" {
				errs <- fmt.Errorf("resume --detach printed %q (%v)", out, err)
				return
			}
			ids[i] = rec.ID
		})
	}
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	watchers := make([]*watcher, runs)
	for i, id := range ids {
		watchers[i] = l.watch(id)
	}
	for i, w := range watchers {
		w.until(t, fmt.Sprintf("run %d ready", i), 3*time.Minute, func(msgs []watchMsg) bool {
			return len(states(msgs)) > 0 && lastState(msgs).State == live.RunReady
		})
	}
	t.Logf("%d runs of Codex ready in %s", runs, time.Since(begin).Round(time.Second))
	for round := 1; round <= rounds; round++ {
		start := time.Now()
		prompt := fmt.Sprintf("Round %d: note it. ROUND-%d", round, round)
		for _, id := range ids {
			wg.Go(func() {
				if _, err := l.steadErr("send", id, prompt); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		select {
		case err := <-errs:
			t.Fatalf("round %d: %v", round, err)
		default:
		}
		marker := fmt.Sprintf("ROUND-%d", round)
		for i, w := range watchers {
			w.until(t, fmt.Sprintf("round %d: run %d answered and ready", round, i), 3*time.Minute, func(msgs []watchMsg) bool {
				// The prompt, an answer, then ready.
				sawPrompt, sawAnswer := false, false
				for _, m := range msgs {
					if m.Event != nil {
						for _, e := range m.Event.Entries {
							sawPrompt = sawPrompt || e.Type == session.User && strings.Contains(e.Content, marker)
							sawAnswer = sawAnswer || sawPrompt && e.Type == session.Assistant && strings.Contains(e.Content, "MANY-REPLY")
						}
					}
					if sawAnswer && m.Status != nil && m.Status.State == live.RunReady {
						return true
					}
				}
				return false
			})
		}
		t.Logf("round %d: %d runs answered and ready in %s", round, runs, time.Since(start).Round(100*time.Millisecond))
	}
	for _, id := range ids {
		wg.Go(func() {
			if _, err := l.steadErr("stop", id); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
