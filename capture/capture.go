package capture

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// Publisher takes what a capture produces, for one run.
type Publisher interface {
	// Terminal takes a chunk of raw terminal output.
	Terminal(data []byte) error
	// Native takes one native record (a line, without its newline) and
	// its 1-based line number in the file.
	Native(line []byte, n int) error
	// Entry takes an event with new universal entries or updates to
	// earlier ones.
	Entry(ev session.Event) error
	// Status takes a change of state.
	Status(st live.Status) error
}

// Decoder yields the events of a native session stream, as an adapter's
// decoder does.
type Decoder interface {
	Decode() (session.Event, error)
}

// Config says what a Capture captures.
type Config struct {
	Run string
	// CLI marks every captured entry as produced by this CLI.
	CLI string
	// TUI holds the CLI's structural signals (title, status file) and
	// how it shows readiness.
	TUI live.TUI
	// Env is the CLI's environment, for its status file.
	Env session.Env
	// Screen keeps what the CLI's terminal shows, for TUI.Screen and for
	// Capture.Screen; without one the screen is not read.
	Screen Screen
	// Log hears problems that do not stop the capture.
	Log *slog.Logger
}

// Screen is a terminal emulator's screen (vt.Screen is one).
type Screen interface {
	io.Writer
	Resize(rows, cols int)
	Lines() []string
	String() string
}

// Capture follows one run.
type Capture struct {
	cfg Config
	pub Publisher
	log *slog.Logger

	setMu   sync.Mutex // serialises Set
	mu      sync.Mutex
	state   live.RunState
	changed chan struct{} // closed and replaced on every change
	lastOut time.Time
	scr     screen
	vt      Screen // nil: the screen is not kept
	// screenDirty is set by output not yet read by the TUI's screen
	// rule; screenSaid is what the rule said last.
	screenDirty bool
	screenSaid  live.RunState
	dialog      *live.Dialog      // the dialog on screen, if any
	dialogDirty bool              // output since the dialog was looked for
	held        map[string]string // what a snapshot's entries held, by id
	lastErr     string            // the last error entry, for the next status
	entries     int
	turns       int    // turns ended: busy or waiting, then ready
	prompts     int    // prompts the user typed (user entries of no kind)
	lastPrompt  string // the text of the last of them
	seen        map[string]bool
	titled      bool          // the TUI set a terminal title
	born        time.Time     // when the capture started
	statusSeen  bool          // the CLI's status file was read
	liveSaid    live.RunState // the state the live signal last said

	// A ready from a live signal waits for the session file (see
	// structural).
	pendingReady                 time.Time
	pendingSignal, pendingDetail string
	turnEnded                    bool
	lastRecord                   time.Time
	// answered is when the session file last got an answer (assistant
	// text not followed by a tool call) in the current turn.
	answered time.Time
	// recordsEnded says the session file ended the last turn and holds
	// no prompt since: the screen then cannot make the run busy (a
	// working line still drawn, or drawn again, is stale).
	recordsEnded bool
	// busyBy is the signal that made the run busy or waiting, and
	// busySince when.
	busyBy    string
	busySince time.Time
	// lastActivity is when the session file last gave entries or
	// updates: a record that says nothing of the turn (Codex's
	// thread_settings_applied) is no sign of work.
	lastActivity time.Time
	// waitFrom is the state a waiting spell began in, and waitPrompts
	// the prompts recorded then: a dialog that came up while the CLI
	// was idle (a folder-trust dialog drawn after its prompt) is no
	// turn (see idleWait).
	waitFrom    live.RunState
	waitPrompts int
	// answeredTurn says the session file got assistant text since the
	// last prompt; lastTurn says how the last turn ended.
	answeredTurn bool
	lastTurn     TurnEnd
	// failure says the turn's model request failed for good, as the
	// CLI's debug log told (TUI.Failed), until the model answers or a
	// new prompt comes.
	failure string
}

// TurnEnd says how a turn ended.
type TurnEnd struct {
	// Answered is true when the model gave text in the turn.
	Answered bool
	// Error is the turn's error, if the session recorded one.
	Error string
}

// staleScreenBusy is how long a busy that only the screen said lasts with
// no terminal output and no session record: every CLI whose screen is
// read animates its working line while it works (Codex counts seconds,
// OpenCode and Kimi spin), so a still screen showing it is stale.
var staleScreenBusy = 15 * time.Second

