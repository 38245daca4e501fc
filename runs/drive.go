package runs

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/stead-dev/stead/capture"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/supervisor"
)

// How a run drives its CLI, in time. Where a figure was measured it says
// so; the others were chosen and have held in every end-to-end run since.
const (
	// dialogSteady is how long a dialog must stay on screen before it
	// is answered: a TUI draws a dialog in several frames, and the keys
	// must reach the dialog, not a frame before it is ready for them
	// (chosen, not measured; the capture's screen settles in 30 ms).
	dialogSteady = 700 * time.Millisecond
	// answerPoll is how often the answerers of dialogs look at the
	// screen; dialogPoll how often a prompt waiting for a dialog to go
	// does.
	answerPoll = 50 * time.Millisecond
	dialogPoll = 200 * time.Millisecond
	// statePoll is how often the run's state is read while waiting for a
	// prompt to be taken or a late answer (the capture reads the screen
	// every 10 ms).
	statePoll = 20 * time.Millisecond
	// cancelAgain is how long a cancelled model request that the CLI
	// keeps retrying waits before it is cancelled again.
	cancelAgain = 2 * time.Second
	// firstEnterAgain is when Enter is pressed again if the CLI shows no
	// sign of taking the prompt: Gemini CLI drops an Enter for a few
	// seconds after it drew its prompt (with 10 s here, Gemini's A/B
	// variants took 10 s longer).
	firstEnterAgain = 2 * time.Second
	// retypeAfter is when a prompt that is nowhere on the screen is typed
	// again: even a CLI slowed by a loaded machine shows typed keys
	// within it.
	retypeAfter = 10 * time.Second
	// enterAgain is how often Enter is pressed again after that, up to
	// promptTake (ab-failure under a 2-core load took 11.9-27.5 s).
	enterAgain = 10 * time.Second
	// terminalDrain is how long the terminal's last output may take
	// after the CLI exited (a grandchild may hold it open for good).
	terminalDrain = 2 * time.Second
	// snapshotEvery is how often a CLI whose session is a database
	// (OpenCode) is read; debugLogEvery how often a CLI's debug log is.
	snapshotEvery = 100 * time.Millisecond
	debugLogEvery = 50 * time.Millisecond
	// recordWait bounds storing or reading a run's record; storeWait
	// storing its whole session; flushWait the bus's last flush.
	recordWait = 10 * time.Second
	storeWait  = 30 * time.Second
	flushWait  = 5 * time.Second
)

// answerTrust accepts the CLI's folder-trust dialogs until it has taken
// a prompt: the CLI records the trust itself. It answers a dialog that
// has stayed on screen a moment, and confirms only once the screen shows
// yes chosen.
func answerTrust(ctx context.Context, c *capture.Capture, w io.Writer, log *slog.Logger) {
	var since time.Time // when the dialog on screen was first seen
	for n, _ := c.Prompts(); n == 0 && !c.State().Done(); n, _ = c.Prompts() {
		d, ok := c.Dialog()
		switch {
		case !ok || !d.Trust:
			since = time.Time{}
		case since.IsZero():
			since = time.Now()
		case time.Since(since) >= dialogSteady:
			if choose(c, w, d) {
				log.Info("trusting the folder", "dialog", d.Name)
			}
			since = time.Now() // try again later if it is still there
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(answerPoll):
		}
	}
}

// choose answers dialog d on the screen: it presses d's Select keys
// unless its choice already shows, and confirms only once it does.
func choose(c *capture.Capture, w io.Writer, d live.Dialog) bool {
	chosen := func() bool { return strings.Contains(c.Screen(), d.Selected) }
	if !chosen() {
		for _, k := range d.Select {
			w.Write([]byte(k.Bytes))
			time.Sleep(k.Wait)
		}
	}
	if !chosen() {
		return false
	}
	w.Write([]byte(d.Confirm.Bytes))
	time.Sleep(d.Confirm.Wait)
	return true
}

func giveUpDialogs(ds []live.Dialog) bool {
	for _, d := range ds {
		if d.GiveUp {
			return true
		}
	}
	return false
}

