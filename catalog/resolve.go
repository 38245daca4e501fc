package catalog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/session"
)

// A session (and, in package runs, a run or an A/B run) is named by its id
// or, as in git, by a prefix of it that no other id starts with
// (session.Match): each kind is listed from what names them (a store's
// listing), never by opening them, and the one id found is then looked up
// as a full id would be.

// MaxCandidates is how many of the things an ambiguous reference names
// its error lists.
const MaxCandidates = 10

// AmbiguousError is a reference that names several sessions, runs or A/B
// runs. It lists them, newest first, so that the user can pick one; it
// wraps session.ErrAmbiguous.
type AmbiguousError struct {
	Ref  string
	What string // "sessions", "runs", "A/B runs"
	// Candidates are the newest of them, at most MaxCandidates; More
	// counts the others.
	Candidates []Candidate
	More       int
}

// Candidate is one of the things an ambiguous reference names.
type Candidate struct {
	ID    string // the reference that names it alone
	CLI   string // its CLI, or CLIs
	When  time.Time
	About string // its title, else its directory
}

func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q names %d %s; give more of the id:\n", e.Ref, len(e.Candidates)+e.More, e.What)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, c := range e.Candidates {
		when := "-"
		if !c.When.IsZero() {
			when = c.When.Local().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.ID, c.CLI, when, safetext.ClipLine(c.About, 60))
	}
	tw.Flush()
	if e.More > 0 {
		fmt.Fprintf(&b, "  and %d more\n", e.More)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (e *AmbiguousError) Unwrap() error { return session.ErrAmbiguous }

// NewAmbiguous makes the error of a reference that names n things, of
// which cands are listed, sorted newest first and cut to MaxCandidates.
func NewAmbiguous(ref, what string, n int, cands []Candidate) *AmbiguousError {
	slices.SortStableFunc(cands, func(a, b Candidate) int { return b.When.Compare(a.When) })
	if len(cands) > MaxCandidates {
		cands = cands[:MaxCandidates]
	}
	return &AmbiguousError{Ref: ref, What: what, Candidates: cands, More: n - len(cands)}
}

// ErrUndetected is a session file no adapter recognises.
var ErrUndetected = errors.New("cannot tell which CLI wrote")

// Resolve finds the adapter and session a reference names: <cli>:<id>,
// the path of a session file, or an id looked up in every store (only
// cli's, when cli is set). An id found nowhere is read as a prefix.
func Resolve(env session.Env, ref, cli string) (adapters.Adapter, session.Ref, error) {
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
		a, err := Detect(ref)
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
	var cands []Candidate
	for _, r := range refs {
		cands = append(cands, describeSession(r, env.Home))
	}
	return adapters.Adapter{}, session.Ref{}, NewAmbiguous(ref, "sessions", len(refs), cands)
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
	var cands []Candidate
	for _, k := range keys[:min(len(keys), MaxCandidates)] {
		cands = append(cands, describeSession(byID[k][0], env.Home))
	}
	return adapters.Adapter{}, session.Ref{}, true, NewAmbiguous(prefix, "sessions", len(keys), cands)
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
func describeSession(r session.Ref, home string) Candidate {
	c := Candidate{ID: r.CLI + ":" + r.ID, CLI: r.CLI, When: r.ModTime, About: r.Title}
	if c.About == "" {
		c.About = shortPath(filepath.Dir(r.Path), home)
	}
	a, _ := adapters.Lookup(r.CLI)
	if !a.Reads() {
		return c
	}
	if s, err := a.SummarizeFile(r, session.DetailList); err == nil {
		if s.Title != "" {
			c.About = s.Title
		} else if s.Project != "" {
			c.About = shortPath(s.Project, home)
		}
		if !s.End.IsZero() {
			c.When = s.End
		}
	}
	return c
}

// shortPath writes a path under home with ~.
func shortPath(p, home string) string {
	if home != "" && (p == home || strings.HasPrefix(p, home+"/")) {
		return "~" + p[len(home):]
	}
	return p
}

// Detect decides which CLI wrote a session file from its first records;
// ErrUndetected when no adapter recognises them.
func Detect(path string) (adapters.Adapter, error) {
	f, err := os.Open(path)
	if err != nil {
		return adapters.Adapter{}, err
	}
	defer f.Close()
	// Look at the start of the first records: enough to recognise them,
	// without reading a huge line whole.
	r := bufio.NewReaderSize(io.LimitReader(f, 8<<20), 64<<10)
	votes := map[string]int{}
	for n := 0; n < 8; {
		head, more, err := r.ReadLine()
		if err != nil {
			break
		}
		line := strings.Clone(string(head))
		for more && err == nil {
			_, more, err = r.ReadLine() // skip the rest of a long line
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		n++
		for _, a := range adapters.All {
			if a.Reads() && a.Sniff != nil && a.Sniff([]byte(line)) {
				votes[a.Name]++
			}
		}
	}
	var best string
	for name, v := range votes {
		if best == "" || v > votes[best] || (v == votes[best] && name < best) {
			best = name
		}
	}
	if best == "" {
		return adapters.Adapter{}, fmt.Errorf("%w %s; name it with --cli (%s)", ErrUndetected, path, strings.Join(adapters.Names(), ", "))
	}
	a, _ := adapters.Lookup(best)
	return a, nil
}
