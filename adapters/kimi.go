package adapters

import (
	"github.com/stead-dev/stead/adapters/kimi"
	"github.com/stead-dev/stead/session"
)

// kimiAdapter is what stead can do with Kimi (Kimi Code and the legacy kimi-cli).
var kimiAdapter = Adapter{
	Name:      session.Kimi,
	Tools:     kimi.Tools,
	Setup:     kimi.Setup,
	Argv:      kimi.Argv,
	SessionID: kimi.SessionID,
	Failure:   kimi.Failure,
}
