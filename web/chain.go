package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stead-dev/stead/runs"
)

// chainState is a chain the server started: what its steps did so far.
// The daemon keeps it in memory: a restart forgets it (its runs stay on
// the bus).
type chainState struct {
	mu      sync.Mutex
	ID      string            `json:"id"`
	Started time.Time         `json:"started"`
	Steps   []runs.Step       `json:"steps"`
	Results []runs.StepResult `json:"results"`
	Current int               `json:"current"` // the step running (from 1); 0 when none
	Run     string            `json:"run,omitempty"`
	Done    bool              `json:"done"`
	Error   string            `json:"error,omitempty"`
	Session string            `json:"session,omitempty"`
}

// chainStartJSON is the body of POST /api/v1/chains.
type chainStartJSON struct {
	Steps       []runs.Step `json:"steps"`
	From        string      `json:"from"`
	Dir         string      `json:"dir"`
	Model       string      `json:"model"`
	AutoApprove bool        `json:"autoApprove"`
	Timeout     int         `json:"timeoutSeconds"`
}

// startChain answers POST /api/v1/chains: a chain (stead chain) started
// in the background, each step a prompt for a CLI that continues the
// session the step before ended with. It answers 202 with the chain's
// state; GET /api/v1/chains/{chain} follows it.
func (s *Server) startChain(w http.ResponseWriter, r *http.Request) error {
	var body chainStartJSON
	if err := decodeBody(r, &body, "a chain to start"); err != nil {
		return err
	}
	sv, err := s.runsOrNone()
	if err != nil {
		return err
	}
	if len(body.Steps) == 0 || len(body.Steps) > 20 {
		return errorf(http.StatusBadRequest, "steps: give 1 to 20 steps, each {\"cli\", \"prompt\"}")
	}
	for i, st := range body.Steps {
		if _, err := runnableCLI(fmt.Sprintf("step %d", i+1), st.CLI); err != nil {
			return err
		}
		if strings.TrimSpace(st.Prompt) == "" {
			return errorf(http.StatusBadRequest, "step %d: give its prompt", i+1)
		}
	}
	if err := folder("dir", body.Dir, "say where the chain works"); err != nil {
		return err
	}
	from, err := s.openRef(body.From)
	if err != nil {
		return err
	}
	c := &chainState{ID: "chain-" + runs.NewID(), Started: time.Now().UTC(), Steps: body.Steps,
		Results: []runs.StepResult{}}
	s.mu.Lock()
	if s.chains == nil {
		s.chains = map[string]*chainState{}
	}
	s.chains[c.ID] = c
	s.mu.Unlock()
	opts := runs.ChainOptions{StepOptions: runs.StepOptions{Dir: body.Dir, Model: body.Model, Auto: body.AutoApprove}}
	if body.Timeout > 0 {
		opts.Timeout = time.Duration(body.Timeout) * time.Second
	}
	opts.Began = func(i int, _ runs.Step) {
		c.mu.Lock()
		c.Current, c.Run = i+1, ""
		c.mu.Unlock()
	}
	opts.Watch = func(_ context.Context, run string) {
		// A supervised step's run, as it starts: its page shows it live.
		c.mu.Lock()
		c.Run = run
		c.mu.Unlock()
	}
	opts.Ended = func(res runs.StepResult, _ error) {
		c.mu.Lock()
		c.Results = append(c.Results, res)
		c.Run = res.Run
		c.mu.Unlock()
	}
	ctx := s.background()
	s.jobs.Go(func() {
		res, _, err := sv.Chain(ctx, from, body.Steps, opts)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.Done, c.Current, c.Session = true, 0, res.Session
		if err != nil {
			c.Error = err.Error()
			s.log().Warn("web: a chain failed", "chain", c.ID, "err", err)
		}
	})
	w.Header().Set("Location", "/api/v1/chains/"+c.ID)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	return json.NewEncoder(w).Encode(c.snapshot())
}

// snapshot is the chain's state now, to encode.
func (c *chainState) snapshot() map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return map[string]any{"id": c.ID, "started": c.Started, "steps": c.Steps, "results": slices.Clone(c.Results),
		"current": c.Current, "run": c.Run, "done": c.Done, "error": c.Error, "session": c.Session}
}

// chains answers GET /api/v1/chains: the chains this server started since
// it started, newest first.
func (s *Server) chainList(w http.ResponseWriter, r *http.Request) error {
	s.mu.Lock()
	list := make([]*chainState, 0, len(s.chains))
	for _, c := range s.chains {
		list = append(list, c)
	}
	s.mu.Unlock()
	slices.SortFunc(list, func(a, b *chainState) int { return b.Started.Compare(a.Started) })
	out := make([]map[string]any, len(list))
	for i, c := range list {
		out[i] = c.snapshot()
	}
	return writeJSON(w, map[string]any{"chains": out})
}

// chain answers GET /api/v1/chains/{chain}: one chain's state.
func (s *Server) chain(w http.ResponseWriter, r *http.Request) error {
	s.mu.Lock()
	c := s.chains[r.PathValue("chain")]
	s.mu.Unlock()
	if c == nil {
		return errorf(http.StatusNotFound, "no chain %q (the daemon keeps the chains it started until it stops)", r.PathValue("chain"))
	}
	return writeJSON(w, c.snapshot())
}
