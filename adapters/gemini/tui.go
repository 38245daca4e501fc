package gemini

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// TUI drives Gemini CLI's interactive UI. Its terminal title says its
// state ("◇  Ready", "✦  Working…", "✋  Action Required"), but keys typed
// before it turns bracketed paste on lose characters, so readiness waits
// for that. A prompt goes as a bracketed paste; an Enter within 30 ms of
// it is a newline, so Enter waits 150 ms. Two Ctrl-C quit it.
//
// A model request that fails with a 5xx or 429 is retried
// (general.maxAttempts, with backoff), then handed to the UI, which with
// ui.errorVerbosity "low" (the default) starts over at once, for ever,
// behind "Thinking... (esc to cancel, Ns)" (measured: 20 to 45 requests a
// second with maxAttempts 1), and with "full" asks whether to keep trying
// (testdata/tui/model_error_keep_trying.txt; it asks that too for a model
// that does not exist, whatever the setting). Only its debug log says the
// first: a supervised run has one (GEMINI_DEBUG_LOG_FILE) and waits when
// it says the attempts are used up; the question reads as waiting too. A
// supervisor nobody watches then gives up: Stop on the question (the CLI
// records "[API Error: ...]"), Esc otherwise (it records "Request
// cancelled."), and the turn ends in the error.
var TUI = live.TUI{
	Argv:       TUIArgv,
	Paste:      true,
	Settle:     300 * time.Millisecond,
	EnterAfter: 150 * time.Millisecond,
	Quit:       []live.Key{{Bytes: "\x03", Wait: 300 * time.Millisecond}, {Bytes: "\x03", Wait: 3 * time.Second}},
	Title:      titleState,
	Screen:     screenState,
	Dialogs:    giveUp,
	DebugLog:   debugLog,
	Failed:     failed,
	Cancel:     []live.Key{{Bytes: "\x1b", Wait: time.Second}},
	// Resuming, it writes its startup records 2 to 3 s in and clears its
	// input box then: keys typed before are lost (measured under load).
	RecordReady: true,
}

// giveUp are the variants of the question Gemini CLI asks when a model
// request failed for good (ProQuotaDialog): Stop is always its last
// choice, which Up reaches from the first. With a named model and an API
// key, as stead runs it, the choices are Keep trying and Stop (measured
// on a 500 and a 404); the others offer a switch to a fallback model.
var giveUp = []live.Dialog{
	stopAt("2", "1. Keep trying"),
	stopAt("2", "1. Switch to "),
	stopAt("3", "1. Keep trying"),
	stopAt("3", "1. Switch to "),
}

func stopAt(n, first string) live.Dialog {
	return live.Dialog{
		Name:     "keep trying a failed model request",
		Match:    []string{first, n + ". Stop"},
		Select:   []live.Key{{Bytes: "\x1b[A", Wait: 300 * time.Millisecond}},
		Selected: "● " + n + ". Stop",
		Confirm:  live.Key{Bytes: "\r", Wait: 500 * time.Millisecond},
		GiveUp:   true,
	}
}

// screenState reads the question a failed model request leaves on the
// screen; the title still says working then. The rest comes from the
// title.
func screenState(lines []string) (live.RunState, string, bool) {
	text := strings.Join(lines, "\n")
	for _, d := range giveUp {
		if strings.Contains(text, d.Match[0]) && strings.Contains(text, d.Match[1]) {
			return live.RunWaiting, "the model failed: " + question(lines, d.Match[0]), true
		}
	}
	return "", "", false
}

// question is the first line of the box the choice first is in: the
// last box that starts above it (the history above may hold others).
func question(lines []string, first string) string {
	at := len(lines)
	for i, l := range lines {
		if strings.Contains(l, first) {
			at = i
		}
	}
	top := -1
	for i := 0; i < at; i++ {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "╭") {
			top = i
		}
	}
	for i := top + 1; top >= 0 && i < at; i++ {
		if t := strings.TrimSpace(strings.Trim(strings.TrimSpace(lines[i]), "│")); t != "" {
			return t
		}
	}
	return "it asks whether to keep trying"
}

// debugLog has Gemini CLI write its debug log into the run's directory
// (GEMINI_DEBUG_LOG_FILE), or follows the one the user has it write.
func debugLog(env session.Env, dir string) ([]string, string) {
	if p := env.Get("GEMINI_DEBUG_LOG_FILE"); p != "" {
		return nil, p
	}
	p := filepath.Join(dir, "gemini-debug.log")
	return []string{"GEMINI_DEBUG_LOG_FILE=" + p}, p
}

// failed reads the line Gemini CLI logs when a request that failed with a
// 5xx or 429 has used up its attempts, before the UI asks or retries
// again (testdata/tui/model_error_debug.log):
//
//	[<time>] [WARN] Attempt 2 failed: {"error":{"code":500,...}}. Max attempts reached
func failed(line string) (string, bool) {
	const tail = ". Max attempts reached"
	_, rest, ok := strings.Cut(line, "] [WARN] Attempt ")
	if !ok || !strings.HasSuffix(strings.TrimSpace(rest), tail) {
		return "", false
	}
	_, msg, ok := strings.Cut(strings.TrimSuffix(strings.TrimSpace(rest), tail), " failed: ")
	if !ok {
		msg = "no message"
	}
	var e struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Status  string `json:"status"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(msg), &e) == nil && e.Error.Code != 0 {
		msg = fmt.Sprintf("HTTP %d %s: %s", e.Error.Code, e.Error.Status, e.Error.Message)
	}
	if len(msg) > 300 {
		cut := 300
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return "the model request failed on every attempt (" + msg + "); Gemini CLI keeps retrying it", true
}

// TUIArgv opens l.Resume in the interactive UI.
func TUIArgv(l live.Launch) []string {
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

func titleState(title string) (live.RunState, string, bool) {
	t := strings.TrimSpace(title)
	switch {
	case strings.HasPrefix(t, "◇"):
		return live.RunReady, "", true
	case strings.HasPrefix(t, "✋"):
		return live.RunWaiting, "approval", true
	case strings.HasPrefix(t, "✦"), strings.HasPrefix(t, "⏲"):
		return live.RunBusy, "", true
	}
	return "", "", false
}
