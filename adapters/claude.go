package adapters

import (
	"io"

	"github.com/stead-dev/stead/adapters/claude"
	"github.com/stead-dev/stead/session"
)

// claudeAdapter is what stead can do with Claude Code.
var claudeAdapter = Adapter{
	Name:     session.Claude,
	Discover: claude.Discover,
	Locate:   fileLocate(session.Claude, claude.Locate),
	Open:     fileOpen(claude.Open),
	OpenOutline: func(_ session.Env, ref session.Ref, o session.ReadOptions) (*session.Session, bool, error) {
		s, err := claude.OpenWith(ref.Path, o)
		return s, true, err
	},
	Read:          claude.Read,
	NewDecoder:    func(r io.Reader) Decoder { return claude.NewDecoder(r) },
	StreamDecoder: func(r io.Reader) Decoder { return claude.NewStreamDecoder(r) },
	Summarize:     claude.Summarize,
	SummarizeFile: claude.SummarizeFile,
	Sniff:         claude.Sniff,
	Tools:         claude.Tools,
	Calls:         claude.Calls,
	Setup:         claude.Setup,
	Model:         claude.ConfiguredModel,
	Argv:          claude.Argv,
	TUI:           &claude.TUI,
	SessionID:     claude.SessionID,
	Failure:       claude.Failure,
	ToolArgs:      claude.ToolArgs,
	ToolCall:      claude.ToolCall,
	Place:         claude.Place,
	NewEncoder: func(w io.Writer, t session.Target, lost func(session.Loss)) Encoder {
		return claude.NewEncoder(w, t, lost)
	},
}
