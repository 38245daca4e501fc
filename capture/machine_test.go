package capture

import (
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// The machine's tests drive it with a clock of their own: every input
// comes at a time the test names, as an offset from t0. No terminal, no
// files, no goroutines, no sleeps.

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

const ms = time.Millisecond

// rig feeds a machine at the times a test says, and checks on every
// input that a tick at any time before m.next() would have changed
// nothing: next is an honest deadline.
type rig struct {
	t     *testing.T
	m     machine
	now   time.Time
	lines []string // what the screen shows, for the ticks that read it
}

func newRig(t *testing.T, tui live.TUI, screenKept bool) *rig {
	return &rig{t: t, m: newMachine(t0, tui, screenKept), now: t0}
}

// shows is a test's input for a screen that now shows lines: the rig
// feeds it as the output that drew them, then a tick once the screen
// settled.
type shows struct{ lines []string }

func (shows) input() {}

func showing(lines ...string) shows { return shows{lines: lines} }

// at feeds in at t0+d and returns the changes it made, each as
// state/signal/detail, separated by spaces ("" for none).
func (r *rig) at(d time.Duration, in input) string {
	r.t.Helper()
	now := t0.Add(d)
	if now.Before(r.now) {
		r.t.Fatalf("at %s: the clock goes back from %s", d, r.now.Sub(t0))
	}
	if s, ok := in.(shows); ok {
		r.lines = s.lines
		return join(r.at(d, termOutput{paste: r.m.paste}), r.at(d+screenSettle, tick{}))
	}
	r.quietBeforeNext(now)
	r.now = now
	if tk, ok := in.(tick); ok && tk.lines == nil {
		// The screen is read only when reads says so, as the shell
		// does; a copy that always has it must come to the same.
		c := r.m
		want := trail(c.step(now, tick{lines: r.lines}))
		if r.m.reads(now) {
			in = tick{lines: r.lines}
		}
		got := trail(r.m.step(now, in))
		if got != want || r.m.state != c.state || r.m.screenSaid != c.screenSaid || r.m.dialog != c.dialog {
			r.t.Fatalf("at %s: a tick without the screen (reads said %v) changed %q, with it %q", d, r.m.reads(now), got, want)
		}
		return got
	}
	return trail(r.m.step(now, in))
}

// after feeds in d after the last input.
func (r *rig) after(d time.Duration, in input) string {
	r.t.Helper()
	return r.at(r.now.Sub(t0)+d, in)
}

// quietBeforeNext checks, on a copy of the machine, that a tick just
// before its next deadline (and before until) changes nothing.
func (r *rig) quietBeforeNext(until time.Time) {
	r.t.Helper()
	next := r.m.next()
	if next.IsZero() {
		next = until
	}
	at := next.Add(-1)
	if at.Before(r.now) {
		return
	}
	c := r.m
	was := c.state
	if got := trail(c.step(at, tick{lines: r.lines})); got != "" || c.state != was || c.dialog != r.m.dialog || c.screenSaid != r.m.screenSaid {
		r.t.Fatalf("a tick at %s, before the next deadline %s, changed the run: %q (%s to %s)", at.Sub(t0), next.Sub(t0), got, was, c.state)
	}
}

// step is one input of a table: at t0+at, in, which changes the run as
// want says.
type step struct {
	at   time.Duration
	in   input
	want string
}

func (r *rig) run(steps []step) {
	r.t.Helper()
	for i, s := range steps {
		if got := r.at(s.at, s.in); got != s.want {
			r.t.Fatalf("step %d (at %s, %T %+v): changes %q, want %q", i, s.at, s.in, s.in, got, s.want)
		}
	}
}

func trail(sts []live.Status) string {
	var seq []string
	for _, s := range sts {
		seq = append(seq, string(s.State)+"/"+s.Signal+"/"+s.Detail)
	}
	return strings.Join(seq, " ")
}

func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + " " + b
}

const noAnswer = "the turn ended without an answer from the model"

