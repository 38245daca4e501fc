package main

import (
	"encoding/json"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// allHomes is a store of each CLI (samples.AllCLIs).
func allHomes(t *testing.T) session.Env { return samples.AllCLIs(t) }

func layOut(t *testing.T, txtarPath, dir string) { samples.LayOut(t, txtarPath, dir) }

func openCodeDB(t *testing.T, txtarPath, path string) { samples.OpenCodeDB(t, txtarPath, path) }

// TestListAndShowAllCLIs lists the stores of all five CLIs at once and
// shows a session of each new reader as universal JSON.
func TestListAndShowAllCLIs(t *testing.T) {
	env := allHomes(t)
	var got listed
	if err := json.Unmarshal([]byte(mustRun(t, env, "session", "list", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	// (The Claude and Codex cases hold deliberately malformed lines.)
	for _, w := range got.Warnings {
		if !strings.Contains(w.Path, "/claude/") && !strings.Contains(w.Path, "/codex/") {
			t.Errorf("warning: %v", w)
		}
	}
	byCLI := map[string]int{}
	for _, s := range got.Sessions {
		byCLI[s.CLI]++
	}
	for _, a := range adapters.All {
		if a.Reads() && byCLI[a.Name] == 0 {
			t.Errorf("no %s session listed; listed %v", a.Name, byCLI)
		}
	}

	for _, ref := range []string{
		"gemini:dcbf5910-a865-4dd8-abbd-d405de752b46",
		"opencode:ses_dfff632e1ffeNW6YJ7eJ603fa4",
		"kimi:session_c977f4b3-f78a-4432-bcc2-6713f58ac0fd",
		"kimi:3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f", // legacy kimi-cli, which stores no model name
	} {
		t.Run(strings.ReplaceAll(ref, ":", "_"), func(t *testing.T) {
			out := mustRun(t, env, "session", "show", ref, "--json")
			usftest.Validate(t, []byte(out))
			s, err := session.Unmarshal([]byte(out))
			if err != nil {
				t.Fatal(err)
			}
			cli, id, _ := strings.Cut(ref, ":")
			if s.Source.CLI != cli || s.ID == "" || !strings.Contains(s.ID+s.Source.OriginalID, id) {
				t.Errorf("source %+v, id %q; want %s", s.Source, s.ID, ref)
			}
			counts := map[session.EntryType]int{}
			calls := map[string]bool{}
			thinking := false
			var usage session.Usage
			for _, e := range s.Timeline {
				counts[e.Type]++
				thinking = thinking || e.Thinking != ""
				if e.Usage != nil {
					usage.Add(*e.Usage)
				}
				switch e.Type {
				case session.ToolCall:
					calls[e.ID] = true
				case session.ToolResult:
					if !calls[e.CallID] {
						t.Errorf("result %s pairs with no call", e.CallID)
					}
				}
			}
			if counts[session.User] == 0 || counts[session.Assistant] == 0 || counts[session.ToolCall] == 0 ||
				counts[session.ToolResult] != counts[session.ToolCall] {
				t.Errorf("timeline counts %v: want users, assistants, and every call with its result", counts)
			}
			if !thinking {
				t.Error("no thinking")
			}
			if s.Model.Model == "" && !strings.HasPrefix(id, "3f2b8c1e") {
				t.Error("no model")
			}
			if usage.Input == 0 || usage.Output == 0 {
				t.Errorf("usage %+v", usage)
			}
		})
	}
}
