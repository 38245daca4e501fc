package index

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/stead-dev/stead/session"
)

// Query is a search.
type Query struct {
	// Text is the query (see ParseQuery).
	Text string
	// CLIs, Roles: only entries of these CLIs, of these roles (user,
	// assistant, thinking, tool_call, tool_result, system); none is any.
	CLIs  []string
	Roles []string
	// Project: only sessions whose project directory contains it.
	Project string
	// Tool: only tool calls and results of this tool (its universal or
	// its CLI's name).
	Tool string
	// Session: only this session's entries (its CLI and id).
	SessionCLI, SessionID string
	// Since and Until bound the entries' times; zero is no bound.
	Since, Until time.Time
	// Limit is the most hits returned; 0 is 20.
	Limit int
}

// Mark and EndMark surround each match in a Hit's Snippet.
const (
	Mark    = "\x02"
	EndMark = "\x03"
)

// Hit is an entry a search found.
type Hit struct {
	CLI       string `json:"cli"`
	SessionID string `json:"session"`
	Path      string `json:"path"`
	Project   string `json:"project,omitempty"`
	Title     string `json:"title,omitempty"`
	Host      string `json:"host,omitempty"`
	// Run is the live run the hit was indexed from, as its bus carried
	// it, when the index holds no store's copy of its session (the run
	// is another machine's, or its CLI's store is not one this index
	// reads): `stead watch <run>` shows it.
	Run   string    `json:"run,omitempty"`
	Entry string    `json:"entry"`
	Time  time.Time `json:"time,omitzero"`
	Role  string    `json:"role"`
	Tool  string    `json:"tool,omitempty"`
	Model string    `json:"model,omitempty"`
	// Snippet is the text around the matches, each between Mark and
	// EndMark.
	Snippet string `json:"snippet"`
	// Score ranks the hit: lower is better (BM25 as FTS5 computes it,
	// negated, weighed by the entry's age).
	Score float64 `json:"score"`
}

// Ref is the hit's session as stead's commands take it: <cli>:<id>.
func (h Hit) Ref() string { return h.CLI + ":" + h.SessionID }

// Candidates is how many of a query's most recently indexed matches are
// ranked (see Search).
const Candidates = 2000

// recencyDays is the age at which an entry's relevance counts half: a
// match from last week outranks an equal one from last year.
const recencyDays = 60

// Search finds the entries that match q, best first.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	hits, _, err := ix.search(ctx, q)
	return hits, err
}

// search is Search also saying the generation of the index it read (see
// generation).
func (ix *Index) search(ctx context.Context, q Query) ([]Hit, int64, error) {
	healed := false
	for tries := 1; ; tries++ {
		hits, gen, err := ix.searchOnce(ctx, q)
		if errors.Is(err, errSegmentsMoved) && tries < 5 {
			continue
		}
		if errors.Is(err, errSegment) && !healed {
			// A damaged segment: the full-text index is made again from
			// the entries' text, with a warning, and the search runs
			// again.
			healed = true
			if herr := ix.healWords(ctx, err); herr != nil {
				return nil, 0, fmt.Errorf("%w; making the full-text index again: %v (stead index --rebuild makes the whole index again)", err, herr)
			}
			continue
		}
		return hits, gen, err
	}
}