// Records, as the session file's decoder gives them.
func records(es ...session.Entry) recordsRead { return recordsRead{entries: es} }

var (
	prompt   = session.Entry{Type: session.User, Content: "make the file"}
	answer   = session.Entry{Type: session.Assistant, Content: "Made it."}
	call     = session.Entry{Type: session.ToolCall, Tool: session.ToolBash}
	result   = session.Entry{Type: session.ToolResult, Output: "done"}
	turnEnd  = session.Entry{Type: session.System, Kind: session.KindTurn}
	apiError = session.Entry{Type: session.Assistant, Kind: session.KindError, Content: "API Error: 500 boom"}
)

// statusTUI is a CLI that keeps its state in a status file (Claude
// Code's sessions/<pid>.json): "idle", "busy" or "waiting".
var statusTUI = live.TUI{
	StatusFile: func(session.Env, int) string { return "status.json" },
	FileState: func(data []byte) (live.RunState, string, bool) {
		switch string(data) {
		case "idle":
			return live.RunReady, "", true
		case "busy":
			return live.RunBusy, "", true
		case "waiting":
			return live.RunWaiting, "approval", true
		}
		return "", "", false
	},
}

func status(s string) statusRead { return statusRead{data: []byte(s)} }

// titleTUI is a CLI that says its state in its terminal title (Gemini
// CLI), takes input once bracketed paste is on, and says in its debug
// log when a model request failed for good.
var titleTUI = live.TUI{
	Paste:  true,
	Settle: 100 * ms,
	Title: func(title string) (live.RunState, string, bool) {
		switch {
		case strings.HasPrefix(title, "Ready"):
			return live.RunReady, "", true
		case strings.HasPrefix(title, "Working"):
			return live.RunBusy, "", true
		case strings.HasPrefix(title, "Action"):
			return live.RunWaiting, "approval", true
		}
		return "", "", false
	},
	Failed: func(line string) (string, bool) {
		why, ok := strings.CutPrefix(line, "FAILED ")
		return why, ok
	},
}

// title is output that sets the terminal's title, paste mode on.
func title(t string) termOutput { return termOutput{titles: []string{t}, paste: true} }

// screenTUI is a CLI with no structural signal (Codex, OpenCode): the
// screen says busy (a working line) or waiting (a dialog).
var screenTUI = live.TUI{
	Screen: func(lines []string) (live.RunState, string, bool) {
		for _, l := range lines {
			switch {
			case strings.Contains(l, "esc to interrupt"):
				return live.RunBusy, "", true
			case strings.Contains(l, "enter continue"):
				return live.RunWaiting, "a dialog", true
			}
		}
		return "", "", false
	},
}

var (
	idleScreen    = showing("> prompt box")
	workingScreen = showing("> prompt box", "Working (3s • esc to interrupt)")
	dialogScreen  = showing("> prompt box", "Run it? enter continue")
)

// TestMachineStatusFile: a CLI with a status file is ready once its
// output is quiet, busy and waiting as the file says, and ready again
// once the file says idle and the turn's end reached the session file.
func TestMachineStatusFile(t *testing.T) {
	r := newRig(t, statusTUI, false)
	r.run([]step{
		{0, status("idle"), ""}, // starting: the terminal decides
		{299 * ms, tick{}, ""},
		{300 * ms, tick{}, "ready/terminal quiet/"},
		{1000 * ms, status("busy"), "busy/status file/"},
		{1100 * ms, records(prompt), ""},
		{1200 * ms, status("waiting"), "waiting/status file/approval"},
		{1300 * ms, status("busy"), "busy/status file/"},
		{1400 * ms, records(call, result, answer), ""},
		{1500 * ms, status("idle"), ""}, // the file has not ended the turn
		{1505 * ms, records(turnEnd), "ready/status file/"},
		{1600 * ms, status("idle"), ""},
	})
	if r.m.turns != 1 || !r.m.lastTurn.Answered || r.m.prompts != 1 || r.m.entries != 5 {
		t.Errorf("turns %d, last %+v, prompts %d, entries %d", r.m.turns, r.m.lastTurn, r.m.prompts, r.m.entries)
	}
}

