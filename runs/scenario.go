package runs

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/pricing"
	"github.com/stead-dev/stead/scenarios"
	"github.com/stead-dev/stead/session"
)

// ScenarioDriver does a scenario's steps (scenarios.Driver) with this
// library, in a sandbox: Sv is the sandbox's supervisor (its environment
// and bus).
type ScenarioDriver struct {
	Sv *Supervisor
	// Loader reads a session a scenario starts from (a file, or a
	// reference to one in the user's stores, not the sandbox's).
	Loader func(ctx context.Context, ref, cli string) (*session.Session, error)
	// Dir is the project the CLIs run in.
	Dir string
	// Progress hears what each step does.
	Progress io.Writer
	// Timeout is the longest one step may take.
	Timeout time.Duration
	// Prices prices the variants of an A/B step; nil is pricing.Default.
	Prices *pricing.Table
	// ABDir is where A/B steps keep their records and workspaces.
	ABDir string
	// Watch, when set, follows a run's entries onto Progress as it
	// happens, each line after prefix (stead prints them): see
	// StepOptions.Watch.
	Watch func(ctx context.Context, run, prefix string)

	// LastAB is the last A/B step's run.
	LastAB *AB
}

var _ scenarios.Driver = (*ScenarioDriver)(nil)

func (d *ScenarioDriver) say(format string, args ...any) { fmt.Fprintf(d.Progress, format, args...) }

// watch follows runs onto Progress, each line after prefix.
func (d *ScenarioDriver) watch(prefix string) func(ctx context.Context, run string) {
	if d.Watch == nil {
		return nil
	}
	return func(ctx context.Context, run string) { d.Watch(ctx, run, prefix) }
}

// Load reads a session the scenario starts from.
func (d *ScenarioDriver) Load(ctx context.Context, ref, cli string) (*session.Session, error) {
	return d.Loader(ctx, ref, cli)
}

// New starts a new session in cli, headless, with prompt.
func (d *ScenarioDriver) New(ctx context.Context, cli, prompt string) (*scenarios.Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	id := NewID()
	s, err := d.Sv.Headless(ctx, id, cli, prompt, d.Dir, "")
	if err != nil {
		return nil, err
	}
	d.say("  %s wrote %s:%s (%d entries)\n", cli, cli, s.ID, len(s.Timeline))
	return &scenarios.Outcome{Run: id, Session: s}, nil
}

// Resume continues from in to for one turn of prompt.
func (d *ScenarioDriver) Resume(ctx context.Context, from *session.Session, to, prompt string) (*scenarios.Outcome, error) {
	return d.turn(ctx, from, to, prompt)
}

// turn runs one live turn of prompt in to, continuing from.
func (d *ScenarioDriver) turn(ctx context.Context, from *session.Session, to, prompt string) (*scenarios.Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	d.say("  %s resumes %s (%d entries) and gets: %s\n", to, nameOf(from), len(from.Timeline), safetext.ClipLine(prompt, 100))
	r, s, err := d.Sv.Step(ctx, from, Step{CLI: to, Prompt: prompt}, StepOptions{Dir: d.Dir, Auto: true, Watch: d.watch("    ")})
	out := &scenarios.Outcome{Run: r.Run, Session: s, History: len(from.Timeline)}
	if s != nil {
		out.Tokens = usageAfter(s, len(from.Timeline))
		out.Native = d.nativeUsage(ctx, r.Run, prompt)
		d.say("  %s's turn took %s: stead session show run:%s\n", to, r.Took.Round(100*time.Millisecond), r.Run)
	}
	return out, err
}

// Fork places from, cut after the entry at, in to's store as a new
// session, reads it back from there, and continues it for one turn.
func (d *ScenarioDriver) Fork(ctx context.Context, from *session.Session, at, to, prompt string) (*scenarios.Outcome, error) {
	cut := *from
	cut.Timeline = append([]session.Entry(nil), from.Timeline...)
	rep, err := d.Sv.Fork(&cut, Fork{At: at, To: to, Dir: d.Dir})
	if err != nil {
		return nil, fmt.Errorf("forking: %w", err)
	}
	a, _ := adapters.Lookup(to)
	forked, err := a.Open(d.Sv.Env, session.Ref{CLI: to, ID: rep.Target.ID, Path: rep.Placement.Path})
	if err != nil {
		return nil, fmt.Errorf("reading the fork back from %s's store: %w", to, err)
	}
	where := "the whole session"
	if at != "" {
		where = "entry " + at
	}
	d.say("  forked %s at %s into %s:%s (%d of %d entries)\n", nameOf(from), where, to, rep.Target.ID, len(forked.Timeline), len(from.Timeline))
	return d.turn(ctx, forked, to, prompt)
}

