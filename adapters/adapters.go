package adapters

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// Adapter is what stead can do with one CLI's native store. Every field is
// a function of the CLI's package.
type Adapter struct {
	// Name is the CLI's name, one of the session package's CLI constants.
	Name string
	// Discover lists the session files in the store env points at.
	Discover func(env session.Env) ([]session.Ref, []session.Warning)
	// Locate finds a session by id: its file, or the store holding it.
	Locate func(env session.Env, id string) (session.Ref, error)
	// Open decodes the session a Ref names (a file, or a session in a
	// database), following links the CLI keeps outside it (subagents, a
	// fork's parent history). A Ref made from a path alone has no ID.
	Open func(env session.Env, ref session.Ref) (*session.Session, error)
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
	// NewDecoder decodes a stream record by record.
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

	// Tools maps the CLI's tool names to universal ones.
	Tools map[string]session.Tool
	// Calls names the tool a model calls for a universal tool when it
	// drives the CLI.
	Calls map[session.Tool]string
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
	// TUI says how to drive the CLI's interactive UI under a supervisor.
	TUI *live.TUI
	// SessionID finds the session id in a headless run's output.
	SessionID func(stdout []byte) string
	// Failure finds the error a failed headless run reported.
	Failure func(stdout, stderr []byte) string

	// ToolArgs reads a native tool call into universal arguments
	// (session.Arg*); ToolCall writes universal arguments as a native
	// call. Either reports false for a tool with no counterpart.
	ToolArgs func(name string, input json.RawMessage) (session.Tool, map[string]any, bool)
	ToolCall func(tool session.Tool, args map[string]any) (string, json.RawMessage, bool)
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

// Writes reports whether stead writes sessions for the CLI.
func (a Adapter) Writes() bool { return a.Place != nil && a.NewEncoder != nil }

// Runs reports whether stead can run the CLI under its supervisor: it
// writes the CLI's sessions and drives its TUI.
func (a Adapter) Runs() bool { return a.Writes() && a.TUI != nil }

// Encoder writes a native session one entry at a time.
type Encoder interface {
	Encode(e *session.Entry) error
	Close() error
}

// Reads reports whether stead reads the CLI's sessions.
func (a Adapter) Reads() bool { return a.Discover != nil && a.SummarizeFile != nil && a.Open != nil }

// Decoder yields the events of a native session, one record at a time, and
// io.EOF at the end.
type Decoder interface {
	Decode() (session.Event, error)
}

// All lists every supported CLI. Each one's entry is in the file of its
// name.
var All = []Adapter{claudeAdapter, codexAdapter, geminiAdapter, opencodeAdapter, kimiAdapter}

// NativeCall writes a universal tool call as the first CLI's native call
// that accept takes (the model stub accepts one the request declared and
// whose schema the input fits).
func NativeCall(tool session.Tool, args map[string]any, accept func(name string, input json.RawMessage) bool) (string, json.RawMessage, bool) {
	for _, a := range All {
		if a.ToolCall == nil {
			continue
		}
		if name, input, ok := a.ToolCall(tool, args); ok && accept(name, input) {
			return name, input, true
		}
	}
	return "", nil, false
}

// fileLocate adapts a CLI that keeps one session per file.
func fileLocate(cli string, locate func(session.Env, string) (string, error)) func(session.Env, string) (session.Ref, error) {
	return func(env session.Env, id string) (session.Ref, error) {
		path, err := locate(env, id)
		if err != nil {
			return session.Ref{}, err
		}
		return session.Ref{CLI: cli, ID: id, Path: path}, nil
	}
}

// fileOpen adapts a CLI that keeps one session per file.
func fileOpen(open func(session.Env, string) (*session.Session, error)) func(session.Env, session.Ref) (*session.Session, error) {
	return func(env session.Env, ref session.Ref) (*session.Session, error) { return open(env, ref.Path) }
}

// NativeTools returns the names the CLIs give a universal tool, each once:
// first the tools models call for it (Calls), sorted, then every other
// name that maps to it (Tools), sorted. The model stub calls the first one
// a request declared.
func NativeTools(u session.Tool) []string {
	seen := map[string]bool{}
	var calls, others []string
	for _, a := range All {
		if name, ok := a.Calls[u]; ok && !seen[name] {
			seen[name] = true
			calls = append(calls, name)
		}
	}
	for _, a := range All {
		for name, t := range a.Tools {
			if t == u && !seen[name] {
				seen[name] = true
				others = append(others, name)
			}
		}
	}
	sort.Strings(calls)
	sort.Strings(others)
	return append(calls, others...)
}

var (
	indexOnce sync.Once
	index     map[string]int
)

func buildIndex() {
	index = make(map[string]int, len(All))
	for i, a := range All {
		if _, dup := index[a.Name]; dup {
			panic(fmt.Sprintf("adapters: %q registered twice", a.Name))
		}
		index[a.Name] = i
	}
}

// Lookup returns the adapter for the CLI named name.
func Lookup(name string) (Adapter, bool) {
	indexOnce.Do(buildIndex)
	i, ok := index[name]
	if !ok {
		return Adapter{}, false
	}
	return All[i], true
}

// Names lists the supported CLIs, sorted.
func Names() []string {
	names := make([]string, len(All))
	for i, a := range All {
		names[i] = a.Name
	}
	sort.Strings(names)
	return names
}