// TestMachineTitle: a CLI that says its state in its title is not ready
// before bracketed paste is on and its output was quiet for its settle
// time, whatever its title says; then its title moves the run.
func TestMachineTitle(t *testing.T) {
	r := newRig(t, titleTUI, false)
	r.run([]step{
		{0, termOutput{titles: []string{"Ready (x)"}}, ""},
		{500 * ms, tick{}, ""}, // paste mode is off: keys would be lost
		{600 * ms, termOutput{paste: true}, ""},
		{699 * ms, tick{}, ""},
		{700 * ms, tick{}, "ready/bracketed paste on, terminal quiet/"},
		{800 * ms, title("Working… (x)"), "busy/title/"},
		{900 * ms, title("Action Required (x)"), "waiting/title/approval"},
		{1000 * ms, title("Working… (x)"), "busy/title/"},
		{1100 * ms, title("Ready (x)"), ""},
		{1399 * ms, tick{}, ""},
		{1400 * ms, tick{}, "ready/title/" + noAnswer},
	})
	if r.m.turns != 1 {
		t.Errorf("%d turns, want 1", r.m.turns)
	}
}

// TestMachineRecordsLag: a live signal (status file, title) says the
// state; the session file's records lag it (Claude writes its file in
// batches) and do not, but for a turn the live signal missed (over
// between two of its reads).
func TestMachineRecordsLag(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
		turns int
	}{
		{"a turn's records while busy say nothing", []step{
			{1000 * ms, status("busy"), "busy/status file/"},
			{1100 * ms, records(prompt, answer, turnEnd), ""},
			{1300 * ms, status("idle"), "ready/status file/"}, // the turn's end is already in the file
		}, 1},
		{"a turn over between two polls", []step{
			{1000 * ms, records(prompt), "busy/session record/"},
			{1100 * ms, records(answer, turnEnd), "ready/session record/"},
		}, 1},
		{"a turn over between two polls, in one batch", []step{
			{1000 * ms, records(prompt, answer, turnEnd), "busy/session record/ ready/session record/"},
		}, 1},
		{"a turn that failed between two polls", []step{
			{1000 * ms, records(prompt, apiError), "busy/session record/ ready/session record/the turn ended in an error: API Error: 500 boom"},
		}, 1},
		{"an error record while the status file says busy", []step{
			{1000 * ms, status("busy"), "busy/status file/"},
			{1100 * ms, records(prompt, apiError), ""},
			{1200 * ms, status("idle"), ""}, // the batch's rest may come
			{1200 * ms, tick{}, "ready/status file/the turn ended in an error: API Error: 500 boom"},
		}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, statusTUI, false)
			r.run([]step{{0, status("idle"), ""}, {300 * ms, tick{}, "ready/terminal quiet/"}})
			r.run(tc.steps)
			if r.m.turns != tc.turns {
				t.Errorf("%d turns, want %d", r.m.turns, tc.turns)
			}
		})
	}
}

