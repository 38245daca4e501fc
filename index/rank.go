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

// counter counts, for each candidate a search hands it, how often each
// pattern is found in the start of its text (rankText) and how many words
// that start has: BM25's term frequencies and lengths. It counts on a
// worker per core while the candidates are still being fetched, so that
// decompressing and splitting their text (most of a search's time) runs
// beside the query that finds them.
type counter struct {
	ps   []pattern
	tf   []int32 // len(ps) for each candidate
	lens []int
	work chan countJob
	errs []error
	wg   sync.WaitGroup
	once sync.Once
	err  error
}

type countJob struct {
	i      int
	packed []byte
}

// newCounter counts up to n candidates' patterns ps, reading texts
// packed with ds's dictionaries.
func newCounter(ps []pattern, n int, ds *dicts) *counter {
	c := &counter{ps: ps, tf: make([]int32, n*len(ps)), lens: make([]int, n), work: make(chan countJob, 64)}
	workers := max(1, runtime.GOMAXPROCS(0))
	c.errs = make([]error, workers)
	for w := range workers {
		c.wg.Go(func() {
			var ws words
			u := unpacker{dicts: ds}
			for j := range c.work {
				if c.errs[w] != nil {
					continue // drained, so that add never blocks for good
				}
				text, err := u.view(j.packed, rankText) // counted before the next
				if err != nil {
					c.errs[w] = err
					continue
				}
				f := c.tf[j.i*len(ps) : (j.i+1)*len(ps)]
				if n, ok := countWords(text, ps, f); ok {
					c.lens[j.i] = n
					continue
				}
				ws.split(text)
				c.lens[j.i] = ws.len()
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
	return c
}

// add counts candidate i (below newCounter's n), whose text is packed.
func (c *counter) add(i int, packed []byte) { c.work <- countJob{i, packed} }

// wait waits for the counts of the candidates added, and ends the
// workers; nothing is added after.
func (c *counter) wait() error {
	c.once.Do(func() {
		close(c.work)
		c.wg.Wait()
		c.err = errors.Join(c.errs...)
	})
	return c.err
}

// rank scores cands (counted by c, each at its index) by BM25 over c's
// patterns (df: how many of the index's total entries hold each pattern),
// each score weighed by the entry's age, and returns the best limit, best
// first. Like FTS5's bm25(), a score is the negated sum over the patterns,
// lower is better; a term's frequency is its matches in the entry's start
// (rankText), an entry's length the words there, and the mean length is
// the candidates'.
func rank(cands []candidate, c *counter, df []float64, total float64, now time.Time, limit int) []candidate {
	if c == nil || len(cands) == 0 || len(c.ps) == 0 {
		return cands[:min(limit, len(cands))]
	}
	ps, tf, lens := c.ps, c.tf, c.lens[:len(cands)]
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
	return cands[:min(limit, len(cands))]
}

// entriesWith is, for each pattern, about how many entries hold it, and
// how many entries the index holds. A word's count is its segments'
// (wordCount). A phrase held by fewer than Candidates entries is counted;
// for a commoner one the count is told from how far back its Candidates
// most recent matches reach among the entries' numbers (counting them all
// is what made FTS5's bm25() slow; BM25 takes the logarithm of the count,
// so an estimate off by half moves a score by little). cands, when not
// nil, are the matches of the one pattern, most recent first.
func entriesWith(ctx context.Context, tx *sql.Tx, segs []*segment, ps []pattern, cands []candidate) ([]float64, float64, error) {
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
	for k, p := range ps {
		if len(p.words) == 1 {
			// A word's count is in each segment's dictionary: exact
			// (but for the entries dropped since their segment was
			// written), and read without walking its entries.
			n, err := wordCount(segs, termWords(p.term)[0], p.prefix)
			if err != nil {
				return nil, 0, err
			}
			df[k] = min(float64(n), total)
			continue
		}
		if cands != nil && len(ps) == 1 {
			df[0] = estimate(len(cands), cands[len(cands)-1].id)
			break
		}
		ids, err := matchSegs(segs, &ftQuery{p: parsed{alts: [][]term{{p.term}}}}, 0, Candidates)
		if err != nil {
			return nil, 0, err
		}
		oldest := int64(0)
		if len(ids) > 0 {
			oldest = ids[len(ids)-1]
		}
		df[k] = estimate(len(ids), oldest)
	}
	return df, total, nil
}

// wordCount is how many entries of segs hold word w (a word w starts,
// when prefix: an entry with two such words counted twice), from their
// dictionaries.
func wordCount(segs []*segment, w string, prefix bool) (int, error) {
	n := 0
	for _, s := range segs {
		terms, err := wordTerms(s, w, prefix)
		if err != nil {
			return 0, err
		}
		for _, st := range terms {
			n += st.ndocs
		}
	}
	return n, nil
}
