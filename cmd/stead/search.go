package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/hosts"
	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/session"
)

// SearchOptions are the inputs of `stead search`.
type SearchOptions struct {
	Factory   *Factory
	Query     string
	CLIs      []string
	Project   string
	Since     string
	Until     string
	Roles     []string
	Tool      string
	Session   string
	Limit     int
	JSON      bool
	NoRefresh bool
	// Hosts searches the machines of the bus, each its own index: "all",
	// or their names.
	Hosts []string
}

// roles are the roles an entry is found under.
var roles = []string{"user", "assistant", "thinking", "tool_call", "tool_result", "system"}

func newSearchCmd(f *Factory) *cobra.Command {
	opts := &SearchOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "search <query>",
		Short: "Find entries of any session of any CLI: prompts, replies, thinking, tool calls and outputs",
		Long: `Search the text of every session of every CLI's store: prompts, replies,
thinking, tool calls (their tool, command, path, pattern, URL or query) and tool
outputs and errors. The search index (in $XDG_CACHE_HOME/stead) is brought up
to date first, reading only the sessions that changed since.

A query is words, all of which must match; "a phrase", whose words come in
order; prefix*; OR between two groups of words; -word or -"phrase" to exclude.
Case and accents are ignored. Hits are ranked by relevance, recent ones first
among equals; each names its session (<cli>:<id>) and entry, which
stead session show <cli>:<id> --at <entry> shows in context and
stead session fork <cli>:<id> --at <entry> forks at.`,
		Example: `  # Which session ran that migration?
  stead search "alembic upgrade"
  # Every time rm -rf was run, as JSON
  stead search '"rm -rf"' --role tool_call --json
  # An error of the last week, in Codex or Claude Code sessions of one project
  stead search "permission denied" --cli codex,claude --project ~/work/alpha --since 7d
  # Thinking about retries, but not in tests
  stead search "retry backoff* -test" --role thinking -n 50`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return flagErrorf("search needs a query: stead search <words>")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Query = strings.Join(args, " ")
			return searchRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringSliceVar(&opts.CLIs, "cli", nil, "only these CLIs ("+strings.Join(adapters.Names(), ", ")+"; repeat or comma-separate)")
	cmd.Flags().StringVar(&opts.Project, "project", "", "only sessions whose project directory contains this")
	cmd.Flags().StringVar(&opts.Since, "since", "", "only entries since: a date (2026-11-01), a time (RFC 3339) or an age (24h, 7d)")
	cmd.Flags().StringVar(&opts.Until, "until", "", "only entries until: a date, a time or an age")
	cmd.Flags().StringSliceVar(&opts.Roles, "role", nil, "only entries of these roles ("+strings.Join(roles, ", ")+")")
	cmd.Flags().StringVar(&opts.Tool, "tool", "", "only calls and results of this tool (its universal name, e.g. bash, or its CLI's)")
	cmd.Flags().StringVar(&opts.Session, "session", "", "only this session: <cli>:<id>, an id or a prefix of one")
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 20, "the most hits shown")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the hits as JSON")
	cmd.Flags().BoolVar(&opts.NoRefresh, "no-refresh", false, "search the index as it is, without bringing it up to date first")
	cmd.Flags().StringSliceVar(&opts.Hosts, "hosts", nil, "search the machines whose daemons share this bus, each its own index: all, or their names (a machine that does not answer is a warning)")
	return cmd
}