// TestMachineSettle: a ready the live signal gives before the turn's
// end reached the session file goes out when the end comes, 20 ms after
// the answer came, after 300 ms with nothing from the file, or after 5 s
// at most; not before.
func TestMachineSettle(t *testing.T) {
	const idle = 2 * time.Second // when the status file says idle
	cases := []struct {
		name string
		// before comes before the idle status, meanwhile after it;
		// ready is when the ready goes out, at a tick, and deadline
		// what next says then when it is not ready (overdue).
		before, meanwhile []step
		ready, deadline   time.Duration
	}{
		{"the file is quiet", nil, nil, idle + 300*ms, 0},
		{"the turn's end comes", nil, []step{{idle + 5*ms, records(turnEnd), "ready/status file/" + noAnswer}}, 0, 0},
		{"the answer comes", nil, []step{{idle + 50*ms, records(answer), ""}}, idle + 70*ms, 0},
		{"a tool call follows the answer", nil, []step{
			{idle + 50*ms, records(answer), ""},
			{idle + 60*ms, records(call), ""},
		}, idle + 360*ms, 0},
		{"the answer came before the idle", []step{{idle - 100*ms, records(answer), ""}}, nil, idle, idle - 80*ms},
		{"records keep coming", nil, func() []step {
			var s []step
			for d := 100 * ms; d < 5*time.Second; d += 100 * ms {
				s = append(s, step{idle + d, records(call), ""}, step{idle + d + 50*ms, tick{}, ""})
			}
			return s
		}(), idle + 5*time.Second, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, statusTUI, false)
			r.run([]step{
				{0, status("idle"), ""},
				{300 * ms, tick{}, "ready/terminal quiet/"},
				{1000 * ms, status("busy"), "busy/status file/"},
				{1100 * ms, records(prompt), ""},
			})
			r.run(tc.before)
			r.run([]step{{idle, status("idle"), ""}})
			r.run(tc.meanwhile)
			if tc.ready == 0 {
				return // it went out on a meanwhile step
			}
			deadline := tc.ready
			if tc.deadline != 0 {
				deadline = tc.deadline
			}
			if got := r.m.next().Sub(t0); got != deadline {
				t.Errorf("next deadline at %s, want %s", got, deadline)
			}
			if t0.Add(tc.ready - 1).After(r.now) {
				r.run([]step{{tc.ready - 1, tick{}, ""}})
			}
			if got := r.at(tc.ready, tick{}); !strings.HasPrefix(got, "ready/status file/") {
				t.Errorf("at %s: %q, want the pending ready", tc.ready, got)
			}
		})
	}
}

// TestMachineDialogResumesTurn: a dialog the screen shows during a turn
// holds the run waiting while it shows, whatever the session file says
// meanwhile (the call it asks about is already there); once it is gone
// the turn goes on, and its end is a turn.
func TestMachineDialogResumesTurn(t *testing.T) {
	r := newRig(t, screenTUI, true)
	r.run([]step{
		{0, idleScreen, ""},
		{330 * ms, tick{}, "ready/terminal quiet/"},
		{1000 * ms, records(prompt), "busy/session record/"},
		{1100 * ms, dialogScreen, "waiting/screen/a dialog"},
		{1200 * ms, records(call), ""}, // the dialog still shows
		{1300 * ms, idleScreen, "busy/screen/the dialog was answered"},
		{1400 * ms, records(result, answer, turnEnd), "ready/session record/"},
	})
	if r.m.turns != 1 || !r.m.lastTurn.Answered {
		t.Errorf("turns %d, last %+v", r.m.turns, r.m.lastTurn)
	}
}

// TestMachineDialogBeforeThePromptsRecord: a CLI that writes the turn's
// records only once its approval dialog is up (Kimi Code) has the run
// wait while the dialog shows: the prompt's record is the running turn's,
// not a new one.
func TestMachineDialogBeforeThePromptsRecord(t *testing.T) {
	r := newRig(t, screenTUI, true)
	r.run([]step{
		{0, idleScreen, ""},
		{330 * ms, tick{}, "ready/terminal quiet/"},
		{1000 * ms, workingScreen, "busy/screen/"},
		{1100 * ms, dialogScreen, "waiting/screen/a dialog"},
		{1200 * ms, records(prompt, call), ""}, // the dialog still shows
		{1300 * ms, idleScreen, "busy/screen/the dialog was answered"},
		{1400 * ms, records(result, answer, turnEnd), "ready/session record/"},
	})
	if r.m.turns != 1 || !r.m.lastTurn.Answered {
		t.Errorf("turns %d, last %+v", r.m.turns, r.m.lastTurn)
	}
}

