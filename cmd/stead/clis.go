package main

import (
	"strings"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/agenthistory"
)

// agentNames are the names agent-history exports give the CLIs stead
// knows, from their adapters: what export writes for each, and what import
// reads as each.
func agentNames() agenthistory.Names {
	var n agenthistory.Names
	for _, a := range adapters.All {
		n.Add(a.Name, a.Agent, a.Aliases...)
	}
	return n
}

// cliTitles names for people the CLIs of the registry that keep takes
// (all of them when keep is nil), in its order: "Claude Code, Codex CLI
// and Gemini CLI". Help that says which CLIs stead knows is made from it,
// so that a new CLI appears there without an edit.
func cliTitles(keep func(adapters.Adapter) bool) string {
	var titles []string
	for _, a := range adapters.All {
		if keep == nil || keep(a) {
			titles = append(titles, a.Title)
		}
	}
	if len(titles) < 2 {
		return strings.Join(titles, "")
	}
	return strings.Join(titles[:len(titles)-1], ", ") + " and " + titles[len(titles)-1]
}

// fill wraps text into lines of at most width columns, breaking between
// words (a longer word has a line of its own).
func fill(text string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		switch {
		case n == 0:
		case n+1+len(w) > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
