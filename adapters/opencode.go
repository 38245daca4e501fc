package adapters

import (
	"github.com/stead-dev/stead/adapters/opencode"
	"github.com/stead-dev/stead/session"
)

// opencodeAdapter is what stead can do with OpenCode.
var opencodeAdapter = Adapter{
	Name:      session.OpenCode,
	Tools:     opencode.Tools,
	Setup:     opencode.Setup,
	Argv:      opencode.Argv,
	SessionID: opencode.SessionID,
	Failure:   opencode.Failure,
}