// answerGiveUp, for a run nobody watches, gives up a model request that
// failed after the CLI's own retries, where the CLI would retry it for
// ever (Gemini CLI): it answers the CLI's question to stop (a GiveUp
// dialog), or, where the CLI asks nothing and only its debug log said so,
// types cancel. The turn then ends in the error, not at the run's
// timeout. It waits a moment first, so that the run's waiting shows on
// the bus and a question coming up is answered rather than cancelled.
func answerGiveUp(ctx context.Context, c *capture.Capture, w io.Writer, cancel []live.Key, log *slog.Logger) {
	var since time.Time // when the run was first seen stuck
	for !c.State().Done() {
		d, asks := c.Dialog()
		asks = asks && d.GiveUp
		failed := c.Failure() != "" && c.State() == live.RunWaiting && len(cancel) > 0
		switch {
		case !asks && !failed:
			since = time.Time{}
		case since.IsZero():
			since = time.Now()
		case time.Since(since) < dialogSteady:
		case asks:
			if choose(c, w, d) {
				log.Info("stopping a failed model request", "dialog", d.Name)
			}
			since = time.Now() // try again later if it is still there
		default:
			log.Info("cancelling a failed model request the CLI keeps retrying", "failure", c.Failure())
			for _, k := range cancel {
				w.Write([]byte(k.Bytes))
				time.Sleep(k.Wait)
			}
			since = time.Now().Add(cancelAgain) // again in a while if it is still stuck
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(answerPoll):
		}
	}
}

// waitTurn waits until a turn ends after turns had: the CLI went busy
// with the prompt and is ready again.
func waitTurn(ctx context.Context, c *capture.Capture, turns int) error {
	for c.Turns() <= turns {
		if _, err := c.Wait(ctx, live.RunBusy, live.RunWaiting); err != nil {
			return fmt.Errorf("the turn did not end: %w", err)
		}
		if _, err := c.Wait(ctx, live.RunReady); err != nil {
			return fmt.Errorf("the turn did not end: %w", err)
		}
	}
	return nil
}

// lateAnswer is how long a turn that ended without text from the model
// waits for it: a CLI may write its last record just after its screen or
// status said the turn was over.
const lateAnswer = 2 * time.Second

// answerComes waits up to lateAnswer for text from the model.
func answerComes(ctx context.Context, c *capture.Capture) bool {
	for deadline := time.Now().Add(lateAnswer); time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(statePoll) {
		if c.Answered() {
			return true
		}
	}
	return c.Answered()
}

// sized resizes the CLI's terminal and the capture's screen together.
type sized struct {
	*supervisor.Proc
	c *capture.Capture
}

func (s sized) Resize(rows, cols uint16) error {
	s.c.Resize(int(rows), int(cols))
	return s.Proc.Resize(rows, cols)
}

// PromptWait is how long a prompt waits for its CLI to be ready for it.
const PromptWait = 90 * time.Second