// TestMachineIdleDialogIsNoTurn: a dialog the CLI draws while idle,
// after it looked ready (Codex's folder-trust dialog comes up half a
// second after its prompt), makes the run wait; gone with nothing of a
// turn under it (no prompt recorded, no entries), the run is ready
// again and no turn is counted. Anything of a turn under it makes it a
// turn's question: the turn goes on.
func TestMachineIdleDialogIsNoTurn(t *testing.T) {
	cases := []struct {
		name      string
		before    []step // from ready, before the dialog (at 1 s)
		under     []step // while it shows
		whenGone  string
		turns     int
		lastState live.RunState
	}{
		{"nothing under it", nil, nil,
			"ready/screen/the dialog was answered; no turn had begun", 0, live.RunReady},
		{"a record of no entry under it", nil, []step{{1200 * ms, recordsRead{}, ""}},
			"ready/screen/the dialog was answered; no turn had begun", 0, live.RunReady},
		{"entries under it", nil, []step{{1200 * ms, records(answer), ""}},
			"busy/screen/the dialog was answered", 0, live.RunBusy},
		{"an update under it", nil, []step{{1200 * ms, recordsRead{updates: 1}, ""}},
			"busy/screen/the dialog was answered", 0, live.RunBusy},
		{"a prompt recorded before it", []step{{900 * ms, records(prompt), "busy/session record/"}}, nil,
			"busy/screen/the dialog was answered", 0, live.RunBusy},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, screenTUI, true)
			r.run([]step{{0, idleScreen, ""}, {330 * ms, tick{}, "ready/terminal quiet/"}})
			r.run(tc.before)
			r.run([]step{{1000 * ms, dialogScreen, "waiting/screen/a dialog"}})
			r.run(tc.under)
			r.run([]step{{1500 * ms, idleScreen, tc.whenGone}})
			if r.m.turns != tc.turns || r.m.state != tc.lastState {
				t.Errorf("%d turns and %s, want %d and %s", r.m.turns, r.m.state, tc.turns, tc.lastState)
			}
			if tc.lastState == live.RunBusy {
				if got := r.at(2000*ms, records(turnEnd)); !strings.HasPrefix(got, "ready/session record/") {
					t.Errorf("the turn's end: %q", got)
				}
				if r.m.turns != 1 {
					t.Errorf("%d turns once the turn ended, want 1", r.m.turns)
				}
			}
		})
	}
}

// TestMachineStaleScreenBusy: a busy only the screen said ends once the
// screen has been still for staleScreenBusy with no entries or updates
// from the session file: a record that says nothing of the turn (Codex's
// thread_settings_applied) is no sign of work.
func TestMachineStaleScreenBusy(t *testing.T) {
	const busy = time.Second // when the working line is drawn
	stale := staleScreenBusy
	cases := []struct {
		name      string
		meanwhile []step
		expires   time.Duration // 0: never
	}{
		{"a still screen", nil, busy + screenSettle + stale},
		{"a record of no entry", []step{{busy + 2*time.Second, recordsRead{}, ""}}, busy + screenSettle + stale},
		{"an entry", []step{{busy + 2*time.Second, records(call), ""}}, 0},
		{"an update", []step{{busy + 2*time.Second, recordsRead{updates: 1}, ""}}, 0},
		{"the working line moves", []step{{busy + 10*time.Second, workingScreen, ""}}, busy + 10*time.Second + stale},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, screenTUI, true)
			r.run([]step{
				{0, idleScreen, ""},
				{330 * ms, tick{}, "ready/terminal quiet/"},
				{busy, workingScreen, "busy/screen/"},
			})
			r.run(tc.meanwhile)
			if tc.expires == 0 {
				r.run([]step{{time.Hour, tick{}, ""}})
				return
			}
			if got := r.m.next().Sub(t0); got != tc.expires {
				t.Errorf("next deadline at %s, want %s", got, tc.expires)
			}
			r.run([]step{
				{tc.expires - 1, tick{}, ""},
				{tc.expires, tick{}, "ready/screen/the screen said busy, then showed nothing new for " + stale.String() + " and the session file nothing at all"},
			})
		})
	}
}

