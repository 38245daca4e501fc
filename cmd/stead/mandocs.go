package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// newManCmd writes stead's man pages, made from the commands' own help:
// one page per command, as gh does. It is hidden: packagers call it.
func newManCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:    "man <dir>",
		Short:  "Write a man page for every command into dir",
		Hidden: true,
		Example: `  # Man pages for every command, then read one
  stead man ~/.local/share/man/man1 && man stead-session-resume`,
		Args: oneArg("give the folder to write the man pages into"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			n, err := writeManPages(cmd.Root(), dir)
			if err != nil {
				return fmt.Errorf("writing the man pages: %w", err)
			}
			fmt.Fprintf(f.IO.ErrOut, "stead: %d man pages in %s\n", n, dir)
			return nil
		},
	}
}

// writeManPages writes the page of cmd and of each command below it that
// is not hidden into dir (stead-session-resume.1), and returns how many.
// They are written in roff here rather than through cobra/doc, whose
// Markdown renderer (blackfriday, by way of go-md2man) compiled its
// regular expressions in every stead process's start: stead --version
// took 8.3-8.7 ms with it linked, 7.0-7.2 without.
func writeManPages(cmd *cobra.Command, dir string) (int, error) {
	n := 0
	for _, c := range cmd.Commands() {
		if !paged(c) {
			continue
		}
		k, err := writeManPages(c, dir)
		n += k
		if err != nil {
			return n, err
		}
	}
	path := filepath.Join(dir, manName(cmd)+".1")
	f, err := os.Create(path)
	if err != nil {
		return n, err
	}
	w := bufio.NewWriter(f)
	writeManPage(w, cmd)
	if err := w.Flush(); err != nil {
		f.Close()
		return n, err
	}
	return n + 1, f.Close()
}

// paged reports whether cmd has a page: a command that is not hidden.
func paged(cmd *cobra.Command) bool {
	return cmd.IsAvailableCommand() && !cmd.IsAdditionalHelpTopicCommand()
}

// manName is the name of cmd's page: its path, a dash between words.
func manName(cmd *cobra.Command) string {
	return strings.ReplaceAll(cmd.CommandPath(), " ", "-")
}

// writeManPage writes cmd's page: its name and use, its description, its
// flags and those it inherits, its examples, and the pages of the commands
// above and below it.
func writeManPage(w *bufio.Writer, cmd *cobra.Command) {
	cmd.InitDefaultHelpFlag() // cobra adds it when the command runs
	name := manName(cmd)
	fmt.Fprintf(w, ".TH %q \"1\" \"\" %q \"stead manual\"\n.nh\n", strings.ToUpper(name), "stead "+version)
	fmt.Fprintf(w, ".SH NAME\n%s \\- %s\n", roff(name), roff(cmd.Short))
	fmt.Fprintf(w, ".SH SYNOPSIS\n\\fB%s\\fP\n", roff(cmd.UseLine()))
	if desc := cmd.Long; desc != "" || cmd.Short != "" {
		if desc == "" {
			desc = cmd.Short
		}
		w.WriteString(".SH DESCRIPTION\n")
		for i, para := range strings.Split(strings.TrimSpace(desc), "\n\n") {
			if i > 0 {
				w.WriteString(".PP\n")
			}
			writeRoffLines(w, para)
		}
	}
	writeManFlags(w, "OPTIONS", cmd.NonInheritedFlags())
	writeManFlags(w, "OPTIONS INHERITED FROM PARENT COMMANDS", cmd.InheritedFlags())
	if cmd.Example != "" {
		w.WriteString(".SH EXAMPLE\n.EX\n")
		writeRoffLines(w, cmd.Example)
		w.WriteString(".EE\n")
	}
	var see []string
	if cmd.HasParent() {
		see = append(see, manName(cmd.Parent()))
	}
	for _, c := range cmd.Commands() {
		if paged(c) {
			see = append(see, manName(c))
		}
	}
	if len(see) > 0 {
		w.WriteString(".SH SEE ALSO\n")
		for i, s := range see {
			if i > 0 {
				w.WriteString(", ")
			}
			fmt.Fprintf(w, "\\fB%s\\fP(1)", roff(s))
		}
		w.WriteString("\n")
	}
}

// writeManFlags writes a section of flags, each with its default and
// usage (none when there is no flag to show).
func writeManFlags(w *bufio.Writer, section string, flags *pflag.FlagSet) {
	first := true
	flags.VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden || fl.Deprecated != "" {
			return
		}
		if first {
			fmt.Fprintf(w, ".SH %s\n", section)
			first = false
		}
		spec := "--" + fl.Name
		if fl.Shorthand != "" && fl.ShorthandDeprecated == "" {
			spec = "-" + fl.Shorthand + ", --" + fl.Name
		}
		def := "=" + fl.DefValue
		if fl.Value.Type() == "string" {
			def = fmt.Sprintf("=%q", fl.DefValue)
		}
		if fl.NoOptDefVal != "" {
			def = "[" + def + "]"
		}
		fmt.Fprintf(w, ".TP\n\\fB%s\\fP%s\n%s", roff(spec), roff(def), roffLine(fl.Usage))
	})
}

// roff escapes s for roff text: its backslashes, and its dashes as
// minus signs (an option or a command copied from the page works).
func roff(s string) string {
	return strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
}

// writeRoffLines writes each line of s, escaped (roffLine).
func writeRoffLines(w *bufio.Writer, s string) {
	for line := range strings.Lines(s) {
		w.WriteString(roffLine(strings.TrimRight(line, "\n")))
	}
}

// roffLine is a line of text, escaped: one that would begin with a roff
// request's . or ' is kept as text.
func roffLine(s string) string {
	s = roff(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s + "\n"
}
