package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/agenthistory"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/cusf"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// openInterchange opens an exported file, gunzipping it when it is
// gzipped, and says which format it is in.
func openInterchange(path string) (*bufio.Reader, string, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", nil, err
	}
	var r io.Reader = f
	closer := f.Close
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, "", nil, fmt.Errorf("%s: %w", path, err)
		}
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	head, _ := br.Peek(4096)
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	first, _, _ := bytes.Cut(head, []byte("\n"))
	switch {
	case bytes.HasPrefix(first, []byte(`{"_meta"`)) || bytes.Contains(first, []byte(`"_meta":`)) && bytes.Contains(first, []byte(`"cusf"`)):
		return br, formatCUSF, closer, nil
	case bytes.Contains(first, []byte(`"type":"header"`)) || bytes.Contains(first, []byte(`"type": "header"`)):
		return br, formatNDJSON, closer, nil
	case bytes.HasPrefix(head, []byte("{")):
		return br, formatUSF, closer, nil
	}
	f.Close()
	return nil, "", nil, fmt.Errorf("%s: %w", path, errNoFormat)
}

// readInterchange reads every session of an exported file, one at a time,
// calling fn for each; problems with single lines are warnings.
func readInterchange(path string, fn func(*session.Session) error) (string, []error, error) {
	br, format, closeFile, err := openInterchange(path)
	if err != nil {
		return "", nil, err
	}
	defer closeFile()
	warns, err := readSessions(br, format, path, fn)
	return format, warns, err
}

// readSessions reads the sessions of an opened file in format.
func readSessions(br *bufio.Reader, format, path string, fn func(*session.Session) error) ([]error, error) {
	switch format {
	case formatCUSF:
		s, warns, err := cusf.Decode(br, path)
		if err != nil {
			return warns, err
		}
		return warns, fn(s)
	case formatNDJSON:
		r, err := agenthistory.NewReader(br, path)
		if err != nil {
			return nil, err
		}
		r.Names = agentNames()
		for {
			s, err := r.Next()
			if errors.Is(err, io.EOF) {
				return r.Warnings(), nil
			}
			if err != nil {
				return r.Warnings(), err
			}
			if err := fn(s); err != nil {
				return r.Warnings(), err
			}
		}
	}
	// Universal JSON: one document, or one per line.
	dec := json.NewDecoder(br)
	for n := 1; ; n++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return nil, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: session %d: %w", path, n, err)
		}
		s, err := session.Unmarshal(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: session %d: %w", path, n, err)
		}
		if err := fn(s); err != nil {
			return nil, err
		}
	}
}

// ImportOptions are the inputs of `stead session import`.
type ImportOptions struct {
	Factory *Factory
	File    string
	JSON    bool
	Bus     BusFlags
}

type importedJSON struct {
	Run     string `json:"run"`
	CLI     string `json:"cli"`
	ID      string `json:"id"`
	Entries int    `json:"entries"`
}

func newImportCmd(f *Factory) *cobra.Command {
	opts := &ImportOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "import <file>",
		Short: "Import sessions from CUSF, agent-history NDJSON or universal JSON",
		Long: `Import the sessions of an exported file (the format is detected; .gz is read
too) and store each on the bus as a finished run, so that it can be shown,
forked, exported and resumed in any CLI like a native one:

    stead session import backup.ndjson
    stead session show run:<run>
    stead session resume run:<run> --to codex

A line that cannot be read is reported with its file and line, and the rest is
imported; a file none of whose sessions can be read fails. A session is stored
as it is read: memory holds a few times its largest line, not the file, except
for a universal JSON document, which is read whole.`,
		Example: `  # Store each session of an exported file as a finished run
  stead session import all.ndjson.gz
  # A CUSF file; the runs made, as JSON
  stead session import session.jsonl --json
  # A universal JSON document, as 'session export --format usf -o DIR' writes them
  stead session import claude-742233ee.usf.json`,
		Args: oneArg("import needs the file to import"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			return importRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the runs made as JSON")
	addBusFlags(cmd, &opts.Bus)
	return cmd
}

func importRun(ctx context.Context, opts *ImportOptions) error {
	f := opts.Factory
	if _, err := os.Stat(opts.File); err != nil {
		return err
	}
	b, err := connectBus(ctx, f, opts.Bus, true)
	if err != nil {
		return err
	}
	defer b.Close()
	sv := f.supervisor(b)
	out := []importedJSON{}
	format, warns, err := importSessions(opts.File, func(src importSource) error {
		rec, err := sv.Import(ctx, runs.Imported{Session: src.s, Entries: src.entries, Records: src.records, N: src.n}, opts.File)
		if err != nil {
			return err
		}
		s := src.s
		out = append(out, importedJSON{Run: rec.ID, CLI: s.Source.CLI, ID: s.ID, Entries: src.n})
		if !opts.JSON {
			fmt.Fprintf(f.IO.Out, "run:%s  %s:%s  %d entries\n", rec.ID, s.Source.CLI, s.ID, src.n)
		}
		return nil
	})
	// A session line that could not be read is a session lost: reported,
	// and an error when it leaves nothing imported.
	var skipped []error
	for _, w := range warns {
		if le := (*agenthistory.LineError)(nil); errors.As(w, &le) && le.Skipped {
			skipped = append(skipped, w)
		}
	}
	if err == nil && len(out) == 0 && len(skipped) > 0 {
		err = fmt.Errorf("no session imported: %w", skipped[0])
		warns = slices.DeleteFunc(warns, func(w error) bool { return w == skipped[0] })
	}
	for _, w := range warns {
		fmt.Fprintf(f.IO.ErrOut, "warning: %v\n", w)
	}
	if err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(f.IO.RawOut(), map[string]any{"format": format, "sessions": out})
	}
	lost := ""
	if len(skipped) > 0 {
		lost = fmt.Sprintf("; %d session lines could not be read (see above)", len(skipped))
	}
	fmt.Fprintf(f.IO.ErrOut, "stead: imported %s from %s (%s)%s; show one with: stead session show run:<run>\n", plural(len(out), "session"), opts.File, format, lost)
	return nil
}

