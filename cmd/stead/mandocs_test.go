package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/session"
)

// TestManPages: stead man writes a page for every command that is not
// hidden, each with the command's examples, and keeps the <cli> and <id>
// of usages that Markdown would take for tags.
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	env := session.Env{Home: t.TempDir()}
	mustRun(t, env, "man", dir)
	var walk func(c *cobra.Command)
	pages := 0
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("no man page for %q: %v", c.CommandPath(), err)
		} else {
			pages++
			if c.Example != "" && !strings.Contains(string(data), "EXAMPLE") {
				t.Errorf("%s has no EXAMPLE section", name)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(&Factory{IO: &IOStreams{}, Env: env}))
	if pages < 30 {
		t.Errorf("%d man pages; want one for each of stead's commands", pages)
	}
	resume, err := os.ReadFile(filepath.Join(dir, "stead-session-resume.1"))
	if err != nil || !strings.Contains(string(resume), "<cli>:<id>") {
		t.Errorf("stead-session-resume.1 lost its usage's <cli>:<id> (%v)", err)
	}
}
