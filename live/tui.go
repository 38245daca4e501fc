package live

import (
	"time"

	"github.com/stead-dev/stead/session"
)

// TUI is how to drive a CLI's interactive terminal UI under a supervisor:
// how to open a session in it, when it takes input, how to type a prompt,
// how to make it quit, and which of its signals tell what it is doing.
// Each adapter fills one in; the supervisor and capture act on it without
// knowing which CLI it is.
type TUI struct {
	// Argv returns the arguments that open the session l.Resume in the
	// TUI, without a prompt.
	Argv func(l Launch) []string
	// Env is added to Setup's environment for the TUI.
	Env []string
	// Paste says the TUI turns bracketed paste on (ESC[?2004h) once it
	// takes input: it is ready when it has and its output was then quiet
	// for Settle. Without Paste, quiet output alone says ready.
	Paste  bool
	Settle time.Duration
	// TitleReady says the TUI sets its terminal title only once its
	// first-run dialogs are gone: readiness waits for a title too.
	TitleReady bool
	// ErrorEndsTurn says an error record in the session ends the turn
	// (the CLI writes no other turn end after one).
	ErrorEndsTurn bool
	// InterruptEndsTurn says an interrupt record (a turn the user
	// stopped, or whose approval they refused) ends the turn, for the
	// same reason.
	InterruptEndsTurn bool
	// EnterAfter is the pause between typing a prompt (as a bracketed
	// paste when Paste is set) and the Enter that submits it: TUIs turn
	// an Enter that arrives too fast into a newline.
	EnterAfter time.Duration
	// Quit is what to type, with pauses, to make the TUI exit when it is
	// idle.
	Quit []Key
	// Title reads the TUI's state from its terminal title (OSC 0 or 2),
	// when the TUI says it there.
	Title func(title string) (state RunState, detail string, ok bool)
	// StatusFile names a file the CLI keeps its live state in, for the
	// CLI's process id, and FileState reads it.
	StatusFile func(env session.Env, pid int) string
	FileState  func(data []byte) (state RunState, detail string, ok bool)
	// RecordReady says the CLI takes keys only once it has written its
	// first record to the session it resumed: readiness waits for one.
	RecordReady bool
	// StatusReady says the CLI writes its status file only once it takes
	// input (after its dialogs): readiness waits for the file too.
	StatusReady bool
	// Screen reads the TUI's state from its screen (the rows of text a
	// terminal shows), the fallback where the CLI gives no structural
	// signal: a working footer says busy, an approval dialog says
	// waiting. ok is false when the screen does not tell.
	Screen func(lines []string) (state RunState, detail string, ok bool)
	// Dialogs are the dialogs a supervisor may answer: those the TUI
	// shows before it takes input (folder trust) and those that ask
	// whether to give up a turn (GiveUp). While one is on screen the CLI
	// is not ready; a supervisor that may answer one types its keys.
	Dialogs []Dialog
	// DebugLog returns the file the CLI writes its debug log to in a
	// supervised run, given dir (a directory of the run's own, removed
	// when the run ends), and the variables that make it write there;
	// "" when it keeps none. Failed reads a line of that log: that a
	// model request failed for good, after the CLI's own retries, and
	// why. A CLI that then retries in silence (Gemini CLI) shows it
	// nowhere else: the run waits on it, as on a question.
	DebugLog func(env session.Env, dir string) (vars []string, path string)
	Failed   func(line string) (why string, ok bool)
	// Cancel is what to type to give up the work of a turn whose model
	// request failed for good, when no dialog asks (Gemini CLI: Escape).
	Cancel []Key
}

// Dialog is a dialog a TUI shows, known by texts on its screen.
type Dialog struct {
	// Name says what the dialog asks, for a person.
	Name string
	// Match are texts that are all on the screen while it shows.
	Match []string
	// Select moves the choice to yes; Selected is on the screen once
	// yes is the choice; Confirm then takes it. A supervisor presses
	// Confirm only when it sees Selected: a key lost on a dialog still
	// drawing must not pick its default answer.
	Select   []Key
	Selected string
	Confirm  Key
	// Trust marks a dialog that asks to trust the project folder.
	Trust bool
	// GiveUp marks a dialog that asks whether to keep retrying a model
	// request that failed after the CLI's own retries: Select, Selected
	// and Confirm choose to stop, and a supervisor nobody watches does,
	// so that the turn ends in the CLI's error instead of a retry loop.
	GiveUp bool
}

// Key is input typed into a terminal, then a pause.
type Key struct {
	Bytes string
	Wait  time.Duration
}
