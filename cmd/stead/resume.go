package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/hosts"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// ResumeOptions are the flags of stead session resume.
type ResumeOptions struct {
	Factory *Factory
	Bus     BusFlags
	Ref     string
	From    string
	To      string
	Prompt  string
	Cwd     string
	Model   string
	Auto    bool
	Detach  bool
	JSON    bool
	// Fallback names the CLIs a detached run may continue in when its
	// worker is lost and the machine taking it over lacks To.
	Fallback []string
	// session, when set, is resumed instead of the one Ref names (a
	// template's starting conversation).
	session *session.Session
}

func newResumeCmd(f *Factory) *cobra.Command {
	opts := &ResumeOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "resume <cli>:<id> | <id> | <file> | run:<run> --to <cli>",
		Short: "Continue a session in another CLI, live, under stead's supervision",
		Long: `Write the session into the target CLI's store, start that CLI on it under a
terminal, and capture it onto the bus while you use it: stead watch <run> shows the
new entries as they happen. With --prompt the prompt is typed for you once the CLI
is ready. With --detach the run goes to the stead daemon (started if needed) and
the command prints the run's id; stead attach, stead send and stead stop reach it.

When the CLI exits, the whole session (history plus the run's entries, each marked
with the CLI that produced it) is stored: stead session resume run:<run> --to <cli>
continues it elsewhere.`,
		Example: `  # Continue a Claude Code session in Codex, with a first prompt typed for you
  stead session resume claude:742233ee --to codex --prompt "carry on"
  # In the background daemon; prints the run's id (then: stead watch <run>)
  stead session resume 742233ee --from claude --to gemini --detach --json
  # Continue what a finished run stored, in yet another CLI
  stead session resume run:20261121-101500-3f9a0c1d2e4b --to opencode --auto-approve`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if opts.To == "" {
				return flagErrorf("--to is required (one of: %s)", strings.Join(adapters.Names(), ", "))
			}
			if err := runnable(opts.To); err != nil {
				return fmt.Errorf("--to: %w", err)
			}
			if err := installed(f.Env, opts.To); err != nil {
				return err
			}
			for _, cli := range opts.Fallback {
				if err := runnable(cli); err != nil {
					return fmt.Errorf("--fallback: %w", err)
				}
			}
			if len(opts.Fallback) > 0 && !opts.Detach {
				return flagErrorf("--fallback is for a detached run (--detach): an attached run is not continued elsewhere")
			}
			if opts.From != "" {
				if _, ok := adapters.Lookup(opts.From); !ok {
					return flagErrorf("--from: unknown CLI %q (known: %s)", opts.From, strings.Join(adapters.Names(), ", "))
				}
			}
			return resumeRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.From, "from", "", "the CLI the session belongs to (default: found from the reference)")
	cmd.Flags().StringVar(&opts.To, "to", "", "the CLI to continue in")
	cmd.Flags().StringVar(&opts.Prompt, "prompt", "", "a prompt to type once the CLI is ready")
	cmd.Flags().StringVar(&opts.Cwd, "cwd", "", "the project directory to run in (default: the current directory)")
	cmd.Flags().StringVar(&opts.Model, "model", "", "the model to ask the CLI for")
	cmd.Flags().BoolVar(&opts.Auto, "auto-approve", false, "let the CLI run every tool without asking (its bypass or yolo mode)")
	cmd.Flags().BoolVar(&opts.Detach, "detach", false, "run in the background daemon and print the run's id")
	cmd.Flags().StringSliceVar(&opts.Fallback, "fallback", nil, "with --detach, the CLIs to continue the run in, in order, if its worker is lost and the machine taking it over lacks --to")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the run's record as JSON")
	addBusFlags(cmd, &opts.Bus)
	return cmd
}

// loadSession reads the session a reference names: a CLI's session, or a
// finished run's stored universal session (run:<run>, the run's id or a
// prefix of it).
func loadSession(ctx context.Context, f *Factory, b *bus.Bus, ref, cli string) (*session.Session, error) {
	if id, ok := strings.CutPrefix(ref, "run:"); ok {
		return f.supervisor(b).LoadRun(ctx, id)
	}
	if host, rest, ok := hostRef(ref); ok {
		return hosts.Fetch(ctx, b, host, rest, fetchWait)
	}
	a, r, err := resolveRef(f.Env, ref, cli)
	if err != nil {
		return nil, err
	}
	return a.Open(f.Env, r)
}

func resumeRun(ctx context.Context, opts *ResumeOptions) error {
	f := opts.Factory
	dir, err := projectDir(opts.Cwd)
	if err != nil {
		return err
	}
	b, err := connectBus(ctx, f, opts.Bus, true)
	if err != nil {
		return err
	}
	defer b.Close()
	s := opts.session
	if s == nil {
		if s, err = loadSession(ctx, f, b, opts.Ref, opts.From); err != nil {
			return err
		}
	}
	spec := runs.Spec{ID: runs.NewID(), To: opts.To, Dir: dir, Prompt: opts.Prompt, Model: opts.Model, Auto: opts.Auto, Fallback: opts.Fallback}
	if opts.Detach {
		return detachRun(ctx, f, b, s, spec, opts.JSON)
	}
	in, isFile := f.IO.In.(*os.File)
	if !isFile || !term.IsTerminal(int(in.Fd())) {
		return flagErrorf("an attached run needs a terminal: run it in one, or use --detach")
	}
	fmt.Fprintf(f.IO.ErrOut, "stead: run %s: %s resumes %s (watch it: stead watch %s)\n", spec.ID, spec.To, sourceName(s), spec.ID)
	rec, err := f.supervisor(b).Run(ctx, s, spec, &runs.Terminal{In: in, Out: f.IO.RawOut()}, nil)
	if rec.ID != "" {
		printRunEnd(f.IO.ErrOut, rec)
	}
	if opts.JSON && rec.ID != "" {
		json.NewEncoder(f.IO.RawOut()).Encode(rec)
	}
	return err
}

func sourceName(s *session.Session) string {
	if s.ID != "" {
		return s.Source.CLI + ":" + s.ID
	}
	return s.Source.CLI + " session"
}

func printRunEnd(w io.Writer, r live.Run) {
	code := ""
	if r.ExitCode != nil {
		code = fmt.Sprintf(" (exit code %d)", *r.ExitCode)
	}
	fmt.Fprintf(w, "\r\nstead: run %s %s%s, %d new entries", r.ID, r.State, code, r.Entries)
	if r.Reason != "" {
		fmt.Fprintf(w, ": %s", r.Reason)
	}
	fmt.Fprintf(w, "\r\nstead: continue it elsewhere: stead session resume run:%s --to <cli>\r\n", r.ID)
}

// detachRun stores the session on the bus and asks a worker to run it.
func detachRun(ctx context.Context, f *Factory, b *bus.Bus, s *session.Session, spec runs.Spec, asJSON bool) error {
	r, err := f.supervisor(b).Detach(ctx, s, spec)
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(f.IO.RawOut()).Encode(r)
	}
	fmt.Fprintln(f.IO.Out, r.ID)
	fmt.Fprintf(f.IO.ErrOut, "stead: run %s: %s (pid %d on %s); watch it with: stead watch %s\n",
		r.ID, r.CLI, r.PID, r.Host, r.ID)
	return nil
}
