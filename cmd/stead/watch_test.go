package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/session"
)

// TestDescribeEntryCollapsesContext: watch names the context a CLI
// injected for its model in one line and prints it whole with --all; a
// long reply is cut at 200 characters, never inside a character.
func TestDescribeEntryCollapsesContext(t *testing.T) {
	ctx := "<environment_context>\n  <cwd>/work</cwd>\n  <shell>bash</shell>\n</environment_context>\n" + strings.Repeat("AGENTS.md says so.\n", 200)
	at := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	for _, e := range []session.Entry{
		{Type: session.System, Kind: session.KindContext, Content: ctx, Timestamp: at},
		{Type: session.User, Kind: session.KindMeta, Content: ctx, Timestamp: at},
		{Type: session.System, Kind: session.KindInstructions, Content: ctx, Timestamp: at},
	} {
		line := describeEntry(e, false)
		if strings.Contains(line, "AGENTS.md") || !strings.Contains(line, "injected context, 3.8 KB; watch --all shows it") || strings.Contains(line, "\n") {
			t.Errorf("%s/%s: %q, want it collapsed", e.Type, e.Kind, line)
		}
		all := describeEntry(e, true)
		if strings.Count(all, "AGENTS.md says so.") != 200 || !strings.Contains(all, "\n      <cwd>/work</cwd>") {
			t.Errorf("%s/%s with --all is not whole:\n%s", e.Type, e.Kind, all)
		}
	}
	long := describeEntry(session.Entry{Type: session.Assistant, Content: strings.Repeat("é", 300), Timestamp: at}, false)
	if n := strings.Count(long, "é"); n < 190 || n > 200 || !strings.HasSuffix(long, "…") {
		t.Errorf("a long reply is cut to %d characters: %q", n, long)
	}
	if prompt := describeEntry(session.Entry{Type: session.User, Content: "Fix the bug.", Timestamp: at}, false); !strings.HasSuffix(prompt, "user: Fix the bug.") {
		t.Errorf("a prompt reads %q", prompt)
	}
}
