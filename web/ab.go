package web

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"

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
