package main

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	_ "time/tzdata" // --tz on systems without a time zone database (Windows)

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/pricing"
	"github.com/stead-dev/stead/session"
)

// StatsOptions are the inputs of `stead session stats`.
type StatsOptions struct {
	Factory *Factory
	Scan    scanFlags
	JSON    bool
	// By groups usage by period (day, week, month, block) and by cli,
	// project or model, instead of totalling it per session.
	By []string
	// TZ names the time zone of days, weeks, months and of dates in
	// --since and --until (IANA); empty is the local one.
	TZ string
	// StartOfWeek is the day weeks start on.
	StartOfWeek string
}

func newStatsCmd(f *Factory, runF func(*StatsOptions) error) *cobra.Command {
	opts := &StatsOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Total tokens, cost, tools and errors per session and overall",
		Long: `Total what sessions used: tokens (input, output, cache read and write), an
estimated cost from a price table you can override in the config file, tool
calls by universal tool, tool errors, files modified, turns and durations.
Each model response is counted once, even when a fork copied it.

With --by, total usage over time instead: by day, week or month (in the
time zone of --tz; weeks start on Monday unless --start-of-week says
otherwise), or by 5-hour billing block as ccusage counts them (a block
starts at the hour of its first response and lasts 5 hours; a response
after its end or after a pause of more than 5 hours starts the next), and
by cli, project or model, alone or combined (--by day,model). Each response
counts when it was made, so --since and --until cut sessions that straddle
them. For the block still active the table ends with its burn rate and
what it will have used by its end at that rate.`,
		Example: `  # Totals per session, per model and per CLI, of every session
  stead session stats
  # Claude Code and Codex over the last 30 days
  stead session stats --cli claude,codex --since 30d
  # One project's totals for November, as JSON
  stead session stats --project ~/work/alpha --since 2026-11-01 --until 2026-11-30 --json
  # Usage per day and model over the last week, in Paris time
  stead session stats --by day,model --since 7d --tz Europe/Paris
  # The 5-hour billing blocks of today, with the active block's burn rate
  stead session stats --by block --since 24h`,
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
	cmd.Flags().StringSliceVar(&opts.By, "by", nil, "total usage by day, week, month or block, and by cli, project or model (comma-separate: day,model)")
	cmd.Flags().StringVar(&opts.TZ, "tz", "", "time zone of days, weeks, months and dates (IANA name, e.g. Europe/Paris; default local)")
	cmd.Flags().StringVar(&opts.StartOfWeek, "start-of-week", "monday", "the day weeks start on (--by week)")
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
	now := time.Now()
	by, err := parseBy(opts)
	if err != nil {
		return err
	}
	filter, err := opts.Scan.filter(now)
	if err != nil {
		return err
	}
	if filter.Since, filter.Until, err = statsPeriod(&opts.Scan, by.Location, now); err != nil {
		return err
	}
	prices, err := f.Prices()
	if err != nil {
		return err
	}
	f.answerFromIndex(answerGC)
	res, err := scan(cmd, f, &opts.Scan, session.DetailFull)
	if err != nil {
		return err
	}
	if len(opts.By) > 0 {
		by.Since, by.Until, by.Now = filter.Since, filter.Until, now
		return statsByRun(f, opts, res, filter, by, prices)
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
	tw := newTable(w, 0, 0, 2)
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
	tw = newTable(w, 0, 0, 2)
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

// byKeys are what --by takes: a period, then what splits it.
var byKeys = map[string]catalog.Period{"day": catalog.Day, "week": catalog.Week, "month": catalog.Month, "block": catalog.Block,
	"cli": catalog.NoPeriod, "project": catalog.NoPeriod, "model": catalog.NoPeriod}

// parseBy reads --by, --tz and --start-of-week.
func parseBy(opts *StatsOptions) (catalog.UsageOptions, error) {
	by := catalog.UsageOptions{Location: time.Local}
	if opts.TZ != "" {
		loc, err := time.LoadLocation(opts.TZ)
		if err != nil {
			return by, flagErrorf("--tz: %q is not a time zone (an IANA name such as Europe/Paris, or UTC)", opts.TZ)
		}
		by.Location = loc
	}
	day, ok := weekdays[strings.ToLower(opts.StartOfWeek)]
	if !ok {
		return by, flagErrorf("--start-of-week: %q is not a day of the week", opts.StartOfWeek)
	}
	by.WeekStart = day
	seen := map[string]bool{}
	for _, k := range opts.By {
		k = strings.ToLower(strings.TrimSpace(k))
		p, ok := byKeys[k]
		switch {
		case !ok:
			return by, flagErrorf("--by: %q is not one of day, week, month, block, cli, project or model", k)
		case seen[k]:
			return by, flagErrorf("--by: %s given twice", k)
		case p != catalog.NoPeriod && by.Period != catalog.NoPeriod:
			return by, flagErrorf("--by: one period at most (day, week, month or block)")
		}
		seen[k] = true
		switch k {
		case "cli":
			by.ByCLI = true
		case "project":
			by.ByProject = true
		case "model":
			by.ByModel = true
		default:
			by.Period = p
		}
	}
	return by, nil
}

var weekdays = func() map[string]time.Weekday {
	m := map[string]time.Weekday{}
	for d := time.Sunday; d <= time.Saturday; d++ {
		name := strings.ToLower(d.String())
		m[name], m[name[:3]] = d, d
	}
	return m
}()

// statsPeriod reads --since and --until, a date as a day of the time zone
// loc.
func statsPeriod(s *scanFlags, loc *time.Location, now time.Time) (since, until time.Time, err error) {
	when := func(v string, end bool) (time.Time, error) {
		t, err := time.ParseInLocation("2006-01-02", v, loc)
		if err != nil {
			return parseWhen(v, now, end)
		}
		if end {
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc).Add(-time.Nanosecond)
		}
		return t, nil
	}
	if since, err = when(s.Since, false); err != nil {
		return since, until, flagErrorf("--since: %v", err)
	}
	if until, err = when(s.Until, true); err != nil {
		return since, until, flagErrorf("--until: %v", err)
	}
	return since, until, nil
}

// usageGroupJSON is a group of stats --by: its keys, then its usage.
type usageGroupJSON struct {
	// Day, Week (its first day) and Month are dates in the time zone;
	// Block is the block's start.
	Day   string `json:"day,omitempty"`
	Week  string `json:"week,omitempty"`
	Month string `json:"month,omitempty"`
	Block string `json:"block,omitempty"`
	// Start and End bound the period (End excluded).
	Start *string `json:"start,omitempty"`
	End   *string `json:"end,omitempty"`
	// Active is set on blocks: whether the block is still running.
	Active  *bool   `json:"active,omitempty"`
	CLI     *string `json:"cli,omitempty"`
	Project *string `json:"project,omitempty"`
	Model   *string `json:"model,omitempty"`

	Sessions      int                  `json:"sessions"`
	Responses     int                  `json:"responses"`
	FirstResponse *string              `json:"firstResponse"`
	LastResponse  *string              `json:"lastResponse"`
	Tokens        tokensJSON           `json:"tokens"`
	Cost          float64              `json:"cost"`
	Unpriced      []string             `json:"unpricedModels"`
	Models        map[string]modelJSON `json:"models"`
}

// activeBlockJSON is the billing block still running, with its burn rate
// and what it will have used by its end at that rate.
type activeBlockJSON struct {
	usageGroupJSON
	// RemainingMinutes is the time left until the block's end.
	RemainingMinutes float64 `json:"remainingMinutes"`
	// BurnRate and Projected are null while the block's responses span
	// no time (a single response).
	BurnRate  *burnRateJSON  `json:"burnRate"`
	Projected *projectedJSON `json:"projected"`
}

type burnRateJSON struct {
	// TokensPerMinute counts every token; InputOutputTokensPerMinute
	// only input and output, as ccusage's burn rate indicator does.
	TokensPerMinute            float64 `json:"tokensPerMinute"`
	InputOutputTokensPerMinute float64 `json:"inputOutputTokensPerMinute"`
	CostPerHour                float64 `json:"costPerHour"`
}

type projectedJSON struct {
	Tokens int64   `json:"tokens"`
	Cost   float64 `json:"cost"`
}

type statsByJSON struct {
	By          []string          `json:"by"`
	TimeZone    string            `json:"timeZone"`
	StartOfWeek string            `json:"startOfWeek"`
	Since       *string           `json:"since"`
	Until       *string           `json:"until"`
	Groups      []usageGroupJSON  `json:"groups"`
	Totals      usageGroupJSON    `json:"totals"`
	ActiveBlock *activeBlockJSON  `json:"activeBlock"`
	Warnings    []session.Warning `json:"warnings"`
	unpriced    map[string]bool   // every unpriced model, for the table's note
}

// usageGroup renders a group: its keys as the options split by them.
func usageGroup(g *catalog.UsageGroup, by catalog.UsageOptions, prices *pricing.Table, keys bool) usageGroupJSON {
	models, cost, unpriced := modelCosts(prices, g.Models)
	out := usageGroupJSON{Sessions: g.Sessions, Responses: g.Responses, FirstResponse: jsonTime(g.First),
		LastResponse: jsonTime(g.Last), Tokens: toTokens(g.Usage), Cost: cost, Unpriced: unpriced, Models: models}
	if !keys {
		return out
	}
	start := g.Start.In(by.Location)
	switch by.Period {
	case catalog.Day:
		out.Day = start.Format(time.DateOnly)
	case catalog.Week:
		out.Week = start.Format(time.DateOnly)
	case catalog.Month:
		out.Month = start.Format("2006-01")
	case catalog.Block:
		out.Block = session.FormatTime(g.Start)
		active := g.Active
		out.Active = &active
	}
	if by.Period != catalog.NoPeriod {
		out.Start, out.End = jsonTime(g.Start), jsonTime(g.End)
	}
	str := func(s string) *string { return &s }
	if by.ByCLI {
		out.CLI = str(g.CLI)
	}
	if by.ByProject {
		out.Project = str(g.Project)
	}
	if by.ByModel {
		out.Model = str(g.Model)
	}
	return out
}

// activeBlock renders the block still running at now, with ccusage's burn
// rate (the block's usage over the time from its first response to its
// last) and projection (that rate kept up until the block's end).
func activeBlock(a *catalog.UsageGroup, by catalog.UsageOptions, prices *pricing.Table, now time.Time) *activeBlockJSON {
	whole := by // the block whole, whatever the split
	whole.ByCLI, whole.ByProject, whole.ByModel = false, false, false
	out := &activeBlockJSON{usageGroupJSON: usageGroup(a, whole, prices, true)}
	out.Block = ""
	remaining := max(a.End.Sub(now).Minutes(), 0)
	out.RemainingMinutes = remaining
	minutes := a.Last.Sub(a.First).Minutes()
	if minutes <= 0 {
		return out
	}
	total := float64(a.Usage.Total())
	r := &burnRateJSON{TokensPerMinute: total / minutes, InputOutputTokensPerMinute: float64(a.Usage.Input+a.Usage.Output) / minutes,
		CostPerHour: out.Cost / minutes * 60}
	out.BurnRate = r
	out.Projected = &projectedJSON{Tokens: a.Usage.Total() + int64(math.Round(r.TokensPerMinute*remaining)),
		Cost: out.Cost + r.CostPerHour/60*remaining}
	return out
}

// statsByRun is stats --by: usage over time and by CLI, project or
// model, of the sessions the filter keeps, each response counted when it
// was made.
func statsByRun(f *Factory, opts *StatsOptions, res *catalog.Result, filter catalog.Filter, by catalog.UsageOptions, prices *pricing.Table) error {
	keep := filter
	keep.Since, keep.Until = time.Time{}, time.Time{} // responses are kept by when they were made
	var sums []session.Summary
	for i := range res.Summaries {
		if keep.Keep(&res.Summaries[i]) {
			sums = append(sums, res.Summaries[i])
		}
	}
	rep := catalog.UsageOver(sums, by)
	out := statsByJSON{TimeZone: by.Location.String(), StartOfWeek: strings.ToLower(by.WeekStart.String()),
		Since: jsonTime(by.Since), Until: jsonTime(by.Until), Warnings: res.Warnings, unpriced: map[string]bool{}}
	if out.Warnings == nil {
		out.Warnings = []session.Warning{}
	}
	for _, k := range opts.By {
		out.By = append(out.By, strings.ToLower(strings.TrimSpace(k)))
	}
	out.Groups = make([]usageGroupJSON, len(rep.Groups))
	for i := range rep.Groups {
		out.Groups[i] = usageGroup(&rep.Groups[i], by, prices, true)
	}
	out.Totals = usageGroup(&rep.Total, by, prices, false)
	for _, m := range out.Totals.Unpriced {
		out.unpriced[m] = true
	}
	if rep.ActiveBlock != nil {
		out.ActiveBlock = activeBlock(rep.ActiveBlock, by, prices, by.Now)
	}
	if opts.JSON {
		fields := []jsonField{{name: "by", value: out.By}, {name: "timeZone", value: out.TimeZone},
			{name: "startOfWeek", value: out.StartOfWeek}, {name: "since", value: out.Since}, {name: "until", value: out.Until},
			{name: "groups", items: func(yield func(any) error) error {
				for i := range out.Groups {
					if err := yield(&out.Groups[i]); err != nil {
						return err
					}
				}
				return nil
			}},
			{name: "totals", value: &out.Totals}}
		if by.Period == catalog.Block {
			fields = append(fields, jsonField{name: "activeBlock", value: out.ActiveBlock})
		}
		return writeJSON(f.IO.RawOut(), append(fields, jsonField{name: "warnings", value: out.Warnings})...)
	}
	printWarnings(f.IO, res.Warnings)
	writeStatsByTable(f, &out, by)
	return nil
}

// writeStatsByTable writes the groups of stats --by, a row each, the
// totals last, then the active block's burn rate.
func writeStatsByTable(f *Factory, out *statsByJSON, by catalog.UsageOptions) {
	w := f.IO.Out
	if len(out.Groups) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "no usage found")
		return
	}
	loc := by.Location
	tw := newTable(w, 0, 0, 2)
	var head []string
	switch by.Period {
	case catalog.Day:
		head = append(head, "DAY")
	case catalog.Week:
		head = append(head, "WEEK OF")
	case catalog.Month:
		head = append(head, "MONTH")
	case catalog.Block:
		head = append(head, "BLOCK")
	}
	if by.ByCLI {
		head = append(head, "CLI")
	}
	if by.ByProject {
		head = append(head, "PROJECT")
	}
	if by.ByModel {
		head = append(head, "MODEL")
	}
	keys := len(head)
	head = append(head, "SESSIONS", "RESPONSES", "INPUT", "OUTPUT", "CACHE R", "CACHE W", "COST")
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	figures := func(g *usageGroupJSON) string {
		return fmt.Sprintf("%d\t%d\t%s\t%s\t%s\t%s\t%s\t", g.Sessions, g.Responses, count(g.Tokens.Input), count(g.Tokens.Output),
			count(g.Tokens.CacheRead), count(g.Tokens.CacheWrite), money(g.Cost, len(g.Unpriced) > 0))
	}
	for i := range out.Groups {
		g := &out.Groups[i]
		var row []string
		switch by.Period {
		case catalog.Day:
			row = append(row, g.Day)
		case catalog.Week:
			row = append(row, g.Week)
		case catalog.Month:
			row = append(row, g.Month)
		case catalog.Block:
			start, _ := session.ParseTime(*g.Start)
			end, _ := session.ParseTime(*g.End)
			label := start.In(loc).Format("2006-01-02 15:04") + "-" + end.In(loc).Format("15:04")
			if *g.Active {
				label += " (active)"
			}
			row = append(row, label)
		}
		if g.CLI != nil {
			row = append(row, *g.CLI)
		}
		if g.Project != nil {
			p := "-"
			if *g.Project != "" {
				p = clip(shortPath(*g.Project, f.Env.Home), 40)
			}
			row = append(row, p)
		}
		if g.Model != nil {
			m := *g.Model
			if m == "" {
				m = "(unknown)"
			}
			row = append(row, m)
		}
		for _, m := range g.Unpriced {
			out.unpriced[m] = true
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t"+figures(g))
	}
	total := "TOTAL" + strings.Repeat("\t", max(keys, 1))
	fmt.Fprintln(tw, total+figures(&out.Totals))
	tw.Flush()

	if by.Period != catalog.NoPeriod {
		zone := loc.String()
		if zone == "Local" {
			zone = "local time (" + time.Now().In(loc).Format("MST, UTC-07:00") + ")"
		}
		note := "Times in " + zone
		if by.Period == catalog.Week {
			note += "; weeks start on " + by.WeekStart.String()
		}
		fmt.Fprintf(w, "\n%s.\n", note)
	}
	if a := out.ActiveBlock; a != nil {
		start, _ := session.ParseTime(*a.Start)
		end, _ := session.ParseTime(*a.End)
		fmt.Fprintf(w, "Active block %s-%s: %s tokens, %s so far; %s left.\n", start.In(loc).Format("15:04"), end.In(loc).Format("15:04"),
			count(a.Tokens.Total), money(a.Cost, len(a.Unpriced) > 0), formatDuration(time.Duration(a.RemainingMinutes*float64(time.Minute))))
		if r := a.BurnRate; r != nil {
			fmt.Fprintf(w, "Burn rate: %s tokens/min (%s input and output), %s/h. Projected by %s: %s tokens, %s.\n",
				count(int64(math.Round(r.TokensPerMinute))), count(int64(math.Round(r.InputOutputTokensPerMinute))),
				money(r.CostPerHour, len(a.Unpriced) > 0), end.In(loc).Format("15:04"), count(a.Projected.Tokens),
				money(a.Projected.Cost, len(a.Unpriced) > 0))
		}
	}
	if len(out.unpriced) > 0 {
		names := make([]string, 0, len(out.unpriced))
		for n := range out.unpriced {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(w, "\nCosts are estimates from list prices; unpriced models (add them to the config file): %v\n", names)
	}
}
