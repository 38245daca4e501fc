package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/stead-dev/stead/internal/atomicfile"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/pricing"
	"github.com/stead-dev/stead/session"
)

// ABSpec is one prompt to run through several CLIs side by side.
type ABSpec struct {
	Prompt string
	// To are the CLIs, each run Repeat times (at least once).
	To     []string
	Repeat int
	// Project is the directory each variant gets a Workspace of.
	Project string
	// From names the session the variants continue (recorded only; the
	// session itself is AB's from). A nil from starts each variant
	// afresh, in its CLI's headless mode.
	From  string
	Model string
	Auto  bool
	// Timeout is the longest a variant may take.
	Timeout time.Duration
	// Dir is where A/B runs are kept: each in Dir/<id>, its record in
	// ab.json and its variants' workspaces beside it.
	Dir string
}

// AB is an A/B run: its variants and where they ran. It is kept in its
// directory until its workspaces are removed.
type AB struct {
	ID       string    `json:"id"`
	Prompt   string    `json:"prompt"`
	Project  string    `json:"project"`
	From     string    `json:"from,omitempty"`
	Started  time.Time `json:"started"`
	Variants []Variant `json:"variants"`
}

// Variant is one CLI's run of the prompt, and what it did.
type Variant struct {
	Name      string    `json:"name"`
	CLI       string    `json:"cli"`
	Run       string    `json:"run"`
	Workspace Workspace `json:"workspace"`

	State string `json:"state"`
	Error string `json:"error,omitempty"`
	// TimedOut says the variant was stopped by its timeout.
	TimedOut bool           `json:"timedOut,omitempty"`
	Took     time.Duration  `json:"tookNs"`
	Model    string         `json:"model,omitempty"`
	Tokens   session.Usage  `json:"tokens"`
	Cost     *float64       `json:"cost,omitempty"` // nil: no price known
	Tools    map[string]int `json:"tools"`
	Errors   []string       `json:"errors"`
	Changes  Changes        `json:"changes"`
	Answer   string         `json:"answer,omitempty"`
	Entries  int            `json:"entries"`
	Picked   bool           `json:"picked,omitempty"`
	Finished time.Time      `json:"finished"`
}

// ABHooks let a front end follow an A/B run; each may be nil.
type ABHooks struct {
	// Made is told of the A/B run once its workspaces are made.
	Made func(ab *AB)
	// Watch follows a variant's run as it happens (see
	// StepOptions.Watch); Finished is told of each variant as it ends,
	// one at a time.
	Watch    func(ctx context.Context, v Variant)
	Finished func(v Variant)
}

// ABDir is the directory of A/B run id in dir.
func ABDir(dir, id string) string { return filepath.Join(dir, id) }

// AB makes the variants' workspaces and runs them concurrently to the end
// of their turn, each continuing from (or, nil, starting afresh); a
// variant that fails says so in its record, and the others go on. The
// record is saved in spec.Dir before the variants start and after they
// end. prices, when set, prices each variant's tokens.
func (sv *Supervisor) AB(ctx context.Context, from *session.Session, spec ABSpec, prices *pricing.Table, hooks ABHooks) (*AB, error) {
	ab := &AB{ID: "ab-" + NewID(), Prompt: spec.Prompt, Project: spec.Project, From: spec.From, Started: time.Now().UTC()}
	dir := ABDir(spec.Dir, ab.ID)
	for _, cli := range spec.To {
		for n := range max(spec.Repeat, 1) {
			name := cli
			if spec.Repeat > 1 {
				name = fmt.Sprintf("%s-%d", cli, n+1)
			}
			ws, err := NewWorkspace(spec.Project, filepath.Join(dir, name))
			if err != nil {
				return nil, fmt.Errorf("variant %s: %w", name, err)
			}
			ab.Variants = append(ab.Variants, Variant{Name: name, CLI: cli, Run: NewID(), Workspace: ws})
		}
	}
	if err := SaveAB(spec.Dir, ab); err != nil {
		return nil, err
	}
	if hooks.Made != nil {
		hooks.Made(ab)
	}
	var watch func(context.Context, string)
	ids := make([]string, len(ab.Variants))
	byRun := map[string]Variant{}
	for i, v := range ab.Variants {
		ids[i], byRun[v.Run] = v.Run, v
	}
	if hooks.Watch != nil {
		watch = func(ctx context.Context, run string) { hooks.Watch(ctx, byRun[run]) }
	}
	watching(ctx, watch, ids, func() {
		var wg sync.WaitGroup
		var mu sync.Mutex // Finished, one at a time
		for i := range ab.Variants {
			v := &ab.Variants[i]
			wg.Go(func() {
				vctx, cancel := context.WithTimeout(ctx, spec.Timeout)
				defer cancel()
				sv.variant(vctx, from, spec, v, prices)
				if hooks.Finished != nil {
					mu.Lock()
					defer mu.Unlock()
					hooks.Finished(*v)
				}
			})
		}
		wg.Wait()
	})
	return ab, SaveAB(spec.Dir, ab)
}

