package catalog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/session"
)

// ErrUnknownCLI is returned for a CLI name no adapter has.
var ErrUnknownCLI = errors.New("unknown CLI")

// Options selects what Scan reads. The zero value scans every CLI's store
// found from the process environment given in Env.
type Options struct {
	Env session.Env
	// CLIs limits the scan to these CLIs; empty means all.
	CLIs []string
	// Detail is how much of each file to read: session.DetailFull (the
	// zero value) for statistics, session.DetailList for a listing.
	Detail session.Detail
	// Workers is how many files are scanned at once; 0 means GOMAXPROCS.
	Workers int
	// Progress, when set, is called after each file with the files and
	// bytes done so far and the totals. It may be called concurrently.
	Progress func(done, total int, doneBytes, totalBytes int64)
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
	// Cache, when set, gives the summaries of sessions that did not
	// change since it was made (the search index's), so that only the
	// others are read.
	Cache Cache
	// Each, when set, is given each CLI's finds as soon as its Discover
	// has made them, in the goroutine that made them (so concurrently for
	// several CLIs), before DiscoverEach returns them all.
	Each func(Found)
}

// A Cache gives the summary of ref's session at detail, when it holds one
// made from the session as it still is. It is called concurrently.
type Cache interface {
	Summary(ref session.Ref, detail session.Detail) (session.Summary, bool)
}

// A Lister is a Cache that may also know what a CLI's Discover would find
// now, without it looking at the store (the search index, kept fresh by a
// watcher that has heard of no change since its last look). It is called
// concurrently.
type Lister interface {
	Discovered(cli string) (refs []session.Ref, warns []session.Warning, ok bool)
}

// Found is what one CLI's Discover found.
type Found struct {
	CLI      string
	Refs     []session.Ref
	Warnings []session.Warning
}

// Result is what a scan found.
type Result struct {
	// Summaries has one entry per session file, newest first.
	Summaries []session.Summary
	// Warnings lists files or lines that could not be read.
	Warnings []session.Warning
	// Files and Bytes count what was scanned.
	Files int
	Bytes int64
}

// Discover lists the session files of the selected CLIs.
func Discover(opts Options) ([]session.Ref, []session.Warning, error) {
	found, err := DiscoverEach(opts)
	if err != nil {
		return nil, nil, err
	}
	var refs []session.Ref
	var warns []session.Warning
	for _, f := range found {
		refs = append(refs, f.Refs...)
		warns = append(warns, f.Warnings...)
	}
	return refs, warns, nil
}

// DiscoverEach is Discover by CLI, in the order of adapters.All: the
// CLIs that opts selects and stead reads, and a warning for a CLI asked
// for that stead does not read.
func DiscoverEach(opts Options) ([]Found, error) {
	for _, name := range opts.CLIs {
		if _, ok := adapters.Lookup(name); !ok {
			return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownCLI, name, strings.Join(adapters.Names(), ", "))
		}
	}
	// The stores are listed side by side (listing is mostly waiting on
	// the file system).
	lister, _ := opts.Cache.(Lister)
	var all []Found
	for _, a := range adapters.All {
		if !selected(opts.CLIs, a.Name) {
			continue
		}
		f := Found{CLI: a.Name}
		if !a.Reads() && len(opts.CLIs) > 0 {
			f.Warnings = []session.Warning{{Message: a.Name + ": stead does not read its sessions yet"}}
		}
		all = append(all, f)
	}
	var wg sync.WaitGroup
	for i := range all {
		a, _ := adapters.Lookup(all[i].CLI)
		if !a.Reads() {
			continue
		}
		wg.Go(func() {
			f := &all[i]
			ok := false
			if lister != nil {
				f.Refs, f.Warnings, ok = lister.Discovered(a.Name)
			}
			if !ok {
				f.Refs, f.Warnings = a.Discover(opts.Env)
			}
			if opts.Each != nil {
				opts.Each(*f)
			}
		})
	}
	wg.Wait()
	return all, nil
}

func selected(clis []string, name string) bool {
	if len(clis) == 0 {
		return true
	}
	for _, c := range clis {
		if c == name {
			return true
		}
	}
	return false
}

// Scan discovers and summarises every session file of the selected CLIs.
func Scan(ctx context.Context, opts Options) (*Result, error) {
	refs, warns, err := Discover(opts)
	if err != nil {
		return nil, err
	}
	res, err := Summarize(ctx, opts, refs)
	if err != nil {
		return nil, err
	}
	res.Warnings = append(warns, res.Warnings...)
	return res, nil
}