// StatusEvery is how often a CLI's status file is read.
const StatusEvery = 25 * time.Millisecond

// New starts a capture in state starting.
func New(cfg Config, pub Publisher) *Capture {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Capture{cfg: cfg, pub: pub, log: log, state: live.RunStarting, vt: cfg.Screen, born: time.Now(),
		changed: make(chan struct{}), seen: map[string]bool{}, lastOut: time.Now()}
}

// Resize tells the capture the terminal's new size.
func (c *Capture) Resize(rows, cols int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.vt != nil {
		c.vt.Resize(rows, cols)
		c.screenDirty = true
	}
}

// Screen returns the text the CLI's terminal shows now.
func (c *Capture) Screen() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.vt == nil {
		return ""
	}
	return c.vt.String()
}

// State returns the run's state.
func (c *Capture) State() live.RunState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// Entries counts the entries captured.
func (c *Capture) Entries() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries
}

// Prompts counts the prompts captured (user entries the user typed, not
// context the CLI added) and returns the last one's text.
func (c *Capture) Prompts() (int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.prompts, c.lastPrompt
}

// Dialog returns the dialog the screen shows, if it is one of the TUI's.
func (c *Capture) Dialog() (live.Dialog, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dialog == nil {
		return live.Dialog{}, false
	}
	return *c.dialog, true
}

// findDialog returns the TUI's dialog the screen shows. c.mu is held.
func (c *Capture) findDialog() *live.Dialog {
	if c.vt == nil || len(c.cfg.TUI.Dialogs) == 0 {
		return nil
	}
	text := strings.Join(c.vt.Lines(), "\n")
	for i, d := range c.cfg.TUI.Dialogs {
		all := len(d.Match) > 0
		for _, m := range d.Match {
			if !strings.Contains(text, m) {
				all = false
				break
			}
		}
		if all {
			return &c.cfg.TUI.Dialogs[i]
		}
	}
	return nil
}

// Turns counts the turns that ended: the run went busy (or waiting),
// then ready.
func (c *Capture) Turns() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.turns
}

// Answered reports whether the session file got text from the model since
// the last prompt: a late record of a turn already over counts.
func (c *Capture) Answered() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.answeredTurn
}

// LastTurn says how the last turn that ended ended.
func (c *Capture) LastTurn() TurnEnd {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastTurn
}

// Failure says why the turn's model request failed for good, when the
// CLI's debug log said so and the turn has not ended.
func (c *Capture) Failure() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failure
}

// Set changes the state and publishes the change. A run that is over
// stays over.
func (c *Capture) Set(state live.RunState, signal, detail string, code *int) {
	// Changes are published in the order they are made.
	c.setMu.Lock()
	defer c.setMu.Unlock()
	c.mu.Lock()
	if c.state.Done() || (c.state == state && code == nil) {
		c.mu.Unlock()
		return
	}
	turnOver := state == live.RunReady && (c.state == live.RunBusy || c.state == live.RunWaiting && !c.idleWait())
	if turnOver && c.lastErr == "" && c.failure != "" {
		// The CLI gave the failed request up (it was cancelled) and
		// recorded no error of its own: the failure is the turn's.
		c.lastErr = c.failure
	}
	if turnOver {
		c.lastTurn = TurnEnd{Answered: c.answeredTurn, Error: c.lastErr}
	}
	if state == live.RunReady && detail == "" && c.lastErr != "" {
		detail = "the turn ended in an error: " + c.lastErr
	}
	if turnOver && detail == "" && !c.lastTurn.Answered {
		detail = "the turn ended without an answer from the model"
	}
	if state == live.RunReady {
		c.lastErr, c.failure = "", ""
		if turnOver {
			c.turns++
		}
	}
	switch {
	case signal == "session record" && state == live.RunReady:
		c.recordsEnded = true
	case signal == "session record" && state == live.RunBusy:
		c.recordsEnded = false
	}
	if state == live.RunWaiting && c.state != live.RunWaiting {
		c.waitFrom, c.waitPrompts = c.state, c.prompts
	}
	if state == live.RunBusy || state == live.RunWaiting {
		if c.state != state {
			c.busySince = time.Now()
		}
		c.busyBy = signal
	}
	c.state = state
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
	st := live.Status{Run: c.cfg.Run, State: state, Time: time.Now().UTC(), Signal: signal, Detail: detail, ExitCode: code}
	if err := c.pub.Status(st); err != nil {
		c.log.Warn("publishing a status", "run", c.cfg.Run, "err", err)
	}
}

