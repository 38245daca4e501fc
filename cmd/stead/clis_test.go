package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/session"
)

// TestHelpNamesEveryCLI: the help that says which CLIs stead knows is
// made from the registry, so each CLI is in it without an edit: stead's
// long help, the stub's (the CLIs it serves) and --cli.
func TestHelpNamesEveryCLI(t *testing.T) {
	f := &Factory{}
	root := strings.Join(strings.Fields(newRootCmd(f).Long), " ")
	stub := strings.Join(strings.Fields(newStubCmd(f, nil).Long), " ")
	list := newListCmd(f, nil)
	cliFlag := list.Flags().Lookup("cli")
	for _, a := range adapters.All {
		if !strings.Contains(root, a.Title) {
			t.Errorf("stead --help does not name %s", a.Title)
		}
		if launchable(a) && !strings.Contains(stub, a.Title) {
			t.Errorf("stead stub --help does not name %s", a.Title)
		}
		if cliFlag == nil || !strings.Contains(cliFlag.Usage, a.Name) {
			t.Errorf("--cli does not name %s", a.Name)
		}
	}
}

// TestAgentNames: an agent-history export names each CLI as its adapter
// says (Claude Code as "claude-code", without stead's own name beside it),
// and import reads the names other tools give a CLI as that CLI.
func TestAgentNames(t *testing.T) {
	env := homes(t)
	file := filepath.Join(t.TempDir(), "all.ndjson")
	mustRun(t, env, "session", "export", "--cli", "claude", "--format", "ndjson", "-o", file)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	header, rest, _ := strings.Cut(string(data), "\n")
	if !strings.Contains(header, `"agent_types":["claude-code"]`) || !strings.Contains(rest, `"agent":"claude-code"`) ||
		strings.Contains(rest, `"stead":{"cli":"claude"`) {
		t.Errorf("Claude Code exported as another agent:\n%.300s\n%.300s", header, rest)
	}

	foreign := filepath.Join(t.TempDir(), "foreign.ndjson")
	os.WriteFile(foreign, []byte(`{"type":"header","schema_version":"1.0","export_timestamp":"2026-01-02T03:04:05Z","agent_types":["codex-cli"],"homes":["local"],"workspaces":["w"],"session_count":1}
{"type":"session","session":{"id":"s1","agent":"codex-cli","workspace":"/w","workspace_encoded":"-w","started_at":"2026-01-02T03:04:05Z","ended_at":"2026-01-02T03:04:05Z","source":{"type":"local","host":null,"path":"/x"},"is_agent_session":false,"parent_session_id":null,"agent_id":null},"messages":[{"index":1,"uuid":"m1","parent_uuid":null,"role":"user","timestamp":"2026-01-02T03:04:05Z","content":[{"type":"text","text":"hi"}]}]}
`), 0o600)
	var clis []string
	if _, _, err := readInterchange(foreign, func(s *session.Session) error {
		clis = append(clis, s.Source.CLI)
		return nil
	}); err != nil || len(clis) != 1 || clis[0] != session.Codex {
		t.Errorf("codex-cli read as %q (%v), want codex", clis, err)
	}
}
