package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/session"
)

// ShowOptions are the inputs of `stead session show`.
type ShowOptions struct {
	Factory  *Factory
	Ref      string
	CLI      string
	Format   string
	JSON     bool
	NoNative bool
	All      bool
	Full     bool
	Bus      BusFlags
	ctx      context.Context
}

func newShowCmd(f *Factory, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "show <cli>:<id> | <id> | <file> | run:<run>",
		Short: "Show one session as a readable transcript or as universal JSON",
		Long: `Show one session. Name it as <cli>:<id> (claude:742233ee-...), as a bare id
found in exactly one CLI's store, as the path of a native session file, or as
run:<run> for the whole session a finished live run stored (its history and
the entries each CLI added).

The default output is a Markdown transcript. --json writes the session in the
universal format (see 'stead schema'), each entry with its native record.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return flagErrorf("show needs exactly one session reference, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			opts.ctx = cmd.Context()
			if opts.JSON {
				opts.Format = "json"
			}
			switch opts.Format {
			case "md", "markdown", "json":
			default:
				return flagErrorf("--format must be md or json, not %q", opts.Format)
			}
			if opts.CLI != "" {
				if _, ok := adapters.Lookup(opts.CLI); !ok {
					return flagErrorf("--cli: unknown CLI %q (known: %s)", opts.CLI, strings.Join(adapters.Names(), ", "))
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return showRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.CLI, "cli", "", "the CLI that wrote a file given by path (default: detected)")
	cmd.Flags().StringVar(&opts.Format, "format", "md", "output format: md or json")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "same as --format json")
	cmd.Flags().BoolVar(&opts.NoNative, "no-native", false, "with --json, leave out the native records")
	cmd.Flags().BoolVar(&opts.All, "all", false, "with md, also show injected context and instructions")
	cmd.Flags().BoolVar(&opts.Full, "full", false, "with md, do not shorten long tool input and output")
	addBusFlags(cmd, &opts.Bus)
	return cmd
}

func showRun(opts *ShowOptions) error {
	f := opts.Factory
	s, err := openShown(opts)
	if err != nil {
		return err
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", w)
	}
	if opts.Format == "json" {
		if opts.NoNative {
			s = s.WithoutNative()
		}
		return session.Encode(f.IO.RawOut(), s, true)
	}
	w := bufio.NewWriter(f.IO.Out)
	writeMarkdown(w, s, mdOptions{All: opts.All, Full: opts.Full, Home: f.Env.Home})
	return w.Flush()
}

// openShown reads the session show names.
func openShown(opts *ShowOptions) (*session.Session, error) {
	f := opts.Factory
	if strings.HasPrefix(opts.Ref, "run:") {
		ctx := opts.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		b, err := connectBus(ctx, f, opts.Bus, true)
		if err != nil {
			return nil, err
		}
		defer b.Close()
		return loadSession(ctx, f, b, opts.Ref, "")
	}
	a, ref, err := resolveRef(f.Env, opts.Ref, opts.CLI)
	if err != nil {
		return nil, err
	}
	f.Logger.Debug("reading session", "cli", a.Name, "path", ref.Path, "id", ref.ID)
	return a.Open(f.Env, ref)
}

// resolveRef finds the adapter and session a reference names.
func resolveRef(env session.Env, ref, cli string) (adapters.Adapter, session.Ref, error) {
	if name, id, ok := strings.Cut(ref, ":"); ok && cli == "" {
		if a, known := adapters.Lookup(name); known {
			if !a.Reads() {
				return a, session.Ref{}, fmt.Errorf("stead does not read %s sessions yet: %w", name, session.ErrUnsupported)
			}
			r, err := a.Locate(env, id)
			return a, r, err
		}
	}
	if fi, err := os.Stat(ref); err == nil && fi.Mode().IsRegular() {
		if cli != "" {
			a, _ := adapters.Lookup(cli)
			if !a.Reads() {
				return a, session.Ref{}, fmt.Errorf("stead does not read %s sessions yet: %w", cli, session.ErrUnsupported)
			}
			return a, session.Ref{CLI: a.Name, Path: ref}, nil
		}
		a, err := detect(ref)
		return a, session.Ref{CLI: a.Name, Path: ref}, err
	}
	// A bare id: look in every store.
	var found []adapters.Adapter
	var refs []session.Ref
	for _, a := range adapters.All {
		if (cli != "" && a.Name != cli) || !a.Reads() {
			continue
		}
		r, err := a.Locate(env, ref)
		if err == nil {
			found = append(found, a)
			refs = append(refs, r)
		} else if errors.Is(err, session.ErrAmbiguous) {
			return adapters.Adapter{}, session.Ref{}, err
		}
	}
	switch len(found) {
	case 0:
		return adapters.Adapter{}, session.Ref{}, fmt.Errorf("no session %q in any CLI's store, and no such file: %w", ref, session.ErrNotFound)
	case 1:
		return found[0], refs[0], nil
	}
	var names []string
	for _, a := range found {
		names = append(names, a.Name+":"+ref)
	}
	return adapters.Adapter{}, session.Ref{}, fmt.Errorf("%q names sessions of several CLIs (%s): %w", ref, strings.Join(names, ", "), session.ErrAmbiguous)
}

// detect decides which CLI wrote a file from its first records.
func detect(path string) (adapters.Adapter, error) {
	f, err := os.Open(path)
	if err != nil {
		return adapters.Adapter{}, err
	}
	defer f.Close()
	// Look at the start of the first records: enough to recognise them,
	// without reading a huge line whole.
	r := bufio.NewReaderSize(io.LimitReader(f, 8<<20), 64<<10)
	votes := map[string]int{}
	for n := 0; n < 8; {
		head, more, err := r.ReadLine()
		if err != nil {
			break
		}
		line := strings.Clone(string(head))
		for more && err == nil {
			_, more, err = r.ReadLine() // skip the rest of a long line
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		n++
		for _, a := range adapters.All {
			if a.Sniff != nil && a.Sniff([]byte(line)) {
				votes[a.Name]++
			}
		}
	}
	var best string
	for name, v := range votes {
		if best == "" || v > votes[best] || (v == votes[best] && name < best) {
			best = name
		}
	}
	if best == "" {
		return adapters.Adapter{}, flagErrorf("cannot tell which CLI wrote %s; name it with --cli (%s)", path, strings.Join(adapters.Names(), ", "))
	}
	a, _ := adapters.Lookup(best)
	return a, nil
}