// Wait waits until the state is one of states, and returns it.
func (c *Capture) Wait(ctx context.Context, states ...live.RunState) (live.RunState, error) {
	for {
		c.mu.Lock()
		st, ch := c.state, c.changed
		c.mu.Unlock()
		for _, s := range states {
			if st == s {
				return st, nil
			}
		}
		if st.Done() {
			return st, fmt.Errorf("capture: the run is %s", st)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return st, fmt.Errorf("capture: waiting for %v (the run is %s): %w", states, st, ctx.Err())
		}
	}
}

// Terminal copies the CLI's terminal output to the publisher (and to tee,
// when set: the user's screen), reading its title and paste mode, until
// r ends.
func (c *Capture) Terminal(r io.Reader, tee io.Writer) error {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if tee != nil {
				tee.Write(chunk)
			}
			// The publisher may keep the slice: give it its own.
			if perr := c.pub.Terminal(append([]byte(nil), chunk...)); perr != nil {
				c.log.Warn("publishing terminal output", "run", c.cfg.Run, "err", perr)
			}
			c.mu.Lock()
			c.lastOut = time.Now()
			if c.vt != nil {
				c.vt.Write(chunk)
				c.screenDirty = true
				c.dialogDirty = len(c.cfg.TUI.Dialogs) > 0
			}
			titles := c.scr.feed(chunk)
			if len(titles) > 0 {
				c.titled = true
			}
			c.mu.Unlock()
			if c.cfg.TUI.Title != nil {
				for _, t := range titles {
					if st, detail, ok := c.cfg.TUI.Title(t); ok {
						c.structural(st, "title", detail)
					}
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("capture: terminal: %w", err)
		}
	}
}

// structural applies a state the CLI itself reported. Before the CLI is
// ready for input only the terminal decides: titles and status files say
// "ready" a little before keystrokes are safe.
func (c *Capture) structural(st live.RunState, signal, detail string) {
	c.mu.Lock()
	starting := c.state == live.RunStarting
	signalled := c.cfg.TUI.StatusFile != nil || c.cfg.TUI.Title != nil
	fromRecords := signal == "session record"
	liveSignal := signalled && !fromRecords && signal != "screen" && signal != "debug log"
	repeated := liveSignal && st == c.liveSaid
	if liveSignal {
		c.liveSaid = st
	}
	switch {
	case starting:
		c.mu.Unlock()
		return
	case repeated && st == live.RunBusy && c.state == live.RunWaiting:
		// The live signal says busy again, as it did before another
		// signal made the run wait (Gemini's title stays "Working"
		// under its question): nothing changed.
		c.mu.Unlock()
		return
	case signal == "screen" && st == live.RunBusy && c.recordsEnded:
		// The session file ended the turn and holds no new prompt: a
		// working line on screen is stale (a new turn starts with its
		// prompt's record).
		c.mu.Unlock()
		return
	case fromRecords && signalled && st == live.RunReady:
		// The turn's end reached the session file: a ready the live
		// signal gave may go out now.
		c.turnEnded = true
		pending := !c.pendingReady.IsZero()
		// A busy spell too short for the live signal's poll: the CLI
		// already says idle, so the turn is over.
		missed := c.state == live.RunBusy && c.liveSaid == live.RunReady
		c.mu.Unlock()
		if pending {
			c.flushReady()
		} else if missed {
			c.Set(live.RunReady, signal, "", nil)
		}
		return
	case fromRecords && signalled && st == live.RunBusy && c.state == live.RunReady:
		// A prompt recorded while the run reads ready: a turn began
		// that the live signal did not show (it was over between two
		// polls).
		c.turnEnded = false
		c.answered = time.Time{}
		c.mu.Unlock()
		c.Set(live.RunBusy, signal, "", nil)
		return
	case fromRecords && signalled:
		// Records lag the live signal (Claude writes its file in
		// batches): they do not say the state.
		c.mu.Unlock()
		return
	case signalled && st == live.RunReady && !fromRecords:
		// The CLI says it is idle, but its file may still be catching
		// up: publish ready once the turn's end is in the file, or the
		// file has been quiet a moment (see settleReady).
		if c.state != live.RunReady && !c.turnEnded {
			if c.pendingReady.IsZero() {
				c.pendingReady = time.Now()
				c.pendingSignal, c.pendingDetail = signal, detail
			}
			c.mu.Unlock()
			return
		}
	case st == live.RunBusy || st == live.RunWaiting:
		c.turnEnded = false
		c.answered = time.Time{}
		c.pendingReady = time.Time{}
	}
	c.mu.Unlock()
	c.Set(st, signal, detail, nil)
}

