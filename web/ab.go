package web

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/runs"
)

// abs answers GET /api/v1/ab: the A/B runs kept (stead ab list), newest
// first.
func (s *Server) abs(w http.ResponseWriter, r *http.Request) error {
	list := []runs.AB{}
	if s.ABDir != "" {
		dirs, err := os.ReadDir(s.ABDir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		for _, d := range dirs {
			if ab, err := readAB(s.ABDir, d.Name()); err == nil {
				list = append(list, *ab)
			}
		}
	}
	slices.SortFunc(list, func(a, b runs.AB) int { return b.Started.Compare(a.Started) })
	return writeJSON(w, map[string]any{"ab": list})
}

// ab answers GET /api/v1/ab/{ab}: one A/B run's report (stead ab show),
// and the sessions its variants wrote, to compare side by side.
func (s *Server) ab(w http.ResponseWriter, r *http.Request) error {
	ref := r.PathValue("ab")
	if s.ABDir == "" || !bus.ValidRun(ref) {
		return errorf(http.StatusNotFound, "no A/B run %q", ref)
	}
	id, err := runs.ResolveAB(s.ABDir, ref)
	if errors.Is(err, runs.ErrNoAB) {
		return errorf(http.StatusNotFound, "%v", err)
	}
	if err != nil {
		return err
	}
	ab, err := readAB(s.ABDir, id)
	if err != nil {
		return err
	}
	refs := make([]string, len(ab.Variants))
	if s.Supervisor != nil && s.Supervisor.Bus != nil {
		for i, v := range ab.Variants {
			if rec, err := s.Supervisor.Bus.Run(r.Context(), v.Run); err == nil && rec.SessionID != "" {
				refs[i] = rec.CLI + ":" + rec.SessionID
			}
		}
	}
	return writeJSON(w, map[string]any{"ab": ab, "refs": refs})
}

func readAB(dir, id string) (*runs.AB, error) {
	if !bus.ValidRun(id) {
		return nil, errorf(http.StatusNotFound, "no A/B run %q", id)
	}
	data, err := os.ReadFile(filepath.Join(runs.ABDir(dir, id), "ab.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errorf(http.StatusNotFound, "no A/B run %s (or it was cleaned)", id)
	}
	if err != nil {
		return nil, err
	}
	var ab runs.AB
	if err := json.Unmarshal(data, &ab); err != nil {
		return nil, err
	}
	return &ab, nil
}

// abStartJSON is the body of POST /api/v1/ab.
type abStartJSON struct {
	Prompt      string   `json:"prompt"`
	To          []string `json:"to"`
	Project     string   `json:"project"`
	From        string   `json:"from"`
	Repeat      int      `json:"repeat"`
	Model       string   `json:"model"`
	AutoApprove bool     `json:"autoApprove"`
	Timeout     int      `json:"timeoutSeconds"`
}

// startAB answers POST /api/v1/ab: an A/B run (stead ab) started in the
// background, each CLI of to on prompt in a workspace of its own made
// from project (continuing the session from names, or afresh). It
// answers 202 with the A/B run's record once its variants' workspaces are
// made; GET /api/v1/ab/{ab} follows it, and its page compares the
// variants' sessions.
func (s *Server) startAB(w http.ResponseWriter, r *http.Request) error {
	var body abStartJSON
	if err := decodeBody(r, &body, "an A/B run to start"); err != nil {
		return err
	}
	sv, err := s.runsOrNone()
	if err != nil {
		return err
	}
	if s.ABDir == "" {
		return errorf(http.StatusServiceUnavailable, "this server keeps no A/B runs")
	}
	if strings.TrimSpace(body.Prompt) == "" {
		return errorf(http.StatusBadRequest, "prompt: give the prompt every CLI is to run")
	}
	if len(body.To) == 0 {
		return errorf(http.StatusBadRequest, "to: name the CLIs to compare (%s)", strings.Join(runnable(), ", "))
	}
	for _, c := range body.To {
		if _, err := runnableCLI("to", c); err != nil {
			return err
		}
	}
	if body.Repeat < 0 || body.Repeat > 10 || body.Timeout < 0 {
		return errorf(http.StatusBadRequest, "repeat is 0 to 10, timeoutSeconds 0 or more")
	}
	if err := folder("project", body.Project, "the folder each variant gets a copy of"); err != nil {
		return err
	}
	from, err := s.openRef(body.From)
	if err != nil {
		return err
	}
	timeout := 10 * time.Minute // stead ab's
	if body.Timeout > 0 {
		timeout = time.Duration(body.Timeout) * time.Second
	}
	spec := runs.ABSpec{Prompt: body.Prompt, To: body.To, Repeat: body.Repeat, Project: body.Project, From: body.From,
		Model: body.Model, Auto: body.AutoApprove, Timeout: timeout, Dir: s.ABDir}
	made := make(chan []byte, 1)
	failed := make(chan error, 1)
	ctx := s.background()
	s.jobs.Go(func() {
		hooks := runs.ABHooks{Made: func(ab *runs.AB) {
			data, _ := json.Marshal(ab) // now: the variants change it as they run
			made <- data
		}}
		if _, err := sv.AB(ctx, from, spec, s.prices(), hooks); err != nil {
			s.log().Error("web: A/B run failed", "err", err)
			failed <- err
		}
	})
	select {
	case data := <-made:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_, err := w.Write(data)
		return err
	case err := <-failed:
		return err
	case <-r.Context().Done():
		return r.Context().Err()
	}
}
