package claude

import (
	"io"

	"github.com/stead-dev/stead/adapters/adapter"
	"github.com/stead-dev/stead/session"
)

// Adapter is what stead can do with Claude Code.
var Adapter = adapter.Adapter{
	Name:  session.Claude,
	Title: "Claude Code",
	Agent: "claude-code",
	Toolset: adapter.Toolset{
		Tools:    Tools,
		Calls:    Calls,
		ToolArgs: ToolArgs,
		ToolCall: ToolCall,
	},
	Reader: &adapter.Reader{
		Discover: Discover,
		Roots:    Roots,
		Locate:   adapter.FileLocate(session.Claude, Locate),
		Open:     adapter.FileOpen(Open),
		OpenOutline: func(_ session.Env, ref session.Ref, o session.ReadOptions) (*session.Session, bool, error) {
			s, err := OpenWith(ref.Path, o)
			return s, true, err
		},
		Read:          Read,
		NewDecoder:    func(r io.Reader) adapter.Decoder { return NewDecoder(r) },
		StreamDecoder: func(r io.Reader) adapter.Decoder { return NewStreamDecoder(r) },
		Summarize:     Summarize,
		SummarizeFile: SummarizeFile,
		Sniff:         Sniff,
	},
	Writer: &adapter.Writer{
		Place: Place,
		NewEncoder: func(w io.Writer, t session.Target, lost func(session.Loss)) adapter.Encoder {
			return NewEncoder(w, t, lost)
		},
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