// Summarize summarises the given files in parallel.
func Summarize(ctx context.Context, opts Options, refs []session.Ref) (*Result, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var totalBytes int64
	for _, r := range refs {
		totalBytes += r.Size
	}
	// Hand out the largest files first so workers finish together.
	order := make([]int, len(refs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return refs[order[a]].Size > refs[order[b]].Size })

	sums := make([]session.Summary, len(refs))
	ok := make([]bool, len(refs))
	fileWarns := make([][]session.Warning, len(refs))
	var next, done atomic.Int64
	var doneBytes atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := int(next.Add(1) - 1)
				if n >= len(order) || ctx.Err() != nil {
					return
				}
				i := order[n]
				sums[i], ok[i], fileWarns[i] = summarizeOne(refs[i], opts.Detail, opts.Cache)
				d := done.Add(1)
				b := doneBytes.Add(refs[i].Size)
				if opts.Progress != nil {
					opts.Progress(int(d), len(refs), b, totalBytes)
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &Result{Files: len(refs), Bytes: totalBytes, Summaries: make([]session.Summary, 0, len(refs))}
	for i := range refs {
		res.Warnings = append(res.Warnings, fileWarns[i]...)
		if ok[i] {
			res.Summaries = append(res.Summaries, sums[i])
		}
	}
	sums = nil
	settleBorrowed(res.Summaries)
	countResponsesOnce(res.Summaries)
	// Newest first. (Summaries are large: their order is found first,
	// then each moved once.)
	byStart := make([]int, len(res.Summaries))
	for i := range byStart {
		byStart[i] = i
	}
	// (Ties are broken by position: a stable sort's order, at the speed
	// of an unstable one.)
	slices.SortFunc(byStart, func(a, b int) int {
		x, y := &res.Summaries[a], &res.Summaries[b]
		if c := y.Start.Compare(x.Start); c != 0 {
			return c
		}
		if c := strings.Compare(x.Path, y.Path); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	sorted := make([]session.Summary, len(byStart))
	for i, j := range byStart {
		sorted[i] = res.Summaries[j]
	}
	res.Summaries = sorted
	if len(res.Summaries) == 0 {
		res.Summaries = nil
	}
	log.Debug("scan done", "files", len(refs), "bytes", totalBytes, "took", time.Since(start))
	return res, nil
}

func summarizeOne(ref session.Ref, detail session.Detail, cache Cache) (session.Summary, bool, []session.Warning) {
	sum, ok := session.Summary{}, false
	if cache != nil {
		sum, ok = cache.Summary(ref, detail)
	}
	if !ok {
		a, found := adapters.Lookup(ref.CLI)
		if !found || !a.Reads() {
			return session.Summary{}, false, []session.Warning{{Path: ref.Path, Message: "no adapter for " + ref.CLI}}
		}
		var err error
		if sum, err = a.SummarizeFile(ref, detail); err != nil {
			return session.Summary{}, false, []session.Warning{{Path: ref.Path, Message: "cannot read: " + unwrap(err)}}
		}
	}
	if sum.Start.IsZero() && !ref.ModTime.IsZero() {
		// A file with no timestamps at all: its modification time is
		// the best guess at when it was last used.
		sum.Start, sum.End = ref.ModTime.UTC(), ref.ModTime.UTC()
	}
	var warns []session.Warning
	for _, w := range sum.Warnings {
		w.Path = ref.Path
		warns = append(warns, w)
	}
	if sum.Skipped > len(sum.Warnings) {
		warns = append(warns, session.Warning{Path: ref.Path, Message: fmt.Sprintf("%d more malformed lines skipped", sum.Skipped-len(sum.Warnings))})
	}
	sum.Warnings = nil
	return sum, true, warns
}

func unwrap(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// countResponsesOnce counts a response that several files hold (a copied
// history) with the oldest session that holds it, and takes it back from
// the others.
func countResponsesOnce(sums []session.Summary) {
	some := false
	for i := range sums {
		if len(sums[i].Responses) > 0 {
			some = true
			break
		}
	}
	if !some {
		return // a listing's summaries keep none
	}
	order := make([]int, len(sums))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		x, y := &sums[a], &sums[b]
		if c := x.Start.Compare(y.Start); c != 0 {
			return c
		}
		if c := strings.Compare(x.Path, y.Path); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	seen := map[uint64]bool{}
	for _, i := range order {
		s := &sums[i]
		for _, r := range s.Responses {
			if seen[r.Key] {
				s.Uncount(r)
			}
			seen[r.Key] = true
		}
		s.Responses = nil
	}
}

// settleBorrowed drops usage a fork or a session stead wrote copied from
// a session that is also in the list (it is counted there), and keeps it
// with the copy otherwise. A Borrowed key is the id of a session of the
// copy's CLI, or session.OriginKey of any CLI's. The history of a session
// that is not in the list but was copied several times by stead counts
// once, with the copy that holds the most of it: each copy holds the
// source as it was when copied, or up to where a fork cut it.
func settleBorrowed(sums []session.Summary) {
	have := make(map[string]bool, len(sums))
	for _, s := range sums {
		have[session.OriginKey(s.CLI, s.ID)] = true
	}
	largest := map[string]int{} // an absent source's key -> the copy that adopts its history
	for i := range sums {
		s := &sums[i]
		if h := s.History; h != nil && !have[h.From] {
			j, ok := largest[h.From]
			if !ok || holdsMore(s, &sums[j], h.From) {
				largest[h.From] = i
			}
		}
	}
	for i := range sums {
		s := &sums[i]
		for origin := range s.Borrowed {
			if have[session.OriginKey(s.CLI, origin)] || have[origin] {
				continue
			}
			if j, ok := largest[origin]; ok && j != i && s.History != nil && s.History.From == origin {
				continue // another copy counts it
			}
			s.Adopt(origin)
		}
		s.Borrowed = nil
	}
}

// holdsMore reports whether a holds more of the history copied from
// origin than b: more tokens, else fewer of them under no model (a
// target that keeps no model per response), else the earlier copy, else
// the first path.
func holdsMore(a, b *session.Summary, origin string) bool {
	x, y := a.Borrowed[origin], b.Borrowed[origin]
	if x.Usage.Total() != y.Usage.Total() {
		return x.Usage.Total() > y.Usage.Total()
	}
	if nx, ny := x.Models[""].Total(), y.Models[""].Total(); nx != ny {
		return nx < ny
	}
	if !a.History.Written.Equal(b.History.Written) {
		return a.History.Written.Before(b.History.Written)
	}
	return a.Path < b.Path
}

// Filter selects summaries.
type Filter struct {
	// Project keeps sessions whose project is this path or under it (an
	// absolute path), or whose project path contains it (anything else).
	Project string
	// Since and Until keep sessions active in that period.
	Since, Until time.Time
	// Subagents keeps subagent sessions too.
	Subagents bool
}

// Keep reports whether s passes the filter. The times of a session stead
// wrote are its own (from when it was written), not its copied
// history's; see Select for its usage.
func (f Filter) Keep(s *session.Summary) bool {
	if !f.Subagents && s.Parent != nil && s.Parent.Kind == session.LinkSubagent {
		return false
	}
	if f.Project != "" && !matchProject(s.Project, f.Project) {
		return false
	}
	if !f.Since.IsZero() && s.End.Before(f.Since) {
		return false
	}
	if !f.Until.IsZero() && s.Start.After(f.Until) {
		return false
	}
	return true
}

// Select returns what of s the filter keeps, and whether it keeps any.
// It is Keep, but for a session stead wrote that counts its copied
// history's usage (the session it was copied from was not scanned: see
// session.History.Adopted), which the period keeps by the history's own
// times: a copy made today of a session of last week counts the history
// in a period of last week and not in one of today. When the period
// keeps only the history, the result has the history's usage and times
// and nothing of the session's own.
func (f Filter) Select(s session.Summary) (session.Summary, bool) {
	h := s.History
	if h == nil || h.Adopted.IsZero() || f.Since.IsZero() && f.Until.IsZero() {
		return s, f.Keep(&s)
	}
	own := f.Keep(&s)
	hs := s
	hs.Start, hs.End = h.Start, h.End
	if hs.Start.IsZero() {
		hs.Start, hs.End = h.Written, h.Written
	}
	past := f.Keep(&hs)
	switch {
	case own && past:
		return s, true
	case own:
		s.Usage.Sub(h.Adopted)
		s.Models = subModels(s.Models, h.AdoptedModels)
		s.Buckets = session.SubBuckets(s.Buckets, h.AdoptedBuckets)
		return s, true
	case past:
		hs.Usage, hs.Models, hs.Buckets = h.Adopted, h.AdoptedModels, h.AdoptedBuckets
		hs.Turns, hs.Tools, hs.ToolErrors, hs.Files = 0, nil, 0, nil
		hs.Messages, hs.History = h.Messages, nil
		hs.LastUsage = session.Usage{}
		return hs, true
	}
	return s, false
}

// subModels returns models less sub, as a new map.
func subModels(models, sub map[string]session.Usage) map[string]session.Usage {
	out := make(map[string]session.Usage, len(models))
	for m, u := range models {
		u.Sub(sub[m])
		if !u.IsZero() {
			out[m] = u
		}
	}
	return out
}

func matchProject(project, want string) bool {
	if filepath.IsAbs(want) {
		want = filepath.Clean(want)
		return project == want || strings.HasPrefix(project, want+string(filepath.Separator))
	}
	return strings.Contains(project, want)
}
