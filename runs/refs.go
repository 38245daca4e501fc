package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// ResolveRun returns the record of the run ref names: its id, or a prefix
// of one that no other run's id starts with (a *catalog.AmbiguousError
// when several do).
func (sv *Supervisor) ResolveRun(ctx context.Context, ref string) (live.Run, error) {
	b := sv.Bus
	r, err := b.Run(ctx, ref)
	if !errors.Is(err, bus.ErrNoRun) || len(ref) < session.MinPrefix {
		return r, err
	}
	ids, lerr := b.RunIDs(ctx)
	if lerr != nil {
		return r, errors.Join(err, lerr)
	}
	m := session.Match(ref, ids, func(id string) string { return id })
	switch len(m) {
	case 0:
		return r, err
	case 1:
		return b.Run(ctx, m[0])
	}
	// Run ids start with their start time: the greatest are the newest.
	slices.Sort(m)
	slices.Reverse(m)
	var cands []catalog.Candidate
	for _, id := range m[:min(len(m), catalog.MaxCandidates)] {
		c := catalog.Candidate{ID: id}
		if rec, err := b.Run(ctx, id); err == nil {
			c.CLI, c.When, c.About = rec.CLI, rec.Started, rec.Dir
		}
		cands = append(cands, c)
	}
	return r, catalog.NewAmbiguous(ref, "runs", len(m), cands)
}

// Errors a reference ends in.
var (
	// ErrNotEnded is a run whose session is not stored yet: it has not
	// ended.
	ErrNotEnded = errors.New("the run has not ended")
	// ErrNoAB is a reference to an A/B run that names none.
	ErrNoAB = errors.New("no such A/B run")
)

// saidError says msg, and is the sentinel is.
type saidError struct {
	msg string
	is  error
}

func (e *saidError) Error() string { return e.msg }
func (e *saidError) Unwrap() error { return e.is }

// LoadRun reads the whole session a finished run stored: the run ref
// names (see ResolveRun). A run not ended yet is ErrNotEnded.
func (sv *Supervisor) LoadRun(ctx context.Context, ref string) (*session.Session, error) {
	b := sv.Bus
	id := ref
	r, err := b.Session(ctx, id)
	if errors.Is(err, bus.ErrNoRun) {
		rec, rerr := sv.ResolveRun(ctx, id)
		switch {
		case rerr == nil && !rec.State.Done():
			return nil, &saidError{msg: fmt.Sprintf("run %s has not ended (it is %s): its session is stored when it ends; stead watch %s shows it live",
				rec.ID, rec.State, rec.ID), is: ErrNotEnded}
		case rerr == nil && rec.ID != id:
			id = rec.ID
			r, err = b.Session(ctx, id)
		case errors.Is(rerr, session.ErrAmbiguous):
			err = rerr
		}
		if errors.Is(err, bus.ErrNoRun) && rerr == nil && rec.State.Done() {
			// It ended, and its session was not stored (its worker
			// died first): made as it would have been, from the bus.
			history, herr := sv.runHistory(ctx, rec)
			if herr != nil {
				return nil, herr
			}
			added, cerr := capturedEntries(ctx, b, rec.ID, rec.CLI, rec.Path)
			if cerr != nil {
				return nil, fmt.Errorf("run %s: %w", rec.ID, cerr)
			}
			return joined(history, added), nil
		}
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var s session.Session
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return nil, fmt.Errorf("run %s: stored session: %w", id, err)
	}
	return &s, nil
}

// ResolveAB returns the id of the A/B run kept in dir (see ABDir) that ref
// names: its id, or a prefix of one that no other's id starts with.
func ResolveAB(dir, ref string) (string, error) {
	if _, err := os.Stat(filepath.Join(ABDir(dir, ref), "ab.json")); !errors.Is(err, fs.ErrNotExist) {
		return ref, nil
	}
	notFound := &saidError{msg: fmt.Sprintf("no A/B run %s (or it was cleaned)", ref), is: ErrNoAB}
	dirs, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	var ids []string
	for _, d := range dirs {
		if d.IsDir() {
			ids = append(ids, d.Name())
		}
	}
	m := session.Match(ref, ids, func(id string) string { return id })
	switch len(m) {
	case 0:
		return "", notFound
	case 1:
		return m[0], nil
	}
	slices.Sort(m)
	slices.Reverse(m)
	var cands []catalog.Candidate
	for _, id := range m[:min(len(m), catalog.MaxCandidates)] {
		c := catalog.Candidate{ID: id}
		if data, err := os.ReadFile(filepath.Join(ABDir(dir, id), "ab.json")); err == nil {
			var ab AB
			if json.Unmarshal(data, &ab) == nil {
				var clis []string
				for _, v := range ab.Variants {
					clis = append(clis, v.CLI)
				}
				c.CLI, c.When, c.About = strings.Join(clis, ","), ab.Started, ab.Prompt
			}
		}
		cands = append(cands, c)
	}
	return "", catalog.NewAmbiguous(ref, "A/B runs", len(m), cands)
}
