package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// ChainOptions are the inputs of `stead chain`.
type ChainOptions struct {
	Factory *Factory
	Steps   []runs.Step
	From    string
	FromCLI string
	Cwd     string
	Model   string
	Auto    bool
	Timeout time.Duration
	JSON    bool
	Bus     BusFlags
}

// ErrStepFailed is returned when a step of a chain failed.
var ErrStepFailed = errors.New("a step failed")

func newChainCmd(f *Factory) *cobra.Command {
	opts := &ChainOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   `chain "<cli>:<prompt>" "<cli>:<prompt>"... [--from <ref>]`,
		Short: "Run prompts through several CLIs, each continuing the last one's session",
		Long: `Run a prompt in each CLI in turn. Each step resumes, in its CLI, the universal
session the step before produced, types its prompt, waits for the turn to end and
quits the CLI; the next step continues from there. The result is one session
across the CLIs, each entry marked with the CLI that produced it:

    stead chain "claude:plan the change" "codex:implement it" "gemini:review it"

Steps resumed from a session run under stead's supervisor, captured on the bus
like any run (stead watch <run>). Without --from the first step has nothing to
resume: it runs in its CLI's headless mode (such as claude -p or codex exec),
which lets every tool run, and its session is read from the CLI's store when it
ends.

Live steps ask before running tools unless --auto-approve is given; nobody is
there to answer, so a step that needs an approval fails at --timeout.`,
		Example: `  # Claude Code plans, Codex implements, Gemini CLI reviews
  stead chain "claude:plan the change" "codex:implement it" "gemini:review it"
  # Continuing a Claude Code session, every tool allowed
  stead chain "codex:implement the plan" "claude:review it" --from claude:742233ee --auto-approve
  # In another project, 20 minutes a step at most, the result as JSON
  stead chain "gemini:write the tests" "kimi:make them pass" --cwd ~/work/alpha --timeout 20m --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return flagErrorf(`chain needs at least one step, "<cli>:<prompt>"`)
			}
			for i, a := range args {
				cli, prompt, ok := strings.Cut(a, ":")
				if !ok || strings.TrimSpace(prompt) == "" {
					return flagErrorf("step %d: %q is not <cli>:<prompt>", i+1, a)
				}
				if err := runnable(cli); err != nil {
					return fmt.Errorf("step %d: %w", i+1, err)
				}
				if err := installed(f.Env, cli); err != nil {
					return fmt.Errorf("step %d: %w", i+1, err)
				}
				opts.Steps = append(opts.Steps, runs.Step{CLI: cli, Prompt: prompt})
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return chainRun(cmd.Context(), opts) },
	}
	cmd.Flags().StringVar(&opts.From, "from", "", "the session the first step continues (<cli>:<id>, <id>, <file> or run:<run>)")
	cmd.Flags().StringVar(&opts.FromCLI, "from-cli", "", "the CLI a bare id or file of --from belongs to")
	cmd.Flags().StringVar(&opts.Cwd, "cwd", "", "the project directory (default: the current directory)")
	cmd.Flags().StringVar(&opts.Model, "model", "", "the model to ask every CLI for")
	cmd.Flags().BoolVar(&opts.Auto, "auto-approve", false, "let each CLI run every tool without asking")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 10*time.Minute, "the longest a step may take")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	addBusFlags(cmd, &opts.Bus)
	return cmd
}

func chainRun(ctx context.Context, opts *ChainOptions) error {
	f := opts.Factory
	dir, b, prev, err := prepareRuns(ctx, f, opts.Cwd, opts.Bus, opts.From, opts.FromCLI)
	if err != nil {
		return err
	}
	defer b.Close()
	progress := f.IO.ErrOut
	res, _, failed := f.supervisor(b).Chain(ctx, prev, opts.Steps, runs.ChainOptions{
		StepOptions: runs.StepOptions{Dir: dir, Model: opts.Model, Auto: opts.Auto, Watch: watchTo(b, progress, "    ")},
		Timeout:     opts.Timeout,
		Began: func(i int, st runs.Step) {
			fmt.Fprintf(progress, "stead: step %d/%d: %s: %s\n", i+1, len(opts.Steps), st.CLI, clipLine(st.Prompt, 100))
		},
		Ended: func(r runs.StepResult, err error) {
			if err == nil {
				fmt.Fprintf(progress, "stead: step %d done in %s (run %s, %d new entries)\n", r.Step, r.Took.Round(time.Millisecond), r.Run, r.Entries)
				return
			}
			what := "failed"
			if r.State == string(live.RunInterrupted) {
				what = "was interrupted"
			}
			fmt.Fprintf(progress, "stead: step %d %s after %s: %v\n", r.Step, what, r.Took.Round(time.Millisecond), err)
		},
	})
	if opts.JSON {
		enc := json.NewEncoder(f.IO.RawOut())
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		for _, r := range res.Steps {
			fmt.Fprintf(f.IO.Out, "%d. %s (%s, %s): %s\n", r.Step, r.CLI, r.State, r.Took.Round(time.Millisecond), clipLine(r.Answer, 300))
		}
		if res.Session != "" {
			fmt.Fprintf(f.IO.Out, "\nThe whole session: stead session show %s\nContinue it: stead session resume %s --to <cli>\n", res.Session, res.Session)
		}
	}
	if failed != nil {
		return fmt.Errorf("%w: %w", ErrStepFailed, failed)
	}
	return nil
}

// prepareRuns is what a command that starts runs needs first: the
// project directory, the bus, and the session --from names (nil without
// one).
func prepareRuns(ctx context.Context, f *Factory, cwd string, bf BusFlags, from, fromCLI string) (string, *bus.Bus, *session.Session, error) {
	dir, err := projectDir(cwd)
	if err != nil {
		return "", nil, nil, err
	}
	b, err := connectBus(ctx, f, bf, true)
	if err != nil {
		return "", nil, nil, err
	}
	var s *session.Session
	if from != "" {
		if s, err = loadSession(ctx, f, b, from, fromCLI); err != nil {
			b.Close()
			return "", nil, nil, err
		}
	}
	return dir, b, s, nil
}

// projectDir is the absolute, symlink-free project directory.
func projectDir(cwd string) (string, error) {
	if cwd == "" {
		cwd = "."
	}
	dir, err := filepath.Abs(cwd)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir, nil
}

func clipLine(s string, n int) string { return safetext.ClipLine(s, n) }

// prefixWriter writes each line it is given after prefix. Writers that
// share an output (the variants of an A/B run) do not interleave lines.
type prefixWriter struct {
	w      io.Writer
	prefix string
}

var prefixMu sync.Mutex

func (p *prefixWriter) Write(b []byte) (int, error) {
	prefixMu.Lock()
	defer prefixMu.Unlock()
	for line := range bytes.Lines(b) {
		if _, err := p.w.Write(append([]byte(p.prefix), line...)); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

// watchTo follows a run's entries onto w, each line after prefix.
func watchTo(b *bus.Bus, w io.Writer, prefix string) func(ctx context.Context, run string) {
	return func(ctx context.Context, run string) {
		watchRun(ctx, b, run, &prefixWriter{w: w, prefix: prefix}, false, false)
	}
}
