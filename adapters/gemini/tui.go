package gemini

import (
	"strings"
	"time"

	"github.com/stead-dev/stead/session"
)

// TUI drives Gemini CLI's interactive UI. Its terminal title says its
// state ("◇  Ready", "✦  Working…", "✋  Action Required"), but keys typed
// before it turns bracketed paste on lose characters, so readiness waits
// for that. A prompt goes as a bracketed paste; an Enter within 30 ms of
// it is a newline, so Enter waits 150 ms. Two Ctrl-C quit it.
var TUI = session.TUI{
	Argv:       TUIArgv,
	Paste:      true,
	Settle:     300 * time.Millisecond,
	EnterAfter: 150 * time.Millisecond,
	Quit:       []session.Key{{Bytes: "\x03", Wait: 300 * time.Millisecond}, {Bytes: "\x03", Wait: 3 * time.Second}},
	Title:      titleState,
	// Resuming, it writes its startup records 2 to 3 s in and clears its
	// input box then: keys typed before are lost (measured under load).
	RecordReady: true,
}

// TUIArgv opens l.Resume in the interactive UI.
func TUIArgv(l session.Launch) []string {
	model := l.Model
	if model == "" {
		model = DefaultModel
	}
	args := []string{"-m", model}
	if l.Auto {
		args = append(args, "--yolo")
	}
	if l.Resume != "" {
		args = append(args, "--resume", l.Resume)
	}
	return args
}

func titleState(title string) (session.RunState, string, bool) {
	t := strings.TrimSpace(title)
	switch {
	case strings.HasPrefix(t, "◇"):
		return session.RunReady, "", true
	case strings.HasPrefix(t, "✋"):
		return session.RunWaiting, "approval", true
	case strings.HasPrefix(t, "✦"), strings.HasPrefix(t, "⏲"):
		return session.RunBusy, "", true
	}
	return "", "", false
}
