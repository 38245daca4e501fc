package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// ForkOptions are the inputs of `stead session fork`.
type ForkOptions struct {
	ConvertOptions
	At  string
	Bus BusFlags
	ctx context.Context
}

func newForkCmd(f *Factory, runF func(*ForkOptions) error) *cobra.Command {
	opts := &ForkOptions{ConvertOptions: ConvertOptions{Factory: f}}
	cmd := &cobra.Command{
		Use:   "fork <cli>:<id> | <id> | <file> | run:<run> [--at <entry>] [--to <cli>]",
		Short: "Branch a session at any entry, in the same CLI or another",
		Long: `Make a new session holding a session's history up to an entry (--at; the whole
history without it), in the same CLI or, with --to, in another, to try a
different approach from that point. The source is never touched.

--at takes an entry's id as 'stead session show' prints it after the entry's
heading (cut short), or whole as 'show --json' prints it, or any prefix of one
that names a single entry. The new session ends exactly there: a tool
call cut from its result is closed the way the target CLI closes an aborted
call.

With --install the fork is placed in the target CLI's store under a new id and
the command that resumes it is printed; without it the native file goes to
stdout, or to -o FILE. The fork is written by stead's writer for the target,
the same one 'convert' uses, for every CLI: the CLIs' own fork commands
(claude --fork-session, codex fork, opencode --fork) fork only when they next
run a turn, and cannot stop at an entry before the last.`,
		Example: `  # A new Claude Code session ending at entry 9f1c2a (as 'session show' prints it)
  stead session fork claude:6cccbe0a --at 9f1c2a --install
  # The same branch, in Codex
  stead session fork claude:6cccbe0a --at 9f1c2a --to codex --install
  # A finished run's whole session, into Gemini CLI, written to a file
  stead session fork run:20261121-101500-3f9a0c1d2e4b --to gemini -o fork.jsonl`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return flagErrorf("fork needs exactly one session reference, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref, opts.ctx = args[0], cmd.Context()
			if err := opts.check("--from"); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return forkRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.At, "at", "", "the entry the fork ends at (an id, or a prefix naming one entry; default: the last)")
	cmd.Flags().StringVar(&opts.To, "to", "", "the CLI of the fork (default: the source's)")
	cmd.Flags().BoolVar(&opts.Install, "install", false, "place the fork in the target CLI's store and print how to resume it")
	cmd.Flags().StringVar(&opts.Cwd, "cwd", "", "the project directory the fork belongs to (default: the source's)")
	cmd.Flags().StringVar(&opts.Fidelity, "fidelity", "native", "native (tool calls stay structured) or text (a flat transcript)")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "write the native session to this new file")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&opts.Format, "format", "", "the target's storage format, when it has several")
	cmd.Flags().StringVar(&opts.CLI, "from", "", "the CLI that wrote a file given by path, or that an id is looked up in")
	cmd.Flags().StringVar(&opts.Model, "model", "", "the model the fork's CLI continues with (default: the one it is configured with, never the source's)")
	addBusFlags(cmd, &opts.Bus)
	return cmd
}

func forkRun(opts *ForkOptions) error {
	f := opts.Factory
	var s *session.Session
	var err error
	if onBus(opts.Ref) {
		ctx := opts.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		b, berr := connectBus(ctx, f, opts.Bus, true)
		if berr != nil {
			return berr
		}
		s, err = loadSession(ctx, f, b, opts.Ref, "")
		b.Close()
	} else {
		a, ref, rerr := resolveRef(f.Env, opts.Ref, opts.CLI)
		if rerr != nil {
			return rerr
		}
		s, err = a.Open(f.Env, ref)
	}
	if err != nil {
		return err
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", w)
	}
	return forkSession(opts, s)
}

// forkSession writes the fork of s that opts ask for. s is cut, not
// copied.
func forkSession(opts *ForkOptions, s *session.Session) error {
	n := len(s.Timeline)
	at, err := runs.Cut(s, opts.At)
	switch {
	case errors.Is(err, runs.ErrAmbiguous):
		return flagErrorf("--at %v", err)
	case errors.Is(err, runs.ErrNoEntry):
		return flagErrorf("--at: no entry %q in %s (%d entries; their ids: stead session show %s --json)",
			opts.At, sourceName(s), n, safetext.Quote(sourceName(s)))
	case err != nil:
		return err
	}
	opts.at = at
	if opts.To == "" {
		opts.To = runs.LastCLI(s)
		if a, ok := adapters.Lookup(opts.To); !ok || !a.Writes() {
			return flagErrorf("the session's last entries are %s's, and stead does not write %s sessions: give --to (%s)",
				opts.To, opts.To, strings.Join(writers(), ", "))
		}
	}
	src, _ := adapters.Lookup(s.Source.CLI)
	return writeSession(&opts.ConvertOptions, src, s, nil)
}
