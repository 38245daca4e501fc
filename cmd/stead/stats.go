package main

import (
	"fmt"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/pricing"
	"github.com/stead-dev/stead/session"
)

// StatsOptions are the inputs of `stead session stats`.
type StatsOptions struct {
	Factory *Factory
	Scan    scanFlags
	JSON    bool
}

func newStatsCmd(f *Factory, runF func(*StatsOptions) error) *cobra.Command {
	opts := &StatsOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Total tokens, cost, tools and errors per session and overall",
		Long: `Total what sessions used: tokens (input, output, cache read and write), an
estimated cost from a price table you can override in the config file, tool
calls by universal tool, tool errors, files modified, turns and durations.
Each model response is counted once, even when a fork copied it.`,
		Example: `  # Totals per session, per model and per CLI, of every session
  stead session stats
  # Claude Code and Codex over the last 30 days
  stead session stats --cli claude,codex --since 30d
  # One project's totals for November, as JSON
  stead session stats --project ~/work/alpha --since 2026-11-01 --until 2026-11-30 --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return statsRun(cmd, opts)
		},
	}
	opts.Scan.register(cmd)
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "write JSON (see docs/json.md)")
	return cmd
}

// tokensJSON is token usage in stats output.
type tokensJSON struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
	Reasoning  int64 `json:"reasoning"`
	Total      int64 `json:"total"`
}

func toTokens(u session.Usage) tokensJSON {
	return tokensJSON{u.Input, u.Output, u.CacheRead, u.CacheWrite, u.Reasoning, u.Total()}
}

type modelJSON struct {
	Tokens tokensJSON `json:"tokens"`
	// Cost is null when the model has no price.
	Cost *float64 `json:"cost"`
	// PriceMatch is the price table entry used.
	PriceMatch string `json:"priceMatch,omitempty"`
}

type sessionStatsJSON struct {
	CLI             string               `json:"cli"`
	ID              string               `json:"id"`
	Project         string               `json:"project"`
	ProjectName     string               `json:"projectName"`
	Title           string               `json:"title"`
	Path            string               `json:"path"`
	Start           *string              `json:"start"`
	End             *string              `json:"end"`
	DurationSeconds float64              `json:"durationSeconds"`
	Turns           int                  `json:"turns"`
	Messages        int                  `json:"messages"`
	Tokens          tokensJSON           `json:"tokens"`
	ContextTokens   int64                `json:"contextTokens"`
	CacheHitRate    float64              `json:"cacheHitRate"`
	Cost            float64              `json:"cost"`
	Unpriced        []string             `json:"unpricedModels"`
	Models          map[string]modelJSON `json:"models"`
	ToolCalls       map[session.Tool]int `json:"toolCalls"`
	ToolCallsTotal  int                  `json:"toolCallsTotal"`
	ToolErrors      int                  `json:"toolErrors"`
	HasErrors       bool                 `json:"hasErrors"`
	FilesModified   []string             `json:"filesModified"`
	SkippedLines    int                  `json:"skippedLines"`
	Parent          *session.Link        `json:"parent,omitempty"`
}

type cliTotalsJSON struct {
	Sessions int        `json:"sessions"`
	Tokens   tokensJSON `json:"tokens"`
	Cost     float64    `json:"cost"`
}

type totalsJSON struct {
	Sessions           int                      `json:"sessions"`
	Turns              int                      `json:"turns"`
	Messages           int                      `json:"messages"`
	Tokens             tokensJSON               `json:"tokens"`
	CacheHitRate       float64                  `json:"cacheHitRate"`
	Cost               float64                  `json:"cost"`
	Unpriced           []string                 `json:"unpricedModels"`
	Models             map[string]modelJSON     `json:"models"`
	ByCLI              map[string]cliTotalsJSON `json:"byCli"`
	ToolCalls          map[session.Tool]int     `json:"toolCalls"`
	ToolCallsTotal     int                      `json:"toolCallsTotal"`
	ToolErrors         int                      `json:"toolErrors"`
	SessionsWithErrors int                      `json:"sessionsWithErrors"`
	DurationSeconds    float64                  `json:"durationSeconds"`
	SkippedLines       int                      `json:"skippedLines"`
}

type statsJSON struct {
	Sessions []sessionStatsJSON `json:"sessions"`
	Totals   totalsJSON         `json:"totals"`
	Warnings []session.Warning  `json:"warnings"`
}

// modelCosts prices usage split by model.
func modelCosts(prices *pricing.Table, models map[string]session.Usage) (map[string]modelJSON, float64, []string) {
	out := make(map[string]modelJSON, len(models))
	var total float64
	unpriced := []string{}
	for _, name := range session.ModelNames(models) {
		u := models[name]
		m := modelJSON{Tokens: toTokens(u)}
		if p, match, ok := prices.Lookup(name); ok {
			c := p.Cost(u)
			m.Cost, m.PriceMatch = &c, match
			total += c
		} else if !u.IsZero() {
			label := name
			if label == "" {
				label = "(unknown model)"
			}
			unpriced = append(unpriced, label)
		}
		out[name] = m
	}
	return out, total, unpriced
}

func statsRun(cmd *cobra.Command, opts *StatsOptions) error {
	f := opts.Factory
	filter, err := opts.Scan.filter(time.Now())
	if err != nil {
		return err
	}
	prices, err := f.Prices()
	if err != nil {
		return err
	}
	res, err := scan(cmd, f, &opts.Scan, session.DetailFull)
	if err != nil {
		return err
	}
	out := statsJSON{Sessions: []sessionStatsJSON{}, Warnings: res.Warnings}
	if out.Warnings == nil {
		out.Warnings = []session.Warning{}
	}
	tot := &out.Totals
	tot.ByCLI = map[string]cliTotalsJSON{}
	tot.ToolCalls = map[session.Tool]int{}
	allModels := map[string]session.Usage{}
	var allUsage session.Usage
	for i := range res.Summaries {
		sel, ok := filter.Select(res.Summaries[i])
		if !ok {
			continue
		}
		s := &sel
		models, cost, unpriced := modelCosts(prices, s.Models)
		st := sessionStatsJSON{
			CLI: s.CLI, ID: s.ID, Project: s.Project, ProjectName: baseName(s.Project), Title: s.Title, Path: s.Path,
			Start: jsonTime(s.Start), End: jsonTime(s.End), DurationSeconds: s.Duration().Seconds(),
			Turns: s.Turns, Messages: s.OwnMessages(), Tokens: toTokens(s.Usage), ContextTokens: s.LastUsage.Context(),
			CacheHitRate: s.Usage.CacheHitRate(), Cost: cost, Unpriced: unpriced, Models: models,
			ToolCalls: s.Tools, ToolErrors: s.ToolErrors, HasErrors: s.ToolErrors > 0,
			FilesModified: s.Files, SkippedLines: s.Skipped, Parent: s.Parent,
		}
		if st.ToolCalls == nil {
			st.ToolCalls = map[session.Tool]int{}
		}
		if st.FilesModified == nil {
			st.FilesModified = []string{}
		}
		for t, n := range s.Tools {
			st.ToolCallsTotal += n
			tot.ToolCalls[t] += n
		}
		out.Sessions = append(out.Sessions, st)

		tot.Sessions++
		tot.Turns += s.Turns
		tot.Messages += st.Messages
		allUsage.Add(s.Usage)
		for m, u := range s.Models {
			x := allModels[m]
			x.Add(u)
			allModels[m] = x
		}
		tot.ToolCallsTotal += st.ToolCallsTotal
		tot.ToolErrors += s.ToolErrors
		if st.HasErrors {
			tot.SessionsWithErrors++
		}
		tot.DurationSeconds += st.DurationSeconds
		tot.SkippedLines += s.Skipped
		c := tot.ByCLI[s.CLI]
		c.Sessions++
		cu := session.Usage{Input: c.Tokens.Input, Output: c.Tokens.Output, CacheRead: c.Tokens.CacheRead, CacheWrite: c.Tokens.CacheWrite, Reasoning: c.Tokens.Reasoning}
		cu.Add(s.Usage)
		c.Tokens = toTokens(cu)
		c.Cost += cost
		tot.ByCLI[s.CLI] = c
	}
	tot.Tokens = toTokens(allUsage)
	tot.CacheHitRate = allUsage.CacheHitRate()
	tot.Models, tot.Cost, tot.Unpriced = modelCosts(prices, allModels)

	if opts.JSON {
		return writeJSON(f.IO.RawOut(),
			jsonField{name: "sessions", items: func(yield func(any) error) error {
				for i := range out.Sessions {
					if err := yield(&out.Sessions[i]); err != nil {
						return err
					}
				}
				return nil
			}},
			jsonField{name: "totals", value: &out.Totals},
			jsonField{name: "warnings", value: out.Warnings})
	}
	printWarnings(f.IO, res.Warnings)
	writeStatsTable(f, &out, res.Summaries)
	return nil
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' || p[i] == '\\' {
			return p[i+1:]
		}
	}
	return p
}

// statsIDLen is the shortest a session's id is cut to in the stats table.
const statsIDLen = 12

// writeStatsTable writes the table of out. A session's id is cut to a
// prefix that none of the other ids scanned (all) starts with, so that
// it can be pasted into stead session show.
func writeStatsTable(f *Factory, out *statsJSON, all []session.Summary) {
	w := f.IO.Out
	if len(out.Sessions) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "no sessions found")
		return
	}
	ids := make([]string, len(all))
	for i := range all {
		ids[i] = all[i].ID
	}
	short := make(map[string]string, len(ids))
	for i, a := range session.Abbrev(ids, statsIDLen) {
		short[ids[i]] = a
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLI\tSESSION\tPROJECT\tTURNS\tTOOLS\tERR\tINPUT\tOUTPUT\tCACHE R\tCACHE W\tCOST\t")
	for _, s := range out.Sessions {
		id, ok := short[s.ID]
		if !ok {
			id = s.ID
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", s.CLI, id, clip(s.ProjectName, 24),
			s.Turns, s.ToolCallsTotal, s.ToolErrors, count(s.Tokens.Input), count(s.Tokens.Output),
			count(s.Tokens.CacheRead), count(s.Tokens.CacheWrite), money(s.Cost, len(s.Unpriced) > 0))
	}
	t := out.Totals
	fmt.Fprintf(tw, "TOTAL\t%s\t\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", plural(t.Sessions, "session"), t.Turns, t.ToolCallsTotal,
		t.ToolErrors, count(t.Tokens.Input), count(t.Tokens.Output), count(t.Tokens.CacheRead), count(t.Tokens.CacheWrite),
		money(t.Cost, len(t.Unpriced) > 0))
	tw.Flush()

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tINPUT\tOUTPUT\tCACHE R\tCACHE W\tCOST\tPRICE\t")
	names := make([]string, 0, len(t.Models))
	for n := range t.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m := t.Models[n]
		cost, match := "unpriced", "-"
		if m.Cost != nil {
			cost, match = money(*m.Cost, false), m.PriceMatch
		}
		label := n
		if label == "" {
			label = "(unknown)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", label, count(m.Tokens.Input), count(m.Tokens.Output),
			count(m.Tokens.CacheRead), count(m.Tokens.CacheWrite), cost, match)
	}
	tw.Flush()
	if len(t.Unpriced) > 0 {
		fmt.Fprintf(w, "\nCosts are estimates from list prices; unpriced models (add them to the config file): %v\n", t.Unpriced)
	}
}

// count formats a token count compactly.
func count(n int64) string {
	switch {
	case n >= 10_000_000_000:
		return fmt.Sprintf("%.0fG", float64(n)/1e9)
	case n >= 1_000_000_000:
		return fmt.Sprintf("%.1fG", float64(n)/1e9)
	case n >= 10_000_000:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func money(c float64, partial bool) string {
	s := fmt.Sprintf("$%.2f", c)
	if c > 0 && c < 0.01 {
		s = fmt.Sprintf("$%.4f", c)
	}
	if partial {
		s += "+"
	}
	return s
}