// TestMachineStaleWorkingLine: once the session file ended the turn, a
// working line still drawn, or drawn again, does not make the run busy;
// the next prompt's record does.
func TestMachineStaleWorkingLine(t *testing.T) {
	r := newRig(t, screenTUI, true)
	r.run([]step{
		{0, idleScreen, ""},
		{330 * ms, tick{}, "ready/terminal quiet/"},
		{1000 * ms, records(prompt), "busy/session record/"},
		{1100 * ms, workingScreen, ""},
		{1200 * ms, records(answer, turnEnd), "ready/session record/"},
		{1300 * ms, idleScreen, ""},
		{1400 * ms, workingScreen, ""}, // drawn again: stale
		{1500 * ms, records(prompt), "busy/session record/"},
		{1600 * ms, idleScreen, ""},
		{1700 * ms, workingScreen, ""}, // still busy
		{1800 * ms, records(answer, turnEnd), "ready/session record/"},
	})
}

// TestMachineTurnEnd: a turn the session file ends says whether the
// model answered, in the ready's detail and in lastTurn.
func TestMachineTurnEnd(t *testing.T) {
	boom := session.Entry{Type: session.System, Kind: session.KindError, Content: "boom"}
	interrupt := session.Entry{Type: session.System, Kind: session.KindInterrupt}
	cases := []struct {
		name     string
		tui      live.TUI
		turn     []session.Entry
		want     string
		turns    int
		answered bool
	}{
		{"answered", live.TUI{}, []session.Entry{prompt, answer, turnEnd}, "busy/session record/ ready/session record/", 1, true},
		{"no answer", live.TUI{}, []session.Entry{prompt, call, result, turnEnd}, "busy/session record/ ready/session record/" + noAnswer, 1, false},
		{"an error", live.TUI{}, []session.Entry{prompt, boom, turnEnd},
			"busy/session record/ ready/session record/the turn ended in an error: boom", 1, false},
		{"an error, no turn end after it", live.TUI{}, []session.Entry{prompt, boom}, "busy/session record/", 0, false},
		{"an error, which ends the turn", live.TUI{ErrorEndsTurn: true}, []session.Entry{prompt, boom},
			"busy/session record/ ready/session record/the turn ended in an error: boom", 1, false},
		{"an interrupt", live.TUI{}, []session.Entry{prompt, call, interrupt}, "busy/session record/", 0, false},
		{"an interrupt, which ends the turn", live.TUI{InterruptEndsTurn: true}, []session.Entry{prompt, call, interrupt},
			"busy/session record/ ready/session record/" + noAnswer, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, tc.tui, false)
			r.run([]step{
				{300 * ms, tick{}, "ready/terminal quiet/"},
				{1000 * ms, records(tc.turn...), tc.want},
			})
			if r.m.turns != tc.turns || r.m.lastTurn.Answered != tc.answered {
				t.Errorf("turns %d, last %+v", r.m.turns, r.m.lastTurn)
			}
		})
	}
}

