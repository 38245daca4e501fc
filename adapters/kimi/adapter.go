package kimi

import (
	"io"

	"github.com/stead-dev/stead/adapters/adapter"
	"github.com/stead-dev/stead/session"
)

// Adapter is what stead can do with Kimi (Kimi Code and the legacy
// kimi-cli).
var Adapter = adapter.Adapter{
	Name:    session.Kimi,
	Title:   "Kimi Code",
	Aliases: []string{"kimi-cli"},
	Toolset: adapter.Toolset{
		Tools:    Tools,
		Calls:    Calls,
		ToolArgs: ToolArgs,
		ToolCall: ToolCall,
	},
	Reader: &adapter.Reader{
		Discover:      Discover,
		Roots:         Roots,
		Locate:        Locate,
		Open:          Open,
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
