package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
	"github.com/stead-dev/stead/templates"
)

// templateDir is where the user's templates live.
func templateDir(env session.Env) string {
	if d := env.Get("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "stead", "templates")
	}
	return filepath.Join(env.Home, ".config", "stead", "templates")
}

func loadTemplates(f *Factory) []templates.Template {
	all, errs := templates.Load(templateDir(f.Env))
	for _, err := range errs {
		fmt.Fprintf(f.IO.ErrOut, "warning: template %v\n", err)
	}
	return all
}

func findTemplate(f *Factory, name string) (templates.Template, error) {
	all := loadTemplates(f)
	var names []string
	for _, t := range all {
		if t.Name == name {
			return t, nil
		}
		names = append(names, t.Name)
	}
	return templates.Template{}, notFoundf("no template %q (there are: %s; yours go in %s)",
		name, strings.Join(names, ", "), templateDir(f.Env))
}

func newTemplateCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "template",
		Short: "Prompt templates: reusable session starters for any CLI",
		Long: `Prompt templates are session starters that work in every CLI: a prompt with
{{placeholders}}, and optionally a conversation to start from. stead has a few
built in; yours are YAML files in $XDG_CONFIG_HOME/stead/templates (one with the
name of a built-in one replaces it):

    name: fix-issue
    description: Fix an issue, test first
    prompt: |
      Fix {{issue}}. Write a failing test first, then the fix.
    vars:
      issue: the bug in the README    # a default
    history:                          # optional
      - user: We keep every change small and tested.
      - assistant: Understood.`,
		Example: `  # The templates, built-in and yours
  stead template list
  # One's prompt, conversation and placeholders
  stead template show review
  # Start a session from it in Codex
  stead template run review --to codex --var focus="the error handling"`,
	}
	cmd.AddCommand(newTemplateListCmd(f), newTemplateShowCmd(f), newTemplateRunCmd(f))
	return cmd
}

func newTemplateListCmd(f *Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the prompt templates",
		Example: `  # The templates, built-in and yours
  stead template list
  # As JSON
  stead template list --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			all := loadTemplates(f)
			if asJSON {
				return json.NewEncoder(f.IO.RawOut()).Encode(all)
			}
			tw := newTable(f.IO.Out, 2, 8, 2)
			fmt.Fprintln(tw, "NAME\tVARS\tHISTORY\tSOURCE\tDESCRIPTION")
			for _, t := range all {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", t.Name, strings.Join(t.Placeholders(), ","), len(t.History), t.Source, t.Description)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newTemplateShowCmd(f *Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show <name>",
		Short: "Show a prompt template",
		Example: `  # A template's conversation, prompt and placeholders
  stead template show tests
  # As JSON
  stead template show review --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := findTemplate(f, args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(f.IO.RawOut()).Encode(t)
			}
			fmt.Fprintf(f.IO.Out, "%s (%s): %s\n\n", t.Name, t.Source, t.Description)
			for _, turn := range t.History {
				if turn.User != "" {
					fmt.Fprintf(f.IO.Out, "user: %s\n", strings.TrimSpace(turn.User))
				} else {
					fmt.Fprintf(f.IO.Out, "assistant: %s\n", strings.TrimSpace(turn.Assistant))
				}
			}
			fmt.Fprintf(f.IO.Out, "prompt: %s\n", strings.TrimSpace(t.Prompt))
			for _, name := range t.Placeholders() {
				def, ok := t.Vars[name]
				if !ok {
					def = "(required)"
				}
				fmt.Fprintf(f.IO.Out, "  --var %s=...   default: %s\n", name, def)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newTemplateRunCmd(f *Factory) *cobra.Command {
	opts := &ResumeOptions{Factory: f}
	var vars []string
	cmd := &cobra.Command{
		Use:   "run <name> [--to <cli>] [--var name=value]...",
		Short: "Start a session in a CLI from a template",
		Long: `Start a session from a template in a CLI. A template with a starting
conversation is resumed in the CLI under stead's supervisor, as
'stead session resume' does (attached to your terminal, or with --detach in the
daemon), and its prompt typed. A template without one runs its prompt in the
CLI's headless mode and prints the answer; continue that session with
'stead session resume run:<run> --to <cli>'.`,
		Example: `  # Review the uncommitted changes with Codex, headless; prints the answer
  stead template run review --to codex --var focus="the error handling"
  # A template with a conversation, in the daemon; prints the run's id
  stead template run tests --to claude --var target=parser/lexer.go --detach
  # In another project, every tool allowed
  stead template run explain --to gemini --var topic="the bus" --cwd ~/work/alpha --auto-approve`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := findTemplate(f, args[0])
			if err != nil {
				return err
			}
			values := map[string]string{}
			for _, v := range vars {
				k, val, ok := strings.Cut(v, "=")
				if !ok || k == "" {
					return flagErrorf("--var %q is not name=value", v)
				}
				values[k] = val
			}
			if opts.Prompt, err = t.Render(values); err != nil {
				return flagErrorf("%v", err)
			}
			if opts.To == "" {
				opts.To = t.To
			}
			if opts.To == "" {
				return flagErrorf("--to is required: the template names no CLI")
			}
			if err := runnable(opts.To); err != nil {
				return fmt.Errorf("--to: %w", err)
			}
			if err := installed(f.Env, opts.To); err != nil {
				return err
			}
			dir, err := projectDir(opts.Cwd)
			if err != nil {
				return err
			}
			opts.Cwd = dir
			if s := t.Session(dir, time.Now().UTC()); s != nil {
				opts.session = s
				return resumeRun(cmd.Context(), opts)
			}
			return templateHeadless(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.To, "to", "", "the CLI to run in (default: the template's)")
	cmd.Flags().StringArrayVar(&vars, "var", nil, "a placeholder's value, name=value (repeatable)")
	cmd.Flags().StringVar(&opts.Cwd, "cwd", "", "the project directory (default: the current directory)")
	cmd.Flags().StringVar(&opts.Model, "model", "", "the model to ask the CLI for")
	cmd.Flags().BoolVar(&opts.Auto, "auto-approve", false, "let the CLI run every tool without asking")
	cmd.Flags().BoolVar(&opts.Detach, "detach", false, "run in the background daemon and print the run's id")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the run's record as JSON")
	addBusFlags(cmd, &opts.Bus)
	return cmd
}

// templateHeadless runs a template with no starting conversation in the
// CLI's headless mode, stores the session as a run, and prints the answer.
func templateHeadless(ctx context.Context, f *Factory, opts *ResumeOptions) error {
	b, err := connectBus(ctx, f, opts.Bus, true)
	if err != nil {
		return err
	}
	defer b.Close()
	id := runs.NewID()
	s, err := f.supervisor(b).Headless(ctx, id, opts.To, opts.Prompt, opts.Cwd, opts.Model)
	if err != nil {
		return err
	}
	if opts.JSON {
		rec, err := b.Run(ctx, id)
		if err != nil {
			return err
		}
		return json.NewEncoder(f.IO.RawOut()).Encode(rec)
	}
	fmt.Fprintln(f.IO.Out, runs.AnswerOf(s, 0))
	fmt.Fprintf(f.IO.ErrOut, "stead: run %s; continue it: stead session resume run:%s --to <cli>\n", id, id)
	return nil
}