// searchOnce is search on the index as it is: errSegmentsMoved when a
// segment it was to read was merged away meanwhile.
func (ix *Index) searchOnce(ctx context.Context, q Query) ([]Hit, int64, error) {
	p, err := parse(q.Text)
	if err != nil {
		return nil, 0, err
	}
	terms := p.terms()
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	var where []string
	var args []any
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		where = append(where, col+" IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(vals)), ", ")+")")
		for _, v := range vals {
			args = append(args, v)
		}
	}
	in("s.cli", q.CLIs)
	in("e.role", q.Roles)
	joinSessions := len(q.CLIs) > 0 || q.Project != "" || q.SessionID != ""
	if q.Project != "" {
		where = append(where, "instr(s.project, ?) > 0")
		args = append(args, q.Project)
	}
	if q.Tool != "" {
		where = append(where, "lower(e.tool) = lower(?)")
		args = append(args, q.Tool)
	}
	if q.SessionID != "" {
		where = append(where, "s.cli = ? AND s.sid = ?")
		args = append(args, q.SessionCLI, q.SessionID)
	}
	if !q.Since.IsZero() {
		where = append(where, "e.time >= ?")
		args = append(args, q.Since.UnixNano())
	}
	if !q.Until.IsZero() {
		where = append(where, "e.time < ?")
		args = append(args, q.Until.UnixNano())
	}
	// One read transaction: the hits are read from the snapshot their
	// candidates came from, whatever a refresh beside it writes.
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("index: search: %w", err)
	}
	defer tx.Rollback()
	gen, err := generation(ctx, tx)
	if err != nil {
		return nil, 0, err
	}
	segs, closeSegs, err := ix.openSegments(ctx, tx)
	if err != nil {
		return nil, 0, err
	}
	defer closeSegs()
	var from int64
	if !q.Since.IsZero() {
		// The matches come newest first (by id), and those before the
		// first entry of every session that reaches past Since cannot
		// pass: the match stops there instead of walking all that is
		// older (all of it when no session does). On the
		// 10,000-session corpus, `error --cli codex --role tool_result
		// --since 7d` took 110 ms, then 21; `error --since 1d`, which
		// nothing passes, 500 ms.
		err := tx.QueryRowContext(ctx, `SELECT coalesce(min(first), 9223372036854775807) FROM sessions WHERE last >= ?`, q.Since.UnixNano()).Scan(&from)
		if err != nil {
			return nil, 0, fmt.Errorf("index: search: %w", err)
		}
	}
	fq := &ftQuery{p: p, all: filterWords(q)}
	// A word found in more entries than Candidates is ranked among its
	// Candidates most recent matches (entries are numbered in the order
	// they were indexed, and a refresh indexes sessions oldest first), so
	// that a common word costs no more than a rare one. The ranking is
	// BM25's, computed here from the candidates' text (see rank). The
	// matches are checked against the filters SQL checks (and against
	// the entries the index still holds: a segment keeps the ids of
	// entries dropped since it was written) newest first.
	sel := `SELECT e.id, e.time, e.text FROM entries e`
	if joinSessions {
		// The entries first, by id: left to choose, SQLite walked every
		// entry of the sessions of a --cli (an index of sessions begins
		// with cli), 1.8 s for codex on the 10,000-session corpus.
		sel += " CROSS JOIN sessions s ON s.id = e.session"
	}
	ps := patterns(terms)
	var cnt *counter
	if len(ps) > 0 {
		cnt = newCounter(ps, Candidates, ix.dicts)
		defer cnt.wait()
	}
	cands := make([]candidate, 0, Candidates) // as many as the counter has room for
	var ids []int64
	for want := Candidates; ; want *= 8 {
		matched, err := matchSegs(segs, fq, from, want)
		if err != nil {
			return nil, 0, err
		}
		// The ones not yet checked (the first len(ids) were).
		fresh := matched[len(ids):]
		ids = matched
		for len(fresh) > 0 && len(cands) < cap(cands) {
			n := min(len(fresh), 500)
			chunk := fresh[:n]
			fresh = fresh[n:]
			cond := append([]string{"e.id IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(chunk)), ", ") + ")"}, where...)
			cargs := make([]any, 0, len(chunk)+len(args))
			for _, id := range chunk {
				cargs = append(cargs, id)
			}
			cargs = append(cargs, args...)
			rows, err := tx.QueryContext(ctx, sel+" WHERE "+strings.Join(cond, " AND ")+" ORDER BY e.id DESC", cargs...)
			if err != nil {
				return nil, 0, fmt.Errorf("index: search: %w", err)
			}
			for rows.Next() {
				var c candidate
				if err := rows.Scan(&c.id, &c.time, &c.packed); err != nil {
					rows.Close()
					return nil, 0, fmt.Errorf("index: search: %w", err)
				}
				if len(cands) == cap(cands) {
					break
				}
				cands = append(cands, c)
				if cnt != nil {
					cnt.add(len(cands)-1, c.packed)
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, 0, fmt.Errorf("index: search: %w", err)
			}
		}
		if len(cands) == cap(cands) || len(matched) < want {
			break
		}
	}
	if len(cands) == 0 {
		return nil, gen, nil
	}
	var all []candidate // all the matches of the query's one term
	if len(where) == 0 && len(fq.all) == 0 && len(ps) == 1 && len(terms) == 1 {
		all = cands
	}
	df, total, err := entriesWith(ctx, tx, segs, ps, all)
	if err != nil {
		return nil, 0, err
	}
	if cnt != nil {
		if err := cnt.wait(); err != nil {
			return nil, 0, err
		}
	}
	best := rank(cands, cnt, df, total, time.Now(), limit)
	hits := make([]Hit, 0, len(best))
	var ws words
	u := unpacker{dicts: ix.dicts}
	for _, c := range best {
		h := Hit{Score: c.score}
		err := tx.QueryRowContext(ctx, `SELECT s.cli, s.sid, s.path, s.project, s.title, s.host, s.run, e.entry, e.role, e.tool, e.model
			FROM entries e JOIN sessions s ON s.id = e.session WHERE e.id = ?`, c.id).Scan(&h.CLI, &h.SessionID, &h.Path, &h.Project, &h.Title, &h.Host,
			&h.Run, &h.Entry, &h.Role, &h.Tool, &h.Model)
		if err != nil {
			return nil, 0, fmt.Errorf("index: search: %w", err)
		}
		text, err := u.unpack(c.packed)
		if err != nil {
			return nil, 0, err
		}
		ws.split(text)
		h.Snippet = snippet(text, &ws, ps)
		if c.time != 0 {
			h.Time = time.Unix(0, c.time).UTC()
		}
		hits = append(hits, h)
	}
	return hits, gen, nil
}

// filterWords are the words (tags) of q's CLI, role and tool filters,
// in groups each of which a match must hold a word of: the segments then
// find only the entries that can pass them (SQL checks them again).
func filterWords(q Query) [][]string {
	oneOf := func(kind string, vals []string) []string {
		var alts []string
		for _, v := range vals {
			alts = append(alts, tag(kind, v))
		}
		return alts
	}
	var all [][]string
	if len(q.CLIs) > 0 {
		all = append(all, oneOf("cli", q.CLIs))
	}
	if len(q.Roles) > 0 {
		all = append(all, oneOf("role", q.Roles))
	}
	if t := tag("tool", q.Tool); q.Tool != "" && t != tagPrefix+"tool" {
		all = append(all, []string{t})
	}
	return all
}

// SearchFresh searches the index brought up to date with the stores env
// points at (see Fresh): without a watcher, with those of the CLIs q can
// find sessions of (its CLIs, its session's), the others' taken to be as
// the last refresh found them. The query runs on the index as it is while the
// index is brought up to date (with nothing changed, the usual case, a
// search costs the longer of the two, not both); when the index changed
// meanwhile, the query runs again on the index as it is now.
func (ix *Index) SearchFresh(ctx context.Context, env session.Env, q Query, progress Progress) ([]Hit, Refreshed, error) {
	var (
		hits []Hit
		gen  int64
		serr error
		wg   sync.WaitGroup
	)
	wg.Go(func() { hits, gen, serr = ix.search(ctx, q) })
	clis := q.CLIs
	if q.SessionCLI != "" {
		clis = []string{q.SessionCLI}
	}
	res, err := ix.freshFor(ctx, env, clis, progress)
	wg.Wait()
	if err != nil {
		return nil, res, err
	}
	now, err := ix.Generation(ctx)
	if err != nil {
		return nil, res, err
	}
	if now != gen || serr != nil {
		hits, serr = ix.Search(ctx, q)
	}
	return hits, res, serr
}