// flushReady publishes a pending ready.
func (c *Capture) flushReady() {
	c.mu.Lock()
	if c.pendingReady.IsZero() {
		c.mu.Unlock()
		return
	}
	signal, detail := c.pendingSignal, c.pendingDetail
	c.pendingReady = time.Time{}
	c.mu.Unlock()
	c.Set(live.RunReady, signal, detail, nil)
}

// settleReady publishes a pending ready once the session file has had a
// moment to catch up: 20 ms after the turn's answer reached it (the rest
// of a batch lands within that), otherwise 300 ms with nothing new from
// it, at most 5 s.
func (c *Capture) settleReady() {
	c.mu.Lock()
	p, last, answered := c.pendingReady, c.lastRecord, !c.answered.IsZero()
	c.mu.Unlock()
	if p.IsZero() {
		return
	}
	now := time.Now()
	quiet := now.Sub(last)
	if answered && quiet >= 20*time.Millisecond ||
		now.Sub(p) >= 300*time.Millisecond && quiet >= 300*time.Millisecond ||
		now.Sub(p) >= 5*time.Second {
		c.flushReady()
	}
}

// Readiness watches the terminal until the CLI is ready for input:
// bracketed paste on (when the TUI uses it) and quiet output for the
// TUI's settle time. Then, until ctx ends, it publishes a ready a live
// signal gave once the session file caught up.
func (c *Capture) Readiness(ctx context.Context) error {
	settle := c.cfg.TUI.Settle
	if settle <= 0 {
		settle = 300 * time.Millisecond
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		c.mu.Lock()
		st, quiet, paste, titled := c.state, time.Since(c.lastOut), c.scr.paste, c.titled
		// A CLI that should write a record first but has not in 15 s
		// may be a version that does not: the terminal decides then.
		statusOK := (c.statusSeen || !c.cfg.TUI.StatusReady) &&
			(!c.lastRecord.IsZero() || !c.cfg.TUI.RecordReady || time.Since(c.born) > 15*time.Second)
		if c.dialogDirty && quiet >= screenSettle {
			c.dialog, c.dialogDirty = c.findDialog(), false
		}
		dialog := c.dialog != nil
		c.mu.Unlock()
		if st != live.RunStarting {
			c.settleReady()
			c.readScreen()
			c.expireScreenBusy()
			select {
			case <-tick.C:
				continue
			case <-ctx.Done():
				return nil
			}
		}
		if (paste || !c.cfg.TUI.Paste) && (titled || !c.cfg.TUI.TitleReady) && quiet >= settle && !dialog && statusOK {
			signal := "terminal quiet"
			if c.cfg.TUI.Paste {
				signal = "bracketed paste on, terminal quiet"
			}
			c.Set(live.RunReady, signal, "", nil)
			continue
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return nil
		}
	}
}

// expireScreenBusy ends a busy that only the screen said once the screen
// has been still for staleScreenBusy with nothing from the session file.
func (c *Capture) expireScreenBusy() {
	c.mu.Lock()
	stale := c.state == live.RunBusy && c.busyBy == "screen" && time.Since(c.lastOut) >= staleScreenBusy &&
		time.Since(c.busySince) >= staleScreenBusy && c.lastActivity.Before(c.busySince)
	c.mu.Unlock()
	if stale {
		c.Set(live.RunReady, "screen", fmt.Sprintf("the screen said busy, then showed nothing new for %s and the session file nothing at all", staleScreenBusy), nil)
	}
}

// screenSettle is how long the terminal must be quiet before its screen
// is read: a TUI paints a frame in several writes.
const screenSettle = 30 * time.Millisecond

