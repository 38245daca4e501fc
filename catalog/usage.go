package catalog

import (
	"cmp"
	"slices"
	"time"

	"github.com/stead-dev/stead/session"
)

// Period is the span of time usage is grouped by.
type Period int

const (
	// NoPeriod groups usage over all time.
	NoPeriod Period = iota
	// Day, Week and Month group usage by the calendar of a time zone.
	Day
	Week
	Month
	// Block groups usage by billing block, as ccusage's blocks report
	// does: a block starts at the hour of its first response and lasts
	// BlockLength; the first response after it, or after a pause longer
	// than BlockLength, starts the next.
	Block
)

// BlockLength is how long a billing block lasts: Anthropic's five-hour
// usage window.
const BlockLength = 5 * time.Hour

// UsageOptions says how UsageOver groups usage. The zero value totals
// everything in one group, with days in UTC.
type UsageOptions struct {
	Period Period
	// ByCLI, ByProject and ByModel split each period's usage further.
	ByCLI, ByProject, ByModel bool
	// Location is the time zone whose days, weeks and months Period
	// means; nil is UTC.
	Location *time.Location
	// WeekStart is the day weeks start on (the zero value is Sunday).
	WeekStart time.Weekday
	// Since and Until keep the responses made in that period (either
	// may be zero), to the quarter hour: the quarter hour (see
	// session.BucketSize) that holds Since or Until counts whole when
	// any of its responses is in the period.
	Since, Until time.Time
	// Now is when a block still active is judged from; the zero value
	// is time.Now().
	Now time.Time
}

// UsageGroup is the usage of one group: one period of time, or all of
// it, and one CLI, project or model when the options split by them.
type UsageGroup struct {
	// Start and End bound the period (End excluded): a day, week or
	// month from midnight, or a block from its hour for BlockLength.
	// Zero without a period.
	Start, End time.Time
	// CLI, Project and Model are the group's; empty when not split by.
	CLI, Project, Model string
	// Sessions counts the sessions that made its responses.
	Sessions int
	// Responses counts model responses (a response is counted once,
	// as its usage is).
	Responses int
	Usage     session.Usage
	// Models splits Usage by model.
	Models map[string]session.Usage
	// First and Last are when its first and last responses were made.
	First, Last time.Time
	// Active marks a block still running at Now: less than BlockLength
	// since its last response, and before its End.
	Active bool

	lastSession int // the index of the last session counted in Sessions, plus one
}

// UsageReport is what UsageOver finds.
type UsageReport struct {
	// Groups is in the order of their period, then CLI, project and
	// model.
	Groups []UsageGroup
	// Total is every group's usage together.
	Total UsageGroup
	// ActiveBlock is the block still running, all of it (whatever the
	// split), when Period is Block; nil when none is.
	ActiveBlock *UsageGroup
}

// usageKey names a group.
type usageKey struct {
	start               int64 // Unix seconds
	cli, project, model string
}

// usageEntry is one bucket of one session in the report.
type usageEntry struct {
	sess        int
	b           *session.UsageBucket
	first, last time.Time
	at          time.Time // when its quarter hour starts
}