// SaveAB writes ab's record into its directory in dir.
func SaveAB(dir string, ab *AB) error {
	data, err := json.MarshalIndent(ab, "", "  ")
	if err != nil {
		return err
	}
	d := ABDir(dir, ab.ID)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(d, "ab.json"), data, 0o600)
}

// variant runs one variant to the end of its turn and measures it.
func (sv *Supervisor) variant(ctx context.Context, from *session.Session, spec ABSpec, v *Variant, prices *pricing.Table) {
	start := time.Now()
	var s *session.Session
	var err error
	history := 0
	if from == nil {
		s, err = sv.Headless(ctx, v.Run, v.CLI, spec.Prompt, v.Workspace.Dir, spec.Model)
		switch {
		case err == nil:
			v.State = string(live.RunExited)
		case errors.Is(err, context.Canceled):
			v.State = string(live.RunInterrupted)
		}
	} else {
		history = len(from.Timeline)
		run := Spec{ID: v.Run, To: v.CLI, Dir: v.Workspace.Dir, Prompt: spec.Prompt, Model: spec.Model, Auto: spec.Auto, Once: true, Trust: true}
		var rec live.Run
		rec, err = sv.Run(ctx, from, run, nil, nil)
		v.State = string(rec.State)
		if err == nil {
			s, err = sv.stored(context.Background(), v.Run)
		}
	}
	v.Took, v.Finished = time.Since(start), time.Now().UTC()
	if v.State == "" {
		v.State = string(live.RunFailed)
	}
	if err != nil {
		v.Error = err.Error()
	}
	if s != nil {
		measure(v, s, history, prices)
		if e := TurnError(s, history); e != "" && v.Error == "" {
			v.Error = "the turn ended in an error: " + e
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		v.TimedOut = true
		v.State, v.Error = string(live.RunFailed), fmt.Sprintf("did not finish within --timeout %s", spec.Timeout)
		// What the run was doing when time ran out, and its screen.
		rctx, cancel := context.WithTimeout(context.Background(), recordWait)
		if r, err := sv.Bus.Run(rctx, v.Run); err == nil {
			if why, ok := strings.CutPrefix(r.Reason, OutOfTime); ok && why != "" {
				v.Error += why
			}
		}
		cancel()
	}
	if v.Error == "" && v.Answer == "" {
		v.Error = "the CLI gave no answer"
	}
	if c, cerr := v.Workspace.Changed(); cerr == nil {
		v.Changes = c
	} else if v.Error == "" {
		v.Error = cerr.Error()
	}
}

// measure reads a variant's figures from the entries it added to its
// session (those past history).
func measure(v *Variant, s *session.Session, history int, prices *pricing.Table) {
	v.Tools, v.Errors = map[string]int{}, []string{}
	var cost float64
	priced := false
	for _, e := range s.Timeline[min(history, len(s.Timeline)):] {
		v.Entries++
		if e.Model != "" && v.Model == "" {
			v.Model = e.Model
		}
		if e.Usage != nil {
			v.Tokens.Add(*e.Usage)
			if c, ok := priceOf(prices, e.Model, *e.Usage); ok {
				cost += c
				priced = true
			}
		}
		switch {
		case e.Type == session.ToolCall:
			v.Tools[string(e.Tool)]++
		case e.Type == session.System && e.Kind == session.KindError:
			v.Errors = append(v.Errors, e.Content)
		case e.Type == session.ToolResult && e.Error != "":
			v.Errors = append(v.Errors, string(e.Tool)+": "+e.Error)
		}
	}
	if priced {
		v.Cost = &cost
	}
	// Only the variant's own entries: the history's last answer is not
	// its answer.
	v.Answer = AnswerOf(s, history)
}

// priceOf is what u cost with model, when prices knows it.
func priceOf(prices *pricing.Table, model string, u session.Usage) (float64, bool) {
	if prices == nil {
		return 0, false
	}
	return prices.Cost(model, u)
}