// readScreen applies the TUI's screen rule to a screen that changed and
// has settled. Only a change of what the screen says counts: a footer
// still showing "working" a moment after the session file said the turn
// is over does not make the run busy again.
func (c *Capture) readScreen() {
	rule := c.cfg.TUI.Screen
	if rule == nil || c.vt == nil {
		return
	}
	c.mu.Lock()
	if !c.screenDirty || time.Since(c.lastOut) < screenSettle {
		c.mu.Unlock()
		return
	}
	c.screenDirty = false
	lines := c.vt.Lines()
	c.mu.Unlock()
	st, detail, ok := rule(lines)
	if !ok {
		st = ""
	}
	c.mu.Lock()
	was := c.screenSaid
	changed := st != was
	c.screenSaid = st
	// A dialog that made the run wait is gone from the screen: it was
	// answered and the CLI goes on, unless a live signal already says
	// it is idle (its ready is pending).
	answered := changed && was == live.RunWaiting && st == "" && c.state == live.RunWaiting &&
		c.busyBy == "screen" && c.pendingReady.IsZero() && c.liveSaid != live.RunReady
	idle := answered && c.idleWait()
	c.mu.Unlock()
	switch {
	case changed && (st == live.RunBusy || st == live.RunWaiting):
		c.structural(st, "screen", detail)
	case idle:
		// The dialog came up while the CLI was idle, and nothing of a
		// turn happened under it: answered, the CLI is idle again (it
		// read busy, and took a prompt typed into the dialog for one
		// the CLI had taken).
		c.Set(live.RunReady, "screen", "the dialog was answered; no turn had begun", nil)
	case answered:
		c.structural(live.RunBusy, "screen", "the dialog was answered")
	}
}

// idleWait reports whether the run waits on a dialog that came up while
// the CLI was idle, with no prompt recorded and no sign of work from the
// session file since: a dialog of the CLI's own (folder trust), not a
// question of a turn. c.mu is held.
func (c *Capture) idleWait() bool {
	return c.state == live.RunWaiting && c.waitFrom == live.RunReady && c.prompts == c.waitPrompts &&
		c.lastActivity.Before(c.busySince)
}

// dialogShows reports whether the run waits on a dialog the screen still
// shows. c.mu is held.
func (c *Capture) dialogShows() bool {
	return c.state == live.RunWaiting && c.busyBy == "screen" && c.screenSaid == live.RunWaiting
}

// StatusFile polls the CLI's status file (TUI.StatusFile for pid) every
// interval until ctx ends.
func (c *Capture) StatusFile(ctx context.Context, pid int, every time.Duration) error {
	if c.cfg.TUI.StatusFile == nil || c.cfg.TUI.FileState == nil {
		return nil
	}
	path := c.cfg.TUI.StatusFile(c.cfg.Env, pid)
	tick := time.NewTicker(every)
	defer tick.Stop()
	var last []byte
	for {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil || string(data) == string(last) {
			continue
		}
		c.mu.Lock()
		c.statusSeen = true
		c.mu.Unlock()
		last = data
		if st, detail, ok := c.cfg.TUI.FileState(data); ok {
			c.structural(st, "status file", detail)
		}
	}
}

// File follows the CLI's native session file through f, decoding it with
// newDecoder. Records up to the file's length at the start (the history
// the run resumes) are read for context, not published. It returns when
// f is stopped and drained.
func (c *Capture) File(f *Follower, history int64, newDecoder func(io.Reader) Decoder) error {
	lines := &lineTee{c: c, history: history}
	dec := newDecoder(io.TeeReader(f, lines))
	for {
		ev, err := dec.Decode()
		if err == io.EOF {
			lines.flush()
			return nil
		}
		if err != nil {
			return fmt.Errorf("capture: %w", err)
		}
		if int64(lines.endOf(ev.Line)) <= history {
			c.Known(ev.Entries)
			continue
		}
		c.event(ev)
	}
}

// DebugLog follows the CLI's debug log through f, from offset from (what
// was there before the run), until f is stopped and drained. A line that
// says a model request failed for good (TUI.Failed) makes a busy run wait
// on it: the CLI retries in silence, and only giving the request up (a
// supervisor types TUI.Cancel) or the model answering after all moves
// the turn on.
func (c *Capture) DebugLog(f *Follower, from int64) error {
	if c.cfg.TUI.Failed == nil {
		return nil
	}
	r := bufio.NewReader(f)
	if _, err := io.CopyN(io.Discard, r, from); err != nil {
		if err == io.EOF {
			return nil
		}
		return fmt.Errorf("capture: debug log: %w", err)
	}
	for {
		line, err := r.ReadString('\n')
		if why, ok := c.cfg.TUI.Failed(strings.TrimRight(line, "\r\n")); ok && err == nil {
			c.modelFailed(why)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("capture: debug log: %w", err)
		}
	}
}

