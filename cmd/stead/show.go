package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/catalog"
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
	Redact   bool
	// At names an entry (its id, or a prefix of one) to show with Context
	// entries on either side.
	At      string
	Context int
	Bus     BusFlags
	ctx     context.Context
}

func newShowCmd(f *Factory, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "show <cli>:<id> | <id> | <file> | run:<run>",
		Short: "Show one session as a readable transcript or as universal JSON",
		Long: `Show one session. Name it as <cli>:<id> (claude:742233ee-...), as a bare id
found in exactly one CLI's store, as the path of a native session file, or as
run:<run> for the whole session a finished live run stored (its history and
the entries each CLI added). As in git, an id (of a session or a run) can be
cut to a prefix of at least 4 characters that no other id starts with.

The default output is a Markdown transcript. --json writes the session in the
universal format (see 'stead schema'), each entry with its native record.`,
		Example: `  # A Claude Code session as a Markdown transcript (an id prefix is enough)
  stead session show claude:742233ee
  # Its universal JSON, without the native records
  stead session show claude:742233ee --json --no-native
  # A session file, read directly
  stead session show ~/.codex/sessions/2026/11/21/rollout-2026-11-21T19-12-09-01a20037.jsonl --cli codex
  # What a finished live run stored, whole, secrets hidden
  stead session show run:20261121-101500-3f9a0c1d2e4b --full --redact`,
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
			if opts.At != "" && opts.Format == "json" {
				return flagErrorf("--at shows a transcript: leave out --json")
			}
			if opts.Context < 0 {
				return flagErrorf("--context: give 0 or more entries")
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
	cmd.Flags().StringVar(&opts.At, "at", "", "show only the entry with this id (or a prefix of one; a search hit's entry) and those around it")
	cmd.Flags().IntVarP(&opts.Context, "context", "C", 3, "with --at, how many entries to show on either side")
	cmd.Flags().BoolVar(&opts.Redact, "redact", false, "replace secrets of common shapes (API keys, tokens, private keys, password=...) with [REDACTED:<kind>]")
	addBusFlags(cmd, &opts.Bus)
	return cmd
}

func showRun(opts *ShowOptions) error {
	f := opts.Factory
	src, err := openShown(opts)
	if err != nil {
		return err
	}
	defer src.Close()
	s := src.Session
	for _, w := range s.Warnings {
		fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", w)
	}
	entries := session.EntriesOf(s.Timeline)
	if src.Entries != nil {
		entries = src.Entries
	}
	if opts.Format == "json" {
		var records session.Records = src.Records
		if opts.NoNative {
			entries, records = noNative{entries}, noRecords{}
		}
		return redacted(f.IO.RawOut(), opts.Redact, func(w io.Writer) error {
			return session.EncodeStream(w, s, entries, records, true)
		})
	}
	title := ""
	if s.Title == "" {
		if src.Entries == nil {
			title = timelineTitle(s.Timeline)
		} else if title, err = src.Entries.Find(promptTitle); err != nil {
			return err
		}
	}
	var ids []string
	if src.Entries != nil {
		ids = src.Entries.IDs()
	} else {
		ids = make([]string, len(s.Timeline))
		for i := range s.Timeline {
			ids[i] = s.Timeline[i].ID
		}
	}
	md := mdOptions{All: opts.All, Full: opts.Full, Home: f.Env.Home, IDs: newShortIDs(ids)}
	if opts.At != "" {
		at, err := entryIndex(ids, opts.At, s)
		if err != nil {
			return err
		}
		md.Window, md.At = true, at
		md.First, md.Last = max(0, at-opts.Context), at+opts.Context
	}
	return redacted(f.IO.Out, opts.Redact, func(out io.Writer) error {
		w := bufio.NewWriterSize(chunkWriter{out}, 64<<10)
		err := writeMarkdown(w, s, title, entries, md)
		if ferr := w.Flush(); err == nil {
			err = ferr
		}
		return err
	})
}

// openShown reads the session show names: whole, or, for a large session
// file of a CLI whose files hold their whole conversation, in two passes
// as export reads it (see catalog.Open), so that it is shown one entry at a
// time. Its native records are kept only for --json.
func openShown(opts *ShowOptions) (*catalog.Opened, error) {
	f := opts.Factory
	if onBus(opts.Ref) {
		ctx := opts.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		b, err := connectBus(ctx, f, opts.Bus, true)
		if err != nil {
			return nil, err
		}
		defer b.Close()
		s, err := loadSession(ctx, f, b, opts.Ref, "")
		return &catalog.Opened{Session: s}, err
	}
	a, ref, err := resolveRef(f.Env, opts.Ref, opts.CLI)
	if err != nil {
		return nil, err
	}
	f.Logger.Debug("reading session", "cli", a.Name, "path", ref.Path, "id", ref.ID)
	return catalog.Open(f.Env, a, ref, catalog.Keep{Records: opts.Format == "json" && !opts.NoNative, IDs: opts.Format != "json"})
}

// noNative gives the entries of another stream without their native
// records (--no-native), leaving them unchanged.
type noNative struct{ session.Entries }

func (n noNative) Next() (*session.Entry, error) {
	e, err := n.Entries.Next()
	if err != nil || e.Native == nil {
		return e, err
	}
	c := *e
	c.Native = nil
	return &c, nil
}

// noRecords gives no records.
type noRecords struct{}

func (noRecords) Next() (*session.Record, error) { return nil, io.EOF }

// entryIndex is the place of the entry at names (its id, or a prefix of
// exactly one entry's id) among ids.
func entryIndex(ids []string, at string, s *session.Session) (int, error) {
	found := -1
	for i, id := range ids {
		if id == at {
			return i, nil
		}
		if strings.HasPrefix(id, at) {
			if found >= 0 {
				return 0, flagErrorf("--at %q names more than one entry (%s and %s): give more of the id", at, ids[found], id)
			}
			found = i
		}
	}
	if found < 0 {
		return 0, notFoundf("--at: no entry %q in %s (%d entries)", at, sourceName(s), len(ids))
	}
	return found, nil
}
