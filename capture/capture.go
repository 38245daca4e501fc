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

// Capture follows one run. It is the shell around a machine, which
// decides the run's state: it reads the signals (terminal output, the
// status file, the session file or store, the debug log, the passage of
// time), feeds each to the machine under its lock with the time, and
// publishes what the machine changed, in the order it changed it.
type Capture struct {
	cfg Config
	pub Publisher
	log *slog.Logger

	pubMu   sync.Mutex // serialises publishing statuses
	mu      sync.Mutex
	m       machine
	unsent  []live.Status // changes the machine made, not yet published
	changed chan struct{} // closed and replaced on every change
	scr     screen
	vt      Screen            // nil: the screen is not kept
	held    map[string]string // what a snapshot's entries held, by id
	seen    map[string]bool
}

// TurnEnd says how a turn ended.
type TurnEnd struct {
	// Answered is true when the model gave text in the turn.
	Answered bool
	// Error is the turn's error, if the session recorded one.
	Error string
}

// StatusEvery is how often a CLI's status file is read.
const StatusEvery = 25 * time.Millisecond

// readinessEvery is how often Readiness lets time pass for the machine:
// the granularity of its timers, which were measured with it.
const readinessEvery = 10 * time.Millisecond

// New starts a capture in state starting.
func New(cfg Config, pub Publisher) *Capture {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Capture{cfg: cfg, pub: pub, log: log, vt: cfg.Screen, m: newMachine(time.Now(), cfg.TUI, cfg.Screen != nil),
		changed: make(chan struct{}), seen: map[string]bool{}}
}

// feed steps the machine with in at now, and keeps the changes it made
// for publish; it reports whether there were any. c.mu is held.
func (c *Capture) feed(now time.Time, in input) bool {
	changes := c.m.step(now, in)
	if len(changes) == 0 {
		return false
	}
	c.unsent = append(c.unsent, changes...)
	close(c.changed)
	c.changed = make(chan struct{})
	return true
}

// apply feeds the machine with in and publishes what it changed.
func (c *Capture) apply(in input) {
	c.mu.Lock()
	moved := c.feed(time.Now(), in)
	c.mu.Unlock()
	if moved {
		c.publish()
	}
}

// publish publishes the changes the machine made, in the order it made
// them. When it returns, every change made before it was called is
// published.
func (c *Capture) publish() {
	c.pubMu.Lock()
	defer c.pubMu.Unlock()
	c.mu.Lock()
	changes := c.unsent
	c.unsent = nil
	c.mu.Unlock()
	for _, st := range changes {
		st.Run = c.cfg.Run
		if err := c.pub.Status(st); err != nil {
			c.log.Warn("publishing a status", "run", c.cfg.Run, "err", err)
		}
	}
}

// Resize tells the capture the terminal's new size.
func (c *Capture) Resize(rows, cols int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.vt != nil {
		c.vt.Resize(rows, cols)
		c.feed(time.Now(), termResized{})
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
	return c.m.state
}

// Entries counts the entries captured.
func (c *Capture) Entries() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m.entries
}

// Prompts counts the prompts captured (user entries the user typed, not
// context the CLI added) and returns the last one's text.
func (c *Capture) Prompts() (int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m.prompts, c.m.lastPrompt
}

// Dialog returns the dialog the screen shows, if it is one of the TUI's.
func (c *Capture) Dialog() (live.Dialog, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m.dialog == nil {
		return live.Dialog{}, false
	}
	return *c.m.dialog, true
}

// Turns counts the turns that ended: the run went busy (or waiting),
// then ready.
func (c *Capture) Turns() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m.turns
}

// Answered reports whether the session file got text from the model since
// the last prompt: a late record of a turn already over counts.
func (c *Capture) Answered() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m.answeredTurn
}

// LastTurn says how the last turn that ended ended.
func (c *Capture) LastTurn() TurnEnd {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m.lastTurn
}

// Failure says why the turn's model request failed for good, when the
// CLI's debug log said so and the turn has not ended.
func (c *Capture) Failure() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m.failure
}

// Set changes the state and publishes the change. A run that is over
// stays over.
func (c *Capture) Set(state live.RunState, signal, detail string, code *int) {
	c.apply(setState{state: state, signal: signal, detail: detail, code: code})
}

// Wait waits until the state is one of states, and returns it.
func (c *Capture) Wait(ctx context.Context, states ...live.RunState) (live.RunState, error) {
	for {
		c.mu.Lock()
		st, ch := c.m.state, c.changed
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
			if c.vt != nil {
				c.vt.Write(chunk)
			}
			titles := c.scr.feed(chunk)
			moved := c.feed(time.Now(), termOutput{titles: titles, paste: c.scr.paste})
			c.mu.Unlock()
			if moved {
				c.publish()
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

// Readiness lets time pass for the capture until ctx ends: every few
// milliseconds it ticks the machine, with the screen's lines when the
// machine reads them. The machine's timers decide when the CLI is ready
// for input (bracketed paste on when the TUI uses it, then quiet output
// for the TUI's settle time), when a ready a live signal gave goes out
// once the session file caught up, when the settled screen is read, and
// when a busy only the screen said is stale.
func (c *Capture) Readiness(ctx context.Context) error {
	every := time.NewTicker(readinessEvery)
	defer every.Stop()
	for {
		c.mu.Lock()
		now := time.Now()
		var lines []string
		if c.vt != nil && c.m.reads(now) {
			lines = c.vt.Lines()
		}
		moved := c.feed(now, tick{lines: lines})
		c.mu.Unlock()
		if moved {
			c.publish()
		}
		select {
		case <-every.C:
		case <-ctx.Done():
			return nil
		}
	}
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
		last = data
		c.apply(statusRead{data: data})
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
		c.event(ev, nil)
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
		if err == nil {
			c.apply(debugLine{line: strings.TrimRight(line, "\r\n")})
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("capture: debug log: %w", err)
		}
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

// event publishes an event's new entries and updates, then tells the
// machine, which reads turn boundaries from them: a status they cause
// goes out after them. store is the whole session read from a store
// (Snapshot), nil for a file.
func (c *Capture) event(ev session.Event, store []session.Entry) {
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
	c.mu.Unlock()
	if len(fresh) > 0 || len(ev.Updates) > 0 {
		out := session.Event{Line: ev.Line, Entries: fresh, Updates: ev.Updates, Info: ev.Info}
		if err := c.pub.Entry(out); err != nil {
			c.log.Warn("publishing entries", "run", c.cfg.Run, "err", err)
		}
	}
	c.apply(recordsRead{entries: fresh, updates: len(ev.Updates), store: store})
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
			c.event(session.Event{Entries: ready, Updates: updates}, entries)
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
