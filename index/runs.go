package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/session"
)

// A live run's entries are indexed as its bus carries them (a RunFeed),
// so that a search finds what a run did wherever it runs: on this
// machine, a run whose CLI's store is not one the index reads, and,
// with a NATS cluster, a run on another machine. Such a session's row
// names its run (Hit.Run). When the stores the index reads hold the
// same session (its CLI, id and file), the store's copy replaces the
// run's at the next refresh, and the feed leaves it alone from then on:
// one copy of each session, read from its file where there is one.
//
// A run's rows are not a store's: a refresh neither lists nor drops
// them, and list and stats never show them. They leave the index with
// DropRuns (the bus no longer holds the run).

// Run is what the index keeps of a live run (the fields of its record on
// the bus that the index needs).
type Run struct {
	// ID names the run; CLI, SessionID and Path are the native session
	// its CLI writes (the key a store's copy of it has), Host the
	// machine it runs on, Dir its project and Started when it began.
	ID, CLI, SessionID, Path, Host, Dir string
	Started                             time.Time
}

// key is the session's key in the index: a run with no session id or
// file yet is keyed by its id.
func (r Run) key() key {
	k := key{cli: r.CLI, sid: r.SessionID, path: r.Path}
	if k.sid == "" {
		k.sid = r.ID
	}
	if k.path == "" {
		k.path = "run:" + r.ID
	}
	return k
}

// RunFeed indexes one live run's entries as they arrive: Add takes each
// event its bus carries, in order, and Flush writes what changed since
// the last Flush in one transaction. It is one goroutine's.
type RunFeed struct {
	ix  *Index
	run Run
	rowSet
	sum    session.Summary
	loaded bool // the rows the index held of the run were read
	dirty  bool
	stored bool // a store's copy holds the session: nothing to do
}

// Feed starts the feed of run r.
func (ix *Index) Feed(r Run) *RunFeed {
	a, _ := adapters.Lookup(r.CLI)
	f := &RunFeed{ix: ix, run: r, rowSet: rowSet{a: a, pk: ix.dicts.packer(), byEntry: make(map[string][]int)}}
	f.sum.CLI, f.sum.ID, f.sum.Path, f.sum.Project, f.sum.Start = r.CLI, r.key().sid, r.key().path, r.Dir, r.Started
	return f
}

// Run is the run the feed indexes.
func (f *RunFeed) Run() Run { return f.run }

// Add takes one event of the run: its new entries, and the updates to
// earlier ones (a model the index keeps). An entry it already has (the
// bus delivered it again) replaces it.
func (f *RunFeed) Add(ev session.Event) {
	if f.stored {
		return // the store's copy is the session's
	}
	if f.add(ev, f.count) {
		f.dirty = true
	}
}

// count adds e to the run's summary.
func (f *RunFeed) count(e *session.Entry) {
	if e.Timestamp.After(f.sum.End) {
		f.sum.End = e.Timestamp
	}
	if f.sum.Start.IsZero() || (!e.Timestamp.IsZero() && e.Timestamp.Before(f.sum.Start)) {
		f.sum.Start = e.Timestamp
	}
	if e.Kind == session.KindContext || e.Kind == session.KindInstructions || e.Kind == session.KindMeta {
		return
	}
	switch e.Type {
	case session.User:
		f.sum.Messages++
		f.sum.Turns++
		if f.sum.Title == "" {
			f.sum.Title = safetext.CutBytes(strings.Join(strings.Fields(e.Content), " "), runTitle)
		}
	case session.Assistant:
		if strings.TrimSpace(e.Content) != "" {
			f.sum.Messages++
		}
	}
}

// runTitle is how much of a run's first prompt titles it.
const runTitle = 100

// Dirty reports whether the feed holds what Flush has not written.
func (f *RunFeed) Dirty() bool { return f.dirty && !f.stored }

// Stored reports whether a store's copy of the run's session is in the
// index (the feed then writes nothing: refreshes keep that copy fresh).
func (f *RunFeed) Stored() bool { return f.stored }

