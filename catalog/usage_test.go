package catalog

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/session"
)

// timed is a summary of responses made at the given times (RFC 3339),
// each of in input tokens, by model.
func timed(t *testing.T, cli, id, project string, in int64, model string, times ...string) session.Summary {
	t.Helper()
	s := session.Summary{CLI: cli, ID: id, Project: project}
	for _, ts := range times {
		at, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			t.Fatal(err)
		}
		s.See(at)
		s.AddUsage(at, model, session.Usage{Input: in, Output: 1})
	}
	return s
}

// groups renders a report's groups as "start key: sessions/responses input".
func groups(rep *UsageReport, layout string) string {
	var b strings.Builder
	for _, g := range rep.Groups {
		start := ""
		if !g.Start.IsZero() {
			start = g.Start.Format(layout)
		}
		fmt.Fprintf(&b, "%s %s/%s/%s: %d/%d %d", start, g.CLI, g.Project, g.Model, g.Sessions, g.Responses, g.Usage.Input)
		if g.Active {
			b.WriteString(" active")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestUsageOverCalendar(t *testing.T) {
	sums := []session.Summary{
		// 18:14 and 18:16 UTC are either side of midnight in Kathmandu (+05:45).
		timed(t, "claude", "a", "/p", 1, "m1", "2026-11-29T18:14:00Z", "2026-11-29T18:16:00Z", "2026-11-30T10:00:00Z"),
		timed(t, "codex", "b", "/q", 10, "m2", "2026-11-29T18:20:00Z", "2026-12-01T00:30:00Z"),
	}
	kathmandu, err := time.LoadLocation("Asia/Kathmandu")
	if err != nil {
		t.Skip(err)
	}
	for _, tt := range []struct {
		name string
		opts UsageOptions
		want string
	}{
		{"days UTC", UsageOptions{Period: Day}, `
2026-11-29 //: 2/3 12
2026-11-30 //: 1/1 1
2026-12-01 //: 1/1 10`},
		{"days Kathmandu", UsageOptions{Period: Day, Location: kathmandu}, `
2026-11-29 //: 1/1 1
2026-11-30 //: 2/3 12
2026-12-01 //: 1/1 10`},
		{"days by CLI and model", UsageOptions{Period: Day, Location: kathmandu, ByCLI: true, ByModel: true}, `
2026-11-29 claude//m1: 1/1 1
2026-11-30 claude//m1: 1/2 2
2026-11-30 codex//m2: 1/1 10
2026-12-01 codex//m2: 1/1 10`},
		// 2026-11-29 is a Sunday.
		{"weeks from Monday", UsageOptions{Period: Week, WeekStart: time.Monday}, `
2026-11-23 //: 2/3 12
2026-11-30 //: 2/2 11`},
		{"weeks from Sunday", UsageOptions{Period: Week}, `
2026-11-29 //: 2/5 23`},
		{"months", UsageOptions{Period: Month, ByProject: true}, `
2026-11 //p/: 1/3 3
2026-11 //q/: 1/1 10
2026-12 //q/: 1/1 10`},
		{"no period, by model", UsageOptions{ByModel: true}, `
 //m1: 1/3 3
 //m2: 1/2 20`},
		{"since and until", UsageOptions{Period: Day, Since: time.Date(2026, 11, 29, 18, 15, 0, 0, time.UTC),
			Until: time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC)}, `
2026-11-29 //: 2/2 11
2026-11-30 //: 1/1 1`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			layout := "2006-01-02"
			if tt.opts.Period == Month {
				layout = "2006-01"
			}
			rep := UsageOver(sums, tt.opts)
			if got := groups(rep, layout); got != strings.TrimPrefix(tt.want, "\n")+"\n" {
				t.Errorf("groups:\n%swant:\n%s", got, strings.TrimPrefix(tt.want, "\n")+"\n")
			}
			var sum session.Usage
			responses := 0
			for _, g := range rep.Groups {
				sum.Add(g.Usage)
				responses += g.Responses
			}
			if sum != rep.Total.Usage || responses != rep.Total.Responses {
				t.Errorf("groups add up to %+v (%d responses), total %+v (%d)", sum, responses, rep.Total.Usage, rep.Total.Responses)
			}
			if tt.opts.Since.IsZero() && rep.Total.Usage != (session.Usage{Input: 23, Output: 5}) {
				t.Errorf("total %+v, the sessions used 23 input and 5 output tokens", rep.Total.Usage)
			}
		})
	}
}

// TestUsageOverBlocks follows ccusage's rule for 5-hour blocks: a block
// starts at the hour of its first response; a response more than five
// hours after the block's start, or after the response before, starts a
// new one.
func TestUsageOverBlocks(t *testing.T) {
	sums := []session.Summary{
		timed(t, "claude", "a", "/p", 1, "m1",
			"2026-11-20T09:40:00Z", // block 09:00-14:00
			"2026-11-20T13:59:00Z", // still in it
			"2026-11-20T14:10:00Z", // past its end: block 14:00
			"2026-11-20T19:30:00Z", // more than 5 h after 14:00: block 19:00
		),
		timed(t, "codex", "b", "/q", 10, "m2",
			"2026-11-20T12:00:00Z", // block 09:00, another session
			"2026-11-21T02:00:00Z", // a pause of 6.5 h: block 02:00
			"2026-11-21T02:30:00Z",
		),
	}
	now := time.Date(2026, 11, 21, 3, 0, 0, 0, time.UTC)
	rep := UsageOver(sums, UsageOptions{Period: Block, Now: now})
	want := `
11-20 09:00 //: 2/3 12
11-20 14:00 //: 1/1 1
11-20 19:00 //: 1/1 1
11-21 02:00 //: 1/2 20 active
`
	if got := groups(rep, "01-02 15:04"); got != strings.TrimPrefix(want, "\n") {
		t.Errorf("blocks:\n%swant:\n%s", got, strings.TrimPrefix(want, "\n"))
	}
	a := rep.ActiveBlock
	if a == nil {
		t.Fatal("no active block")
	}
	if !a.Start.Equal(time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)) || !a.End.Equal(a.Start.Add(BlockLength)) ||
		a.Usage.Input != 20 || a.Last.Sub(a.First) != 30*time.Minute || a.Sessions != 1 {
		t.Errorf("active block %+v", a)
	}
	// By model, the active block is still the whole block.
	rep = UsageOver(sums, UsageOptions{Period: Block, Now: now, ByModel: true})
	if len(rep.Groups) != 5 || rep.ActiveBlock == nil || rep.ActiveBlock.Usage.Input != 20 {
		t.Errorf("blocks by model:\n%s", groups(rep, "01-02 15:04"))
	}
	// Five hours after its last response, no block is active.
	if rep := UsageOver(sums, UsageOptions{Period: Block, Now: now.Add(5 * time.Hour)}); rep.ActiveBlock != nil {
		t.Errorf("a block is active 5 h after the last response: %+v", rep.ActiveBlock)
	}
}
