package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/session"
)

// scanFlags are the filters list and stats share.
type scanFlags struct {
	CLIs      []string
	Project   string
	Since     string
	Until     string
	Subagents bool
}

func (s *scanFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringSliceVar(&s.CLIs, "cli", nil, "only these CLIs ("+strings.Join(adapters.Names(), ", ")+"; repeat or comma-separate)")
	cmd.Flags().StringVar(&s.Project, "project", "", "only sessions in this project: a path (and below) or part of one")
	cmd.Flags().StringVar(&s.Since, "since", "", "only sessions active since: a date (2026-11-01), a time (RFC 3339) or an age (24h, 7d)")
	cmd.Flags().StringVar(&s.Until, "until", "", "only sessions active until: a date, a time or an age")
	cmd.Flags().BoolVar(&s.Subagents, "subagents", false, "include subagent sessions")
}

func (s *scanFlags) filter(now time.Time) (catalog.Filter, error) {
	f := catalog.Filter{Project: s.Project, Subagents: s.Subagents}
	var err error
	if f.Since, err = parseWhen(s.Since, now, false); err != nil {
		return f, flagErrorf("--since: %v", err)
	}
	if f.Until, err = parseWhen(s.Until, now, true); err != nil {
		return f, flagErrorf("--until: %v", err)
	}
	return f, nil
}

// parseWhen reads a date, an RFC 3339 time or an age like 24h or 7d. A
// date used as an upper bound means the end of that day.
func parseWhen(s string, now time.Time, end bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		if end {
			t = t.Add(24*time.Hour - time.Nanosecond)
		}
		return t, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := strconv.Atoi(n); err == nil && d >= 0 {
			return now.Add(-time.Duration(d) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a date, time or age", s)
}

// scan runs a catalog scan with progress on a terminal.
func scan(cmd *cobra.Command, f *Factory, flags *scanFlags, detail session.Detail) (*catalog.Result, error) {
	opts := catalog.Options{Env: f.Env, CLIs: flags.CLIs, Detail: detail, Logger: f.Logger}
	if ix := existingIndex(cmd.Context(), f); ix != nil {
		// Sessions unchanged since the index read them are answered from
		// it; the others are read.
		defer ix.Close()
		env, cache, err := ix.Cache(cmd.Context(), f.Env, detail)
		if err == nil {
			opts.Env, opts.Cache = env, cache
		} else {
			logOf(f).Debug("the search index cannot answer; scanning", "err", err)
		}
	}
	if f.IO.ErrTTY {
		p := newProgress(f.IO)
		opts.Progress = p.update
		defer p.done()
	}
	res, err := catalog.Scan(cmd.Context(), opts)
	if err != nil {
		if errors.Is(err, catalog.ErrUnknownCLI) {
			return nil, &FlagError{err: err}
		}
		return nil, err
	}
	return res, nil
}

// progress prints "scanned N/M files" on a terminal's stderr, at most ten
// times a second, and only once a scan has run for half a second.
type progress struct {
	io    *IOStreams
	start time.Time
	mu    sync.Mutex
	last  time.Time
	shown bool
}

func newProgress(io *IOStreams) *progress { return &progress{io: io, start: time.Now()} }

func (p *progress) update(done, total int, doneBytes, totalBytes int64) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if now.Sub(p.start) < 500*time.Millisecond || now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.shown = now, true
	fmt.Fprintf(p.io.RawErrOut(), "\rscanning sessions: %d/%d files, %s/%s ", done, total, humanBytes(doneBytes), humanBytes(totalBytes))
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.io.RawErrOut(), "\r\033[K")
	}
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// printWarnings reports what a scan could not read, on stderr.
func printWarnings(io *IOStreams, warns []session.Warning) {
	const max = 20
	for i, w := range warns {
		if i == max {
			fmt.Fprintf(io.ErrOut, "warning: %d more (see --json)\n", len(warns)-max)
			break
		}
		fmt.Fprintf(io.ErrOut, "warning: %s\n", w)
	}
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}

// shortPath abbreviates the home directory as ~.
func shortPath(p, home string) string {
	if home != "" && (p == home || strings.HasPrefix(p, home+"/")) {
		return "~" + p[len(home):]
	}
	return p
}

// clip cuts s to at most n runes (safetext.Clip).
func clip(s string, n int) string { return safetext.Clip(s, n) }

// jsonTime formats a time for --json output: RFC 3339 in UTC, or null.
func jsonTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := session.FormatTime(t)
	return &s
}

// existingIndex opens the search index when there is one (list and stats
// never make one); nil otherwise.
func existingIndex(ctx context.Context, f *Factory) *index.Index {
	ix, err := index.OpenMade(ctx, index.DefaultPath(f.Env), f.Logger)
	if err != nil {
		if !errors.Is(err, index.ErrNoIndex) {
			logOf(f).Debug("the search index cannot be opened; scanning", "err", err)
		}
		return nil
	}
	ix.ForOneAnswer()
	return ix
}

func logOf(f *Factory) *slog.Logger {
	if f.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return f.Logger
}
