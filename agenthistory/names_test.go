package agenthistory_test

import (
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/agenthistory"
	"github.com/stead-dev/stead/session"
)

// names are stead's CLIs as the stead command names them to the package:
// each adapter's name, agent name and aliases.
var names = func() (n agenthistory.Names) {
	for _, a := range adapters.All {
		n.Add(a.Name, a.Agent, a.Aliases...)
	}
	return n
}()

// TestNames: the agent names stead writes for its CLIs and reads back,
// with the names other tools give them; what the zero Names does.
func TestNames(t *testing.T) {
	for cli, agent := range map[string]string{session.Claude: "claude-code", session.Codex: "codex",
		session.Gemini: "gemini", session.OpenCode: "opencode", session.Kimi: "kimi", "aider": "aider"} {
		if got := names.Agent(cli); got != agent {
			t.Errorf("Agent(%q) = %q, want %q", cli, got, agent)
		}
	}
	for agent, cli := range map[string]string{"claude-code": session.Claude, "claude": session.Claude,
		"codex": session.Codex, "codex-cli": session.Codex, "gemini": session.Gemini, "gemini-cli": session.Gemini,
		"opencode": session.OpenCode, "kimi": session.Kimi, "kimi-cli": session.Kimi,
		"aider": session.Universal, "": "", session.Universal: session.Universal} {
		if got := names.CLI(agent); got != cli {
			t.Errorf("CLI(%q) = %q, want %q", agent, got, cli)
		}
	}
	var zero agenthistory.Names
	if zero.Agent(session.Claude) != session.Claude || zero.CLI("claude-code") != session.Universal || zero.CLI("") != "" {
		t.Error("the zero Names knows a CLI")
	}
}
