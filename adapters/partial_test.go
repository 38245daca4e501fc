package adapters_test

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/session"
)

// TestIncompleteLastLine appends half a record, without its newline, to a
// session file of each CLI whose sessions are JSON Lines. While the file
// is being written (modified just now) neither a summary (list, stats)
// nor a full read (show, convert) reports the line; once it has stayed
// incomplete (modified a minute ago) both report it as an incomplete last
// line, naming the file and line, and a summary counts it skipped. A
// stream (no file to judge) reports it too.
func TestIncompleteLastLine(t *testing.T) {
	cases := map[string]string{
		session.Claude: "claude/testdata/tui-session.txtar",
		session.Codex:  "codex/testdata/tui-no-daemon.txtar",
		session.Gemini: "gemini/testdata/e2e-conversation.txtar",
		session.Kimi:   "kimi/testdata/code-e2e-conversation.txtar",
	}
	for cli, c := range cases {
		t.Run(cli, func(t *testing.T) {
			a, _ := adapters.Lookup(cli)
			env, ref := samples.Layout(t, a, c)
			env.Vars = map[string]string{"CODEX_HOME": env.Home, "KIMI_CODE_HOME": env.Home, "GEMINI_CLI_HOME": env.Home}
			data, err := os.ReadFile(ref.Path)
			if err != nil {
				t.Fatal(err)
			}
			last := strings.Count(string(data), "\n") + 1
			half := `{"type":"user","timestamp":"2026-11-21T21:40:00.000Z","message":{"role":"user","content":"half a rec`
			if err := os.WriteFile(ref.Path, append(data, half...), 0o644); err != nil {
				t.Fatal(err)
			}
			check := func(t *testing.T, growing bool) {
				for _, d := range []session.Detail{session.DetailList, session.DetailFull} {
					sum, err := a.SummarizeFile(ref, d)
					if err != nil {
						t.Fatal(err)
					}
					if got := incomplete(sum.Warnings, "", last); got != !growing || sum.Skipped != countIf(!growing) {
						t.Errorf("summary (detail %v): incomplete line %d reported %v, %d lines skipped; warnings %v", d, last, got, sum.Skipped, sum.Warnings)
					}
				}
				s, err := a.Open(env, ref)
				if err != nil {
					t.Fatal(err)
				}
				if got := incomplete(s.Warnings, ref.Path, last); got != !growing {
					t.Errorf("open: incomplete line %d of %s reported %v; warnings %v", last, ref.Path, got, s.Warnings)
				}
			}
			t.Run("being written", func(t *testing.T) { check(t, true) })
			old := time.Now().Add(-time.Minute)
			if err := os.Chtimes(ref.Path, old, old); err != nil {
				t.Fatal(err)
			}
			t.Run("stays incomplete", func(t *testing.T) { check(t, false) })
			t.Run("stream", func(t *testing.T) {
				f, err := os.Open(ref.Path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				s, err := a.Read(f)
				if err != nil {
					t.Fatal(err)
				}
				if !incomplete(s.Warnings, "", last) {
					t.Errorf("a stream's incomplete line %d not reported; warnings %v", last, s.Warnings)
				}
				if a.StreamDecoder == nil {
					return
				}
				f.Seek(0, io.SeekStart)
				dec := a.StreamDecoder(f)
				var warns []session.Warning
				for {
					ev, err := dec.Decode()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					if ev.Warning != nil {
						warns = append(warns, *ev.Warning)
					}
				}
				if !incomplete(warns, "", last) {
					t.Errorf("the stream decoder did not report the incomplete line %d; warnings %v", last, warns)
				}
			})
		})
	}
}

// incomplete reports whether warns hold one for an incomplete last line
// at line (and path, when given).
func incomplete(warns []session.Warning, path string, line int) bool {
	for _, w := range warns {
		if w.Line == line && strings.Contains(w.Message, "incomplete last line") && (path == "" || w.Path == path) {
			return true
		}
	}
	return false
}

func countIf(b bool) int {
	if b {
		return 1
	}
	return 0
}
