package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/stead-dev/stead/session"
)

func timelineOf(t *testing.T, env session.Env, ref string) []session.Entry {
	t.Helper()
	s, err := session.Unmarshal([]byte(mustRun(t, env, "session", "show", ref, "--json", "--no-native")))
	if err != nil {
		t.Fatal(err)
	}
	return s.Timeline
}

// TestForkAtAnEntry forks a real Claude Code session at an entry in the
// middle, into Claude itself and into Codex: each fork, read back from
// its store, ends exactly there, and the source is untouched.
func TestForkAtAnEntry(t *testing.T) {
	env := allHomes(t)
	src := timelineOf(t, env, claudeSession)
	if len(src) < 4 {
		t.Fatalf("the source has %d entries", len(src))
	}
	// The middle user or assistant text.
	at := -1
	for i := len(src) / 2; i < len(src); i++ {
		if (src[i].Type == session.User || src[i].Type == session.Assistant) && src[i].Content != "" {
			at = i
			break
		}
	}
	if at < 0 || at == len(src)-1 {
		t.Fatalf("no entry to fork at in the middle of %d", len(src))
	}
	want := src[at].Content
	resume := regexp.MustCompile(`(claude --resume|codex resume) ([0-9a-f-]{36})`)
	for _, to := range []string{"claude", "codex"} {
		t.Run(to, func(t *testing.T) {
			var rep struct {
				Source session.Origin `json:"source"`
				Resume string         `json:"resumeCommand"`
			}
			out := mustRun(t, env, "session", "fork", claudeSession, "--at", src[at].ID[:12], "--to", to, "--install", "--json", "--cwd", t.TempDir())
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Source.At != src[at].ID {
				t.Errorf("the fork records it was cut at %q, want %q", rep.Source.At, src[at].ID)
			}
			m := resume.FindStringSubmatch(rep.Resume)
			if m == nil {
				t.Fatalf("no resume command in %q", rep.Resume)
			}
			got := timelineOf(t, env, to+":"+m[2])
			var last *session.Entry
			for i := range got {
				if (got[i].Type == session.User || got[i].Type == session.Assistant) && got[i].Content != "" {
					last = &got[i]
				}
			}
			if last == nil || last.Content != want {
				t.Errorf("the fork's last text is %v, want %q", last, want)
			}
			for _, e := range got {
				for _, later := range src[at+1:] {
					if later.Content != "" && e.Content == later.Content && later.Content != want {
						t.Errorf("the fork holds a later entry: %q", later.Content)
					}
				}
			}
		})
	}
	if after := timelineOf(t, env, claudeSession); len(after) != len(src) {
		t.Errorf("the source changed: %d entries, was %d", len(after), len(src))
	}
}

func TestForkAtErrors(t *testing.T) {
	env := allHomes(t)
	for at, want := range map[string]string{
		"no-such-entry": "no entry \"no-such-entry\"",
		"":              "", // the whole history
	} {
		args := []string{"session", "fork", claudeSession, "-o", t.TempDir() + "/fork.jsonl"}
		if at != "" {
			args = append(args, "--at", at)
		}
		_, errOut, code := run(t, env, args...)
		if want == "" {
			if code != ExitOK {
				t.Errorf("fork of the whole history: exit %d: %s", code, errOut)
			}
			continue
		}
		if code != ExitUsage || !strings.Contains(errOut, want) {
			t.Errorf("--at %q: exit %d, %q; want usage error with %q", at, code, errOut, want)
		}
	}
}

// TestForkToACLIStedDoesNotWrite: a session whose last entries no CLI
// stead writes made (one authored in the universal format, imported as a
// run) forks only with --to, and says so, instead of crashing.
func TestForkToACLIStedDoesNotWrite(t *testing.T) {
	var errOut bytes.Buffer
	f := &Factory{IO: &IOStreams{Out: &bytes.Buffer{}, ErrOut: &errOut}, Env: session.Env{Home: t.TempDir()}}
	s := &session.Session{ID: "u1", Source: session.Source{CLI: session.Universal},
		Timeline: []session.Entry{{ID: "e1", Type: session.User, Content: "hello"}}}
	err := forkSession(&ForkOptions{ConvertOptions: ConvertOptions{Factory: f, Install: true}}, s)
	var fe *FlagError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "give --to") {
		t.Fatalf("fork of a universal session with no --to: %v; want a usage error asking for --to", err)
	}
}