// importSource is a session to import: whole, or, from a large CUSF
// file, its outline, its entries read again as they are stored and its
// native records spooled to disk.
type importSource struct {
	s       *session.Session
	entries session.Entries // nil: s.Timeline
	records session.Records // nil: s.Records
	n       int             // entries
}

// importSessions reads the sessions of an exported file for import, one
// at a time, calling fn for each: a CUSF file over catalog.TwoPassAbove in two
// passes (cusf.DecodeOutline), so that its session is stored one entry at
// a time; an NDJSON file a line (one session) at a time; a universal
// document whole.
func importSessions(path string, fn func(importSource) error) (string, []error, error) {
	br, format, closeFile, err := openInterchange(path)
	if err != nil {
		return "", nil, err
	}
	defer closeFile()
	if fi, err := os.Stat(path); err == nil && format == formatCUSF && fi.Size() > catalog.TwoPassAbove {
		warns, err := importTwoPass(br, path, fn)
		return format, warns, err
	}
	warns, err := readSessions(br, format, path, func(s *session.Session) error {
		return fn(importSource{s: s, n: len(s.Timeline)})
	})
	return format, warns, err
}

// importTwoPass reads the CUSF file br holds for its outline, spooling
// its records, and opens it again for its entries.
func importTwoPass(br *bufio.Reader, path string, fn func(importSource) error) ([]error, error) {
	spool, err := catalog.NewRecordSpool()
	if err != nil {
		return nil, err
	}
	defer spool.Close()
	s, o, warns, err := cusf.DecodeOutline(br, path, spool.Add)
	if err == nil {
		err = spool.Rewind()
	}
	if err != nil {
		return warns, err
	}
	runtime.GC() // see catalog.OpenTwoPass
	again, _, closeFile, err := openInterchange(path)
	if err != nil {
		return warns, err
	}
	defer closeFile()
	return warns, fn(importSource{s: s, entries: o.Entries(again, path), records: spool, n: o.Len()})
}

// ValidateOptions are the inputs of `stead session validate`.
type ValidateOptions struct {
	Factory *Factory
	File    string
	Grade   bool
	JSON    bool
}

// ErrInvalid is returned when a file fails validation.
var ErrInvalid = errors.New("the file is not valid")

func newValidateCmd(f *Factory) *cobra.Command {
	opts := &ValidateOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "validate <file> [--grade]",
		Short: "Validate a CUSF file (schema, structure, reconstruction, grade) or an agent-history NDJSON file",
		Long: `Validate an exported file. A CUSF 1.0.0 file is checked against the standard's
JSON Schema line by line, against its structural rules (the _meta line first,
session_start before messages, every tool_result after its tool_use, matching
session ids, timestamps in order) and, with --grade, by the reconstruction
test (import, export again, compare) and graded A to F as the standard says.
An agent-history NDJSON file is read a line (one session) at a time, each
line checked. Every failure names its line and rule. The exit code is 0 only
for a valid file.`,
		Example: `  # Check a CUSF file: schema and structural rules
  stead session validate session.jsonl
  # Also the reconstruction test, and its grade
  stead session validate session.jsonl --grade
  # An agent-history NDJSON file, the result as JSON
  stead session validate all.ndjson --json`,
		Args: oneArg("validate needs the file to check"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			return validateRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Grade, "grade", false, "also run the reconstruction test and grade the file (CUSF)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	return cmd
}

func validateRun(opts *ValidateOptions) error {
	f := opts.Factory
	br, format, closeFile, err := openInterchange(opts.File)
	if err != nil {
		return err
	}
	defer closeFile()
	if format == formatCUSF {
		res, err := cusf.Validate(br, opts.File, cusf.ValidateOptions{Reconstruct: opts.Grade})
		if err != nil {
			return err
		}
		if opts.JSON {
			if err := printJSON(f.IO.RawOut(), res); err != nil {
				return err
			}
		} else {
			res.WriteText(f.IO.Out)
		}
		if !res.Pass() {
			return ErrInvalid
		}
		return nil
	}
	sessions := 0
	warns, err := readSessions(br, format, opts.File, func(*session.Session) error { sessions++; return nil })
	problems := []string{}
	for _, w := range warns {
		problems = append(problems, w.Error())
	}
	if err != nil {
		problems = append(problems, err.Error())
	}
	if opts.JSON {
		if err := printJSON(f.IO.RawOut(), map[string]any{"format": format, "sessions": sessions, "valid": len(problems) == 0, "errors": problems}); err != nil {
			return err
		}
	} else {
		for _, p := range problems {
			fmt.Fprintf(f.IO.Out, "❌ %s\n", p)
		}
		verdict := "✅"
		if len(problems) > 0 {
			verdict = "❌"
		}
		fmt.Fprintf(f.IO.Out, "%s %s: %s read, %s\n", verdict, format, plural(sessions, "session"), plural(len(problems), "problem"))
	}
	if len(problems) > 0 {
		return ErrInvalid
	}
	return nil
}
