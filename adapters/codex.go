package adapters

import (
	"io"

	"github.com/stead-dev/stead/adapters/codex"
	"github.com/stead-dev/stead/session"
)

// codexAdapter is what stead can do with Codex CLI.
var codexAdapter = Adapter{
	Name:     session.Codex,
	Discover: codex.Discover,
	Locate:   fileLocate(session.Codex, codex.Locate),
	Open:     fileOpen(codex.Open),
	OpenOutline: func(env session.Env, ref session.Ref, o session.ReadOptions) (*session.Session, bool, error) {
		return codex.OpenWith(env, ref.Path, o)
	},
	Read:          codex.Read,
	NewDecoder:    func(r io.Reader) Decoder { return codex.NewDecoder(r) },
	Summarize:     codex.Summarize,
	SummarizeFile: codex.SummarizeFile,
	Sniff:         codex.Sniff,
	Tools:         codex.Tools,
	Calls:         codex.Calls,
	Setup:         codex.Setup,
	Model:         func(env session.Env, _ string) (string, string) { return codex.ConfiguredModel(env) },
	Argv:          codex.Argv,
	TUI:           &codex.TUI,
	SessionID:     codex.SessionID,
	Failure:       codex.Failure,
	ToolArgs:      codex.ToolArgs,
	ToolCall:      codex.ToolCall,
	Place:         codex.Place,
	NewEncoder: func(w io.Writer, t session.Target, lost func(session.Loss)) Encoder {
		return codex.NewEncoder(w, t, lost)
	},
}
