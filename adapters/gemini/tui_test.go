package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

func screen(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "tui", file))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(data), "\n")
}

// The screens are Gemini CLI 0.61.0's under stead's PTY against the model
// stub: a request failing with 500 on every try, with ui.errorVerbosity
// "full" (the question, Stop chosen with Up, the error once stopped) and
// "low" (its default: retries behind the spinner, nothing to read), and
// a model the stub does not serve (404).
func TestModelErrorScreens(t *testing.T) {
	for _, tc := range []struct {
		file   string
		want   live.RunState
		detail string
	}{
		{"model_error_keep_trying.txt", live.RunWaiting, "the model failed: We are currently experiencing high demand."},
		{"model_error_stop_chosen.txt", live.RunWaiting, "the model failed: We are currently experiencing high demand."},
		{"model_not_found.txt", live.RunWaiting, `the model failed: Model "claude-sonnet-4-5" was not found or is invalid.`},
		{"model_error_stopped.txt", "", ""},
		{"model_error_silent_retries.txt", "", ""},
	} {
		st, detail, ok := screenState(screen(t, tc.file))
		if !ok {
			st = ""
		}
		if st != tc.want || detail != tc.detail {
			t.Errorf("%s: %q (%q), want %q (%q)", tc.file, st, detail, tc.want, tc.detail)
		}
	}
	// A resumed session's history above has boxes of its own (a tool
	// call): the question is in the last one.
	history := []string{"╭──────────────────╮", "│ ✓  Shell echo hello-live │", "│ hello-live │", "╰──────────────────╯"}
	_, detail, _ := screenState(append(history, screen(t, "model_not_found.txt")...))
	if detail != `the model failed: Model "claude-sonnet-4-5" was not found or is invalid.` {
		t.Errorf("under a history: %q", detail)
	}
}

// TestGiveUpDialog: exactly one of the dialogs matches the question, and
// the screen shows its Selected once Up chose Stop, not before.
func TestGiveUpDialog(t *testing.T) {
	asking := strings.Join(screen(t, "model_error_keep_trying.txt"), "\n")
	chosen := strings.Join(screen(t, "model_error_stop_chosen.txt"), "\n")
	var found []live.Dialog
	for _, d := range TUI.Dialogs {
		all := true
		for _, m := range d.Match {
			all = all && strings.Contains(asking, m)
		}
		if all {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d dialogs match the question", len(found))
	}
	d := found[0]
	if !d.GiveUp || d.Trust {
		t.Errorf("dialog %+v", d)
	}
	if strings.Contains(asking, d.Selected) || !strings.Contains(chosen, d.Selected) {
		t.Errorf("Selected %q: on the question %v, once chosen %v", d.Selected, strings.Contains(asking, d.Selected), strings.Contains(chosen, d.Selected))
	}
	if len(d.Select) != 1 || d.Select[0].Bytes != "\x1b[A" || d.Confirm.Bytes != "\r" {
		t.Errorf("keys %+v then %+v", d.Select, d.Confirm)
	}
}

// TestFailedLine: of the debug log, only the line that says a request
// used up its attempts says the model failed, with the API's error.
func TestFailedLine(t *testing.T) {
	var got []string
	for _, l := range screen(t, "model_error_debug.log") {
		if why, ok := failed(l); ok {
			got = append(got, why)
		}
	}
	want := "the model request failed on every attempt (HTTP 500 INTERNAL: stead stub: fault 500 injected at turn 1); Gemini CLI keeps retrying it"
	if len(got) != 3 || got[0] != want || got[2] != want {
		t.Errorf("failures %q, want 3 of %q", got, want)
	}
	if why, ok := failed("[2026-11-26T03:43:10.129Z] [WARN] Attempt 10 failed: Quota exceeded for quota metric. Max attempts reached"); !ok || !strings.Contains(why, "(Quota exceeded for quota metric)") {
		t.Errorf("a message that is not JSON: %q %v", why, ok)
	}
}

func TestDebugLog(t *testing.T) {
	vars, path := debugLog(session.Env{}, "/run/dir")
	if path != "/run/dir/gemini-debug.log" || len(vars) != 1 || vars[0] != "GEMINI_DEBUG_LOG_FILE="+path {
		t.Errorf("%q %q", vars, path)
	}
	// The user's own debug log is followed, not moved.
	vars, path = debugLog(session.Env{Vars: map[string]string{"GEMINI_DEBUG_LOG_FILE": "/home/me/g.log"}}, "/run/dir")
	if path != "/home/me/g.log" || vars != nil {
		t.Errorf("%q %q", vars, path)
	}
}
