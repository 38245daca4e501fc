package index

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"
)

// candidate is an entry a query matched, before ranking.
type candidate struct {
	id, time int64 // time: Unix nanoseconds, 0 for none
	packed   []byte
	score    float64
}

// rankText is how much of a candidate's text is read to rank it: a
// term's frequency and the entry's length are counted in its start (a
// long tool output is ranked as if it were that long), so that a common
// word's candidates cost a bounded time.
const rankText = 4 << 10

// BM25's parameters, as FTS5's bm25() has them.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// rank scores cands by BM25 over ps (df: how many of the index's total
// entries hold each pattern), each score weighed by the entry's age, and
// returns the best limit, best first. Like FTS5's bm25(), a score is the
// negated sum over the patterns, lower is better; a term's frequency is
// its matches in the entry's start (rankText), an entry's length the
// words there, and the mean length is the candidates'.
func rank(cands []candidate, ps []pattern, df []float64, total float64, now time.Time, limit int, ds *dicts) ([]candidate, error) {
	if len(cands) == 0 || len(ps) == 0 {
		return cands[:min(limit, len(cands))], nil
	}
	// The candidates are read a share per core.
	tf := make([]int32, len(cands)*len(ps))
	lens := make([]int, len(cands))
	workers := min(runtime.GOMAXPROCS(0), 1+len(cands)/256)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var ws words
			u := unpacker{dicts: ds}
			for i := w; i < len(cands); i += workers {
				text, err := u.unpackPrefix(cands[i].packed, rankText)
				if err != nil {
					errs[w] = err
					return
				}
				ws.split(text)
				lens[i] = ws.len()
				f := tf[i*len(ps) : (i+1)*len(ps)]
				for at := range ws.len() {
					for k := range ps {
						if ps[k].matchAt(&ws, at) {
							f[k]++
						}
					}
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	sum := 0
	for _, n := range lens {
		sum += n
	}
	avg := max(1, float64(sum)/float64(len(cands)))
	idf := make([]float64, len(ps))
	for k := range ps {
		idf[k] = math.Log((total - df[k] + 0.5) / (df[k] + 0.5))
		if idf[k] <= 0 {
			idf[k] = 1e-6
		}
	}
	for i := range cands {
		s := 0.0
		for k, f := range tf[i*len(ps) : (i+1)*len(ps)] {
			f := float64(f)
			s += idf[k] * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(lens[i])/avg))
		}
		age := 0.0
		if t := cands[i].time; t != 0 {
			age = max(0, float64(now.UnixNano()-t)) / float64(24*time.Hour)
		}
		cands[i].score = -s / (1 + age/recencyDays)
	}
	slices.SortStableFunc(cands, func(a, b candidate) int {
		if c := cmp.Compare(a.score, b.score); c != 0 {
			return c
		}
		return cmp.Compare(b.id, a.id)
	})
	return cands[:min(limit, len(cands))], nil
}

// entriesWith is, for each pattern, about how many entries hold it, and
// how many entries the index holds. A term held by fewer than Candidates
// entries is counted; for a commoner one the count is told from how far
// back its Candidates most recent matches reach among the entries'
// numbers (counting them all is what makes FTS5's bm25() slow; BM25 takes
// the logarithm of the count, so an estimate off by half moves a score
// by little). cands, when not nil, are the matches of the one pattern,
// most recent first.
func entriesWith(ctx context.Context, tx *sql.Tx, ps []pattern, cands []candidate) ([]float64, float64, error) {
	var last sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT max(id) FROM entries`).Scan(&last); err != nil {
		return nil, 0, fmt.Errorf("index: search: %w", err)
	}
	total := float64(last.Int64)
	var v string
	err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'entries'`).Scan(&v)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, 0, fmt.Errorf("index: search: %w", err)
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 {
		total = min(total, n)
	}
	total = max(total, 1)
	estimate := func(n int, oldest int64) float64 {
		d := float64(n)
		if n == Candidates && last.Int64 >= oldest {
			d = d * float64(last.Int64) / float64(last.Int64-oldest+1)
		}
		return min(d, total)
	}
	df := make([]float64, len(ps))
	if cands != nil && len(ps) == 1 {
		df[0] = estimate(len(cands), cands[len(cands)-1].id)
		return df, total, nil
	}
	for k, p := range ps {
		rows, err := tx.QueryContext(ctx, `SELECT rowid FROM entry_fts WHERE entry_fts MATCH ? ORDER BY rowid DESC LIMIT ?`, p.term.fts(), Candidates)
		if err != nil {
			return nil, 0, fmt.Errorf("index: search: %w", err)
		}
		n, oldest := 0, int64(0)
		for rows.Next() {
			if err := rows.Scan(&oldest); err != nil {
				rows.Close()
				return nil, 0, fmt.Errorf("index: search: %w", err)
			}
			n++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, 0, fmt.Errorf("index: search: %w", err)
		}
		df[k] = estimate(n, oldest)
	}
	return df, total, nil
}
