package adapters

import (
	"io"

	"github.com/stead-dev/stead/adapters/gemini"
	"github.com/stead-dev/stead/session"
)

// geminiAdapter is what stead can do with Gemini CLI.
var geminiAdapter = Adapter{
	Name:          session.Gemini,
	Discover:      gemini.Discover,
	Locate:        gemini.Locate,
	Open:          gemini.Open,
	Read:          gemini.Read,
	NewDecoder:    func(r io.Reader) Decoder { return gemini.NewDecoder(r) },
	Summarize:     gemini.Summarize,
	SummarizeFile: gemini.SummarizeFile,
	Sniff:         gemini.Sniff,
	Tools:         gemini.Tools,
	Calls:         gemini.Calls,
	Setup:         gemini.Setup,
	Model:         gemini.ConfiguredModel,
	Argv:          gemini.Argv,
	TUI:           &gemini.TUI,
	SessionID:     gemini.SessionID,
	Failure:       gemini.Failure,
	ToolArgs:      gemini.ToolArgs,
	ToolCall:      gemini.ToolCall,
	Place:         gemini.Place,
	NewEncoder: func(w io.Writer, t session.Target, lost func(session.Loss)) Encoder {
		return gemini.NewEncoder(w, t, lost)
	},
}
