package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/pricing"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/scenarios"
	"github.com/stead-dev/stead/session"
)

// ExitCode is what stead exits with.
type ExitCode int

// Exit codes. Errors map to them in one place: exitCodeFor.
const (
	ExitOK          ExitCode = 0
	ExitError       ExitCode = 1 // anything else that went wrong
	ExitUsage       ExitCode = 2 // bad command line
	ExitNotFound    ExitCode = 3 // a reference named no session (run, template, ...), or several
	ExitMissingCLI  ExitCode = 4 // a CLI stead was asked to run is not installed
	ExitInterrupted ExitCode = 130
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// IOStreams are the process's standard streams, replaceable in tests.
//
// Out and ErrOut are for a person: once MainContext has wrapped them,
// control characters written to them (from a session's text, a file name,
// an error) are shown as visible escapes instead of reaching the terminal
// (safetext.Writer). Machine output (JSON, exports, a CLI's own terminal,
// stead's progress line) goes to RawOut and RawErrOut, as it is.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// OutTTY and ErrTTY tell whether Out and ErrOut are terminals.
	OutTTY, ErrTTY bool

	rawOut, rawErr io.Writer
}

// RawOut is standard output as it is.
func (s *IOStreams) RawOut() io.Writer {
	if s.rawOut != nil {
		return s.rawOut
	}
	return s.Out
}

// RawErrOut is standard error as it is.
func (s *IOStreams) RawErrOut() io.Writer {
	if s.rawErr != nil {
		return s.rawErr
	}
	return s.ErrOut
}

// forPeople returns a copy of s whose Out and ErrOut neutralise control
// characters, and a function that flushes them.
func (s *IOStreams) forPeople() (*IOStreams, func()) {
	if s.rawOut != nil {
		return s, func() {}
	}
	out, errOut := safetext.NewWriter(s.Out), safetext.NewWriter(s.ErrOut)
	safe := *s
	safe.rawOut, safe.rawErr = s.Out, s.ErrOut
	safe.Out, safe.ErrOut = out, errOut
	return &safe, func() { out.Flush(); errOut.Flush() }
}

func systemIO() *IOStreams {
	return &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, OutTTY: isTerminal(os.Stdout), ErrTTY: isTerminal(os.Stderr)}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Factory carries what commands need, built lazily.
type Factory struct {
	IO  *IOStreams
	Env session.Env
	// Process is set when the Factory serves stead's own process (Main),
	// not a test's: only then are process-wide settings made (the memory
	// limit of a process that builds the index).
	Process bool
	// ConfigPath is the config file named by --config or the
	// environment; explicit is true when the user named it.
	ConfigPath string
	explicit   bool
	Logger     *slog.Logger
}

// processEnv is the environment adapters see.
func processEnv() session.Env {
	home, _ := os.UserHomeDir()
	vars := make(map[string]string)
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	return session.Env{Home: home, Vars: vars}
}

// Prices returns the built-in price table merged with the config file's.
func (f *Factory) Prices() (*pricing.Table, error) {
	t := pricing.Default()
	path := f.ConfigPath
	if path == "" {
		return t, nil
	}
	file, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) && !f.explicit {
			return t, nil
		}
		return nil, fmt.Errorf("config: %w", err)
	}
	defer file.Close()
	prices, err := pricing.LoadConfig(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t.Merge(prices)
	return t, nil
}

func defaultConfigPath(env session.Env) (string, bool) {
	if p := env.Get("STEAD_CONFIG"); p != "" {
		return p, true
	}
	if d := env.Get("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "stead", "config.json"), false
	}
	if env.Home != "" {
		return filepath.Join(env.Home, ".config", "stead", "config.json"), false
	}
	return "", false
}

// FlagError is a bad command line. It is its own type (not struct{error})
// so only it maps to ExitUsage.
type FlagError struct{ err error }

func (e *FlagError) Error() string { return e.err.Error() }
func (e *FlagError) Unwrap() error { return e.err }

