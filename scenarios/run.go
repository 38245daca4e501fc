package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

// Driver does what a scenario's steps ask, in the sandbox: cmd/stead
// implements it with the commands' own code (the supervisor, the bus,
// the A/B workspaces), so a scenario checks what a user would get.
type Driver interface {
	// Load reads a session: a file (of cli, or detected), or a
	// reference to one in the user's stores.
	Load(ctx context.Context, ref, cli string) (*session.Session, error)
	// New starts a new session in cli, headless, with prompt.
	New(ctx context.Context, cli, prompt string) (*Outcome, error)
	// Resume continues from in the CLI to for one turn of prompt.
	Resume(ctx context.Context, from *session.Session, to, prompt string) (*Outcome, error)
	// Fork places from, cut after the entry with id at (the whole of it
	// when at is ""), in to's store as a new session, reads it back, and
	// continues it there for one turn of prompt.
	Fork(ctx context.Context, from *session.Session, at, to, prompt string) (*Outcome, error)
	// AB runs prompt in each CLI of to from from, in worktrees of the
	// project, concurrently. A variant that fails is reported in its
	// Variant; the error is for a run that could not be made at all.
	AB(ctx context.Context, from *session.Session, to []string, prompt string) (*Outcome, error)
	// Chain runs the links in turn, each continuing the session the
	// last one ended with (from, for the first).
	Chain(ctx context.Context, from *session.Session, links []Link) (*Outcome, error)
}

// Outcome is what a step did.
type Outcome struct {
	// Run is the run holding the session the step ended with (stead
	// session show run:<Run>); for an A/B step, the A/B run's id.
	Run string
	// Session is the session the step ended with; History how many of
	// its entries came before the step.
	Session *session.Session
	History int
	// Tokens are the tokens reported for the step; Native those the
	// target's native session records for it (nil: not read).
	Tokens session.Usage
	Native *session.Usage
	// Variants are an A/B step's variants.
	Variants []Variant
	// Report is a file the step wrote for people (the A/B page).
	Report string
}

// Variant is one variant of an A/B step.
type Variant struct {
	Name  string `json:"name"`
	CLI   string `json:"cli"`
	Run   string `json:"run"`
	State string `json:"state"`
	Error string `json:"error,omitempty"`
	// TimedOut says the variant only ended because the step's time ran
	// out.
	TimedOut bool           `json:"timedOut,omitempty"`
	Answer   string         `json:"answer,omitempty"`
	Tokens   session.Usage  `json:"tokens"`
	Native   *session.Usage `json:"native,omitempty"`
	Tools    map[string]int `json:"tools"`
	Files    int            `json:"files"`
	Dir      string         `json:"dir"`
	Took     time.Duration  `json:"tookNs"`
}

// Report is what a scenario run found.
type Report struct {
	Name  string        `json:"name"`
	File  string        `json:"file"`
	Pass  bool          `json:"pass"`
	Took  time.Duration `json:"tookNs"`
	Steps []StepReport  `json:"steps"`
	// Sandbox is where the scenario ran; Bins which CLI executables it
	// ran.
	Sandbox string            `json:"sandbox"`
	Bins    map[string]string `json:"bins"`
}

// StepReport is one step's part of a Report.
type StepReport struct {
	Name     string        `json:"name"`
	Kind     string        `json:"kind"`
	Line     int           `json:"line"`
	Run      string        `json:"run,omitempty"`
	Report   string        `json:"report,omitempty"`
	Pass     bool          `json:"pass"`
	Skipped  bool          `json:"skipped,omitempty"`
	Error    string        `json:"error,omitempty"`
	Took     time.Duration `json:"tookNs"`
	Checks   []Check       `json:"checks"`
	Variants []Variant     `json:"variants,omitempty"`
}