// deliver waits until the CLI takes input, types the prompt the way it
// accepts one, and checks that it was taken: the CLI went busy or
// recorded the prompt; if not, it presses Enter once more. It returns
// how many turns had ended when the prompt was typed: the prompt's turn
// is the next one. (Counted before the CLI was ready, a dialog answered
// at startup, which ends a waiting spell, passed for the prompt's turn:
// a Codex A/B variant was stopped as "ended without an answer" before it
// had sent the prompt.)
func deliver(ctx context.Context, c *capture.Capture, w io.Writer, tui live.TUI, prompt string) (turns int, err error) {
	wctx, cancel := context.WithTimeout(ctx, PromptWait)
	defer cancel()
	for {
		if _, err := c.Wait(wctx, live.RunReady); err != nil {
			return 0, fmt.Errorf("the CLI did not become ready for the prompt within %s (it is %s): %w%s", PromptWait, c.State(), err, screenTail(c))
		}
		// A dialog that came up after the terminal went quiet takes
		// the keys: wait until it is gone.
		if _, ok := c.Dialog(); !ok {
			break
		}
		select {
		case <-wctx.Done():
			return 0, fmt.Errorf("the CLI shows a dialog and never became ready for the prompt%s", screenTail(c))
		case <-time.After(dialogPoll):
		}
	}
	turns = c.Turns()
	// Taken means the CLI went busy or recorded a new prompt; other
	// entries prove nothing (Gemini writes its startup context a few
	// seconds in, after it may already be ready).
	before, _ := c.Prompts()
	recorded := func() bool {
		n, last := c.Prompts()
		return n > before && strings.Contains(strings.Join(strings.Fields(last), " "), promptHead(prompt))
	}
	text := prompt
	if tui.Paste {
		text = "\x1b[200~" + prompt + "\x1b[201~"
	}
	if _, err := w.Write([]byte(text)); err != nil {
		return turns, err
	}
	// Enter again while the CLI shows no sign of taking the prompt: a
	// CLI that was still setting up its input (Gemini CLI, a few seconds
	// after it drew its prompt) drops the Enter and keeps the text, so
	// Enter goes again after 2 s (it waited 10 s: Gemini's A/B variants
	// took 10 s longer), then every 10 s (a CLI slowed by a loaded
	// machine). Keys that went nowhere at all are typed again once,
	// after 10 s, when even a slow CLI would have shown that it took
	// them.
	waited, retyped := time.Duration(0), false
	for try := 0; waited < promptTake; try++ {
		wait := enterAgain
		switch try {
		case 0:
			wait = firstEnterAgain
		case 1:
			wait = retypeAfter - firstEnterAgain
		}
		if try > 0 {
			// A dialog that came up over the prompt (and took its keys)
			// must go first.
			for _, ok := c.Dialog(); ok && ctx.Err() == nil; _, ok = c.Dialog() {
				time.Sleep(dialogPoll)
			}
		}
		if try >= 2 && !retyped && lost(c, prompt) {
			// The keys went nowhere (typed while the CLI was still
			// setting up its input): type the prompt again.
			if _, err := w.Write([]byte(text)); err != nil {
				return turns, err
			}
			retyped = true
		}
		if try != 1 || !lost(c, prompt) {
			time.Sleep(tui.EnterAfter)
			// Not into a dialog that came up over the prompt: the
			// Enter would answer it (Codex draws its folder-trust
			// dialog half a second after its prompt: it took an A/B
			// variant's Enter, trusting the folder, and the prompt sat
			// unsent).
			if _, ok := c.Dialog(); !ok && c.State() != live.RunWaiting {
				if _, err := w.Write([]byte("\r")); err != nil {
					return turns, err
				}
			}
		}
		if taken(ctx, c, recorded, wait) {
			return turns, ctx.Err()
		}
		waited += wait
	}
	return turns, fmt.Errorf("the CLI did not take the prompt: it showed no sign of work within %s%s", waited, screenTail(c))
}

// promptTake is how long a CLI has to show it took a prompt.
const promptTake = 60 * time.Second

// taken waits up to wait for a sign that the CLI took a prompt: it went
// busy, or waiting on something other than a dialog the prompt did not
// cause, or recorded it, or ended; or for ctx to end.
func taken(ctx context.Context, c *capture.Capture, recorded func() bool, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		// Waiting counts only when no dialog shows: a dialog that came
		// up as the prompt was typed is not the prompt's turn.
		_, dialog := c.Dialog()
		if st := c.State(); st == live.RunBusy || st == live.RunWaiting && !dialog || recorded() || st.Done() {
			return true
		}
		select {
		case <-ctx.Done():
			return true
		case <-time.After(statePoll):
		}
	}
	return false
}

// lost reports whether a short one-line prompt is nowhere on the CLI's
// screen. Longer prompts may show as a placeholder ("[Pasted text]"), so
// their absence proves nothing.
func lost(c *capture.Capture, prompt string) bool {
	if strings.ContainsAny(prompt, "\n\r") || len(prompt) > 80 {
		return false
	}
	screen := strings.Join(strings.Fields(c.Screen()), " ")
	return screen != "" && !strings.Contains(screen, promptHead(prompt))
}

// promptHead is the start of a prompt, spaces folded, as a CLI records
// it.
func promptHead(p string) string {
	h := strings.Join(strings.Fields(p), " ")
	if r := []rune(h); len(r) > 30 {
		h = string(r[:30])
	}
	return h
}

// screenTail is the end of what the CLI's screen shows, to explain why it
// did not do what was asked (a dialog, an error).
func screenTail(c *capture.Capture) string {
	lines := strings.Split(strings.TrimSpace(c.Screen()), "\n")
	var keep []string
	for _, l := range lines[max(0, len(lines)-12):] {
		if strings.TrimSpace(l) != "" {
			keep = append(keep, "  | "+strings.TrimRight(l, " "))
		}
	}
	if len(keep) == 0 {
		return ""
	}
	return "; its screen ends:\n" + strings.Join(keep, "\n")
}