// silentError fails a command whose output already said what went wrong:
// stead exits with the error's code without printing it again.
type silentError struct{ err error }

func (e *silentError) Error() string { return e.err.Error() }
func (e *silentError) Unwrap() error { return e.err }

func flagErrorf(format string, a ...any) error {
	return &FlagError{err: fmt.Errorf(format, a...)}
}

// notFoundError is a reference to something other than a session (a
// template, a scenario, an A/B run) that names nothing: it exits with
// ExitNotFound as a session that is not found does, without saying
// "session not found".
type notFoundError struct{ err error }

func (e *notFoundError) Error() string { return e.err.Error() }
func (e *notFoundError) Unwrap() error { return e.err }

func notFoundf(format string, a ...any) error {
	return &notFoundError{err: fmt.Errorf(format, a...)}
}

// Main runs stead with args and returns the exit code.
func Main(args []string, ios *IOStreams) ExitCode {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return mainRun(ctx, args, ios, processEnv(), true)
}

// MainEnv is Main with a given environment.
func MainEnv(args []string, ios *IOStreams, env session.Env) ExitCode {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return MainContext(ctx, args, ios, env)
}

// MainContext is MainEnv stopped by ctx instead of signals.
func MainContext(ctx context.Context, args []string, ios *IOStreams, env session.Env) ExitCode {
	return mainRun(ctx, args, ios, env, false)
}

// mainRun is MainContext, for stead's own process when process is set.
func mainRun(ctx context.Context, args []string, ios *IOStreams, env session.Env, process bool) ExitCode {
	ios, flush := ios.forPeople()
	defer flush()
	f := &Factory{IO: ios, Env: env, Process: process}
	f.ConfigPath, f.explicit = defaultConfigPath(env)
	root := newRootCmd(f)
	root.SetArgs(args)
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code := exitCodeFor(err)
	var silent *silentError
	if errors.As(err, &silent) {
		return code
	}
	if code == ExitInterrupted {
		fmt.Fprintln(ios.ErrOut, "stead: interrupted")
	} else {
		fmt.Fprintf(ios.ErrOut, "stead: %v\n", err)
		if code == ExitUsage {
			fmt.Fprintln(ios.ErrOut, "Run 'stead help' for usage.")
		}
	}
	return code
}

// exitCodeFor is the one place errors become exit codes.
func exitCodeFor(err error) ExitCode {
	var fe *FlagError
	var nf *notFoundError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &fe), errors.Is(err, runs.ErrCannotRun):
		return ExitUsage
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.Is(err, scenarios.ErrMissingCLI):
		return ExitMissingCLI
	case errors.Is(err, session.ErrNotFound), errors.Is(err, session.ErrAmbiguous), errors.Is(err, bus.ErrNoRun),
		errors.Is(err, runs.ErrNotEnded), errors.Is(err, runs.ErrNoAB), errors.As(err, &nf):
		return ExitNotFound
	}
	return ExitError
}

