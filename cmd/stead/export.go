package main

import (
	"bufio"
	"context"
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

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/agenthistory"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/cusf"
	"github.com/stead-dev/stead/internal/atomicfile"
	"github.com/stead-dev/stead/internal/redact"
	"github.com/stead-dev/stead/session"
)

// ExportOptions are the inputs of `stead session export`.
type ExportOptions struct {
	Factory *Factory
	Refs    []string
	CLI     string
	Scan    scanFlags
	Format  string
	Output  string
	JSON    bool
	Redact  bool
	Bus     BusFlags
}

// Export formats.
const (
	formatUSF    = "usf"
	formatCUSF   = "cusf"
	formatNDJSON = "ndjson"
)

func newExportCmd(f *Factory) *cobra.Command {
	opts := &ExportOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "export [<ref>...] --format usf|cusf|ndjson [-o FILE|DIR]",
		Short: "Export sessions as universal JSON, CUSF 1.0.0 or agent-history NDJSON",
		Long: `Export sessions in an interchange format: the ones named (<cli>:<id>, <id>,
<file> or run:<run>), or every session the filters keep (all of them by default).

  usf     stead's universal session format: one JSON document per session
          (-o DIR: <cli>-<id>.usf.json each; to stdout, one per line)
  cusf    CODITECT Universal Session Format 1.0.0: one JSONL file per session
          (-o DIR: named as the standard says; -o FILE or stdout: one session)
  ndjson  agent-history NDJSON 1.0: every session in one file (-o FILE, .gz
          compresses; -o DIR: export_<time>.ndjson; default stdout)

Sessions are read and written one at a time. A session that cannot be read is
reported on stderr and skipped; the export goes on. Files are written
atomically and never replace an existing file.`,
		Example: `  # Every session of the last week as CUSF files, one per session
  stead session export --since 7d --format cusf -o backup/
  # Every Claude Code session in one compressed agent-history file
  stead session export --cli claude --format ndjson -o all.ndjson.gz
  # One session as universal JSON on stdout, secrets hidden
  stead session export claude:742233ee --format usf --redact`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Refs = args
			if !slices.Contains([]string{formatUSF, formatCUSF, formatNDJSON}, opts.Format) {
				return flagErrorf("--format: want usf, cusf or ndjson, got %q", opts.Format)
			}
			return exportRun(cmd, opts)
		},
	}
	opts.Scan.register(cmd)
	cmd.Flags().StringVar(&opts.Format, "format", "", "usf, cusf or ndjson (required)")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "the file or (existing) directory to write to (default: stdout)")
	cmd.Flags().StringVar(&opts.CLI, "from", "", "the CLI that wrote a file given by path, or that an id is looked up in")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print what was written as JSON (needs -o)")
	cmd.Flags().BoolVar(&opts.Redact, "redact", false, "replace secrets of common shapes (API keys, tokens, private keys, password=...) with [REDACTED:<kind>]")
	addBusFlags(cmd, &opts.Bus)
	return cmd
}

// exportItem is one session to export: where it is, and what is known
// of it before it is read.
type exportItem struct {
	ref     string
	cli     string
	sref    session.Ref
	project string
}

// exportReport is what an export wrote.
type exportReport struct {
	Format   string   `json:"format"`
	Sessions int      `json:"sessions"`
	Files    []string `json:"files"`
	Bytes    int64    `json:"bytes"`
	Skipped  []string `json:"skipped"`
}