// modelFailed notes that the turn's model request failed for good.
func (c *Capture) modelFailed(why string) {
	c.mu.Lock()
	working := c.state == live.RunBusy || c.state == live.RunWaiting
	if working {
		c.failure = why
	}
	busy := c.state == live.RunBusy
	c.mu.Unlock()
	if busy {
		c.structural(live.RunWaiting, "debug log", why)
	}
}

// Known marks entries as already there (the history), so they are not
// published.
func (c *Capture) Known(entries []session.Entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range entries {
		c.seen[e.ID] = true
	}
}

// event publishes an event's new entries and updates, and reads turn
// boundaries from them.
func (c *Capture) event(ev session.Event) {
	if ev.Warning != nil {
		// A malformed record, or one a CLI that died left cut short.
		c.log.Warn("a record of the session file was skipped", "run", c.cfg.Run, "line", ev.Warning.Line, "problem", ev.Warning.Message)
	}
	c.mu.Lock()
	fresh := ev.Entries[:0:0]
	for _, e := range ev.Entries {
		if e.ID != "" && c.seen[e.ID] {
			continue
		}
		c.seen[e.ID] = true
		if e.CLI == "" {
			e.CLI = c.cfg.CLI
		}
		fresh = append(fresh, e)
	}
	c.entries += len(fresh)
	c.lastRecord = time.Now()
	if len(fresh) > 0 || len(ev.Updates) > 0 {
		c.lastActivity = c.lastRecord
	}
	for _, e := range fresh {
		switch {
		case e.Type == session.User && e.Kind == "":
			c.prompts++
			c.lastPrompt = e.Content
			c.answeredTurn = false
			c.failure = ""
		case e.Type == session.Assistant && e.Content != "":
			c.answered = c.lastRecord
			c.answeredTurn = true
			c.failure = "" // the request went through after all
		case e.Type == session.ToolCall:
			c.answered = time.Time{}
		}
	}
	c.mu.Unlock()
	if len(fresh) == 0 && len(ev.Updates) == 0 {
		return
	}
	out := session.Event{Line: ev.Line, Entries: fresh, Updates: ev.Updates, Info: ev.Info}
	if err := c.pub.Entry(out); err != nil {
		c.log.Warn("publishing entries", "run", c.cfg.Run, "err", err)
	}
	for _, e := range fresh {
		switch {
		case (e.Type == session.System || e.Type == session.Assistant) && e.Kind == session.KindError:
			// An error record (Claude writes an API error as an
			// assistant message) ends the turn where the CLI says so,
			// and where its live signal already says idle: a turn that
			// failed between two reads of the signal shows no busy
			// spell to end, and would otherwise stay busy for good.
			c.mu.Lock()
			c.lastErr = e.Content
			idle := c.liveSaid == live.RunReady && (c.cfg.TUI.StatusFile != nil || c.cfg.TUI.Title != nil)
			c.mu.Unlock()
			if c.cfg.TUI.ErrorEndsTurn || idle {
				c.structural(live.RunReady, "session record", "")
			}
		case e.Type == session.System && e.Kind == session.KindTurn,
			e.Type == session.System && e.Kind == session.KindInterrupt && c.cfg.TUI.InterruptEndsTurn:
			c.structural(live.RunReady, "session record", "")
		case e.Type == session.User && e.Kind == "":
			c.structural(live.RunBusy, "session record", "")
		case c.State() == live.RunWaiting && (e.Type == session.ToolCall || e.Type == session.ToolResult || e.Type == session.Assistant):
			// The approval was given (or refused): the turn goes on.
			// Not while the dialog is still on the screen: the call it
			// asks about may reach the file while it shows (Codex
			// writes it first, OpenCode's store has it running).
			c.mu.Lock()
			shows := c.dialogShows()
			c.mu.Unlock()
			if !shows {
				c.structural(live.RunBusy, "session record", "")
			}
		}
	}
}