// Flush writes the run's entries to the index, unless a store's copy of
// its session is there. The first Flush of a feed keeps the rows the
// index already held of the run (a feed started again after the daemon
// restarted goes on from them).
func (f *RunFeed) Flush(ctx context.Context) (err error) {
	if !f.Dirty() {
		return nil
	}
	defer func() { err = interrupted(ctx, err) }()
	k := f.run.key()
	b := &batch{ix: f.ix}
	defer b.rollback()
	tx, err := b.begin(ctx)
	if err != nil {
		return err
	}
	var id int64
	var run string
	err = tx.QueryRowContext(ctx, `SELECT id, run FROM sessions WHERE cli = ? AND sid = ? AND path = ?`, k.cli, k.sid, k.path).Scan(&id, &run)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fmt.Errorf("index: run %s: %w", f.run.ID, err)
	case run == "":
		f.stored, f.rows, f.byEntry = true, nil, nil
		return nil
	case !f.loaded:
		if err := f.load(ctx, tx, id); err != nil {
			return err
		}
	}
	f.loaded = true
	doc := &indexed{sum: f.sum, rows: f.rows}
	ref := session.Ref{CLI: k.cli, ID: k.sid, Path: k.path}
	if _, err := b.write(ctx, 0, ref, fingerprint{}, f.run.Host, doc, f.run.ID); err != nil {
		return fmt.Errorf("index: run %s: %w", f.run.ID, err)
	}
	if err := b.commit(); err != nil {
		return fmt.Errorf("index: run %s: %w", f.run.ID, err)
	}
	f.dirty = false
	if err := b.merged(ctx); err != nil {
		return fmt.Errorf("index: run %s: %w", f.run.ID, err)
	}
	return nil
}

// load puts the rows the index holds of the run (session id) before the
// feed's own: those of an earlier feed of it.
func (f *RunFeed) load(ctx context.Context, tx *sql.Tx, id int64) error {
	rows, err := tx.QueryContext(ctx, `SELECT entry, time, role, tool, model, text FROM entries WHERE session = ? ORDER BY id`, id)
	if err != nil {
		return fmt.Errorf("index: run %s: %w", f.run.ID, err)
	}
	defer rows.Close()
	var held []row
	u := unpacker{dicts: f.ix.dicts}
	for rows.Next() {
		var r row
		var at int64
		if err := rows.Scan(&r.entry, &at, &r.role, &r.tool, &r.model, &r.packed); err != nil {
			return fmt.Errorf("index: run %s: %w", f.run.ID, err)
		}
		if _, ok := f.byEntry[r.entry]; ok {
			continue // the feed has it anew
		}
		if r.text, err = u.unpack(r.packed); err != nil {
			return fmt.Errorf("index: run %s: %w", f.run.ID, err)
		}
		if at != 0 {
			r.time = time.Unix(0, at).UTC()
		}
		held = append(held, r)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("index: run %s: %w", f.run.ID, err)
	}
	if len(held) == 0 {
		return nil
	}
	f.rows = append(held, f.rows...)
	f.index()
	for _, r := range held {
		if !r.time.IsZero() && (f.sum.Start.IsZero() || r.time.Before(f.sum.Start)) {
			f.sum.Start = r.time
		}
		if r.time.After(f.sum.End) {
			f.sum.End = r.time
		}
		switch r.role {
		case string(session.User):
			f.sum.Messages++
			f.sum.Turns++
		case string(session.Assistant):
			f.sum.Messages++
		}
	}
	return nil
}

// DropRuns drops the runs the index holds from the bus that keep says no
// to (the bus no longer holds them), and says how many it dropped.
func (ix *Index) DropRuns(ctx context.Context, keep func(run string) bool) (int, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT id, run FROM sessions WHERE run != ''`)
	if err != nil {
		return 0, fmt.Errorf("index: %w", err)
	}
	var gone []int64
	for rows.Next() {
		var id int64
		var r string
		if err := rows.Scan(&id, &r); err != nil {
			rows.Close()
			return 0, fmt.Errorf("index: %w", err)
		}
		if !keep(r) {
			gone = append(gone, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("index: %w", err)
	}
	return len(gone), ix.remove(ctx, gone)
}

// Mark is a value a reader of the index keeps in it (name begins with its
// own prefix, such as "bus."): where it is in what it feeds the index
// from. "" for none.
func (ix *Index) Mark(ctx context.Context, name string) (string, error) {
	var v string
	err := ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, "mark."+name).Scan(&v)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("index: %w", err)
	}
	return v, nil
}

// SetMark sets a Mark.
func (ix *Index) SetMark(ctx context.Context, name, value string) error {
	if _, err := ix.db.ExecContext(ctx, `INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)`, "mark."+name, value); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	return nil
}