// AB runs prompt in each CLI of to, from from, in workspaces of the
// project, concurrently.
func (d *ScenarioDriver) AB(ctx context.Context, from *session.Session, to []string, prompt string) (*scenarios.Outcome, error) {
	prices := d.Prices
	if prices == nil {
		prices = pricing.Default()
	}
	spec := ABSpec{Prompt: prompt, To: to, Repeat: 1, Project: d.Dir, Auto: true, Timeout: d.Timeout, Dir: d.ABDir}
	var hooks ABHooks
	if d.Watch != nil {
		hooks.Watch = func(ctx context.Context, v Variant) {
			d.Watch(ctx, v.Run, fmt.Sprintf("  %-9s│ ", v.Name))
		}
	}
	ab, err := d.Sv.AB(ctx, from, spec, prices, hooks)
	if err != nil {
		return nil, err
	}
	d.LastAB = ab
	out := &scenarios.Outcome{Run: ab.ID}
	for _, v := range ab.Variants {
		sv := scenarios.Variant{Name: v.Name, CLI: v.CLI, Run: v.Run, State: v.State, Error: v.Error, TimedOut: v.TimedOut, Answer: v.Answer,
			Tokens: v.Tokens, Tools: v.Tools, Files: v.Changes.Files, Dir: v.Workspace.Dir, Took: v.Took}
		sv.Native = d.nativeUsage(ctx, v.Run, prompt)
		out.Variants = append(out.Variants, sv)
	}
	return out, nil
}

// Chain runs the links in turn, each continuing the session the last one
// ended with.
func (d *ScenarioDriver) Chain(ctx context.Context, from *session.Session, links []scenarios.Link) (*scenarios.Outcome, error) {
	prev := from
	out := &scenarios.Outcome{History: len(from.Timeline)}
	for i, l := range links {
		d.say("  link %d/%d:\n", i+1, len(links))
		o, err := d.turn(ctx, prev, l.CLI, l.Prompt)
		if o != nil {
			out.Run = o.Run
			if o.Session != nil {
				out.Session, prev = o.Session, o.Session
				out.Tokens.Add(o.Tokens)
			}
		}
		if err != nil {
			return out, fmt.Errorf("link %d (%s): %w", i+1, l.CLI, err)
		}
	}
	return out, nil
}

// nativeUsage is what the native session of a run records for the turn
// of prompt: the usage of its entries from the last prompt on.
func (d *ScenarioDriver) nativeUsage(ctx context.Context, run, prompt string) *session.Usage {
	rec, err := d.Sv.Bus.Run(ctx, run)
	if err != nil || rec.Path == "" {
		return nil
	}
	a, ok := adapters.Lookup(rec.CLI)
	if !ok || !a.Reads() {
		return nil
	}
	s, err := a.Open(d.Sv.Env, session.Ref{CLI: rec.CLI, ID: rec.SessionID, Path: rec.Path})
	if err != nil {
		d.Sv.logger().Warn("reading a run's native session", "run", run, "err", err)
		return nil
	}
	from := -1
	for i, e := range s.Timeline {
		if e.Type == session.User && strings.Contains(e.Content, prompt) {
			from = i
		}
	}
	if from < 0 {
		return nil
	}
	u := usageAfter(s, from)
	return &u
}

func usageAfter(s *session.Session, from int) session.Usage {
	var u session.Usage
	for _, e := range s.Timeline[min(from, len(s.Timeline)):] {
		if e.Usage != nil {
			u.Add(*e.Usage)
		}
	}
	return u
}

// nameOf names a session in progress lines.
func nameOf(s *session.Session) string {
	if s.ID != "" {
		return s.Source.CLI + ":" + s.ID
	}
	return s.Source.CLI + " session"
}