func exportRun(cmd *cobra.Command, opts *ExportOptions) error {
	f := opts.Factory
	ctx := cmd.Context()
	items, err := exportItems(cmd, opts)
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return notFoundf("no session to export")
	}
	// -o names a folder when it is one, when it ends in a slash, or
	// when it must (CUSF files of several sessions); a new one is made.
	dir := ""
	if opts.Output != "" {
		fi, err := os.Stat(opts.Output)
		switch {
		case err == nil && fi.IsDir():
			dir = opts.Output
		case errors.Is(err, fs.ErrNotExist) && (strings.HasSuffix(opts.Output, string(filepath.Separator)) ||
			opts.Format == formatCUSF && len(items) > 1):
			if err := os.MkdirAll(opts.Output, 0o700); err != nil {
				return err
			}
			dir = opts.Output
		}
	}
	switch {
	case opts.JSON && opts.Output == "":
		return flagErrorf("--json describes the files written: give -o")
	case opts.Format == formatCUSF && dir == "" && len(items) > 1:
		return flagErrorf("a CUSF file holds one session: give -o DIR for %d sessions", len(items))
	}
	rep := &exportReport{Format: opts.Format, Files: []string{}, Skipped: []string{}}
	prog := newExportProgress(f.IO, len(items))
	defer prog.done()
	// each reads the sessions one at a time and hands each to fn; one
	// that cannot be read is reported and skipped.
	each := func(fn func(src *catalog.Opened) error) error {
		for i, it := range items {
			src, err := openExport(ctx, f, opts, it)
			if err != nil {
				fmt.Fprintf(f.IO.ErrOut, "stead: skipped %s: %v\n", it.ref, err)
				rep.Skipped = append(rep.Skipped, it.ref)
				continue
			}
			err = fn(src)
			src.Close()
			if err != nil {
				return err
			}
			rep.Sessions++
			prog.update(i+1, rep.Bytes)
		}
		return nil
	}
	now := exportClock().UTC()
	switch {
	case opts.Format == formatNDJSON:
		err = exportNDJSON(f, opts, items, dir, now, rep, each)
	case dir != "":
		err = each(func(src *catalog.Opened) error {
			name := filepath.Join(dir, safeName(src.Session.Source.CLI+"-"+src.Session.ID)+".usf.json")
			if opts.Format == formatCUSF {
				name = filepath.Join(dir, cusf.FileName(src.Session, "export", now))
			}
			n, err := writeNewFile(name, func(w io.Writer) error {
				return redacted(w, opts.Redact, func(w io.Writer) error { return encodeOne(w, opts.Format, src, now) })
			})
			rep.Files, rep.Bytes = append(rep.Files, name), rep.Bytes+n
			return err
		})
	default:
		write := func(w io.Writer) error {
			return redacted(w, opts.Redact, func(w io.Writer) error {
				return each(func(src *catalog.Opened) error { return encodeOne(w, opts.Format, src, now) })
			})
		}
		if opts.Output != "" {
			n, werr := writeNewFile(opts.Output, write)
			rep.Files, rep.Bytes, err = append(rep.Files, opts.Output), n, werr
		} else {
			bw := bufio.NewWriterSize(f.IO.RawOut(), 256<<10)
			err = write(bw)
			if ferr := bw.Flush(); err == nil {
				err = ferr
			}
		}
	}
	prog.done()
	if err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(f.IO.RawOut(), rep)
	}
	if opts.Output != "" {
		fmt.Fprintf(f.IO.ErrOut, "stead: exported %s as %s (%s) to %s\n", plural(rep.Sessions, "session"), opts.Format, humanBytes(rep.Bytes), opts.Output)
	}
	if len(rep.Skipped) > 0 {
		return fmt.Errorf("%d of %d sessions could not be read (see above)", len(rep.Skipped), len(items))
	}
	return nil
}

// exportItems lists the sessions to export: the refs, or what a scan
// with the filters keeps.
func exportItems(cmd *cobra.Command, opts *ExportOptions) ([]exportItem, error) {
	f := opts.Factory
	if len(opts.Refs) > 0 {
		var out []exportItem
		for _, r := range opts.Refs {
			it := exportItem{ref: r}
			if !onBus(r) {
				a, ref, err := resolveRef(f.Env, r, opts.CLI)
				if err != nil {
					return nil, err
				}
				it.cli, it.sref = a.Name, ref
			}
			out = append(out, it)
		}
		return out, nil
	}
	filter, err := opts.Scan.filter(time.Now())
	if err != nil {
		return nil, err
	}
	res, err := scan(cmd, f, &opts.Scan, session.DetailList)
	if err != nil {
		return nil, err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", w)
	}
	var out []exportItem
	for i := range res.Summaries {
		s := &res.Summaries[i]
		if filter.Keep(s) {
			out = append(out, exportItem{ref: s.CLI + ":" + s.ID, cli: s.CLI, project: s.Project,
				sref: session.Ref{CLI: s.CLI, ID: s.ID, Path: s.Path, Size: s.Size, Parent: parentID(s.Parent)}})
		}
	}
	return out, nil
}

func parentID(l *session.Link) string {
	if l == nil {
		return ""
	}
	return l.ID
}

// encodeOne writes one session in a per-session format.
func encodeOne(w io.Writer, format string, src *catalog.Opened, now time.Time) error {
	if format == formatCUSF {
		enc := cusf.NewEncoder(w, cusf.Options{Exporter: "stead/" + version, Now: func() time.Time { return now }})
		if src.Entries != nil {
			return enc.EncodeStream(src.Session, src.Entries)
		}
		return enc.Encode(src.Session)
	}
	if src.Entries != nil {
		var records session.Records = src.Records
		return session.EncodeStream(w, src.Session, src.Entries, records, false)
	}
	return session.Encode(w, src.Session, false)
}

// writeNDJSON writes one session line of an NDJSON export.
func writeNDJSON(w *agenthistory.Writer, src *catalog.Opened) error {
	if src.Entries != nil {
		return w.WriteStream(src.Session, src.Records, src.Entries)
	}
	return w.Write(src.Session)
}

