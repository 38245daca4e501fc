package main

import (
	"os"
	"path/filepath"
	"slices"
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
			if c.Example != "" && !strings.Contains(string(data), ".SH EXAMPLE\n") {
				t.Errorf("%s has no EXAMPLE section", name)
			}
			for _, sec := range []string{".TH ", ".SH NAME\n", ".SH SYNOPSIS\n", ".SH OPTIONS\n", `\fB\-h, \-\-help\fP`} {
				if !strings.Contains(string(data), sec) {
					t.Errorf("%s has no %q", name, sec)
				}
			}
			// Every line that begins as a roff request is one the pages
			// are made of: text that would is escaped.
			for i, line := range strings.Split(string(data), "\n") {
				if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
					if req, _, _ := strings.Cut(line, " "); !slices.Contains([]string{".TH", ".nh", ".SH", ".PP", ".TP", ".EX", ".EE"}, req) {
						t.Errorf("%s:%d: %q is read as a roff request", name, i+1, line)
					}
				}
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

// TestRoff: text is escaped for roff: backslashes, dashes as minus signs,
// and a line that would begin a request.
func TestRoff(t *testing.T) {
	for in, want := range map[string]string{
		`a\b-c`:         `a\eb\-c` + "\n",
		".hidden":       `\&.hidden` + "\n",
		"'quoted":       `\&'quoted` + "\n",
		"--json output": `\-\-json output` + "\n",
		"plain <cli>":   "plain <cli>\n",
	} {
		if got := roffLine(in); got != want {
			t.Errorf("roffLine(%q) = %q, want %q", in, got, want)
		}
	}
}