// TestMachineStore: a session store with no turn records (OpenCode's
// database) ends a turn when its newest entry is an answer whose usage
// is known, or an error; not while the screen says the CLI works, and
// then on the next poll of the busy run.
func TestMachineStore(t *testing.T) {
	done := session.Entry{Type: session.Assistant, Content: "Made it.", Usage: &session.Usage{Input: 1, Output: 1}}
	streaming := session.Entry{Type: session.Assistant, Content: "Made"}
	boom := session.Entry{Type: session.System, Kind: session.KindError, Content: "boom"}
	// poll is a read of the store that holds all, of which fresh are
	// new.
	poll := func(all []session.Entry, fresh ...session.Entry) recordsRead {
		return recordsRead{entries: fresh, store: all}
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"an answer with its usage", []step{
			{1200 * ms, poll([]session.Entry{prompt, done}, done), "ready/session store/"},
		}},
		{"an answer whose usage comes later", []step{
			{1200 * ms, poll([]session.Entry{prompt, streaming}, streaming), ""},
			{1300 * ms, poll([]session.Entry{prompt, streaming}), ""},
			{1400 * ms, recordsRead{store: []session.Entry{prompt, done}, updates: 1}, "ready/session store/"},
		}},
		{"a tool call after the answer", []step{
			{1200 * ms, poll([]session.Entry{prompt, done, call}, done, call), ""},
			{1300 * ms, poll([]session.Entry{prompt, done, call, result, done}, result, done), "ready/session store/"},
		}},
		{"an error", []step{
			{1200 * ms, poll([]session.Entry{prompt, boom}, boom), "ready/session store/the turn ended in an error: boom"},
		}},
		{"the screen says working", []step{
			{1100 * ms, workingScreen, ""},
			{1200 * ms, poll([]session.Entry{prompt, done}, done), ""},
			{1300 * ms, poll([]session.Entry{prompt, done}), ""},
			{1400 * ms, idleScreen, ""},
			{1500 * ms, poll([]session.Entry{prompt, done}), "ready/session store/"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, screenTUI, true)
			r.run([]step{
				{0, idleScreen, ""},
				{330 * ms, tick{}, "ready/terminal quiet/"},
				{1000 * ms, poll([]session.Entry{prompt}, prompt), "busy/session record/"},
			})
			r.run(tc.steps)
			if r.m.turns != 1 {
				t.Errorf("%d turns, want 1", r.m.turns)
			}
		})
	}
}

// TestMachineExit: the process's end is set from outside, with its exit
// code; a run that is over stays over, whatever its signals say after.
func TestMachineExit(t *testing.T) {
	code := 3
	cases := []struct {
		name  string
		steps []step
	}{
		{"while starting", nil},
		{"while ready", []step{{300 * ms, tick{}, "ready/terminal quiet/"}}},
		{"while busy", []step{{300 * ms, tick{}, "ready/terminal quiet/"}, {400 * ms, status("busy"), "busy/status file/"}}},
		{"while waiting", []step{{300 * ms, tick{}, "ready/terminal quiet/"}, {400 * ms, status("waiting"), "waiting/status file/approval"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, statusTUI, false)
			r.run(tc.steps)
			sts := r.m.step(t0.Add(time.Second), setState{state: live.RunExited, signal: "process", detail: "bye", code: &code})
			r.now = t0.Add(time.Second)
			if len(sts) != 1 || sts[0].State != live.RunExited || sts[0].ExitCode == nil || *sts[0].ExitCode != 3 || sts[0].Detail != "bye" {
				t.Fatalf("exit: %+v", sts)
			}
			r.run([]step{
				{1100 * ms, status("idle"), ""},
				{1200 * ms, records(prompt, answer, turnEnd), ""},
				{1300 * ms, setState{state: live.RunReady, signal: "test"}, ""},
				{1400 * ms, setState{state: live.RunFailed, signal: "process", code: &code}, ""},
				{time.Minute, tick{}, ""},
			})
			if r.m.state != live.RunExited {
				t.Errorf("the run is %s", r.m.state)
			}
		})
	}
}

