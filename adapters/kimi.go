package adapters

import (
	"io"

	"github.com/stead-dev/stead/adapters/kimi"
	"github.com/stead-dev/stead/session"
)

// kimiAdapter is what stead can do with Kimi (Kimi Code and the legacy kimi-cli).
var kimiAdapter = Adapter{
	Name:          session.Kimi,
	Discover:      kimi.Discover,
	Locate:        kimi.Locate,
	Open:          kimi.Open,
	Read:          kimi.Read,
	NewDecoder:    func(r io.Reader) Decoder { return kimi.NewDecoder(r) },
	Summarize:     kimi.Summarize,
	SummarizeFile: kimi.SummarizeFile,
	Sniff:         kimi.Sniff,
	Tools:         kimi.Tools,
	Calls:         kimi.Calls,
	Setup:         kimi.Setup,
	Model:         func(env session.Env, _ string) (string, string) { return kimi.ConfiguredModel(env) },
	Argv:          kimi.Argv,
	TUI:           &kimi.TUI,
	SessionID:     kimi.SessionID,
	Failure:       kimi.Failure,
	ToolArgs:      kimi.ToolArgs,
	ToolCall:      kimi.ToolCall,
	Place:         kimi.Place,
	NewEncoder: func(w io.Writer, t session.Target, lost func(session.Loss)) Encoder {
		return kimi.NewEncoder(w, t, lost)
	},
}