// Run plays the scenario's steps in the sandbox with the driver,
// printing progress to w, and checks each step's expectations. A step
// that cannot run fails; the steps after it that continue its session
// are skipped, the others still run.
func Run(ctx context.Context, sc *Scenario, sb *Sandbox, d Driver, w io.Writer) *Report {
	start := time.Now()
	rep := &Report{Name: sc.Name, File: sc.File, Sandbox: sb.Root, Bins: sb.Bins}
	defer func() {
		rep.Took = time.Since(start)
		rep.Pass = len(rep.Steps) == len(sc.Steps)
		for _, s := range rep.Steps {
			rep.Pass = rep.Pass && s.Pass
		}
	}()
	first, err := loadStart(ctx, sc, sb, d, w)
	if err != nil {
		rep.Steps = append(rep.Steps, StepReport{Name: "start", Kind: "start", Error: err.Error(),
			Checks: []Check{{What: "the starting session is read", Got: err.Error()}}})
		return rep
	}
	prev := first
	for i, st := range sc.Steps {
		fmt.Fprintf(w, "\nstep %d/%d: %s\n", i+1, len(sc.Steps), st.Name)
		from := prev
		if st.FromStart {
			from = first
		}
		if from == nil {
			rep.Steps = append(rep.Steps, StepReport{Name: st.Name, Kind: st.Kind, Line: st.Line, Skipped: true,
				Error:  "skipped: the step before it did not end in a session",
				Checks: []Check{{What: "the step runs", Got: "the step before it did not end in a session"}}})
			fmt.Fprintf(w, "  skipped: the step before it did not end in a session\n")
			prev = nil
			continue
		}
		sr, out := runStep(ctx, st, from, sb, d)
		rep.Steps = append(rep.Steps, sr)
		prev = nil
		if out != nil && st.Kind != AB {
			prev = out.Session
		}
		printChecks(w, sr)
	}
	return rep
}

func loadStart(ctx context.Context, sc *Scenario, sb *Sandbox, d Driver, w io.Writer) (*session.Session, error) {
	s := sc.Start
	switch {
	case s.File != "":
		p, err := sb.copyStart(sc)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "start: %s\n", s.File)
		return d.Load(ctx, p, s.CLI)
	case s.Ref != "":
		fmt.Fprintf(w, "start: %s (read from your stores, not changed)\n", s.Ref)
		return d.Load(ctx, s.Ref, s.CLI)
	}
	fmt.Fprintf(w, "start: a new %s session: %s\n", s.CLI, clip(s.Prompt))
	if err := sb.play(s.CLI, s.Model); err != nil {
		return nil, err
	}
	out, err := d.New(ctx, s.CLI, s.Prompt)
	if err != nil {
		return nil, fmt.Errorf("starting a %s session: %w", s.CLI, err)
	}
	return out.Session, nil
}

func runStep(ctx context.Context, st Step, from *session.Session, sb *Sandbox, d Driver) (StepReport, *Outcome) {
	sr := StepReport{Name: st.Name, Kind: st.Kind, Line: st.Line}
	start := time.Now()
	c := &checker{}
	defer func() { sr.Took = time.Since(start) }()
	// Each target's model plays the step's turns for it.
	scripts := map[string][]modelstub.Turn{}
	if st.Kind == Chain {
		for _, l := range st.Links {
			scripts[l.CLI] = append(scripts[l.CLI], named(l.Model, l.CLI)...)
		}
	} else {
		for _, to := range st.To {
			scripts[to] = st.Model
			if m, ok := st.ModelFor[to]; ok {
				scripts[to] = m
			}
		}
	}
	for cli, turns := range scripts {
		if err := sb.play(cli, turns); err != nil {
			sr.Error = err.Error()
			return sr, nil
		}
	}
	since := sb.mark()
	var out *Outcome
	var err error
	switch st.Kind {
	case Resume:
		out, err = d.Resume(ctx, from, st.To[0], st.Prompt)
	case Fork:
		at := ""
		if st.At != nil {
			at, err = findAt(from, *st.At)
		}
		if err == nil {
			out, err = d.Fork(ctx, from, at, st.To[0], st.Prompt)
		}
	case AB:
		out, err = d.AB(ctx, from, st.To, st.Prompt)
	case Chain:
		out, err = d.Chain(ctx, from, st.Links)
	}
	if out != nil {
		sr.Run, sr.Report = out.Run, out.Report
	}
	if err != nil {
		sr.Error = err.Error()
		c.add(false, "the step finishes", err.Error())
		if out == nil || st.Kind == AB {
			sr.Checks = c.checks
			return sr, out
		}
	} else {
		c.add(true, "the step finishes", "")
	}
	if st.Kind == AB {
		sr.Variants = out.Variants
		for _, v := range out.Variants {
			label := v.Name + ": "
			if slices.Contains(st.Expect.Failed, v.CLI) {
				switch {
				case v.TimedOut:
					// A failure the scenario means happens at once: one
					// that took the whole timeout is another failure.
					c.add(false, label+"fails, and the report says why", "it only ran out of the step's time ("+v.Took.Round(time.Second).String()+"): "+v.Error)
				default:
					c.add(v.Error != "", label+"fails, and the report says why", "it finished: "+v.State)
				}
				continue
			}
			c.add(v.Error == "", label+"finishes", v.Error)
			c.expect(st.Expect, subject{label: label, cli: v.CLI, answer: v.Answer, tools: v.Tools,
				tokens: v.Tokens, native: v.Native, dir: v.Dir, request: sb.lastRequest(v.CLI, since)})
		}
		if len(out.Variants) != len(st.To) {
			c.add(false, fmt.Sprintf("%d variants are reported", len(st.To)), fmt.Sprintf("%d", len(out.Variants)))
		}
	} else {
		last := st.To[len(st.To)-1]
		s := out.Session
		sub := subject{cli: last, session: s, history: out.History, tokens: out.Tokens, native: out.Native,
			dir: sb.Dir, request: sb.lastRequest(last, since), tools: map[string]int{}}
		if s != nil {
			sub.answer = lastAnswer(s, out.History)
			for _, e := range s.Timeline[min(out.History, len(s.Timeline)):] {
				if e.Type == session.ToolCall {
					sub.tools[string(e.Tool)]++
				}
			}
		}
		c.expect(st.Expect, sub)
	}
	sr.Checks = c.checks
	sr.Pass = true
	for _, ck := range c.checks {
		sr.Pass = sr.Pass && ck.Pass
	}
	return sr, out
}