func searchRun(ctx context.Context, opts *SearchOptions) error {
	f := opts.Factory
	now := time.Now()
	q := index.Query{Text: opts.Query, CLIs: opts.CLIs, Roles: opts.Roles, Project: opts.Project, Tool: opts.Tool, Limit: opts.Limit}
	var err error
	if q.Since, err = parseWhen(opts.Since, now, false); err != nil {
		return flagErrorf("--since: %v", err)
	}
	if q.Until, err = parseWhen(opts.Until, now, true); err != nil {
		return flagErrorf("--until: %v", err)
	}
	for _, c := range opts.CLIs {
		if _, ok := adapters.Lookup(c); !ok {
			return flagErrorf("--cli: unknown CLI %q (%s)", c, strings.Join(adapters.Names(), ", "))
		}
	}
	for _, r := range opts.Roles {
		if !contains(roles, r) {
			return flagErrorf("--role: %q is not one of %s", r, strings.Join(roles, ", "))
		}
	}
	if opts.Limit <= 0 {
		return flagErrorf("-n: give a number of hits above 0")
	}
	if _, err := index.ParseQuery(opts.Query); err != nil {
		return flagErrorf("%v", err)
	}
	if len(opts.Hosts) > 0 {
		if opts.Session != "" {
			return flagErrorf("--session and --hosts: search a machine's session on that machine")
		}
		return searchHosts(ctx, opts, q)
	}
	if opts.Session != "" {
		_, ref, err := resolveRef(f.Env, opts.Session, "")
		if err != nil {
			return err
		}
		q.SessionCLI, q.SessionID = ref.CLI, ref.ID
	}
	ix, err := openIndex(ctx, f, false)
	if err != nil {
		return err
	}
	defer ix.Close()
	var hits []index.Hit
	if opts.NoRefresh {
		hits, err = ix.Search(ctx, q)
	} else {
		prog := newIndexProgress(f.IO)
		var res index.Refreshed
		hits, res, err = ix.SearchFresh(ctx, f.Env, q, prog.update)
		prog.done()
		// What could not be read is said once: when the session is read.
		printWarnings(f.IO, res.Warnings)
	}
	if err != nil {
		return err
	}
	if opts.JSON {
		if hits == nil {
			hits = []index.Hit{}
		}
		return printJSON(f.IO.RawOut(), map[string]any{"query": opts.Query, "hits": hits})
	}
	if len(hits) == 0 {
		fmt.Fprintf(f.IO.ErrOut, "stead: nothing found for %s\n", safetext.Quote(opts.Query))
		return nil
	}
	colour := f.IO.OutTTY && f.Env.Get("NO_COLOR") == ""
	for _, h := range hits {
		writeHit(f.IO.RawOut(), h, f.Env.Home, colour)
	}
	return nil
}

// searchHosts is stead search --hosts: each machine searches its own
// index (as its daemon keeps it: not refreshed first), all at once; the
// hits are merged by rank and name their machine.
func searchHosts(ctx context.Context, opts *SearchOptions, q index.Query) error {
	f := opts.Factory
	var names []string
	if !slices.Equal(opts.Hosts, []string{"all"}) {
		names = opts.Hosts
	}
	b, err := connectBus(ctx, f, BusFlags{}, true)
	if err != nil {
		return err
	}
	defer b.Close()
	answers, err := hosts.Search(ctx, b, q, names, hostsWait)
	if err != nil {
		return err
	}
	hits := []index.Hit{}
	var warns []session.Warning
	for _, a := range answers {
		if a.Err != nil {
			warns = append(warns, session.Warning{Message: a.Err.Error()})
			continue
		}
		hits = append(hits, a.Hits...)
	}
	slices.SortStableFunc(hits, func(x, y index.Hit) int { return cmp.Compare(x.Score, y.Score) })
	if len(hits) > q.Limit {
		hits = hits[:q.Limit]
	}
	if opts.JSON {
		if warns == nil {
			warns = []session.Warning{}
		}
		return printJSON(f.IO.RawOut(), map[string]any{"query": opts.Query, "hits": hits, "warnings": warns})
	}
	printWarnings(f.IO, warns)
	if len(hits) == 0 {
		fmt.Fprintf(f.IO.ErrOut, "stead: nothing found for %s\n", safetext.Quote(opts.Query))
		return nil
	}
	colour := f.IO.OutTTY && f.Env.Get("NO_COLOR") == ""
	for _, h := range hits {
		writeHit(f.IO.RawOut(), h, "", colour)
	}
	return nil
}

