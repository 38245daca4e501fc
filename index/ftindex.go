package index

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// segExt ends a segment file's name.
const segExt = ".seg"

// segmentsDir is the folder of the full-text segments of the index at
// path.
func segmentsDir(path string) string { return path + "-segments" }

// newSegName is a new segment file's name: random, so that two
// processes writing to one index never pick the same.
func newSegName() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:]) + segExt
}

// strayAge is how old a segment file that no row names must be to be
// removed: younger, it may be one a transaction of another process is
// about to commit.
const strayAge = 10 * time.Minute

// dropStraySegments removes the segment files no row of the segments
// table names (a transaction rolled back, a process killed), and those a
// killed process left half written, once they are strayAge old.
func (ix *Index) dropStraySegments(ctx context.Context) error {
	ents, err := os.ReadDir(ix.ftDir)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	named, err := ix.segmentFiles(ctx, ix.db)
	if err != nil {
		return err
	}
	for _, e := range ents {
		// A segment no row names, or a file a writer left half made
		// (writeSegFile's, a merge's scratch dictionary).
		stray := strings.HasSuffix(e.Name(), segExt) && !slices.Contains(named, e.Name()) ||
			strings.HasPrefix(e.Name(), ".seg-") || strings.HasPrefix(e.Name(), ".dict-")
		if !stray {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > strayAge {
			os.Remove(filepath.Join(ix.ftDir, e.Name()))
		}
	}
	return nil
}

// rowsQuerier runs a query of rows: a database or a transaction.
type rowsQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// segmentFiles names the segments' files.
func (ix *Index) segmentFiles(ctx context.Context, q rowsQuerier) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT file FROM segments`)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	defer rows.Close()
	var files []string
	for rows.Next() {
		var f string
		if err := rows.Scan(&f); err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
		files = append(files, f)
	}
	return files, rows.Err()
}

// openSegments opens the segments q's snapshot of the index names; close
// closes them.
func (ix *Index) openSegments(ctx context.Context, q rowsQuerier) (segs []*segment, close func(), err error) {
	files, err := ix.segmentFiles(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	var opened []*os.File
	close = func() {
		for _, f := range opened {
			f.Close()
		}
	}
	for _, name := range files {
		s, f, err := openSegment(filepath.Join(ix.ftDir, filepath.Base(name)))
		if err != nil {
			close()
			if errors.Is(err, fs.ErrNotExist) {
				// A merge removed it since q's snapshot was taken.
				return nil, nil, fmt.Errorf("%w: %v", errSegmentsMoved, err)
			}
			return nil, nil, err
		}
		opened = append(opened, f)
		segs = append(segs, s)
	}
	return segs, close, nil
}

// errSegmentsMoved is a search's error when a segment it was to read was
// merged away meanwhile: the search runs again, on the index as it is.
var errSegmentsMoved = errors.New("index: a full-text segment was merged meanwhile")

// gatherer gathers the words of the entries a transaction writes into a
// segment, on a goroutine of its own, beside the writer (an actor: the
// builder is its alone).
type gatherer struct {
	in   chan ftDoc
	done chan gathered
}

// ftDoc is an entry as the gatherer is given it: its text, and what its
// tags are made of (the words of the filters a search requires beside
// its own, see tags), which follow the text's words.
type ftDoc struct {
	id              int64
	text            string
	cli, role, tool string
}

type gathered struct {
	b   *ftBuilder
	err error
}

// gatherQueue is how many entries the writer may be ahead of the
// gatherer: at most MaxEntryText each.
const gatherQueue = 256

func startGatherer() *gatherer {
	g := &gatherer{in: make(chan ftDoc, gatherQueue), done: make(chan gathered, 1)}
	go func() {
		b := newFTBuilder()
		var err error
		for d := range g.in {
			if err == nil {
				err = b.add(d.id, d.text, tags(d.cli, d.role, d.tool))
			}
		}
		g.done <- gathered{b, err}
	}()
	return g
}

func (g *gatherer) add(d ftDoc) { g.in <- d }

// finish waits for what was added to be gathered.
func (g *gatherer) finish() (*ftBuilder, error) {
	close(g.in)
	r := <-g.done
	return r.b, r.err
}

// addSegment writes b's segment into the index's folder and names it in
// tx; the file is the caller's to remove should tx not commit.
func (ix *Index) addSegment(ctx context.Context, tx *sql.Tx, b *ftBuilder) (path string, err error) {
	name := newSegName()
	path = filepath.Join(ix.ftDir, name)
	if err := b.writeFile(path); err != nil {
		return "", err
	}
	fi, err := os.Stat(path)
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("index: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO segments (file, first, last, docs, bytes) VALUES (?, ?, ?, ?, ?)`,
		name, b.first, b.last, b.docs, fi.Size()); err != nil {
		os.Remove(path)
		return "", fmt.Errorf("index: %w", err)
	}
	return path, nil
}

