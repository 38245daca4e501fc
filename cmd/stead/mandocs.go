package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newManCmd writes stead's man pages, made from the commands' own help:
// one page per command, as gh does. It is hidden: packagers and
// `scripts/gen-man.sh` call it.
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
			root := cmd.Root()
			root.DisableAutoGenTag = true
			// The pages are made from Markdown, where <cli> would be
			// taken for a tag and dropped.
			escapeAngles(root)
			header := &doc.GenManHeader{Title: "STEAD", Section: "1", Source: "stead " + version, Manual: "stead manual"}
			if err := doc.GenManTree(root, header, dir); err != nil {
				return fmt.Errorf("writing the man pages: %w", err)
			}
			entries, _ := os.ReadDir(dir)
			fmt.Fprintf(f.IO.ErrOut, "stead: %d man pages in %s\n", len(entries), dir)
			return nil
		},
	}
}

// escapeAngles escapes the angle brackets of every command's usage and
// description (the process ends after the pages are written).
func escapeAngles(cmd *cobra.Command) {
	esc := strings.NewReplacer("<", `\<`, ">", `\>`)
	cmd.Use, cmd.Long = esc.Replace(cmd.Use), esc.Replace(cmd.Long)
	for _, c := range cmd.Commands() {
		escapeAngles(c)
	}
}
