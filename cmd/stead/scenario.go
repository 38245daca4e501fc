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
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/scenarios"
	"github.com/stead-dev/stead/session"
)

// ErrScenarioFailed is returned when a scenario's expectations do not
// all hold.
var ErrScenarioFailed = errors.New("the scenario failed")

func newScenarioCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenario",
		Short: "Run declarative scenarios: resume, fork, A/B and chain, offline, checked",
		Long: `A scenario is a YAML file naming a starting session, steps (resume, fork, ab,
chain), what the model answers in each (stead's model stub plays it) and what
each step must have done. 'stead scenario run' plays one against the real CLIs
in a sandbox of its own, offline, and reports pass or fail per expectation.

stead ships scenarios (stead scenario list); the format is in the scenarios
package's documentation and docs/commands/scenario.md.`,
		Example: `  # The scenarios stead ships
  stead scenario list
  # One's YAML
  stead scenario show fork
  # Play it, offline
  stead scenario run fork`,
	}
	cmd.AddCommand(newScenarioListCmd(f), newScenarioShowCmd(f), newScenarioRunCmd(f))
	return cmd
}

func newScenarioListCmd(f *Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the scenarios stead ships",
		Example: `  # The scenarios stead ships
  stead scenario list
  # As JSON
  stead scenario list --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			all, err := scenarios.Builtin()
			if err != nil {
				return err
			}
			names := scenarios.BuiltinNames()
			if asJSON {
				out := make([]*scenarios.Scenario, 0, len(names))
				for _, n := range names {
					out = append(out, all[n])
				}
				return printJSON(f.IO.RawOut(), out)
			}
			tw := newTable(f.IO.Out, 0, 4, 2)
			fmt.Fprintln(tw, "NAME\tCLIS\tSTEPS\tWHAT")
			for _, n := range names {
				sc := all[n]
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", n, strings.Join(sc.CLIs(), ","), len(sc.Steps), sc.Name)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the scenarios as JSON")
	return cmd
}

func newScenarioShowCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "show <name> | <file>",
		Short: "Print a scenario: a shipped one by name, or a file (checking it)",
		Example: `  # A shipped scenario's YAML
  stead scenario show demo
  # Check a scenario file of your own, and print it
  stead scenario show my-scenario.yaml`,
		Args: oneArg("show needs a scenario name or file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			sc, err := scenarios.Find(args[0])
			if err != nil {
				return notFoundIf(err)
			}
			data, err := sc.Source()
			if err != nil {
				return err
			}
			_, err = f.IO.Out.Write(data)
			return err
		},
	}
}

func oneArg(msg string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return flagErrorf("%s, got %d arguments", msg, len(args))
		}
		return nil
	}
}

// notFoundIf marks a missing scenario as not found, for its exit code.
func notFoundIf(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return &notFoundError{err: err}
	}
	return err
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ScenarioOptions are the inputs of `stead scenario run`.
type ScenarioOptions struct {
	Factory *Factory
	Ref     string
	Keep    string
	Timeout time.Duration
	JSON    bool
	HTML    string
}

func newScenarioRunCmd(f *Factory) *cobra.Command {
	opts := &ScenarioOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "run <name> | <file>",
		Short: "Run a scenario offline against the real CLIs and the model stub; pass or fail per expectation",
		Long: `Run a scenario in a sandbox: a home of its own in which each CLI the scenario
runs is set up against a model stub of its own on 127.0.0.1, the project, and
stead's own bus. Nothing outside the sandbox is written, and nothing leaves the
machine. Each step's entries are printed as they happen; then each expectation
passes or fails. The exit code is 0 only when every one passed.

The CLIs are the pinned versions scripts/install-clis.sh installs, or those
on PATH, or STEAD_<CLI>_BIN. The sandbox is removed afterwards unless --keep
names a folder for it, or the scenario fails (it is kept then, to look at).`,
		Example: `  # The demo: resume a Claude session in Codex, then an A/B of the five CLIs
  stead scenario run demo
  # A file of your own, keeping the sandbox, with the A/B step's web page
  stead scenario run my-scenario.yaml --keep /tmp/sandbox --html ab.html
  # The report as JSON, 10 minutes a step at most
  stead scenario run chain --json --timeout 10m`,
		Args: oneArg("run needs a scenario name or file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			return scenarioRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Keep, "keep", "", "run in this new folder and keep it (homes, project, stead's state)")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 5*time.Minute, "the longest one step may take")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON (progress goes to stderr)")
	cmd.Flags().StringVar(&opts.HTML, "html", "", "write the comparison page of the last A/B step to this file")
	return cmd
}

func scenarioRun(ctx context.Context, opts *ScenarioOptions) error {
	f := opts.Factory
	sc, err := scenarios.Find(opts.Ref)
	if err != nil {
		return notFoundIf(err)
	}
	root := opts.Keep
	if root != "" {
		if entries, err := os.ReadDir(root); err == nil && len(entries) > 0 {
			return flagErrorf("--keep %s: the folder is not empty", root)
		}
	} else if root, err = os.MkdirTemp("", "stead-scenario-"); err != nil {
		return err
	}
	progress := f.IO.Out
	if opts.JSON {
		progress = f.IO.ErrOut
	}
	fmt.Fprintf(progress, "scenario: %s (%s)\n", sc.Name, sc.File)
	if sc.About != "" {
		fmt.Fprintf(progress, "%s\n", indentText(sc.About, "  "))
	}
	sb, err := scenarios.Prepare(sc, scenarios.SandboxOptions{Root: root, User: f.Env, Logger: f.Logger})
	if err != nil {
		if opts.Keep == "" {
			os.RemoveAll(root)
		}
		return err
	}
	defer sb.Close()
	for _, cli := range sc.CLIs() {
		fmt.Fprintf(progress, "  %-9s %s\n", cli, sb.Bins[cli])
	}
	b, err := bus.New(ctx, bus.Options{StoreDir: filepath.Join(stateDir(sb.Env), "nats"), Logger: f.Logger})
	if err != nil {
		return err
	}
	defer b.Close()
	sf := &Factory{IO: &IOStreams{In: f.IO.In, Out: io.Discard, ErrOut: io.Discard}, Env: sb.Env,
		ConfigPath: f.ConfigPath, explicit: f.explicit, Logger: f.Logger}
	prices, err := sf.Prices()
	if err != nil {
		return err
	}
	d := &runs.ScenarioDriver{Sv: sf.supervisor(b), Dir: sb.Dir, Progress: progress, Timeout: opts.Timeout, Prices: prices,
		ABDir: abRoot(sb.Env),
		Loader: func(ctx context.Context, ref, cli string) (*session.Session, error) {
			return loadSession(ctx, f, b, ref, cli)
		},
		Watch: func(ctx context.Context, run, prefix string) { watchTo(b, progress, prefix)(ctx, run) },
	}
	rep := scenarios.Run(ctx, sc, sb, d, progress)
	if opts.HTML != "" && d.LastAB != nil {
		if err := writeABHTML(opts.HTML, d.LastAB); err != nil {
			return err
		}
		fmt.Fprintf(progress, "\nthe comparison page: %s\n", opts.HTML)
	}
	if opts.JSON {
		if err := printJSON(f.IO.RawOut(), rep); err != nil {
			return err
		}
	} else {
		writeScenarioSummary(f.IO.Out, rep)
	}
	keep := opts.Keep != "" || !rep.Pass
	if !keep {
		sb.Close()
		b.Close()
		if err := os.RemoveAll(root); err != nil {
			f.Logger.Warn("removing the sandbox", "dir", root, "err", err)
		}
	} else {
		fmt.Fprintf(progress, "the sandbox is kept in %s (set HOME=%s to look with stead)\n", sb.Root, sb.Env.Home)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if !rep.Pass {
		return ErrScenarioFailed
	}
	return nil
}

func writeScenarioSummary(w io.Writer, rep *scenarios.Report) {
	passed, total := 0, 0
	for _, s := range rep.Steps {
		for _, c := range s.Checks {
			total++
			if c.Pass {
				passed++
			}
		}
	}
	verdict := "PASS"
	if !rep.Pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "\n%s: %s: %d of %d expectations held, %d steps, in %s\n", verdict, rep.Name, passed, total, len(rep.Steps), rep.Took.Round(100*time.Millisecond))
}

func indentText(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}
