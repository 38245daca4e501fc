package opencode

import (
	"io"

	"github.com/stead-dev/stead/adapters/adapter"
	"github.com/stead-dev/stead/session"
)

// Adapter is what stead can do with OpenCode. Its sessions live in a
// SQLite database, so a Ref names a session inside a file: Locate returns
// {ID: the session, Path: the database} and Open reads that session (or,
// given an export or a storage/ session file, the session it holds).
// NewDecoder is nil: a database is not a stream of records, and an export
// is one JSON document that Read decodes a message at a time.
//
// Writing goes through the export format: the encoder writes what
// `opencode export` prints (and `opencode import` reads), and Commit
// inserts it into the database, creating the database when there is none,
// so installing needs no opencode binary.
var Adapter = adapter.Adapter{
	Name:  session.OpenCode,
	Title: "OpenCode",
	Toolset: adapter.Toolset{
		Tools:    Tools,
		Calls:    Calls,
		ToolArgs: ToolArgs,
		ToolCall: ToolCall,
	},
	Reader: &adapter.Reader{
		Discover:         Discover,
		Roots:            Roots,
		Locate:           Locate,
		Open:             Open,
		OpenConversation: OpenConversation,
		OpenSummarized:   OpenSummarized,
		Read:             Read,
		Summarize:        Summarize,
		SummarizeFile:    SummarizeFile,
		Sniff:            Sniff,
	},
	Writer: &adapter.Writer{
		Place: Place,
		NewEncoder: func(w io.Writer, t session.Target, lost func(session.Loss)) adapter.Encoder {
			return NewEncoder(w, t, lost)
		},
		Commit: Commit,
	},
	Driver: &adapter.Driver{
		Setup:     Setup,
		Model:     ConfiguredModel,
		Argv:      Argv,
		SessionID: SessionID,
		Failure:   Failure,
		TUI:       &TUI,
	},
}
