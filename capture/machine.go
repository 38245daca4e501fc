package capture

import (
	"fmt"
	"strings"
	"time"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// machine decides a run's state (starting, ready, busy, waiting, over)
// from the signals a capture reads, and keeps the counts that go with it
// (entries, prompts, turns, how the last turn ended). It is a pure step
// function: step takes the time and one input, and returns the changes of
// state to publish, in order. It holds no lock, starts nothing, reads no
// clock and does no I/O; Capture is the shell that does, and feeds it.
//
// Time passes only through step's now. A tick says that time passed with
// nothing else happening: the timers (readiness on quiet output, a ready
// settling while the session file catches up, a busy only the screen
// said going stale, the screen settling before it is read) fire on the
// first tick at or after their deadline; next says when that is.
type machine struct {
	tui        live.TUI
	screenKept bool          // a screen is kept: output dirties it
	settle     time.Duration // quiet output that says ready at start
	stale      time.Duration // staleScreenBusy when the machine was made

	state live.RunState
	out   []live.Status // the changes the step under way made

	born    time.Time // when the capture started
	lastOut time.Time // the last terminal output
	paste   bool      // the terminal's bracketed paste mode is on
	titled  bool      // the TUI set a terminal title
	// statusSeen says the CLI's status file was read.
	statusSeen bool
	// screenDirty is set by output not yet read by the TUI's screen
	// rule; screenSaid is what the rule said last.
	screenDirty bool
	screenSaid  live.RunState
	dialog      *live.Dialog // the dialog on screen, if any
	dialogDirty bool         // output since the dialog was looked for
	// liveSaid is the state the live signal (status file, title) last
	// said.
	liveSaid live.RunState

	entries    int    // entries captured
	prompts    int    // prompts the user typed (user entries of no kind)
	lastPrompt string // the text of the last of them
	turns      int    // turns ended: busy or waiting, then ready
	lastErr    string // the last error entry, for the next status

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

// The timings the machine decides by.
const (
	// defaultSettle is how long output must be quiet before a TUI
	// whose Settle is not set takes input.
	defaultSettle = 300 * time.Millisecond
	// recordWait is how long readiness waits for the first record of a
	// TUI with RecordReady: a CLI that should write one first but has
	// not in that time may be a version that does not, and the
	// terminal decides then.
	recordWait = 15 * time.Second
	// answerSettle, recordsQuiet and readyAtMost say when a ready a
	// live signal gave goes out without the turn's end in the session
	// file: answerSettle after the turn's answer reached it (the rest of
	// a batch lands within that), otherwise once the file has been quiet
	// for recordsQuiet (and the ready waited as long), and in any case
	// after readyAtMost.
	answerSettle = 20 * time.Millisecond
	recordsQuiet = 300 * time.Millisecond
	readyAtMost  = 5 * time.Second
)

// screenSettle is how long the terminal must be quiet before its screen
// is read: a TUI paints a frame in several writes.
const screenSettle = 30 * time.Millisecond

// staleScreenBusy is how long a busy that only the screen said lasts with
// no terminal output and no session record: every CLI whose screen is
// read animates its working line while it works (Codex counts seconds,
// OpenCode and Kimi spin), so a still screen showing it is stale.
var staleScreenBusy = 15 * time.Second

// An input is what the machine steps on: one of the types below.
type input interface{ input() }

// termOutput is a chunk of terminal output: the titles it set, in order,
// and whether bracketed paste is on after it.
type termOutput struct {
	titles []string
	paste  bool
}

// termResized says the terminal changed size: the screen is redrawn.
type termResized struct{}

// statusRead is the CLI's status file, read with new content.
type statusRead struct{ data []byte }

// recordsRead is what the session file (or store) gave: the entries not
// seen before (already published) and how many updates to earlier ones.
// A record with neither still counts as a record. store is the whole
// session when it was read from a store (Snapshot), for the turn's end
// a store without turn records shows.
type recordsRead struct {
	entries []session.Entry
	updates int
	store   []session.Entry
}

// debugLine is a whole line of the CLI's debug log.
type debugLine struct{ line string }

// setState is a state set from outside (Capture.Set): the process exited,
// a supervisor knows better.
type setState struct {
	state          live.RunState
	signal, detail string
	code           *int
}

// tick says time passed. lines is what the screen shows, read when
// m.reads said it would be: the settled screen the TUI's rules read.
type tick struct{ lines []string }

func (termOutput) input()  {}
func (termResized) input() {}
func (statusRead) input()  {}
func (recordsRead) input() {}
func (debugLine) input()   {}
func (setState) input()    {}
func (tick) input()        {}

// newMachine starts a run in state starting at now. screenKept says the
// capture keeps a screen for the TUI's rules to read.
func newMachine(now time.Time, tui live.TUI, screenKept bool) machine {
	settle := tui.Settle
	if settle <= 0 {
		settle = defaultSettle
	}
	return machine{tui: tui, screenKept: screenKept, settle: settle, stale: staleScreenBusy,
		state: live.RunStarting, born: now, lastOut: now}
}

// step applies one input at now and returns the changes of state it
// made, in order (nil when none). A change's Run is not set.
func (m *machine) step(now time.Time, in input) []live.Status {
	switch in := in.(type) {
	case termOutput:
		m.output(now, in)
	case termResized:
		if m.screenKept {
			m.screenDirty = true
		}
	case statusRead:
		m.statusSeen = true
		if m.tui.FileState != nil {
			if st, detail, ok := m.tui.FileState(in.data); ok {
				m.structural(now, st, "status file", detail)
			}
		}
	case recordsRead:
		m.records(now, in)
	case debugLine:
		if m.tui.Failed != nil {
			if why, ok := m.tui.Failed(in.line); ok {
				m.modelFailed(now, why)
			}
		}
	case setState:
		m.set(now, in.state, in.signal, in.detail, in.code)
	case tick:
		m.tick(now, in.lines)
	}
	out := m.out
	m.out = nil
	return out
}

// reads reports whether a tick at now reads the screen: the caller then
// passes its lines. It reads a settled screen that changed, for a dialog
// or for the TUI's screen rule (once the CLI takes input).
func (m *machine) reads(now time.Time) bool {
	if !m.screenKept || now.Sub(m.lastOut) < screenSettle {
		return false
	}
	// A dialog found changes whether the CLI takes input: dialogDirty
	// covers that.
	return m.dialogDirty || m.screenDirty && m.tui.Screen != nil && (m.state != live.RunStarting || m.takesInput(now))
}

// next is the earliest time at which a tick may change something when no
// other input comes first; zero when none would.
func (m *machine) next() time.Time {
	var at time.Time
	soonest := func(t time.Time) {
		if at.IsZero() || t.Before(at) {
			at = t
		}
	}
	if m.dialogDirty {
		soonest(m.lastOut.Add(screenSettle))
	}
	if m.state == live.RunStarting {
		if m.shows() {
			t := m.lastOut.Add(m.settle)
			if m.tui.RecordReady && m.lastRecord.IsZero() {
				t = later(t, m.born.Add(recordWait+1))
			}
			soonest(t)
		}
		return at
	}
	if m.screenDirty && m.screenKept && m.tui.Screen != nil {
		soonest(m.lastOut.Add(screenSettle))
	}
	if !m.pendingReady.IsZero() {
		if !m.answered.IsZero() {
			soonest(m.lastRecord.Add(answerSettle))
		}
		soonest(later(m.pendingReady, m.lastRecord).Add(recordsQuiet))
		soonest(m.pendingReady.Add(readyAtMost))
	}
	if m.state == live.RunBusy && m.busyBy == "screen" && m.lastActivity.Before(m.busySince) {
		soonest(later(m.lastOut, m.busySince).Add(m.stale))
	}
	return at
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// output reads a chunk of terminal output: its titles, its paste mode,
// and that the screen changed.
func (m *machine) output(now time.Time, in termOutput) {
	m.lastOut = now
	if m.screenKept {
		m.screenDirty = true
		m.dialogDirty = len(m.tui.Dialogs) > 0
	}
	m.paste = in.paste
	if len(in.titles) > 0 {
		m.titled = true
	}
	if m.tui.Title == nil {
		return
	}
	for _, t := range in.titles {
		if st, detail, ok := m.tui.Title(t); ok {
			m.structural(now, st, "title", detail)
		}
	}
}

// set changes the state and records the change. A run that is over
// stays over.
func (m *machine) set(now time.Time, state live.RunState, signal, detail string, code *int) {
	if m.state.Done() || (m.state == state && code == nil) {
		return
	}
	turnOver := state == live.RunReady && (m.state == live.RunBusy || m.state == live.RunWaiting && !m.idleWait())
	if turnOver && m.lastErr == "" && m.failure != "" {
		// The CLI gave the failed request up (it was cancelled) and
		// recorded no error of its own: the failure is the turn's.
		m.lastErr = m.failure
	}
	if turnOver {
		m.lastTurn = TurnEnd{Answered: m.answeredTurn, Error: m.lastErr}
	}
	if state == live.RunReady && detail == "" && m.lastErr != "" {
		detail = "the turn ended in an error: " + m.lastErr
	}
	if turnOver && detail == "" && !m.lastTurn.Answered {
		detail = "the turn ended without an answer from the model"
	}
	if state == live.RunReady {
		m.lastErr, m.failure = "", ""
		if turnOver {
			m.turns++
		}
	}
	switch {
	case signal == "session record" && state == live.RunReady:
		m.recordsEnded = true
	case signal == "session record" && state == live.RunBusy:
		m.recordsEnded = false
	}
	if state == live.RunWaiting && m.state != live.RunWaiting {
		m.waitFrom, m.waitPrompts = m.state, m.prompts
	}
	if state == live.RunBusy || state == live.RunWaiting {
		if m.state != state {
			m.busySince = now
		}
		m.busyBy = signal
	}
	m.state = state
	m.out = append(m.out, live.Status{State: state, Time: now.UTC(), Signal: signal, Detail: detail, ExitCode: code})
}

// structural applies a state the CLI itself reported. Before the CLI is
// ready for input only the terminal decides: titles and status files say
// "ready" a little before keystrokes are safe.
func (m *machine) structural(now time.Time, st live.RunState, signal, detail string) {
	signalled := m.tui.StatusFile != nil || m.tui.Title != nil
	fromRecords := signal == "session record"
	liveSignal := signalled && !fromRecords && signal != "screen" && signal != "debug log"
	repeated := liveSignal && st == m.liveSaid
	if liveSignal {
		m.liveSaid = st
	}
	switch {
	case m.state == live.RunStarting:
		return
	case repeated && st == live.RunBusy && m.state == live.RunWaiting:
		// The live signal says busy again, as it did before another
		// signal made the run wait (Gemini's title stays "Working"
		// under its question): nothing changed.
		return
	case signal == "screen" && st == live.RunBusy && m.recordsEnded:
		// The session file ended the turn and holds no new prompt: a
		// working line on screen is stale (a new turn starts with its
		// prompt's record).
		return
	case fromRecords && signalled && st == live.RunReady:
		// The turn's end reached the session file: a ready the live
		// signal gave may go out now.
		m.turnEnded = true
		pending := !m.pendingReady.IsZero()
		// A busy spell too short for the live signal's poll: the CLI
		// already says idle, so the turn is over.
		missed := m.state == live.RunBusy && m.liveSaid == live.RunReady
		if pending {
			m.flushReady(now)
		} else if missed {
			m.set(now, live.RunReady, signal, "", nil)
		}
		return
	case fromRecords && signalled && st == live.RunBusy && m.state == live.RunReady:
		// A prompt recorded while the run reads ready: a turn began
		// that the live signal did not show (it was over between two
		// polls).
		m.turnEnded = false
		m.answered = time.Time{}
		m.set(now, live.RunBusy, signal, "", nil)
		return
	case fromRecords && signalled:
		// Records lag the live signal (Claude writes its file in
		// batches): they do not say the state.
		return
	case signalled && st == live.RunReady && !fromRecords:
		// The CLI says it is idle, but its file may still be catching
		// up: publish ready once the turn's end is in the file, or the
		// file has been quiet a moment (see settleReady).
		if m.state != live.RunReady && !m.turnEnded {
			if m.pendingReady.IsZero() {
				m.pendingReady = now
				m.pendingSignal, m.pendingDetail = signal, detail
			}
			return
		}
	case st == live.RunBusy || st == live.RunWaiting:
		m.turnEnded = false
		m.answered = time.Time{}
		m.pendingReady = time.Time{}
	}
	m.set(now, st, signal, detail, nil)
}

// flushReady publishes a pending ready.
func (m *machine) flushReady(now time.Time) {
	if m.pendingReady.IsZero() {
		return
	}
	signal, detail := m.pendingSignal, m.pendingDetail
	m.pendingReady = time.Time{}
	m.set(now, live.RunReady, signal, detail, nil)
}

// settleReady publishes a pending ready once the session file has had a
// moment to catch up (answerSettle, recordsQuiet, readyAtMost).
func (m *machine) settleReady(now time.Time) {
	p := m.pendingReady
	if p.IsZero() {
		return
	}
	quiet := now.Sub(m.lastRecord)
	if !m.answered.IsZero() && quiet >= answerSettle ||
		now.Sub(p) >= recordsQuiet && quiet >= recordsQuiet ||
		now.Sub(p) >= readyAtMost {
		m.flushReady(now)
	}
}

// shows reports whether the CLI shows all it must before it takes
// input, but for time: bracketed paste on (when the TUI uses it), a
// title (when it sets one once its dialogs are gone), no dialog, its
// status file (when it writes one only once it takes input).
func (m *machine) shows() bool {
	return (m.paste || !m.tui.Paste) && (m.titled || !m.tui.TitleReady) && m.dialog == nil &&
		(m.statusSeen || !m.tui.StatusReady)
}

// takesInput reports whether a CLI still starting takes input at now:
// it shows all it must, its output has been quiet for its settle time,
// and it wrote its first record (when it writes one first) or has had
// recordWait to.
func (m *machine) takesInput(now time.Time) bool {
	recorded := !m.lastRecord.IsZero() || !m.tui.RecordReady || now.Sub(m.born) > recordWait
	return m.shows() && now.Sub(m.lastOut) >= m.settle && recorded
}

// tick applies the passage of time: at start, readiness; then a pending
// ready settling, the screen read once it settled, a busy only the
// screen said going stale.
func (m *machine) tick(now time.Time, lines []string) {
	quiet := now.Sub(m.lastOut)
	if m.dialogDirty && quiet >= screenSettle {
		m.dialog, m.dialogDirty = m.findDialog(lines), false
	}
	if m.state == live.RunStarting {
		if !m.takesInput(now) {
			return
		}
		signal := "terminal quiet"
		if m.tui.Paste {
			signal = "bracketed paste on, terminal quiet"
		}
		m.set(now, live.RunReady, signal, "", nil)
	}
	m.settleReady(now)
	m.readScreen(now, lines)
	m.expireScreenBusy(now)
}

// findDialog returns the TUI's dialog the screen shows.
func (m *machine) findDialog(lines []string) *live.Dialog {
	if !m.screenKept || len(m.tui.Dialogs) == 0 {
		return nil
	}
	text := strings.Join(lines, "\n")
	for i, d := range m.tui.Dialogs {
		all := len(d.Match) > 0
		for _, s := range d.Match {
			if !strings.Contains(text, s) {
				all = false
				break
			}
		}
		if all {
			return &m.tui.Dialogs[i]
		}
	}
	return nil
}

// expireScreenBusy ends a busy that only the screen said once the screen
// has been still for m.stale with nothing from the session file.
func (m *machine) expireScreenBusy(now time.Time) {
	if m.state == live.RunBusy && m.busyBy == "screen" && now.Sub(m.lastOut) >= m.stale &&
		now.Sub(m.busySince) >= m.stale && m.lastActivity.Before(m.busySince) {
		m.set(now, live.RunReady, "screen", fmt.Sprintf("the screen said busy, then showed nothing new for %s and the session file nothing at all", m.stale), nil)
	}
}

// readScreen applies the TUI's screen rule to a screen that changed and
// has settled. Only a change of what the screen says counts: a footer
// still showing "working" a moment after the session file said the turn
// is over does not make the run busy again.
func (m *machine) readScreen(now time.Time, lines []string) {
	rule := m.tui.Screen
	if rule == nil || !m.screenKept || !m.screenDirty || now.Sub(m.lastOut) < screenSettle {
		return
	}
	m.screenDirty = false
	st, detail, ok := rule(lines)
	if !ok {
		st = ""
	}
	was := m.screenSaid
	changed := st != was
	m.screenSaid = st
	// A dialog that made the run wait is gone from the screen: it was
	// answered and the CLI goes on, unless a live signal already says
	// it is idle (its ready is pending).
	answered := changed && was == live.RunWaiting && st == "" && m.state == live.RunWaiting &&
		m.busyBy == "screen" && m.pendingReady.IsZero() && m.liveSaid != live.RunReady
	switch {
	case changed && (st == live.RunBusy || st == live.RunWaiting):
		m.structural(now, st, "screen", detail)
	case answered && m.idleWait():
		// The dialog came up while the CLI was idle, and nothing of a
		// turn happened under it: answered, the CLI is idle again (it
		// read busy, and took a prompt typed into the dialog for one
		// the CLI had taken).
		m.set(now, live.RunReady, "screen", "the dialog was answered; no turn had begun", nil)
	case answered:
		m.structural(now, live.RunBusy, "screen", "the dialog was answered")
	}
}

// idleWait reports whether the run waits on a dialog that came up while
// the CLI was idle, with no prompt recorded and no sign of work from the
// session file since: a dialog of the CLI's own (folder trust), not a
// question of a turn.
func (m *machine) idleWait() bool {
	return m.state == live.RunWaiting && m.waitFrom == live.RunReady && m.prompts == m.waitPrompts &&
		m.lastActivity.Before(m.busySince)
}

// dialogShows reports whether the run waits on a dialog the screen still
// shows.
func (m *machine) dialogShows() bool {
	return m.state == live.RunWaiting && m.busyBy == "screen" && m.screenSaid == live.RunWaiting
}

// modelFailed notes that the turn's model request failed for good: a
// busy run waits on it.
func (m *machine) modelFailed(now time.Time, why string) {
	if m.state == live.RunBusy || m.state == live.RunWaiting {
		m.failure = why
	}
	if m.state == live.RunBusy {
		m.structural(now, live.RunWaiting, "debug log", why)
	}
}

// records counts what the session file gave and reads turn boundaries
// from it.
func (m *machine) records(now time.Time, in recordsRead) {
	m.entries += len(in.entries)
	m.lastRecord = now
	if len(in.entries) > 0 || in.updates > 0 {
		m.lastActivity = now
	}
	for _, e := range in.entries {
		switch {
		case e.Type == session.User && e.Kind == "":
			m.prompts++
			m.lastPrompt = e.Content
			m.answeredTurn = false
			m.failure = ""
		case e.Type == session.Assistant && e.Content != "":
			m.answered = now
			m.answeredTurn = true
			m.failure = "" // the request went through after all
		case e.Type == session.ToolCall:
			m.answered = time.Time{}
		}
	}
	for _, e := range in.entries {
		switch {
		case (e.Type == session.System || e.Type == session.Assistant) && e.Kind == session.KindError:
			// An error record (Claude writes an API error as an
			// assistant message) ends the turn where the CLI says so,
			// and where its live signal already says idle: a turn that
			// failed between two reads of the signal shows no busy
			// spell to end, and would otherwise stay busy for good.
			m.lastErr = e.Content
			idle := m.liveSaid == live.RunReady && (m.tui.StatusFile != nil || m.tui.Title != nil)
			if m.tui.ErrorEndsTurn || idle {
				m.structural(now, live.RunReady, "session record", "")
			}
		case e.Type == session.System && e.Kind == session.KindTurn,
			e.Type == session.System && e.Kind == session.KindInterrupt && m.tui.InterruptEndsTurn:
			m.structural(now, live.RunReady, "session record", "")
		case e.Type == session.User && e.Kind == "":
			// A prompt's record while a dialog shows is the running
			// turn's, late (Kimi Code writes it after the approval it
			// asks for is up): no prompt can be typed into a dialog,
			// and the dialog holds the run waiting.
			if !m.dialogShows() {
				m.structural(now, live.RunBusy, "session record", "")
			}
		case m.state == live.RunWaiting && (e.Type == session.ToolCall || e.Type == session.ToolResult || e.Type == session.Assistant):
			// The approval was given (or refused): the turn goes on.
			// Not while the dialog is still on the screen: the call it
			// asks about may reach the file while it shows (Codex
			// writes it first, OpenCode's store has it running).
			if !m.dialogShows() {
				m.structural(now, live.RunBusy, "session record", "")
			}
		}
	}
	if n := len(in.store); n > 0 && (len(in.entries) > 0 || in.updates > 0 || m.state == live.RunBusy) &&
		m.screenSaid != live.RunBusy {
		// A store with no turn records: the turn is over when the
		// newest entry is an assistant reply whose usage is known (the
		// model finished it) and nothing follows it. The check runs on
		// news from the store, and on every poll of a busy run: the
		// screen may say the work is over a moment after the store's
		// last change.
		last := in.store[n-1]
		if last.Type == session.Assistant && last.Usage != nil && last.Content != "" ||
			last.Type == session.System && last.Kind == session.KindError {
			m.structural(now, live.RunReady, "session store", "")
		}
	}
}
