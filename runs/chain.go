package runs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// Step is one step of a chain: a prompt for a CLI.
type Step struct {
	CLI    string `json:"cli"`
	Prompt string `json:"prompt"`
}

// StepResult is what one step of a chain did.
type StepResult struct {
	Step    int           `json:"step"`
	CLI     string        `json:"cli"`
	Prompt  string        `json:"prompt"`
	Run     string        `json:"run"`
	State   string        `json:"state"`
	Entries int           `json:"entries"`
	Answer  string        `json:"answer,omitempty"`
	Error   string        `json:"error,omitempty"`
	Took    time.Duration `json:"tookNs"`
}

// StepOptions say how a step runs.
type StepOptions struct {
	// Dir is the project the CLI runs in.
	Dir   string
	Model string
	Auto  bool
	// Watch, when set, follows a supervised step's run as it happens
	// (stead prints its entries): it runs beside the step and should
	// return on the run's last status; one that has not, watchDrain
	// after the run ended, has its context cancelled.
	Watch func(ctx context.Context, run string)
}

// Step runs one step: it resumes prev in the step's CLI under the
// supervisor for one turn, or, with no prev, starts a new session in the
// CLI's headless mode. It returns the whole session the step ends with
// (prev's entries, then the step's).
func (sv *Supervisor) Step(ctx context.Context, prev *session.Session, st Step, opts StepOptions) (StepResult, *session.Session, error) {
	r := StepResult{CLI: st.CLI, Prompt: st.Prompt, Run: NewID()}
	start := time.Now()
	if prev == nil {
		s, err := sv.Headless(ctx, r.Run, st.CLI, st.Prompt, opts.Dir, opts.Model)
		r.Took = time.Since(start)
		if err != nil {
			r.State = string(live.RunFailed)
			if errors.Is(err, context.Canceled) {
				r.State = string(live.RunInterrupted)
			}
			return r, nil, err
		}
		r.State, r.Entries, r.Answer = string(live.RunExited), len(s.Timeline), AnswerOf(s, 0)
		return r, s, nil
	}
	var rec live.Run
	var err error
	watching(ctx, opts.Watch, []string{r.Run}, func() {
		spec := Spec{ID: r.Run, To: st.CLI, Dir: opts.Dir, Prompt: st.Prompt, Model: opts.Model, Auto: opts.Auto, Once: true}
		rec, err = sv.Run(ctx, prev, spec, nil, nil)
	})
	r.Took = time.Since(start)
	r.State, r.Entries = string(rec.State), rec.Entries
	if err != nil {
		return r, nil, err
	}
	s, err := sv.stored(ctx, r.Run)
	if err != nil {
		return r, nil, err
	}
	r.Answer = AnswerOf(s, len(prev.Timeline))
	if e := TurnError(s, len(prev.Timeline)); e != "" {
		return r, s, fmt.Errorf("the turn ended in an error: %s", e)
	}
	if r.Answer == "" {
		return r, s, errors.New("the CLI gave no answer")
	}
	return r, s, nil
}

// watchDrain is how long the watchers of runs that ended may take to
// print their last lines: each stops on its run's last status, read from
// the bus in milliseconds.
const watchDrain = 5 * time.Second

// watching runs do while watch follows each of the runs, then waits for
// the watchers to end on their own, and stops those still watching
// after watchDrain. A nil watch watches nothing.
func watching(ctx context.Context, watch func(ctx context.Context, run string), runs []string, do func()) {
	if watch == nil {
		do()
		return
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	for _, run := range runs {
		wg.Go(func() { watch(wctx, run) })
	}
	do()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(watchDrain):
		stop()
		<-done
	}
}

// Chain is what a chain did.
type Chain struct {
	Steps []StepResult `json:"steps"`
	// Session is the whole session the chain produced, every entry
	// marked with the CLI that produced it (run:<the last step's run>);
	// "" when no step finished.
	Session string `json:"session,omitempty"`
}

// ChainOptions say how a chain runs.
type ChainOptions struct {
	StepOptions
	// Timeout is the longest one step may take; 0 is no limit but ctx's.
	Timeout time.Duration
	// Began, when set, hears of each step as it begins (i from 0), and
	// Ended of each as it ends, with its error.
	Began func(i int, st Step)
	Ended func(r StepResult, err error)
}

// Chain runs steps one after the other, each continuing the session the
// one before ended with (from, for the first; nil starts it headless).
// It stops at the first step that fails, returning what ran and that
// step's error. It returns the last session too.
func (sv *Supervisor) Chain(ctx context.Context, from *session.Session, steps []Step, o ChainOptions) (Chain, *session.Session, error) {
	var res Chain
	prev := from
	for i, st := range steps {
		if o.Began != nil {
			o.Began(i, st)
		}
		sctx, cancel := ctx, context.CancelFunc(func() {})
		if o.Timeout > 0 {
			sctx, cancel = context.WithTimeout(ctx, o.Timeout)
		}
		r, s, err := sv.Step(sctx, prev, st, o.StepOptions)
		cancel()
		r.Step = i + 1
		if err != nil {
			r.Error = err.Error()
		}
		res.Steps = append(res.Steps, r)
		if o.Ended != nil {
			o.Ended(r, err)
		}
		if err != nil {
			return res, prev, fmt.Errorf("step %d (%s): %w", i+1, st.CLI, err)
		}
		res.Session = "run:" + r.Run
		prev = s
	}
	return res, prev, nil
}