func exportNDJSON(f *Factory, opts *ExportOptions, items []exportItem, dir string, now time.Time, rep *exportReport,
	each func(func(*catalog.Opened) error) error) error {
	names := agentNames()
	h := agenthistory.Header{ExportTimestamp: now, Homes: []string{"local"}, SessionCount: len(items)}
	for _, it := range items {
		h.AgentTypes = appendNew(h.AgentTypes, names.Agent(it.cli))
		if it.project != "" {
			h.Workspaces = appendNew(h.Workspaces, it.project)
		}
	}
	write := func(w *agenthistory.Writer) error {
		w.Names = names
		return each(func(src *catalog.Opened) error { return writeNDJSON(w, src) })
	}
	path := opts.Output
	if dir != "" {
		path = filepath.Join(dir, "export_"+now.Format("20060102_150405")+".ndjson")
	}
	if path != "" {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%s exists: stead does not replace files", path)
		}
		var filter func(io.Writer) io.WriteCloser
		if opts.Redact {
			filter = func(w io.Writer) io.WriteCloser { return redact.NewWriter(w) }
		}
		w, c, err := agenthistory.CreateFiltered(path, h, filter)
		if err != nil {
			return err
		}
		err = write(w)
		if cerr := c.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if fi, err := os.Stat(path); err == nil {
			rep.Bytes = fi.Size()
		}
		rep.Files = append(rep.Files, path)
		return nil
	}
	bw := bufio.NewWriterSize(f.IO.RawOut(), 256<<10)
	err := redacted(bw, opts.Redact, func(out io.Writer) error {
		w, err := agenthistory.NewWriter(out, h)
		if err != nil {
			return err
		}
		err = write(w)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		return err
	})
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

func appendNew(list []string, v string) []string {
	if v == "" || slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// safeName keeps a file name to letters, digits, '.', '_' and '-'.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, strings.TrimLeft(s, "."))
}

// redacted calls write with w, or with a writer that redacts what goes
// to w (internal/redact) when on is set.
func redacted(w io.Writer, on bool, write func(io.Writer) error) error {
	if !on {
		return write(w)
	}
	rw := redact.NewWriter(w)
	err := write(rw)
	if cerr := rw.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeNewFile writes a new file atomically, refusing to replace one, and
// returns its size.
func writeNewFile(path string, write func(io.Writer) error) (int64, error) {
	if _, err := os.Lstat(path); err == nil {
		return 0, fmt.Errorf("%s exists: stead does not replace files", path)
	}
	var n int64
	err := atomicfile.CreateFunc(path, 0o600, func(w io.Writer) error {
		cw := &countWriter{w: w}
		err := write(cw)
		n = cw.n
		return err
	})
	return n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// exportProgress prints "exported N/M sessions" on a terminal's stderr.
type exportProgress struct {
	io    *IOStreams
	total int
	last  time.Time
	start time.Time
	shown bool
}

func newExportProgress(io *IOStreams, total int) *exportProgress {
	return &exportProgress{io: io, total: total, start: time.Now()}
}

func (p *exportProgress) update(done int, bytes int64) {
	now := time.Now()
	if !p.io.ErrTTY || now.Sub(p.start) < 500*time.Millisecond || now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.shown = now, true
	fmt.Fprintf(p.io.RawErrOut(), "\rexporting: %d/%d sessions ", done, p.total)
	if bytes > 0 {
		fmt.Fprintf(p.io.RawErrOut(), "(%s) ", humanBytes(bytes))
	}
}

func (p *exportProgress) done() {
	if p.shown {
		fmt.Fprint(p.io.RawErrOut(), "\r\033[K")
		p.shown = false
	}
}

var errNoFormat = errors.New("the file is in no format stead knows (CUSF, agent-history NDJSON or universal JSON)")

// exportClock gives the time an export is made (a test fixes it).
var exportClock = time.Now

// openExport opens a session to export: a run's from the bus, else from
// its CLI's store (see catalog.Open; CUSF keeps no native records).
func openExport(ctx context.Context, f *Factory, opts *ExportOptions, it exportItem) (*catalog.Opened, error) {
	if onBus(it.ref) {
		b, err := connectBus(ctx, f, opts.Bus, true)
		if err != nil {
			return nil, err
		}
		defer b.Close()
		s, err := loadSession(ctx, f, b, it.ref, "")
		return &catalog.Opened{Session: s}, err
	}
	a, _ := adapters.Lookup(it.cli)
	return catalog.Open(f.Env, a, it.sref, catalog.Keep{Records: opts.Format != formatCUSF})
}