// findAt finds the entry a fork's at names.
func findAt(s *session.Session, m Match) (string, error) {
	found := ""
	for _, e := range s.Timeline {
		if matches(m, e, s, func(t string) string { return t }) {
			if found != "" && m.ID == "" {
				return "", fmt.Errorf("at: %s matches more than one entry (%s and %s): say more", m, found, e.ID)
			}
			if found == "" {
				found = e.ID
			}
		}
	}
	if found == "" {
		return "", fmt.Errorf("at: no entry of the session matches %s", m)
	}
	return found, nil
}

// lastAnswer is the last assistant text after history.
func lastAnswer(s *session.Session, history int) string {
	for i := len(s.Timeline) - 1; i >= history && i >= 0; i-- {
		if e := s.Timeline[i]; e.Type == session.Assistant && e.Kind != session.KindError && e.Content != "" {
			return e.Content
		}
	}
	return ""
}

// named replaces {cli} in the turns' texts and tool arguments.
func named(turns []modelstub.Turn, cli string) []modelstub.Turn {
	data, err := json.Marshal(turns)
	if err != nil {
		return turns
	}
	var out []modelstub.Turn
	if json.Unmarshal([]byte(strings.ReplaceAll(string(data), "{cli}", cli)), &out) != nil {
		return turns
	}
	return out
}

// CLIs are the CLIs the scenario runs, in the order it first runs them.
func (sc *Scenario) CLIs() []string {
	var out []string
	add := func(c string) {
		if c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	if sc.Start.Prompt != "" {
		add(sc.Start.CLI)
	}
	for _, st := range sc.Steps {
		for _, to := range st.To {
			add(to)
		}
	}
	return out
}

func printChecks(w io.Writer, sr StepReport) {
	for _, v := range sr.Variants {
		status := v.State
		if v.Error != "" {
			status += ": " + v.Error
		}
		fmt.Fprintf(w, "  %-9s %s in %s, %d in / %d out tokens, %d files changed: %s\n", v.Name, status,
			v.Took.Round(100*time.Millisecond), v.Tokens.Input, v.Tokens.Output, v.Files, clip(v.Answer))
	}
	for _, ck := range sr.Checks {
		mark := "ok  "
		if !ck.Pass {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "  %s %s\n", mark, ck.What)
		if !ck.Pass && ck.Got != "" {
			fmt.Fprintf(w, "       got: %s\n", ck.Got)
		}
	}
}

// clip is s on one line, clipped to 100 characters.
func clip(s string) string { return clipN(s, 100) }

func clipN(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-3]) + "..."
	}
	return s
}