func newRootCmd(f *Factory) *cobra.Command {
	var verbose bool
	root := &cobra.Command{
		Use:   "stead",
		Short: "Read, convert and supervise AI coding CLI sessions",
		Long: fill("stead works with the sessions of AI coding CLIs: "+cliTitles(nil)+".", 80) + `

  Sessions   read every CLI's native store into one universal format: list,
             show, search by project and time, total tokens and cost (stead
             session ...); export and import CUSF, agent-history NDJSON and
             universal JSON; validate exported files.
  Search     find any prompt, reply, thinking, tool call or output of any
             session of any CLI (search), from an index kept up to date
             (index).
  Convert    write a session into another CLI's store, ready to resume there
             (session convert), or branch it at any entry (session fork).
  Supervise  continue a session live in another CLI under a terminal stead
             captures (session resume --from claude --to codex); run one
             prompt through several CLIs and compare them (ab); chain CLIs,
             each continuing the last one's session (chain); start from a
             template (template run).
  Runs       the daemon (serve) keeps an embedded NATS bus and runs detached
             work; watch, attach, send to and stop runs; list them (runs).
  Check      play declarative scenarios offline against the real CLIs and a
             scripted model (scenario run, stub).

Exit codes: 0 ok, 1 error, 2 bad command line, 3 no session or run matched (or
several did: ids can be cut to a prefix, as in git), 4 a CLI stead must run is
not installed, 130 interrupted.`,
		Example: `  # Every session of every CLI from the last week, newest first
  stead session list --since 7d
  # Which session ran that migration?
  stead search "alembic upgrade"
  # Continue a Claude Code session in Codex, live, with a first prompt typed
  stead session resume claude:742233ee --to codex --prompt "carry on"
  # Play the offline demo against the real CLIs and the model stub
  stead scenario run demo`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			level := slog.LevelWarn
			if verbose || f.Env.Get("STEAD_DEBUG") != "" {
				level = slog.LevelDebug
			}
			f.Logger = slog.New(slog.NewTextHandler(f.IO.ErrOut, &slog.HandlerOptions{Level: level}))
		},
	}
	root.PersistentFlags().BoolVarP(&verbose, "verbose", "v", false, "log debug details to stderr")
	root.PersistentFlags().Func("config", "config file (default $STEAD_CONFIG or ~/.config/stead/config.json)", func(s string) error {
		f.ConfigPath, f.explicit = s, true
		return nil
	})
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &FlagError{err: err} })
	root.AddCommand(newSessionCmd(f))
	root.AddCommand(newSchemaCmd(f), newManCmd(f), newSearchCmd(f), newIndexCmd(f))
	root.AddCommand(newStubCmd(f, nil))
	root.AddCommand(newServeCmd(f), newUICmd(f), newWatchCmd(f), newRunsCmd(f), newSendCmd(f), newStopCmd(f), newAttachCmd(f), newChainCmd(f), newABCmd(f), newTemplateCmd(f), newScenarioCmd(f))
	refuseUnknown(root)
	return root
}

// refuseUnknown makes every command that only groups others (stead,
// stead session, ...) refuse an unknown subcommand as a usage error (exit
// 2) with suggestions; called with none, it prints its help.
func refuseUnknown(cmd *cobra.Command) {
	if cmd.HasSubCommands() && !cmd.Runnable() {
		cmd.Args = cobra.ArbitraryArgs
		cmd.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return unknownCommand(cmd, args[0])
		}
	}
	for _, c := range cmd.Commands() {
		refuseUnknown(c)
	}
}

func newSessionCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session",
		Short: "List, show and total sessions of every CLI",
		Example: `  # Every session of every CLI, newest first
  stead session list
  # One as a Markdown transcript
  stead session show claude:742233ee
  # Tokens, cost, tools and errors of Claude Code and Codex
  stead session stats --cli claude,codex`,
	}
	cmd.AddCommand(newListCmd(f, nil), newShowCmd(f, nil), newStatsCmd(f, nil), newConvertCmd(f, nil), newForkCmd(f, nil), newResumeCmd(f),
		newExportCmd(f), newImportCmd(f), newValidateCmd(f))
	return cmd
}

func newSchemaCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of the universal session format",
		Example: `  # The JSON Schema of the universal session format
  stead schema
  # Saved, to validate 'stead session show --json' output with
  stead schema > usf.schema.json`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := f.IO.RawOut().Write(session.Schema)
			return err
		},
	}
}

// unknownCommand is the usage error for name, given to cmd as a command
// it does not have, with the names it may have meant.
func unknownCommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return flagErrorf("%s", msg)
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 && cmd.HasSubCommands() {
		return unknownCommand(cmd, args[0])
	}
	if len(args) > 0 {
		return flagErrorf("%s takes no arguments, got %q", cmd.CommandPath(), args[0])
	}
	return nil
}
