package codex

import (
	"io"

	"github.com/stead-dev/stead/adapters/adapter"
	"github.com/stead-dev/stead/session"
)

// Adapter is what stead can do with Codex CLI.
var Adapter = adapter.Adapter{
	Name:    session.Codex,
	Title:   "Codex CLI",
	Aliases: []string{"codex-cli"},
	Toolset: adapter.Toolset{
		Tools:    Tools,
		Calls:    Calls,
		ToolArgs: ToolArgs,
		ToolCall: ToolCall,
	},
	Reader: &adapter.Reader{
		Discover: Discover,
		Roots:    Roots,
		Locate:   adapter.FileLocate(session.Codex, Locate),
		Open:     adapter.FileOpen(Open),
		OpenOutline: func(env session.Env, ref session.Ref, o session.ReadOptions) (*session.Session, bool, error) {
			return OpenWith(env, ref.Path, o)
		},
		Read:          Read,
		NewDecoder:    func(r io.Reader) adapter.Decoder { return NewDecoder(r) },
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
		Model:     func(env session.Env, _ string) (string, string) { return ConfiguredModel(env) },
		Argv:      Argv,
		SessionID: SessionID,
		Failure:   Failure,
		TUI:       &TUI,
	},
}
