package adapters

import (
	"io"

	"github.com/stead-dev/stead/adapters/opencode"
	"github.com/stead-dev/stead/session"
)

// opencodeAdapter is what stead can do with OpenCode. Its sessions live in
// a SQLite database, so a Ref names a session inside a file: Locate returns
// {ID: the session, Path: the database} and Open reads that session (or,
// given an export or a storage/ session file, the session it holds).
// NewDecoder is nil: a database is not a stream of records, and an export
// is one JSON document that Read decodes a message at a time.
//
// Writing goes through the export format: the encoder writes what
// `opencode export` prints (and `opencode import` reads), and Commit
// inserts it into the database, creating the database when there is none,
// so installing needs no opencode binary.
var opencodeAdapter = Adapter{
	Name:          session.OpenCode,
	Discover:      opencode.Discover,
	Locate:        opencode.Locate,
	Open:          opencode.Open,
	Read:          opencode.Read,
	Summarize:     opencode.Summarize,
	SummarizeFile: opencode.SummarizeFile,
	Sniff:         opencode.Sniff,
	Tools:         opencode.Tools,
	Calls:         opencode.Calls,
	Setup:         opencode.Setup,
	Model:         opencode.ConfiguredModel,
	Argv:          opencode.Argv,
	TUI:           &opencode.TUI,
	SessionID:     opencode.SessionID,
	Failure:       opencode.Failure,
	ToolArgs:      opencode.ToolArgs,
	ToolCall:      opencode.ToolCall,
	Place:         opencode.Place,
	NewEncoder: func(w io.Writer, t session.Target, lost func(session.Loss)) Encoder {
		return opencode.NewEncoder(w, t, lost)
	},
	Commit: opencode.Commit,
}
