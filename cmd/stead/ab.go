package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/internal/atomicfile"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// ABOptions are the inputs of `stead ab`.
type ABOptions struct {
	Factory *Factory
	Prompt  string
	To      []string
	From    string
	FromCLI string
	Repeat  int
	Cwd     string
	Model   string
	Auto    bool
	Timeout time.Duration
	JSON    bool
	HTML    string
	Bus     BusFlags
	// Live, when set, receives each variant's entries as they happen,
	// each line marked with the variant.
	Live io.Writer
}

func newABCmd(f *Factory) *cobra.Command {
	opts := &ABOptions{Factory: f}
	var to string
	cmd := &cobra.Command{
		Use:   "ab --prompt TEXT --to <cli>,<cli>... [--from <ref>]",
		Short: "Run one prompt through several CLIs side by side and compare them",
		Long: `Run one prompt in several CLIs at once, each in its own copy of the project (a git
worktree, or a copy when the project is not in git), each from the same session
(--from) or from nothing, each under stead's supervisor and captured on the bus.
Then compare them: duration, tokens, cost, tool calls by kind, errors, files
changed and the diff, and the final answers side by side, as a table, as JSON
(--json), or as a web page with charts (--html FILE).

The copies stay until you pick one (stead ab pick <ab> <variant> applies its
changes to the project) or discard them (stead ab clean <ab>).`,
		Example: `  # One prompt through three CLIs from the same session, with a web page of the comparison
  stead ab --from claude:742233ee --to claude,codex,gemini --prompt "add a --verbose flag" --html ab.html
  # Each CLI twice, from nothing, every tool allowed
  stead ab --to codex,opencode --repeat 2 --auto-approve --prompt "fix the failing test"
  # The comparison as JSON
  stead ab --to claude,kimi --prompt "explain the build" --timeout 5m --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if strings.TrimSpace(opts.Prompt) == "" {
				return flagErrorf("--prompt is required")
			}
			for _, c := range strings.Split(to, ",") {
				if c = strings.TrimSpace(c); c == "" {
					continue
				}
				if err := runnable(c); err != nil {
					return fmt.Errorf("--to: %w", err)
				}
				if err := installed(f.Env, c); err != nil {
					return err
				}
				opts.To = append(opts.To, c)
			}
			if len(opts.To) == 0 {
				return flagErrorf("--to names no CLI")
			}
			if opts.Repeat < 1 {
				return flagErrorf("--repeat must be at least 1")
			}
			return abRunCmd(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Prompt, "prompt", "", "the prompt every variant gets")
	cmd.Flags().StringVar(&to, "to", "", "the CLIs to compare, separated by commas")
	cmd.Flags().StringVar(&opts.From, "from", "", "the session every variant continues (<cli>:<id>, <id>, <file> or run:<run>)")
	cmd.Flags().StringVar(&opts.FromCLI, "from-cli", "", "the CLI a bare id or file of --from belongs to")
	cmd.Flags().IntVar(&opts.Repeat, "repeat", 1, "run each CLI this many times")
	cmd.Flags().StringVar(&opts.Cwd, "cwd", "", "the project (default: the current directory)")
	cmd.Flags().StringVar(&opts.Model, "model", "", "the model to ask every CLI for")
	cmd.Flags().BoolVar(&opts.Auto, "auto-approve", false, "let each CLI run every tool without asking")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 10*time.Minute, "the longest a variant may take")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the comparison as JSON")
	cmd.Flags().StringVar(&opts.HTML, "html", "", "also write the comparison as a web page to this file")
	addBusFlags(cmd, &opts.Bus)
	cmd.AddCommand(newABListCmd(f), newABShowCmd(f), newABPickCmd(f), newABCleanCmd(f))
	return cmd
}

// abRoot is where A/B runs keep their records and workspaces.
func abRoot(env session.Env) string { return filepath.Join(stateDir(env), "ab") }

// abDir is where an A/B run keeps its record and workspaces.
func abDir(env session.Env, id string) string { return runs.ABDir(abRoot(env), id) }

func abRunCmd(ctx context.Context, opts *ABOptions) error {
	f := opts.Factory
	project, b, from, err := prepareRuns(ctx, f, opts.Cwd, opts.Bus, opts.From, opts.FromCLI)
	if err != nil {
		return err
	}
	defer b.Close()
	ab, err := runAB(ctx, f, b, project, from, opts)
	if err != nil {
		return err
	}
	if opts.HTML != "" {
		if err := writeABHTML(opts.HTML, ab); err != nil {
			return err
		}
		fmt.Fprintf(f.IO.ErrOut, "stead: the comparison page: %s\n", opts.HTML)
	}
	if opts.JSON {
		enc := json.NewEncoder(f.IO.RawOut())
		enc.SetIndent("", "  ")
		if err := enc.Encode(ab); err != nil {
			return err
		}
	} else {
		writeABTable(f.IO.Out, ab)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("the A/B run was interrupted: %w", context.Canceled)
	}
	for _, v := range ab.Variants {
		if v.Error != "" {
			return fmt.Errorf("%w: not every variant finished (see above)", ErrStepFailed)
		}
	}
	return nil
}

// runAB runs the A/B through the library, showing each variant's
// entries live (opts.Live) and a line as each ends.
func runAB(ctx context.Context, f *Factory, b *bus.Bus, project string, from *session.Session, opts *ABOptions) (*runs.AB, error) {
	prices, err := f.Prices()
	if err != nil {
		return nil, err
	}
	spec := runs.ABSpec{Prompt: opts.Prompt, To: opts.To, Repeat: opts.Repeat, Project: project, From: opts.From,
		Model: opts.Model, Auto: opts.Auto, Timeout: opts.Timeout, Dir: abRoot(f.Env)}
	hooks := runs.ABHooks{
		Made: func(ab *runs.AB) {
			fmt.Fprintf(f.IO.ErrOut, "stead: %s: %d variants of %q in %s\n", ab.ID, len(ab.Variants), clipLine(opts.Prompt, 60), runs.ABDir(spec.Dir, ab.ID))
		},
		Finished: func(v runs.Variant) {
			status := v.State
			if v.Error != "" {
				status += ": " + v.Error
			}
			fmt.Fprintf(f.IO.ErrOut, "stead: %s (run %s) %s in %s\n", v.Name, v.Run, status, v.Took.Round(time.Millisecond))
		},
	}
	if opts.Live != nil {
		hooks.Watch = func(ctx context.Context, v runs.Variant) {
			watchRun(ctx, b, v.Run, &prefixWriter{w: opts.Live, prefix: fmt.Sprintf("  %-9s│ ", v.Name)}, false, false)
		}
	}
	return f.supervisor(b).AB(ctx, from, spec, prices, hooks)
}

// loadAB reads the A/B run ref names: its id, or a prefix of one (see
// resolveAB).
func loadAB(env session.Env, ref string) (*runs.AB, error) {
	if !bus.ValidRun(ref) {
		return nil, flagErrorf("%q is not an A/B run id", ref)
	}
	id, err := resolveAB(env, ref)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(abDir(env, id), "ab.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, notFoundf("no A/B run %s (or it was cleaned)", id)
	}
	if err != nil {
		return nil, err
	}
	var ab runs.AB
	if err := json.Unmarshal(data, &ab); err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	return &ab, nil
}

func writeABTable(w io.Writer, ab *runs.AB) {
	tw := newTable(w, 2, 8, 2)
	fmt.Fprintln(tw, "VARIANT\tSTATE\tTIME\tIN\tOUT\tCACHE\tCOST\tTOOLS\tERRORS\tFILES\t+/-")
	for _, v := range ab.Variants {
		cost := "-"
		if v.Cost != nil {
			cost = fmt.Sprintf("$%.4f", *v.Cost)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%d\t%d\t+%d/-%d\n", v.Name, v.State, v.Took.Round(100*time.Millisecond),
			v.Tokens.Input, v.Tokens.Output, v.Tokens.CacheRead+v.Tokens.CacheWrite, cost, toolList(v.Tools), len(v.Errors),
			v.Changes.Files, v.Changes.Insertions, v.Changes.Deletions)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, v := range ab.Variants {
		answer := v.Answer
		if v.Error != "" {
			answer = "(" + v.Error + ")"
		}
		fmt.Fprintf(w, "%s: %s\n", v.Name, clipLine(answer, 400))
	}
	fmt.Fprintf(w, "\nPick one: stead ab pick %s <variant>   Discard all: stead ab clean %s\n", ab.ID, ab.ID)
}

func toolList(tools map[string]int) string {
	if len(tools) == 0 {
		return "-"
	}
	var names []string
	for t := range tools {
		names = append(names, t)
	}
	slices.Sort(names)
	var parts []string
	for _, t := range names {
		parts = append(parts, fmt.Sprintf("%s:%d", t, tools[t]))
	}
	return strings.Join(parts, ",")
}

func newABListCmd(f *Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the A/B runs kept (not cleaned), newest first",
		Example: `  # The A/B runs kept, newest first
  stead ab list
  # As JSON
  stead ab list --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dirs, err := os.ReadDir(filepath.Join(stateDir(f.Env), "ab"))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			abs := []*runs.AB{}
			for _, d := range dirs {
				if !d.IsDir() || !bus.ValidRun(d.Name()) {
					continue
				}
				ab, err := loadAB(f.Env, d.Name())
				if err != nil {
					fmt.Fprintf(f.IO.ErrOut, "warning: %v\n", err)
					continue
				}
				abs = append(abs, ab)
			}
			slices.SortFunc(abs, func(a, b *runs.AB) int { return b.Started.Compare(a.Started) })
			if asJSON {
				return printJSON(f.IO.RawOut(), abs)
			}
			if len(abs) == 0 {
				fmt.Fprintln(f.IO.ErrOut, "no A/B runs kept: start one with stead ab")
				return nil
			}
			tw := newTable(f.IO.Out, 2, 8, 2)
			fmt.Fprintln(tw, "AB\tSTARTED\tVARIANTS\tPROMPT")
			for _, ab := range abs {
				var names []string
				for _, v := range ab.Variants {
					names = append(names, v.Name+":"+v.State)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ab.ID, ab.Started.Local().Format("2006-01-02 15:04"),
					strings.Join(names, ","), clipLine(ab.Prompt, 60))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newABShowCmd(f *Factory) *cobra.Command {
	var asJSON bool
	var html string
	cmd := &cobra.Command{
		Use:   "show <ab>",
		Short: "Show an A/B run's comparison again: the table, JSON or the web page",
		Example: `  # An A/B run's comparison again (an id prefix is enough)
  stead ab show 20261121-113000-8e2d4b6a1c0f
  # As a web page, or as JSON
  stead ab show 20261121-1130 --html ab.html
  stead ab show 20261121-1130 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ab, err := loadAB(f.Env, args[0])
			if err != nil {
				return err
			}
			if html != "" {
				if err := writeABHTML(html, ab); err != nil {
					return err
				}
				fmt.Fprintf(f.IO.ErrOut, "stead: the comparison page: %s\n", html)
			}
			if asJSON {
				enc := json.NewEncoder(f.IO.RawOut())
				enc.SetIndent("", "  ")
				return enc.Encode(ab)
			}
			writeABTable(f.IO.Out, ab)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	cmd.Flags().StringVar(&html, "html", "", "also write the comparison as a web page to this file")
	return cmd
}

func newABPickCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "pick <ab> <variant>",
		Short: "Apply one variant's changes to the project",
		Example: `  # Apply the codex variant's changes to the project
  stead ab pick 20261121-113000-8e2d4b6a1c0f codex
  # With --repeat, variants are named <cli>-1, <cli>-2, ...
  stead ab pick 20261121-1130 claude-2`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ab, err := loadAB(f.Env, args[0])
			if err != nil {
				return err
			}
			i := slices.IndexFunc(ab.Variants, func(v runs.Variant) bool { return v.Name == args[1] })
			if i < 0 {
				var names []string
				for _, v := range ab.Variants {
					names = append(names, v.Name)
				}
				return flagErrorf("%s has no variant %q (it has %s)", ab.ID, args[1], strings.Join(names, ", "))
			}
			v := &ab.Variants[i]
			c, err := v.Workspace.Changed()
			if err != nil {
				return err
			}
			if c.Files == 0 {
				fmt.Fprintf(f.IO.Out, "%s changed no file: nothing to apply.\n", v.Name)
				return nil
			}
			patch := filepath.Join(abDir(f.Env, ab.ID), v.Name+".patch")
			if err := atomicfile.Write(patch, []byte(c.Diff), 0o600); err != nil {
				return err
			}
			if _, err := runs.Git(ab.Project, "apply", "--check", patch); err != nil {
				return fmt.Errorf("the changes of %s do not apply to %s as it is now (%w); the patch is in %s", v.Name, ab.Project, err, patch)
			}
			if _, err := runs.Git(ab.Project, "apply", patch); err != nil {
				return err
			}
			v.Picked = true
			runs.SaveAB(abRoot(f.Env), ab)
			fmt.Fprintf(f.IO.Out, "Applied %s's changes to %s: %d files, +%d/-%d.\n", v.Name, ab.Project, c.Files, c.Insertions, c.Deletions)
			return nil
		},
	}
}

func newABCleanCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "clean <ab>",
		Short: "Remove an A/B run's copies of the project",
		Example: `  # Remove an A/B run's copies of the project
  stead ab clean 20261121-113000-8e2d4b6a1c0f`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ab, err := loadAB(f.Env, args[0])
			if err != nil {
				return err
			}
			var errs []error
			for _, v := range ab.Variants {
				if err := v.Workspace.Remove(ab.Project); err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", v.Name, err))
				}
			}
			if err := errors.Join(errs...); err != nil {
				return err
			}
			if err := os.RemoveAll(abDir(f.Env, ab.ID)); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "Removed the %d copies of %s.\n", len(ab.Variants), ab.ID)
			return nil
		},
	}
}