// writeHit prints a hit for a person: where it is, then its snippet with
// the matches marked. Every text from the session is made safe for a
// terminal first.
func writeHit(w io.Writer, h index.Hit, home string, colour bool) {
	what := h.Role
	if h.Tool != "" {
		what += " " + h.Tool
	}
	where := shortPath(h.Project, home)
	ref := h.Ref()
	if h.Run == "" && h.Host != "" {
		ref = h.Host + ":" + ref // another machine's: stead session show takes it so
	}
	if h.Run != "" {
		// Indexed from the bus: stead watch shows the run.
		ref += " (run " + h.Run
		if h.Host != "" {
			ref += " on " + h.Host
		}
		ref += ")"
	}
	fmt.Fprintf(w, "%s  %s  %s  %s  entry %s\n", safetext.Terminal(ref), formatTime(h.Time.Local()), safetext.Terminal(what),
		safetext.Terminal(clip(where, 60)), safetext.Terminal(h.Entry))
	open, end := "**", "**"
	if colour {
		open, end = "\x1b[1;31m", "\x1b[0m"
	}
	var b strings.Builder
	for i, part := range strings.Split(strings.Join(strings.Fields(h.Snippet), " "), index.Mark) {
		if i == 0 {
			b.WriteString(safetext.Terminal(part))
			continue
		}
		match, rest, _ := strings.Cut(part, index.EndMark)
		b.WriteString(open + safetext.Terminal(match) + end + safetext.Terminal(rest))
	}
	fmt.Fprintf(w, "    %s\n\n", b.String())
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// openIndex opens the search index of f's environment, brought up to
// date when refresh is set (with progress on a terminal, and the stores
// that could not be read reported).
func openIndex(ctx context.Context, f *Factory, refresh bool) (*index.Index, error) {
	f.answerFromIndex(freshGC)
	ix, err := index.Open(ctx, index.DefaultPath(f.Env), f.Logger)
	if err != nil {
		return nil, err
	}
	ix.ForOneAnswer()
	if !refresh {
		return ix, nil
	}
	prog := newIndexProgress(f.IO)
	res, err := ix.Fresh(ctx, f.Env, prog.update)
	prog.done()
	if err != nil {
		ix.Close()
		return nil, err
	}
	// What could not be read is said once: when the session is read.
	printWarnings(f.IO, res.Warnings)
	return ix, nil
}

// indexMemory is the soft memory limit of a process that may build the
// index: the Go heap is collected more often as it nears it, instead of
// growing to twice what is live. A cold build of the 10,000-session
// corpus peaked at 465–476 MB of RSS with Go's default (244–261 s), and
// at 293–306 MB with this limit (269 s: the collector's work); at 96 MiB
// it was no smaller (311 MB: the rest is SQLite's) and slower (295 s)
// (docs/performance.md). Since a build holds less (stop 43), 170 MiB
// instead of 150: 69.5 s instead of 73.0 (mean of 5), peak RSS 236–243
// MB instead of 232–236, under the goal of 256.
const indexMemory = 170 << 20

// limitIndexMemory sets indexMemory in stead's own process (not a
// test's), unless GOMEMLIMIT says otherwise.
func (f *Factory) limitIndexMemory() {
	if f.Process && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(indexMemory)
	}
}

// answerGC is the collector's target (GOGC) in the processes of list and
// stats (search and index have freshGC): answered from the index, each
// is a short process whose heap stays small, where Go's default (100)
// ran the collector five times in a 50 ms search. With 400, under
// indexMemory (which still bounds what they read when the index does not
// hold it), on the 10,000-session corpus: session list 89 -> 71 ms at 61
// -> 66 MB of RSS, the filtered search 55 -> 48 ms, index's freshness
// check 68 -> 60 ms; with no index, session list 7.5 -> 5.5 s at 85 ->
// 139 MB, session stats 10.4 -> 9.2 s at 186 MB; a cold build no slower
// (77.8-88.5 s against 79.6-96.0 s, 237-243 MB of RSS against 241-244)
// (docs/performance.md).
const answerGC = 400

// freshGC is the collector's target in the processes of search and
// index (not index --watch), whose work is mostly a freshness check: the
// heap's first goal is 4 MB times GOGC/100, and with 400 a freshness
// check of that corpus (about 21 MB allocated, nearly all of it live to
// its end: the manifest, what was found) ran the collector once for
// nothing. With 800, 15 runs each: index 51.2 -> 47.8 ms, search common
// word 67.4 -> 60.6, rare 50.8 -> 46.9, phrase 61.0 -> 56.7, filtered
// 69.6 -> 69.5, 1-2 MB more RSS; a cold build 79.2 / 104.9 s against
// 83.6 / 89.2 s, 239-242 MB of RSS either way (the memory limit bounds
// it). Not for list and stats: session list 91.9 -> 90.1 ms and stats
// 257 -> 246 from the index, but with none a listing reads every
// session, and took 128-134 MB of RSS at 400 against 176-179 MB at 800.
const freshGC = 800

// answerFromIndex sets the collector's target gc (answerGC or freshGC)
// and indexMemory in stead's own process (not a test's), unless GOGC and
// GOMEMLIMIT say otherwise.
func (f *Factory) answerFromIndex(gc int) {
	f.limitIndexMemory()
	if f.Process && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gc)
	}
}

// indexProgress shows on a terminal how far a refresh of the index is.
type indexProgress struct {
	io          *IOStreams
	start, last time.Time
	shown       bool
}

func newIndexProgress(io *IOStreams) *indexProgress {
	return &indexProgress{io: io, start: time.Now()}
}

func (p *indexProgress) update(done, total int, bytes int64) {
	now := time.Now()
	if !p.io.ErrTTY || now.Sub(p.start) < 500*time.Millisecond || now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.shown = now, true
	fmt.Fprintf(p.io.RawErrOut(), "\rindexing: %d/%d sessions (%s) ", done, total, humanBytes(bytes))
}

func (p *indexProgress) done() {
	if p.shown {
		fmt.Fprint(p.io.RawErrOut(), "\r\x1b[K")
	}
}