// UsageOver totals the usage of the summaries by period and by CLI,
// project or model, from the usage each summary keeps by quarter hour
// and model (session.Summary.Buckets), so that the groups add up to the
// summaries' usage. Responses of unknown time count at their session's
// start.
func UsageOver(sums []session.Summary, opts UsageOptions) *UsageReport {
	loc := opts.Location
	if loc == nil {
		loc = time.UTC
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	var entries []usageEntry
	for i := range sums {
		s := &sums[i]
		for j := range s.Buckets {
			b := &s.Buckets[j]
			e := usageEntry{sess: i, b: b, first: b.FirstTime(), last: b.LastTime(), at: b.Time()}
			if b.Start == session.NoTime {
				e.first, e.last, e.at = s.Start, s.Start, s.Start
			}
			if !opts.Since.IsZero() && e.last.Before(opts.Since) || !opts.Until.IsZero() && e.first.After(opts.Until) {
				continue
			}
			entries = append(entries, e)
		}
	}
	rep := &UsageReport{}
	groups := map[usageKey]*UsageGroup{}
	add := func(k usageKey, start, end time.Time, e *usageEntry) *UsageGroup {
		g := groups[k]
		if g == nil {
			g = &UsageGroup{Start: start, End: end}
			if opts.ByCLI {
				g.CLI = k.cli
			}
			if opts.ByProject {
				g.Project = k.project
			}
			if opts.ByModel {
				g.Model = k.model
			}
			groups[k] = g
		}
		g.count(e)
		return g
	}
	keyOf := func(start time.Time, e *usageEntry) usageKey {
		k := usageKey{}
		if !start.IsZero() {
			k.start = start.Unix()
		}
		s := &sums[e.sess]
		if opts.ByCLI {
			k.cli = s.CLI
		}
		if opts.ByProject {
			k.project = s.Project
		}
		if opts.ByModel {
			k.model = e.b.Model
		}
		return k
	}
	if opts.Period == Block {
		starts := blockStarts(entries)
		var latest UsageGroup
		for _, st := range starts {
			if st.After(latest.Start) {
				latest.Start, latest.End = st, st.Add(BlockLength)
			}
		}
		for i := range entries {
			e := &entries[i]
			add(keyOf(starts[i], e), starts[i], starts[i].Add(BlockLength), e)
			if starts[i].Equal(latest.Start) {
				latest.count(e)
			}
		}
		if len(entries) > 0 && now.Sub(latest.Last) < BlockLength && now.Before(latest.End) {
			latest.Active = true
			rep.ActiveBlock = &latest
			for _, g := range groups {
				g.Active = g.Start.Equal(latest.Start)
			}
		}
	} else {
		for i := range entries {
			e := &entries[i]
			start, end := periodOf(opts.Period, e.at.In(loc), opts.WeekStart)
			add(keyOf(start, e), start, end, e)
		}
	}
	for i := range entries {
		rep.Total.count(&entries[i])
	}
	rep.Groups = make([]UsageGroup, 0, len(groups))
	for _, g := range groups {
		rep.Groups = append(rep.Groups, *g)
	}
	slices.SortFunc(rep.Groups, func(a, b UsageGroup) int {
		return cmp.Or(a.Start.Compare(b.Start), cmp.Compare(a.CLI, b.CLI), cmp.Compare(a.Project, b.Project), cmp.Compare(a.Model, b.Model))
	})
	return rep
}

// count adds an entry to the group.
func (g *UsageGroup) count(e *usageEntry) {
	if g.lastSession != e.sess+1 {
		// Entries come a session at a time.
		g.lastSession = e.sess + 1
		g.Sessions++
	}
	g.Responses += int(e.b.Responses)
	g.Usage.Add(e.b.Usage)
	if g.Models == nil {
		g.Models = map[string]session.Usage{}
	}
	m := g.Models[e.b.Model]
	m.Add(e.b.Usage)
	g.Models[e.b.Model] = m
	if g.First.IsZero() || e.first.Before(g.First) {
		g.First = e.first
	}
	if e.last.After(g.Last) {
		g.Last = e.last
	}
}

// periodOf returns the day, week or month holding t, in t's location.
func periodOf(p Period, t time.Time, weekStart time.Weekday) (start, end time.Time) {
	y, m, d := t.Date()
	switch p {
	case Day:
		return time.Date(y, m, d, 0, 0, 0, 0, t.Location()), time.Date(y, m, d+1, 0, 0, 0, 0, t.Location())
	case Week:
		back := (int(t.Weekday()) - int(weekStart) + 7) % 7
		return time.Date(y, m, d-back, 0, 0, 0, 0, t.Location()), time.Date(y, m, d-back+7, 0, 0, 0, 0, t.Location())
	case Month:
		return time.Date(y, m, 1, 0, 0, 0, 0, t.Location()), time.Date(y, m+1, 1, 0, 0, 0, 0, t.Location())
	}
	return time.Time{}, time.Time{}
}

// blockStarts returns the start of each entry's billing block, by
// ccusage's rule: a block starts at the hour (UTC) of its first response;
// a response more than BlockLength after its block's start, or after the
// response before it, starts the next. A bucket's responses are within a
// quarter hour of each other, so a block's end or a pause of BlockLength
// falls between buckets, and comparing their first and last responses is
// comparing responses (but for a bucket whose first response is exactly
// at its block's end, to the millisecond, which stays in the block whole).
func blockStarts(entries []usageEntry) []time.Time {
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := &entries[a], &entries[b]
		return cmp.Or(x.at.Compare(y.at), x.first.Compare(y.first))
	})
	starts := make([]time.Time, len(entries))
	var start, last time.Time
	for n, i := range order {
		e := &entries[i]
		if n == 0 || e.first.Sub(start) > BlockLength || e.first.Sub(last) > BlockLength {
			start = e.first.UTC().Truncate(time.Hour)
			last = e.last
		}
		if e.last.After(last) {
			last = e.last
		}
		starts[i] = start
	}
	return starts
}