// TestMachineModelFailure: a model request that failed for good, which
// the CLI says only in its debug log, makes a busy run wait; the title
// saying working again changes nothing; once the request is given up the
// turn ends in that failure. A failure outside a turn, or one the model
// recovers from, is no turn's.
func TestMachineModelFailure(t *testing.T) {
	ready := []step{
		{0, termOutput{paste: true}, ""},
		{100 * ms, tick{}, "ready/bracketed paste on, terminal quiet/"},
	}
	t.Run("given up", func(t *testing.T) {
		r := newRig(t, titleTUI, false)
		r.run(ready)
		r.run([]step{{500 * ms, debugLine{"FAILED HTTP 500: boom"}, ""}})
		if r.m.failure != "" {
			t.Fatalf("a failure outside a turn is the run's: %q", r.m.failure)
		}
		r.run([]step{
			{1000 * ms, title("Working…"), "busy/title/"},
			{1100 * ms, debugLine{"retrying"}, ""},
			{1200 * ms, debugLine{"FAILED HTTP 500: boom"}, "waiting/debug log/HTTP 500: boom"},
			{1300 * ms, title("Working…"), ""}, // the CLI retries in silence
			{1400 * ms, title("Ready"), ""},
			{1700 * ms, tick{}, "ready/title/the turn ended in an error: HTTP 500: boom"},
		})
		if r.m.lastTurn.Error != "HTTP 500: boom" || r.m.failure != "" || r.m.turns != 1 {
			t.Errorf("last turn %+v, failure %q, turns %d", r.m.lastTurn, r.m.failure, r.m.turns)
		}
	})
	t.Run("the model answers after all", func(t *testing.T) {
		r := newRig(t, titleTUI, false)
		r.run(ready)
		r.run([]step{
			{1000 * ms, title("Working…"), "busy/title/"},
			{1200 * ms, debugLine{"FAILED HTTP 500: boom"}, "waiting/debug log/HTTP 500: boom"},
			{1300 * ms, records(answer), ""},
			{1400 * ms, title("Ready"), ""},
			{1420 * ms, tick{}, "ready/title/"},
		})
		if r.m.lastTurn.Error != "" || !r.m.lastTurn.Answered {
			t.Errorf("last turn %+v", r.m.lastTurn)
		}
	})
}

// TestMachineReadiness: what a CLI must show before it takes input, and
// when the terminal decides without it.
func TestMachineReadiness(t *testing.T) {
	trust := live.Dialog{Name: "trust", Match: []string{"Trust this folder?"}}
	cases := []struct {
		name  string
		tui   live.TUI
		kept  bool
		steps []step
	}{
		{"the live signal waits for the terminal", statusTUI, false, []step{
			{0, status("busy"), ""},
			{100 * ms, status("waiting"), ""},
			{200 * ms, status("idle"), ""},
			{300 * ms, tick{}, "ready/terminal quiet/"},
		}},
		{"a screen drawn before ready is read once ready", screenTUI, true, []step{
			{0, workingScreen, ""},
			{299 * ms, tick{}, ""},
			{300 * ms, tick{}, "ready/terminal quiet/ busy/screen/"},
		}},
		{"quiet output", live.TUI{Settle: 200 * ms}, false, []step{
			{100 * ms, termOutput{}, ""},
			{299 * ms, tick{}, ""},
			{300 * ms, tick{}, "ready/terminal quiet/"},
		}},
		{"a title first", live.TUI{TitleReady: true}, false, []step{
			{time.Second, tick{}, ""},
			{1100 * ms, termOutput{titles: []string{"x"}}, ""},
			{1400 * ms, tick{}, "ready/terminal quiet/"},
		}},
		{"the status file first", live.TUI{StatusReady: true}, false, []step{
			{time.Second, tick{}, ""},
			{1100 * ms, status("idle"), ""},
			{1100 * ms, tick{}, "ready/terminal quiet/"},
		}},
		{"a record first, 15 s at most", live.TUI{RecordReady: true}, false, []step{
			{recordWait, tick{}, ""},
			{recordWait + 1, tick{}, "ready/terminal quiet/"},
		}},
		{"a record first", live.TUI{RecordReady: true}, false, []step{
			{time.Second, tick{}, ""},
			{1100 * ms, recordsRead{}, ""},
			{1100 * ms, tick{}, "ready/terminal quiet/"},
		}},
		{"no dialog", live.TUI{Dialogs: []live.Dialog{trust}}, true, []step{
			{0, showing("Trust this folder? 1. Yes"), ""},
			{time.Second, tick{}, ""},
			{1100 * ms, showing("> prompt box"), ""},
			{1399 * ms, tick{}, ""},
			{1400 * ms, tick{}, "ready/terminal quiet/"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, tc.tui, tc.kept)
			r.run(tc.steps)
		})
	}
}
