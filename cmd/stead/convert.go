package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/inject"
	"github.com/stead-dev/stead/internal/atomicfile"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// ConvertOptions are the inputs of `stead session convert`.
type ConvertOptions struct {
	Factory  *Factory
	Ref      string
	CLI      string
	To       string
	Install  bool
	Cwd      string
	Fidelity string
	Output   string
	JSON     bool
	Format   string
	// Model is the model the target CLI is to continue the session with;
	// empty means the one it is configured with.
	Model string
	// at is the entry a fork ends at (stead session fork --at).
	at string
}

func newConvertCmd(f *Factory, runF func(*ConvertOptions) error) *cobra.Command {
	opts := &ConvertOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "convert <cli>:<id> | <id> | <file> --to <cli>",
		Short: "Write a session in another CLI's native format, ready to resume there",
		Long: `Write a session as a native session of another CLI (or of the same one), so that
CLI resumes it with the real history: user and assistant messages, and each tool
call as a call of the target's own tool, paired with its result.

With --install the session is placed in the target CLI's store, under a new id,
and the command that resumes it is printed. Nothing existing is ever changed.
Without it the native file goes to stdout, or to -o FILE.

A loss report lists everything that could not be carried over as it was
(thinking another provider signed, an image the target cannot hold, a tool the
target has no counterpart for, which is carried as text), on stderr, or as JSON
with --json.`,
		Example: `  # Put a Claude Code session into Codex's store; prints the command that resumes it
  stead session convert claude:6cccbe0a --to codex --install
  # A flat transcript of user and assistant text, written to a new file
  stead session convert claude:6cccbe0a --to codex --fidelity text -o rollout.jsonl
  # A Codex session into Gemini CLI, for another project, the report as JSON
  stead session convert codex:01a20037 --to gemini --install --cwd ~/work/beta --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return flagErrorf("convert needs exactly one session reference, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if opts.To == "" {
				return flagErrorf("--to is required (%s)", strings.Join(writers(), ", "))
			}
			if err := opts.check("--cli"); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return convertRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.To, "to", "", "the target CLI")
	cmd.Flags().BoolVar(&opts.Install, "install", false, "place the session in the target CLI's store and print how to resume it")
	cmd.Flags().StringVar(&opts.Cwd, "cwd", "", "the project directory the session belongs to (default: the source's)")
	cmd.Flags().StringVar(&opts.Fidelity, "fidelity", "native", "native (tool calls stay structured) or text (a flat transcript)")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "write the native session to this new file")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&opts.Format, "format", "", "the target's storage format, when it has several (kimi: legacy writes a kimi-cli session)")
	cmd.Flags().StringVar(&opts.CLI, "cli", "", "the CLI that wrote a file given by path (default: detected)")
	cmd.Flags().StringVar(&opts.Model, "model", "", "the model the target CLI continues with (default: the one it is configured with, never the source's)")
	return cmd
}

// check checks the flags that say where and how a session is written;
// cliFlag names the flag of opts.CLI.
func (opts *ConvertOptions) check(cliFlag string) error {
	if opts.To != "" {
		a, ok := adapters.Lookup(opts.To)
		if !ok {
			return flagErrorf("--to: unknown CLI %q (known: %s)", opts.To, strings.Join(adapters.Names(), ", "))
		}
		if !a.Writes() {
			return fmt.Errorf("stead does not write %s sessions yet: %w", opts.To, session.ErrUnsupported)
		}
	}
	switch inject.Fidelity(opts.Fidelity) {
	case inject.Native, inject.Text:
	default:
		return flagErrorf("--fidelity must be native or text, not %q", opts.Fidelity)
	}
	if opts.CLI != "" {
		if _, ok := adapters.Lookup(opts.CLI); !ok {
			return flagErrorf("%s: unknown CLI %q (known: %s)", cliFlag, opts.CLI, strings.Join(adapters.Names(), ", "))
		}
	}
	if opts.Install && opts.Output != "" {
		return flagErrorf("--install and -o are exclusive: --install places the session in the store")
	}
	if strings.HasPrefix(opts.Model, "-") || strings.ContainsAny(opts.Model, " \t\r\n") {
		return flagErrorf("--model %q is not a model name", opts.Model)
	}
	if opts.JSON && !opts.Install && opts.Output == "" {
		return flagErrorf("--json prints the report on stdout: write the session with -o FILE or --install")
	}
	return nil
}

// writers lists the CLIs stead writes.
func writers() []string {
	var out []string
	for _, name := range adapters.Names() {
		if a, _ := adapters.Lookup(name); a.Writes() {
			out = append(out, name)
		}
	}
	return out
}

func convertRun(opts *ConvertOptions) error {
	f := opts.Factory
	if onBus(opts.Ref) {
		return convertFromBus(opts)
	}
	src, ref, err := resolveRef(f.Env, opts.Ref, opts.CLI)
	if err != nil {
		return err
	}
	s, events, closeEvents, err := openForConvert(f, src, ref)
	if err != nil {
		return err
	}
	defer closeEvents()
	for _, w := range s.Warnings {
		fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", w)
	}
	return writeSession(opts, src, s, events)
}

// convertFromBus converts a session read through the bus: a run's
// (run:<run>) or another machine's (<host>:<cli>:<id>).
func convertFromBus(opts *ConvertOptions) error {
	f := opts.Factory
	ctx := context.Background()
	b, err := connectBus(ctx, f, BusFlags{}, true)
	if err != nil {
		return err
	}
	s, err := loadSession(ctx, f, b, opts.Ref, "")
	b.Close()
	if err != nil {
		return err
	}
	src, ok := adapters.Lookup(s.Source.CLI)
	if !ok {
		return fmt.Errorf("%s: a session of an unknown CLI %q", opts.Ref, s.Source.CLI)
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", w)
	}
	return writeSession(opts, src, s, nil)
}

// writeSession writes s (or events, when s only holds what is known up
// front) as a session of opts.To: installed in its store, to a file, or
// to stdout; then reports what was lost.
func writeSession(opts *ConvertOptions, src adapters.Adapter, s *session.Session, events inject.Stream) error {
	f := opts.Factory
	var err error
	dst, _ := adapters.Lookup(opts.To)
	iopts := inject.Options{
		Fidelity: inject.Fidelity(opts.Fidelity),
		Env:      f.Env,
		Tool:     "stead " + version,
		Format:   opts.Format,
		At:       opts.at,
		Model:    opts.Model,
	}
	if opts.Cwd != "" {
		if iopts.Dir, err = filepath.Abs(opts.Cwd); err != nil {
			return err
		}
	}
	r, w := runs.Injector(src.Name, dst)

	var rep *inject.Report
	switch {
	case opts.Install && events != nil:
		rep, err = inject.InstallStream(s, events, r, w, iopts)
	case opts.Install:
		rep, err = inject.Install(s, r, w, iopts)
	case opts.Output != "":
		rep, err = convertToFile(s, events, r, w, iopts, opts.Output)
	default:
		bw := bufio.NewWriterSize(f.IO.RawOut(), 256<<10)
		rep, err = convertTo(s, events, r, w, iopts, bw)
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
	}
	if err != nil {
		return err
	}
	// The caller printed the warnings of reading s; those of its records
	// read as it went (a large file) come now. A stream decoder does not
	// know its file: name it.
	for i := range rep.Warnings[len(s.Warnings):] {
		w := &rep.Warnings[len(s.Warnings)+i]
		if w.Path == "" {
			w.Path = s.Source.Path
		}
		fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", *w)
	}
	var logWarn *session.Warning
	if opts.Install {
		if err := logConversion(f, rep); err != nil {
			logWarn = &session.Warning{Message: "the conversion is not in stead's log: " + err.Error()}
			fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", logWarn)
		}
	}
	if opts.JSON {
		if logWarn != nil {
			rep.Warnings = append(rep.Warnings, *logWarn)
		}
		return writeConvertJSON(f.IO.RawOut(), rep)
	}
	out := f.IO.ErrOut
	if opts.Install {
		out = f.IO.Out
	}
	printReport(out, rep)
	return nil
}

// streamMemory is the soft memory limit of a streamed conversion.
const streamMemory = 48 << 20

// streamAbove is the size from which a session file is converted (or
// exported) as it is read rather than read whole first; a variable so
// that tests can stream small files.
var streamAbove int64 = 32 << 20

// openForConvert reads the session to convert: whole, or, for a large
// file whose adapter has a stream decoder, only its summary up front and
// its records as it goes.
func openForConvert(f *Factory, a adapters.Adapter, ref session.Ref) (*session.Session, inject.Stream, func(), error) {
	nothing := func() {}
	if fi, err := os.Stat(ref.Path); err == nil && fi.Mode().IsRegular() && fi.Size() > streamAbove &&
		a.Reads() && a.StreamDecoder != nil {
		ref.Size = fi.Size()
		sum, err := a.SummarizeFile(ref, session.DetailFull)
		if err != nil {
			return nil, nil, nothing, err
		}
		file, err := os.Open(ref.Path)
		if err != nil {
			return nil, nil, nothing, err
		}
		f.Logger.Debug("converting as the file is read", "path", ref.Path, "size", fi.Size())
		// The live heap of a streamed conversion is a few times its
		// largest record; ask the collector to keep close to it.
		debug.SetMemoryLimit(streamMemory)
		return metaOf(a.Name, sum), a.StreamDecoder(file), func() { file.Close() }, nil
	}
	s, err := a.Open(f.Env, ref)
	return s, nil, nothing, err
}

// metaOf is what a summary says of a whole session, for a conversion that
// reads the records as it goes.
func metaOf(cli string, sum session.Summary) *session.Session {
	model := ""
	var most int64 = -1
	for m, u := range sum.Models {
		if t := u.Total(); t > most || (t == most && m < model) {
			model, most = m, t
		}
	}
	return &session.Session{ID: sum.ID, Source: session.Source{CLI: cli, Path: sum.Path},
		Project: session.Project{Path: sum.Project}, Model: session.Model{Model: model}, Title: sum.Title,
		Metadata: session.Metadata{Created: sum.Start, LastModified: sum.End}}
}

// convertTo writes the native session to out.
func convertTo(s *session.Session, events inject.Stream, r inject.Reader, w inject.Writer, opts inject.Options, out io.Writer) (*inject.Report, error) {
	if events != nil {
		return inject.ConvertStream(s, events, r, w, opts, out)
	}
	return inject.Convert(s, r, w, opts, out)
}

// convertToFile writes the native session to a new file, never replacing
// one.
func convertToFile(s *session.Session, events inject.Stream, r inject.Reader, w inject.Writer, opts inject.Options, path string) (*inject.Report, error) {
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(file, 256<<10)
	rep, err := convertTo(s, events, r, w, opts, bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	return rep, nil
}

type convertJSON struct {
	*inject.Report
	// ResumeCommand is the shell command that resumes the session.
	ResumeCommand string `json:"resumeCommand,omitempty"`
}

func writeConvertJSON(w io.Writer, rep *inject.Report) error {
	out := convertJSON{Report: rep}
	if rep.Installed {
		out.ResumeCommand = resumeCommand(rep)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// resumeCommand is the shell command that continues an installed session.
func resumeCommand(rep *inject.Report) string {
	words := make([]string, len(rep.Placement.Resume))
	for i, w := range rep.Placement.Resume {
		words[i] = safetext.Quote(w)
	}
	return "cd " + safetext.Quote(rep.Target.Dir) + " && " + strings.Join(words, " ")
}

func printReport(w io.Writer, rep *inject.Report) {
	fmt.Fprintf(w, "Converted %s:%s to %s:%s (%d entries, %d tool calls, %s fidelity).\n",
		rep.Source.CLI, rep.Source.ID, rep.Target.CLI, rep.Target.ID, rep.Entries, rep.ToolCalls, rep.Fidelity)
	fmt.Fprintf(w, "%s.\n", safetext.Terminal(rep.ModelLine()))
	if rep.Installed {
		fmt.Fprintf(w, "Installed %s\n", rep.Placement.Path)
		fmt.Fprintf(w, "Resume it with:\n\n    %s\n\n", resumeCommand(rep))
	}
	if len(rep.Warnings) > 0 {
		// What a warning names (a line skipped, invalid UTF-8 read as
		// U+FFFD) is not carried as it is in the source: not "nothing
		// was lost".
		if n := len(rep.Warnings); n == 1 {
			fmt.Fprintln(w, "Reading the source gave a warning (above): what it names is not carried as it was.")
		} else {
			fmt.Fprintf(w, "Reading the source gave %d warnings (above): what they name is not carried as it was.\n", n)
		}
	}
	if len(rep.Losses) == 0 {
		if len(rep.Warnings) == 0 {
			fmt.Fprintln(w, "Nothing was lost.")
		} else {
			fmt.Fprintln(w, "The conversion itself lost nothing more.")
		}
		return
	}
	// Grouped by what was lost and how, with a few examples each: a long
	// session can lose thousands of like items (--json lists them all).
	fmt.Fprintf(w, "%d items were lost or changed:\n", len(rep.Losses))
	type group struct {
		what, how string
		items     []session.Loss
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, l := range rep.Losses {
		k := l.What + "\x00" + l.How
		g := byKey[k]
		if g == nil {
			g = &group{what: l.What, how: l.How}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.items = append(g.items, l)
	}
	for _, g := range groups {
		fmt.Fprintf(w, "  %d x %s %s\n", len(g.items), g.what, g.how)
		for i, l := range g.items {
			if i == 3 {
				fmt.Fprintf(w, "      ... and %d more (see --json)\n", len(g.items)-3)
				break
			}
			id := ""
			if l.Entry != "" {
				id = " (" + l.Entry + ")"
			}
			fmt.Fprintf(w, "      - %s%s\n", l.Detail, id)
		}
	}
}

// logConversion appends a record of an installed conversion to stead's
// state directory, so that where each converted session came from stays
// known even for CLIs whose files have no room for it. Failing to write it
// does not fail the conversion (the caller warns). The record is appended whole or not at
// all, on a line of its own even after a torn one (see
// atomicfile.AppendLine); atomicfile.ReadLines reads the log back.
func logConversion(f *Factory, rep *inject.Report) error {
	if f.Env.Get("XDG_STATE_HOME") == "" && f.Env.Home == "" {
		return nil
	}
	dir := stateDir(f.Env)
	rec := map[string]any{
		"time": time.Now().UTC().Format(time.RFC3339Nano), "source": rep.Source,
		"target":   map[string]string{"cli": rep.Target.CLI, "id": rep.Target.ID, "path": rep.Placement.Path},
		"fidelity": rep.Fidelity, "losses": len(rep.Losses),
	}
	b, _ := json.Marshal(rec)
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		err = atomicfile.AppendLine(filepath.Join(dir, conversionLog), b, 0o600)
	}
	return err
}

// conversionLog is the name of the conversion log in stead's state
// directory.
const conversionLog = "conversions.jsonl"