// Snapshot polls a CLI whose session is not an appended file (a
// database): every interval it takes the session's entries and publishes
// those not seen before, until ctx ends, then once more.
func (c *Capture) Snapshot(ctx context.Context, every time.Duration, snap func() ([]session.Entry, error)) error {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		done := false
		select {
		case <-tick.C:
		case <-ctx.Done():
			done = true
		}
		entries, err := snap()
		if err != nil {
			c.log.Debug("snapshot", "run", c.cfg.Run, "err", err)
		} else {
			before := c.Entries()
			// A row the CLI has made but not filled yet (an assistant
			// part whose text is still streaming) waits for its text:
			// an entry goes on the bus once.
			ready := make([]session.Entry, 0, len(entries))
			for _, e := range entries {
				if e.Type == session.Assistant && e.Content == "" && e.Thinking == "" && e.Usage == nil && len(e.Reasoning) == 0 {
					continue
				}
				ready = append(ready, e)
			}
			updates := c.changedSince(ready)
			c.event(session.Event{Entries: ready, Updates: updates})
			// A store with no turn records: the turn is over when the
			// newest entry is an assistant reply whose usage is known
			// (the model finished it) and nothing follows it.
			// The check runs on news from the store, and on every poll
			// of a busy run: the screen may say the work is over a
			// moment after the store's last change.
			c.mu.Lock()
			working := c.screenSaid == live.RunBusy
			busy := c.state == live.RunBusy
			c.mu.Unlock()
			news := c.Entries() > before || len(updates) > 0
			if n := len(entries); n > 0 && (news || busy) && !working {
				last := entries[n-1]
				if last.Type == session.Assistant && last.Usage != nil && last.Content != "" ||
					last.Type == session.System && last.Kind == session.KindError {
					c.structural(live.RunReady, "session store", "")
				}
			}
		}
		if done {
			return nil
		}
	}
}

// changedSince returns updates for entries already published whose
// usage, model or status the store has changed since (a row a CLI fills
// in when the model finishes), and remembers what each entry holds.
func (c *Capture) changedSince(entries []session.Entry) []session.Update {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held == nil {
		c.held = map[string]string{}
	}
	var ups []session.Update
	for _, e := range entries {
		if e.ID == "" {
			continue
		}
		fp := fmt.Sprintf("%v|%s|%s", e.Usage != nil, e.Model, e.Status)
		if e.Usage != nil {
			fp += fmt.Sprintf("|%+v", *e.Usage)
		}
		old, ok := c.held[e.ID]
		c.held[e.ID] = fp
		if ok && old != fp && c.seen[e.ID] {
			ups = append(ups, session.Update{EntryID: e.ID, Usage: e.Usage, Model: e.Model, Status: e.Status})
		}
	}
	return ups
}

// lineTee splits the bytes a decoder reads into lines, publishing each
// native record past the history, and remembers where each line ends.
type lineTee struct {
	c       *Capture
	history int64
	partial []byte
	off     int64   // bytes seen
	n       int     // lines completed
	ends    []int64 // end offsets of recent lines, by line number
	base    int     // line number of ends[0]
}

func (t *lineTee) Write(p []byte) (int, error) {
	rest := p
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			t.partial = append(t.partial, rest...)
			t.off += int64(len(rest))
			break
		}
		line := rest[:i]
		t.off += int64(i + 1)
		if len(t.partial) > 0 {
			line = append(t.partial, line...)
		}
		t.n++
		t.record(t.off)
		if t.off > t.history && len(trim(line)) > 0 {
			if err := t.c.pub.Native(append([]byte(nil), line...), t.n); err != nil {
				t.c.log.Warn("publishing a native record", "run", t.c.cfg.Run, "err", err)
			}
		}
		t.partial = t.partial[:0]
		rest = rest[i+1:]
	}
	return len(p), nil
}

// flush publishes a last line with no newline.
func (t *lineTee) flush() {
	if len(trim(t.partial)) > 0 && t.off > t.history {
		t.n++
		t.c.pub.Native(append([]byte(nil), t.partial...), t.n)
	}
}

// record keeps the end offsets of the last few thousand lines: a decoder
// yields a line's event shortly after reading it.
func (t *lineTee) record(end int64) {
	if t.ends == nil {
		t.base = t.n
	}
	t.ends = append(t.ends, end)
	if len(t.ends) > 4096 {
		drop := len(t.ends) - 2048
		t.ends = append(t.ends[:0], t.ends[drop:]...)
		t.base += drop
	}
}

// endOf is the offset where line n ends (the current offset when it is
// not known).
func (t *lineTee) endOf(n int) int64 {
	if i := n - t.base; n > 0 && i >= 0 && i < len(t.ends) {
		return t.ends[i]
	}
	if n > 0 && n < t.base {
		return 0 // long ago: history for sure if anything is
	}
	return t.off
}

func trim(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\r' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}
