package claude

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"time"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// TUI drives Claude Code's interactive UI. It takes input once it has
// turned bracketed paste on; it keeps its live state in
// $CLAUDE_CONFIG_DIR/sessions/<pid>.json ("idle", "busy", "waiting"); two
// Ctrl-C on an idle prompt quit it with code 0.
var TUI = live.TUI{
	Argv:       TUIArgv,
	Paste:      true,
	Settle:     300 * time.Millisecond,
	EnterAfter: 150 * time.Millisecond,
	Quit:       []live.Key{{Bytes: "\x03", Wait: 400 * time.Millisecond}, {Bytes: "\x03", Wait: 3 * time.Second}},
	StatusFile: func(env session.Env, pid int) string {
		return filepath.Join(Root(env), "sessions", strconv.Itoa(pid)+".json")
	},
	FileState: fileState,
	// The status file appears once the prompt is up, after the
	// folder-trust dialog (measured: none while it shows).
	StatusReady: true,
	Dialogs: []live.Dialog{{
		Name:     "trust the project folder",
		Match:    []string{"Yes, I trust this folder", "No, exit"},
		Select:   []live.Key{{Bytes: "\x1b[B", Wait: 300 * time.Millisecond}},
		Selected: "❯ Yes, I trust this folder",
		Confirm:  live.Key{Bytes: "\r", Wait: 500 * time.Millisecond},
		Trust:    true,
	}},
}

// TUIArgv opens l.Resume in the interactive UI; with l.Auto every tool
// runs without asking.
func TUIArgv(l live.Launch) []string {
	var args []string
	if l.Resume != "" {
		args = append(args, "--resume", l.Resume)
	}
	if l.Model != "" {
		args = append(args, "--model", l.Model)
	}
	if l.Auto {
		args = append(args, "--dangerously-skip-permissions")
	}
	return args
}

func fileState(data []byte) (live.RunState, string, bool) {
	var f struct {
		Status     string `json:"status"`
		WaitingFor string `json:"waitingFor"`
	}
	if json.Unmarshal(data, &f) != nil {
		return "", "", false
	}
	switch f.Status {
	case "idle":
		return live.RunReady, "", true
	case "busy":
		return live.RunBusy, "", true
	case "waiting":
		return live.RunWaiting, f.WaitingFor, true
	}
	return "", "", false
}
