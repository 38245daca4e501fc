package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/adapters"
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
			tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
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
	d := &scenarioDriver{user: f, f: sf, b: b, dir: sb.Dir, w: progress, timeout: opts.Timeout}
	rep := scenarios.Run(ctx, sc, sb, d, progress)
	if opts.HTML != "" && d.lastAB != nil {
		if err := writeABHTML(opts.HTML, d.lastAB); err != nil {
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

// scenarioDriver does a scenario's steps with stead's own commands' code,
// in the sandbox's environment and on its bus.
type scenarioDriver struct {
	user    *Factory // the user's environment: for reading start refs
	f       *Factory // the sandbox's
	b       *bus.Bus
	dir     string
	w       io.Writer
	timeout time.Duration
	lastAB  *runs.AB
}

var _ scenarios.Driver = (*scenarioDriver)(nil)

func (d *scenarioDriver) Load(ctx context.Context, ref, cli string) (*session.Session, error) {
	return loadSession(ctx, d.user, d.b, ref, cli)
}

func (d *scenarioDriver) New(ctx context.Context, cli, prompt string) (*scenarios.Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	id := runs.NewID()
	s, err := d.f.supervisor(d.b).Headless(ctx, id, cli, prompt, d.dir, "")
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(d.w, "  %s wrote %s:%s (%d entries)\n", cli, cli, s.ID, len(s.Timeline))
	return &scenarios.Outcome{Run: id, Session: s}, nil
}

func (d *scenarioDriver) Resume(ctx context.Context, from *session.Session, to, prompt string) (*scenarios.Outcome, error) {
	return d.turn(ctx, from, to, prompt)
}

// turn runs one live turn of prompt in to, continuing from.
func (d *scenarioDriver) turn(ctx context.Context, from *session.Session, to, prompt string) (*scenarios.Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	fmt.Fprintf(d.w, "  %s resumes %s (%d entries) and gets: %s\n", to, sourceName(from), len(from.Timeline), clipLine(prompt, 100))
	r, s, err := d.f.supervisor(d.b).Step(ctx, from, runs.Step{CLI: to, Prompt: prompt}, runs.StepOptions{Dir: d.dir, Auto: true,
		Watch: watchTo(d.b, d.w, "    ")})
	out := &scenarios.Outcome{Run: r.Run, Session: s, History: len(from.Timeline)}
	if s != nil {
		out.Tokens = usageAfter(s, len(from.Timeline))
		out.Native = d.nativeUsage(ctx, r.Run, prompt)
		fmt.Fprintf(d.w, "  %s's turn took %s: stead session show run:%s\n", to, r.Took.Round(100*time.Millisecond), r.Run)
	}
	return out, err
}

func (d *scenarioDriver) Fork(ctx context.Context, from *session.Session, at, to, prompt string) (*scenarios.Outcome, error) {
	// The fork goes through stead session fork --install's own code, and
	// is read back from the target's store.
	var out bytes.Buffer
	ff := *d.f
	ff.IO = &IOStreams{Out: &out, ErrOut: io.Discard}
	cut := *from
	cut.Timeline = append([]session.Entry(nil), from.Timeline...)
	opts := &ForkOptions{ConvertOptions: ConvertOptions{Factory: &ff, To: to, Install: true, JSON: true, Cwd: d.dir, Fidelity: "native"}, At: at}
	if err := forkSession(opts, &cut); err != nil {
		return nil, fmt.Errorf("forking: %w", err)
	}
	var rep struct {
		Target    session.Target
		Placement session.Placement
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return nil, fmt.Errorf("forking: the report: %w", err)
	}
	a, _ := adapters.Lookup(to)
	forked, err := a.Open(d.f.Env, session.Ref{CLI: to, ID: rep.Target.ID, Path: rep.Placement.Path})
	if err != nil {
		return nil, fmt.Errorf("reading the fork back from %s's store: %w", to, err)
	}
	where := "the whole session"
	if at != "" {
		where = "entry " + at
	}
	fmt.Fprintf(d.w, "  forked %s at %s into %s:%s (%d of %d entries)\n", sourceName(from), where, to, rep.Target.ID, len(forked.Timeline), len(from.Timeline))
	return d.turn(ctx, forked, to, prompt)
}

func (d *scenarioDriver) AB(ctx context.Context, from *session.Session, to []string, prompt string) (*scenarios.Outcome, error) {
	opts := &ABOptions{Factory: d.f, Prompt: prompt, To: to, Repeat: 1, Auto: true, Timeout: d.timeout, Live: d.w}
	ab, err := runAB(ctx, d.f, d.b, d.dir, from, opts)
	if err != nil {
		return nil, err
	}
	d.lastAB = ab
	out := &scenarios.Outcome{Run: ab.ID}
	for _, v := range ab.Variants {
		sv := scenarios.Variant{Name: v.Name, CLI: v.CLI, Run: v.Run, State: v.State, Error: v.Error, TimedOut: v.TimedOut, Answer: v.Answer,
			Tokens: v.Tokens, Tools: v.Tools, Files: v.Changes.Files, Dir: v.Workspace.Dir, Took: v.Took}
		sv.Native = d.nativeUsage(ctx, v.Run, prompt)
		out.Variants = append(out.Variants, sv)
	}
	return out, nil
}

func (d *scenarioDriver) Chain(ctx context.Context, from *session.Session, links []scenarios.Link) (*scenarios.Outcome, error) {
	prev := from
	out := &scenarios.Outcome{History: len(from.Timeline)}
	for i, l := range links {
		fmt.Fprintf(d.w, "  link %d/%d:\n", i+1, len(links))
		o, err := d.turn(ctx, prev, l.CLI, l.Prompt)
		if o != nil {
			out.Run = o.Run
			if o.Session != nil {
				out.Session, prev = o.Session, o.Session
				out.Tokens.Add(o.Tokens)
			}
		}
		if err != nil {
			return out, fmt.Errorf("link %d (%s): %w", i+1, l.CLI, err)
		}
	}
	return out, nil
}

// nativeUsage is what the native session of a run records for the turn
// of prompt: the usage of its entries from the last prompt on.
func (d *scenarioDriver) nativeUsage(ctx context.Context, run, prompt string) *session.Usage {
	rec, err := d.b.Run(ctx, run)
	if err != nil || rec.Path == "" {
		return nil
	}
	a, ok := adapters.Lookup(rec.CLI)
	if !ok || !a.Reads() {
		return nil
	}
	s, err := a.Open(d.f.Env, session.Ref{CLI: rec.CLI, ID: rec.SessionID, Path: rec.Path})
	if err != nil {
		d.f.Logger.Warn("reading a run's native session", "run", run, "err", err)
		return nil
	}
	from := -1
	for i, e := range s.Timeline {
		if e.Type == session.User && strings.Contains(e.Content, prompt) {
			from = i
		}
	}
	if from < 0 {
		return nil
	}
	u := usageAfter(s, from)
	return &u
}

func usageAfter(s *session.Session, from int) session.Usage {
	var u session.Usage
	for _, e := range s.Timeline[min(from, len(s.Timeline)):] {
		if e.Usage != nil {
			u.Add(*e.Usage)
		}
	}
	return u
}