// Merging. A segment is of tier k when it holds less than mergeBase <<
// (3*k) bytes. mergeAt segments next to each other (in the order of their
// entries) of tier k or below are merged into one: the smallest first, so
// that a cold build's segments of a few MB each make one of tier 2 from
// eight, eight of those one of tier 3. Merging only neighbours keeps each
// segment's entries a span no other segment's reach into, so that a merge
// copies each word's postings as they are (mergeSegs). A search reads
// segments newest first and stops once it has what it needs.
const (
	mergeBase = 1 << 20
	mergeAt   = 8
	// mergeMost: no merge makes a segment past this; the largest stay
	// as they are.
	mergeMost = 1 << 30
)

type segRow struct {
	id          int64
	file        string
	first, last int64
	docs, bytes int64
}

func tierOf(bytes int64) int {
	t := 0
	for bytes >= mergeBase<<(3*t) {
		t++
	}
	return t
}

// mergeSegments merges segments while mergeAt neighbours can be (see
// mergeRun), each merge put in place in a transaction of its own.
func (ix *Index) mergeSegments(ctx context.Context) error {
	for {
		m, err := ix.nextMerge(ctx)
		if err != nil || m == nil {
			return err
		}
		if err := m.put(ctx); err != nil {
			return err
		}
	}
}

// nextMerge writes the file of the next merge mergeRun picks; nil when
// there is none.
func (ix *Index) nextMerge(ctx context.Context) (*segMerge, error) {
	rows, err := ix.segmentRows(ctx)
	if err != nil {
		return nil, err
	}
	run := mergeRun(rows)
	if run == nil {
		return nil, nil
	}
	return ix.mergeFile(ctx, run)
}

// mergeRun picks the segments to merge next from rows (in the order of
// their entries): the first mergeAt neighbours all of tier t or below,
// for the smallest t that has them; none past mergeMost/mergeAt. nil
// when there are none.
func mergeRun(rows []segRow) []segRow {
	top := 0
	for _, r := range rows {
		top = max(top, tierOf(r.bytes))
	}
	for t := 0; t <= top; t++ {
		n := 0
		for i, r := range rows {
			if tierOf(r.bytes) > t || r.bytes >= mergeMost/mergeAt {
				n = 0
				continue
			}
			if n++; n == mergeAt {
				return rows[i+1-mergeAt : i+1]
			}
		}
	}
	return nil
}

// segmentRows are the segments, the newest (largest last) last.
func (ix *Index) segmentRows(ctx context.Context) ([]segRow, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT id, file, first, last, docs, bytes FROM segments ORDER BY last`)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	defer rows.Close()
	var out []segRow
	for rows.Next() {
		var r segRow
		if err := rows.Scan(&r.id, &r.file, &r.first, &r.last, &r.docs, &r.bytes); err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// put puts the merge in its segments' place in a transaction of its own
// (none, when another process merged them meanwhile).
func (m *segMerge) put(ctx context.Context) error {
	tx, err := m.ix.db.BeginTx(ctx, nil)
	if err != nil {
		m.settle(false)
		return fmt.Errorf("index: %w", err)
	}
	defer tx.Rollback()
	ok, err := m.swapIn(ctx, tx)
	if err == nil && ok {
		if err = tx.Commit(); err != nil {
			err = fmt.Errorf("index: %w", err)
		}
	}
	m.settle(err == nil && ok)
	return err
}

// segMerge is a merge of segments written, not yet in their place.
type segMerge struct {
	ix          *Index
	name        string
	rows        []segRow // the segments it replaces
	first, last int64
	docs, bytes int64
}

// mergeFile merges segments rows into a new segment file, leaving out the
// entries dropped since they were written when they are many. It reads
// the index and writes nothing to it: it runs beside the writer, which
// puts the merge in place (swapIn) in a transaction of its own.
func (ix *Index) mergeFile(ctx context.Context, rows []segRow) (*segMerge, error) {
	var segs []*segment
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	m := &segMerge{ix: ix, rows: rows, first: rows[0].first, last: rows[0].last}
	for _, r := range rows {
		s, f, err := openSegment(filepath.Join(ix.ftDir, filepath.Base(r.file)))
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		segs = append(segs, s)
		m.first, m.last, m.docs = min(m.first, r.first), max(m.last, r.last), m.docs+r.docs
	}
	// The entries dropped since are left out when they are more than
	// an eighth of those the segments in the merge's span hold: until
	// then they cost some room and no wrong answer (ids are never given
	// again, and a search skips an id the entries no longer hold), and a
	// merge that keeps every entry copies each term's postings as they
	// are (mergeSegs), several times faster.
	var live, held int64
	if err := ix.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM entries WHERE id BETWEEN ?1 AND ?2),
		(SELECT coalesce(sum(docs), 0) FROM segments WHERE last >= ?1 AND first <= ?2)`, m.first, m.last).Scan(&live, &held); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	var keep func(int64) bool
	if live < held-held/8 {
		ids, err := entryIDs(ctx, ix.db, m.first, m.last)
		if err != nil {
			return nil, err
		}
		first, last := m.first, m.last
		set := make([]uint64, (last-first)/64+1)
		for _, id := range ids {
			set[(id-first)/64] |= 1 << ((id - first) % 64)
		}
		keep = func(id int64) bool {
			return id >= first && id <= last && set[(id-first)/64]&(1<<((id-first)%64)) != 0
		}
		m.docs = min(m.docs, int64(len(ids)))
	}
	scratch, err := os.CreateTemp(ix.ftDir, ".dict-*")
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	defer func() {
		scratch.Close()
		os.Remove(scratch.Name())
	}()
	m.name = newSegName()
	path := filepath.Join(ix.ftDir, m.name)
	if err := writeSegFile(path, func(w io.Writer) error { return mergeSegs(w, scratch, segs, keep) }); err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("index: %w", err)
	}
	m.bytes = fi.Size()
	return m, nil
}

