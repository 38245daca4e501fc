package adapter

import (
	"encoding/json"
	"io"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// Adapter is what stead can do with one CLI, grouped by capability:
// reading its sessions, writing them, driving the CLI. A part the CLI
// lacks is nil; Reads, Writes and Runs say which are there.
//
// The parts are embedded, so their fields read as the Adapter's own
// (a.Open, a.Place, a.TUI). A field of a nil part cannot be read: check
// the part (Reads, Writes, a.Driver != nil) before one of its fields.
type Adapter struct {
	// Name is the CLI's name: what --cli, --to and <name>:<id> take, a
	// session's Source.CLI, the key of its pin in scenarios/clis.txt.
	Name string
	// Title is the CLI's name for people ("Claude Code").
	Title string
	// Agent is the name agent-history exports give the CLI, when it is
	// not Name ("claude-code"); Aliases are other names tools give it
	// ("codex-cli"). stead reads each of them as Name.
	Agent   string
	Aliases []string

	// Toolset is the CLI's tools. It is not a part: every part uses it
	// (reading a session's calls, writing them, the model stub answering
	// a driven CLI), and it is read for sessions of CLIs stead neither
	// reads nor writes (a conversion's source).
	Toolset

	*Reader
	*Writer
	*Driver
}

// Reads reports whether stead reads the CLI's sessions.
func (a Adapter) Reads() bool { return a.Reader != nil }

// Writes reports whether stead writes sessions for the CLI.
func (a Adapter) Writes() bool { return a.Writer != nil }

// Runs reports whether stead can run the CLI under its supervisor: it
// writes the session into the CLI's store, drives the CLI's TUI, and
// reads back what the CLI adds.
func (a Adapter) Runs() bool { return a.Reads() && a.Writes() && a.Driver != nil && a.TUI != nil }

// Toolset is a CLI's tools: their names, and how a call's input reads as
// universal arguments and back.
type Toolset struct {
	// Tools maps the CLI's tool names to universal ones.
	Tools map[string]session.Tool
	// Calls names the tool a model calls for a universal tool when it
	// drives the CLI.
	Calls map[session.Tool]string
	// ToolArgs reads a native tool call into universal arguments
	// (session.Arg*); ToolCall writes universal arguments as a native
	// call. Either reports false for a tool with no counterpart.
	ToolArgs func(name string, input json.RawMessage) (session.Tool, map[string]any, bool)
	ToolCall func(tool session.Tool, args map[string]any) (string, json.RawMessage, bool)
}

// Reader reads a CLI's native store (list, stats, show, convert's
// source). Discover, Roots, Locate, Open and SummarizeFile are set; a nil field
// among the others is a way of reading the CLI does not offer.
type Reader struct {
	// Discover lists the session files in the store env points at.
	Discover func(env session.Env) ([]session.Ref, []session.Warning)
	// Roots names the folders Discover looks in without listing them
	// through env.Dirs (its store's top folders), and the files it opens
	// by name (a database): a change to what Discover finds shows as a
	// change in one of them, in a folder Discover listed through env.Dirs,
	// or in a session file's folder. A watcher of the store (the search
	// index's) watches those. A root need not exist; two environments
	// with the same roots have the same store.
	Roots func(env session.Env) []string
	// Locate finds a session by id: its file, or the store holding it.
	Locate func(env session.Env, id string) (session.Ref, error)
	// Open decodes the session a Ref names (a file, or a session in a
	// database), following links the CLI keeps outside it (subagents, a
	// fork's parent history). A Ref made from a path alone has no ID.
	Open func(env session.Env, ref session.Ref) (*session.Session, error)
	// OpenConversation, when set, opens a session as Open does, for a
	// reader that keeps only the conversation (the search index): the same
	// entries, without native records where a store is read whole however
	// large (OpenCode's database: Records and each entry's Native hold
	// none), so that its records do not double what the read holds. Other
	// stores may keep them.
	OpenConversation func(env session.Env, ref session.Ref) (*session.Session, error)
	// OpenSummarized, when set, is OpenConversation and SummarizeFile at
	// session.DetailFull together, for a reader that needs both of a
	// session (the search index): the same session and summary, from one
	// read of a store where the two would each read it (OpenCode's
	// database). sized, when not nil, hears the session's size (the
	// summary's Size) before the session is read: a caller that bounds
	// what its reads hold at once may wait there.
	OpenSummarized func(env session.Env, ref session.Ref, sized func(size int64)) (*session.Session, session.Summary, error)
	// OpenOutline, when set, opens a session too large to hold for reading
	// in two passes: it reads the session as Open does, the way o says (its
	// timeline folded into o.Outline, its records handed on, at most
	// o.Limit bytes of its file), and reports whether NewDecoder reads the
	// same entries again, whole and in the same order, from those bytes of
	// ref.Path. It does not when some entries come from other files (a
	// Codex fork's history).
	OpenOutline func(env session.Env, ref session.Ref, o session.ReadOptions) (*session.Session, bool, error)
	// Read decodes a session from a stream.
	Read func(r io.Reader) (*session.Session, error)
	// NewDecoder decodes a stream record by record; nil for a store that
	// is not a stream of records (OpenCode's database).
	NewDecoder func(r io.Reader) Decoder
	// StreamDecoder, when set, decodes a stream record by record for a
	// conversion: the same conversation, faster, without native records.
	// It is set only for CLIs whose session files hold their whole
	// conversation (a fork copies its history), so that a large session
	// can be converted as it is read.
	StreamDecoder func(r io.Reader) Decoder
	// Summarize scans a session stream for listing and statistics, in
	// memory independent of its size.
	Summarize func(r io.Reader, detail session.Detail) (session.Summary, error)
	// SummarizeFile summarises the file a Ref names, settling which id and
	// title name it the way the CLI does.
	SummarizeFile func(ref session.Ref, detail session.Detail) (session.Summary, error)
	// Sniff reports whether a line looks like one of this CLI's records.
	Sniff func(line []byte) bool
}

// Writer writes sessions into a CLI's native store (convert, fork, and
// the session a live run resumes). Place and NewEncoder are set.
type Writer struct {
	// Place chooses a new session's id (when t.ID is empty) and where it
	// goes in the store env points at.
	Place func(env session.Env, t *session.Target) (session.Placement, error)
	// NewEncoder writes a native session to w, one entry at a time; lost
	// hears what the CLI cannot hold.
	NewEncoder func(w io.Writer, t session.Target, lost func(session.Loss)) Encoder
	// Commit, when set, installs the native file written at tmp (a CLI
	// whose store is a database imports it) instead of it being linked to
	// the placement's path.
	Commit func(env session.Env, p session.Placement, t session.Target, tmp string) error
}

// Driver runs a CLI: headless (a prompt in, an answer out) and live,
// its TUI under a supervisor. Setup is set; Argv and SessionID are nil
// for a CLI with no headless mode stead knows, TUI for one whose TUI
// stead cannot drive.
type Driver struct {
	// Setup says how to run the CLI for a Launch: environment and config
	// files that avoid dialogs and keep traffic on the machine.
	Setup func(l live.Launch) live.Setup
	// Model is the model the CLI uses in env for a session in the project
	// dir when none is given on its command line (its configuration files
	// and environment, as the CLI reads them), and where it was read; else
	// its default ("default"; "" where the CLI settles that itself). A
	// session written for the CLI continues with it (Place settles
	// Target.Model the same way), never with the source's.
	Model func(env session.Env, dir string) (model, from string)
	// Argv returns the arguments of a headless run (print or exec mode).
	Argv func(l live.Launch) []string
	// SessionID finds the session id in a headless run's output.
	SessionID func(stdout []byte) string
	// Failure finds the error a failed headless run reported.
	Failure func(stdout, stderr []byte) string
	// TUI says how to drive the CLI's interactive UI under a supervisor.
	TUI *live.TUI
}

// Decoder yields the events of a native session, one record at a time, and
// io.EOF at the end.
type Decoder interface {
	Decode() (session.Event, error)
}

// Encoder writes a native session one entry at a time.
type Encoder interface {
	Encode(e *session.Entry) error
	Close() error
}

// FileLocate adapts the Locate of a CLI that keeps one session per file
// and finds it by id.
func FileLocate(cli string, locate func(session.Env, string) (string, error)) func(session.Env, string) (session.Ref, error) {
	return func(env session.Env, id string) (session.Ref, error) {
		path, err := locate(env, id)
		if err != nil {
			return session.Ref{}, err
		}
		return session.Ref{CLI: cli, ID: id, Path: path}, nil
	}
}

// FileOpen adapts the Open of a CLI that keeps one session per file.
func FileOpen(open func(session.Env, string) (*session.Session, error)) func(session.Env, session.Ref) (*session.Session, error) {
	return func(env session.Env, ref session.Ref) (*session.Session, error) { return open(env, ref.Path) }
}
