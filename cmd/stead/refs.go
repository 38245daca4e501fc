package main

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
	"text/tabwriter"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// A session, a run and an A/B run are named by their id or, as in git, by
// a prefix of it that no other id starts with (session.Match): each kind
// is listed from what names them (a store's listing, the bus's run keys,
// the A/B folders), never by opening them, and the one id found is then
// looked up as a full id would be.

// maxCandidates is how many of the ids an ambiguous reference names its
// error lists.
const maxCandidates = 10

// ambiguousError is a reference that names several sessions, runs or A/B
// runs. It lists them, newest first, so that the user can pick one.
type ambiguousError struct {
	ref   string
	what  string // "sessions", "runs", "A/B runs"
	cands []candidate
	more  int // how many more there are than cands
}

// candidate is one of the things an ambiguous reference names.
type candidate struct {
	id    string // the reference that names it alone
	cli   string // its CLI, or CLIs
	when  time.Time
	about string // its title, else its directory
}

func (e *ambiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q names %d %s; give more of the id:\n", e.ref, len(e.cands)+e.more, e.what)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, c := range e.cands {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.id, c.cli, formatTime(c.when), clipLine(c.about, 60))
	}
	tw.Flush()
	if e.more > 0 {
		fmt.Fprintf(&b, "  and %d more\n", e.more)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (e *ambiguousError) Unwrap() error { return session.ErrAmbiguous }

// newAmbiguous makes the error of a reference that names n things, of
// which cands are listed, sorted newest first and cut to maxCandidates.
func newAmbiguous(ref, what string, n int, cands []candidate) *ambiguousError {
	slices.SortStableFunc(cands, func(a, b candidate) int { return b.when.Compare(a.when) })
	if len(cands) > maxCandidates {
		cands = cands[:maxCandidates]
	}
	return &ambiguousError{ref: ref, what: what, cands: cands, more: n - len(cands)}
}

// resolveRef finds the adapter and session a reference names: <cli>:<id>,
// the path of a session file, or an id looked up in every store (only
// cli's, when cli is set). An id found nowhere is read as a prefix.
func resolveRef(env session.Env, ref, cli string) (adapters.Adapter, session.Ref, error) {
	if name, id, ok := strings.Cut(ref, ":"); ok && cli == "" {
		if a, known := adapters.Lookup(name); known {
			if !a.Reads() {
				return a, session.Ref{}, fmt.Errorf("stead does not read %s sessions yet: %w", name, session.ErrUnsupported)
			}
			r, err := a.Locate(env, id)
			if errors.Is(err, session.ErrNotFound) {
				if pa, pr, ok, perr := locatePrefix(env, []adapters.Adapter{a}, id); ok {
					return pa, pr, perr
				}
			}
			return a, r, err
		}
	}
	if fi, err := os.Stat(ref); err == nil && fi.Mode().IsRegular() {
		if cli != "" {
			a, _ := adapters.Lookup(cli)
			if !a.Reads() {
				return a, session.Ref{}, fmt.Errorf("stead does not read %s sessions yet: %w", cli, session.ErrUnsupported)
			}
			return a, session.Ref{CLI: a.Name, Path: ref}, nil
		}
		a, err := detect(ref)
		return a, session.Ref{CLI: a.Name, Path: ref}, err
	}
	// A bare id: look in every store.
	var readers, found []adapters.Adapter
	var refs []session.Ref
	var failed []error
	for _, a := range adapters.All {
		if (cli != "" && a.Name != cli) || !a.Reads() {
			continue
		}
		readers = append(readers, a)
		r, err := a.Locate(env, ref)
		switch {
		case err == nil:
			found, refs = append(found, a), append(refs, r)
		case errors.Is(err, session.ErrAmbiguous):
			return adapters.Adapter{}, session.Ref{}, err
		case !errors.Is(err, session.ErrNotFound):
			failed = append(failed, err)
		}
	}
	switch len(found) {
	case 0:
		if a, r, ok, err := locatePrefix(env, readers, ref); ok {
			return a, r, err
		}
		if len(failed) > 0 {
			// A store that could not be read may hold it: that is
			// what went wrong, not that there is no such session.
			return adapters.Adapter{}, session.Ref{}, fmt.Errorf("no session %q in the stores stead could read: %w", ref, errors.Join(failed...))
		}
		return adapters.Adapter{}, session.Ref{}, fmt.Errorf("no session %q in any CLI's store, and no such file: %w", ref, session.ErrNotFound)
	case 1:
		return found[0], refs[0], nil
	}
	var cands []candidate
	for _, r := range refs {
		cands = append(cands, describeSession(r, env.Home))
	}
	return adapters.Adapter{}, session.Ref{}, newAmbiguous(ref, "sessions", len(refs), cands)
}

// locatePrefix finds the session whose id starts with prefix in the
// stores of as, from their listings (Discover reads folders, and at most
// the first records of a file), and locates it as its full id would be.
// It reports false when no id starts with prefix.
func locatePrefix(env session.Env, as []adapters.Adapter, prefix string) (adapters.Adapter, session.Ref, bool, error) {
	if len(prefix) < session.MinPrefix {
		return adapters.Adapter{}, session.Ref{}, false, nil
	}
	var refs []session.Ref
	for _, a := range as {
		listed, _ := a.Discover(env)
		refs = append(refs, session.Match(prefix, listed, func(r session.Ref) string { return r.ID })...)
	}
	// One id listed twice (a session in two folders) is one id: Locate
	// says which files hold it.
	type key struct{ cli, id string }
	byID := map[key][]session.Ref{}
	var keys []key
	for _, r := range refs {
		k := key{r.CLI, r.ID}
		if byID[k] == nil {
			keys = append(keys, k)
		}
		byID[k] = append(byID[k], r)
	}
	switch len(keys) {
	case 0:
		return adapters.Adapter{}, session.Ref{}, false, nil
	case 1:
		a, _ := adapters.Lookup(keys[0].cli)
		r, err := a.Locate(env, keys[0].id)
		return a, r, true, err
	}
	// Only the newest are summarised, for their titles and projects.
	slices.SortFunc(keys, func(x, y key) int { return latest(byID[y]).Compare(latest(byID[x])) })
	var cands []candidate
	for _, k := range keys[:min(len(keys), maxCandidates)] {
		cands = append(cands, describeSession(byID[k][0], env.Home))
	}
	return adapters.Adapter{}, session.Ref{}, true, newAmbiguous(prefix, "sessions", len(keys), cands)
}

func latest(refs []session.Ref) time.Time {
	var t time.Time
	for _, r := range refs {
		if r.ModTime.After(t) {
			t = r.ModTime
		}
	}
	return t
}

// describeSession is a session as an ambiguous reference lists it: its
// listing's summary (title, else project; last activity), else what its
// Ref says.
func describeSession(r session.Ref, home string) candidate {
	c := candidate{id: r.CLI + ":" + r.ID, cli: r.CLI, when: r.ModTime, about: r.Title}
	if c.about == "" {
		c.about = shortPath(filepath.Dir(r.Path), home)
	}
	a, _ := adapters.Lookup(r.CLI)
	if !a.Reads() {
		return c
	}
	if s, err := a.SummarizeFile(r, session.DetailList); err == nil {
		if s.Title != "" {
			c.about = s.Title
		} else if s.Project != "" {
			c.about = shortPath(s.Project, home)
		}
		if !s.End.IsZero() {
			c.when = s.End
		}
	}
	return c
}

// resolveRun returns the record of the run ref names: its id, or a prefix
// of one that no other run's id starts with.
func resolveRun(ctx context.Context, b *bus.Bus, ref string) (live.Run, error) {
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
	var cands []candidate
	for _, id := range m[:min(len(m), maxCandidates)] {
		c := candidate{id: id}
		if rec, err := b.Run(ctx, id); err == nil {
			c.cli, c.when, c.about = rec.CLI, rec.Started, rec.Dir
		}
		cands = append(cands, c)
	}
	return r, newAmbiguous(ref, "runs", len(m), cands)
}

// resolveAB returns the id of the A/B run ref names: its id, or a prefix
// of one that no other kept A/B run's id starts with.
func resolveAB(env session.Env, ref string) (string, error) {
	if _, err := os.Stat(filepath.Join(abDir(env, ref), "ab.json")); !errors.Is(err, fs.ErrNotExist) {
		return ref, nil
	}
	notFound := notFoundf("no A/B run %s (or it was cleaned)", ref)
	dirs, err := os.ReadDir(filepath.Join(stateDir(env), "ab"))
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
	var cands []candidate
	for _, id := range m[:min(len(m), maxCandidates)] {
		c := candidate{id: id}
		if data, err := os.ReadFile(filepath.Join(abDir(env, id), "ab.json")); err == nil {
			var ab runs.AB
			if json.Unmarshal(data, &ab) == nil {
				var clis []string
				for _, v := range ab.Variants {
					clis = append(clis, v.CLI)
				}
				c.cli, c.when, c.about = strings.Join(clis, ","), ab.Started, ab.Prompt
			}
		}
		cands = append(cands, c)
	}
	return "", newAmbiguous(ref, "A/B runs", len(m), cands)
}