// swapIn puts the merge in its segments' place in tx; ok is false, and
// tx as it was, when some of them are no longer there (another process
// merged them meanwhile). Its first statement writes, so that in a
// transaction of its own it waits for another writer to end instead of
// failing (a transaction that read first cannot write once another one
// wrote).
func (m *segMerge) swapIn(ctx context.Context, tx *sql.Tx) (ok bool, err error) {
	ids := make([]any, len(m.rows))
	for i, r := range m.rows {
		ids[i] = r.id
	}
	in := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ") + ")"
	if _, err := tx.ExecContext(ctx, `SAVEPOINT swap`); err != nil {
		return false, fmt.Errorf("index: %w", err)
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM segments WHERE id IN `+in, ids...)
	if err != nil {
		return false, fmt.Errorf("index: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != int64(len(ids)) {
		if _, err := tx.ExecContext(ctx, `ROLLBACK TO swap; RELEASE swap`); err != nil {
			return false, fmt.Errorf("index: %w", err)
		}
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO segments (file, first, last, docs, bytes) VALUES (?, ?, ?, ?, ?)`,
		m.name, m.first, m.last, m.docs, m.bytes); err != nil {
		return false, fmt.Errorf("index: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `RELEASE swap`); err != nil {
		return false, fmt.Errorf("index: %w", err)
	}
	return true, nil
}

// settle removes the files the merge left no one's: its segments' once
// it is in their place (in a transaction committed), else its own.
func (m *segMerge) settle(inPlace bool) {
	if !inPlace {
		os.Remove(filepath.Join(m.ix.ftDir, m.name))
		return
	}
	for _, r := range m.rows {
		os.Remove(filepath.Join(m.ix.ftDir, filepath.Base(r.file)))
	}
}

// entryIDs are the ids of the entries from first to last, in order.
func entryIDs(ctx context.Context, q rowsQuerier, first, last int64) ([]int64, error) {
	rows, err := q.QueryContext(ctx, `SELECT id FROM entries WHERE id BETWEEN ? AND ? ORDER BY id`, first, last)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// healBatch is how much text healWords gathers into a segment.
const healBatch = 64 << 20

// healWords makes the full-text index again from the text the index
// keeps of each entry, when a segment file is damaged (cause): the
// sessions are not read again. A warning says so. It runs in one
// transaction, which other writers wait for; a search meanwhile reads the
// segments as they were.
func (ix *Index) healWords(ctx context.Context, cause error) (err error) {
	ix.log.Warn("index: the full-text index is damaged: making it again from the entries' text", "err", cause)
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	defer tx.Rollback()
	// Writing first: the transaction waits for another writer.
	if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = value WHERE key = 'schema'`); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	old, err := ix.segmentFiles(ctx, tx)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM segments`); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	var made []string
	defer func() {
		if err != nil {
			for _, p := range made {
				os.Remove(p)
			}
		}
	}()
	rows, err := tx.QueryContext(ctx, `SELECT e.id, s.cli, e.role, e.tool, e.text FROM entries e CROSS JOIN sessions s ON s.id = e.session ORDER BY e.id`)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	defer rows.Close()
	u := unpacker{dicts: ix.dicts}
	b, text := newFTBuilder(), 0
	flush := func() error {
		if b.empty() {
			return nil
		}
		p, err := ix.addSegment(ctx, tx, b)
		if err != nil {
			return err
		}
		made = append(made, p)
		b, text = newFTBuilder(), 0
		return nil
	}
	for rows.Next() {
		var id int64
		var cli, role, tool string
		var packed []byte
		if err := rows.Scan(&id, &cli, &role, &tool, &packed); err != nil {
			return fmt.Errorf("index: %w", err)
		}
		t, err := u.unpack(packed)
		if err != nil {
			return err
		}
		if err := b.add(id, t, tags(cli, role, tool)); err != nil {
			return err
		}
		if text += len(t); text >= healBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	rows.Close()
	if err := flush(); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	for _, f := range old {
		os.Remove(filepath.Join(ix.ftDir, filepath.Base(f)))
	}
	return ix.mergeSegments(ctx)
}
