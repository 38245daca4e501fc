package adapters

import (
	"github.com/stead-dev/stead/adapters/gemini"
	"github.com/stead-dev/stead/session"
)

// geminiAdapter is what stead can do with Gemini CLI.
var geminiAdapter = Adapter{
	Name:      session.Gemini,
	Tools:     gemini.Tools,
	Setup:     gemini.Setup,
	Argv:      gemini.Argv,
	SessionID: gemini.SessionID,
	Failure:   gemini.Failure,
}
