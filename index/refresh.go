package index

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"maps"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/session"
)

// Refreshed is what a refresh did.
type Refreshed struct {
	// Sessions is how many sessions the stores hold; Added, Updated and
	// Removed how many the refresh read or dropped, Unchanged how many it
	// left as they were.
	Sessions  int `json:"sessions"`
	Added     int `json:"added"`
	Updated   int `json:"updated"`
	Removed   int `json:"removed"`
	Unchanged int `json:"unchanged"`
	// Appended is how many of the Updated were read from what was
	// appended to their files alone (a watcher's tails, see readTail).
	Appended int `json:"appended"`
	// Entries and Bytes are the entries indexed and the session bytes
	// read.
	// Folders is how many folders of the stores were looked at, Listed
	// how many of them were listed anew (the others had not changed
	// since the last refresh listed them).
	Folders int           `json:"folders"`
	Listed  int           `json:"foldersListed"`
	Entries int           `json:"entries"`
	Bytes   int64         `json:"bytes"`
	Took    time.Duration `json:"tookNs"`
	// Watcher is the process id of the watcher that brought the index
	// up to date (Fresh), 0 when this process refreshed it.
	Watcher  int               `json:"watcher,omitempty"`
	Warnings []session.Warning `json:"warnings,omitempty"`
}

// Progress hears how far a refresh is: sessions read of those to read,
// and their bytes.
type Progress func(done, total int, bytes int64)

// fingerprint is what tells that a session changed.
type fingerprint struct {
	size, mtime, inode int64
}

// key names a session in the index.
type key struct{ cli, sid, path string }

// Refresh brings the index up to date with the stores env points at: it
// reads the sessions that are new or changed since the last refresh and
// drops those that are gone (and any of a store env does not point at). A
// session that cannot be read is a warning, and the rest are indexed.
// Each session is written in a transaction of its own.
func (ix *Index) Refresh(ctx context.Context, env session.Env, progress Progress) (Refreshed, error) {
	res, _, err := ix.refresh(ctx, env, progress, scope{})
	return res, err
}

// scope is which stores a refresh lists; the zero scope lists them all.
type scope struct {
	// only, when set, names the CLIs whose stores are listed; the
	// others' are taken to be as the last refresh found them.
	only map[string]bool
	// unlooked says nothing vouches for the others (a search of some
	// CLIs' sessions did not look at them, where a watcher heard no change
	// in them): the refresh is then not recorded as the index's last.
	unlooked bool
}

// looked is what a refresh looked at: the folders Discover listed and the
// sessions the index holds. They are the refresh's own, which nothing
// changes after.
type looked struct {
	dirs     map[string]listing
	sessions iter.Seq[key]
}

// refresh is Refresh also saying what it looked at, of the stores in sc.
func (ix *Index) refresh(ctx context.Context, env session.Env, progress Progress, sc scope) (Refreshed, *looked, error) {
	begin := time.Now()
	var res Refreshed
	gen0, err := generation(ctx, ix.db)
	if err != nil {
		return res, nil, err
	}
	listEnv, man, dirs, stamps, fromManifest, err := ix.lister(ctx, env)
	if err != nil {
		return res, nil, err
	}
	holds := man.held
	type job struct {
		a    adapters.Adapter
		ref  session.Ref
		fp   fingerprint
		id   int64       // the row it replaces; 0 for a new session
		held fingerprint // what the index holds of it (id != 0)
		size int64
	}
	// Each CLI's finds are compared with what the index holds as soon as
	// its Discover is done, beside the other CLIs' discovery (a CLI's
	// sessions are its own: their keys name it).
	type compared struct {
		fresh                                      map[key]bool // sessions found that the index does not hold
		jobs                                       []job
		sessions, unchanged, updated, added, known int
		missed                                     int // not met in the order held (matcher)
	}
	byCLI := make(map[string]*compared, len(adapters.All))
	for _, a := range adapters.All {
		byCLI[a.Name] = &compared{}
	}
	opts := catalog.Options{Env: listEnv}
	opts.Each = func(f catalog.Found) {
		c := byCLI[f.CLI]
		a, ok := adapters.Lookup(f.CLI)
		if c == nil || !ok {
			return
		}
		stats := statCache{}
		was := holds.matcher(f.CLI)
		for _, ref := range f.Refs {
			k := keyOf(ref)
			var h held
			i, ok := was.match(k)
			switch {
			case ok && holds.seen[i]:
				continue // found already
			case ok:
				holds.seen[i], h = true, holds.list[i].h
				c.known++
			case c.fresh[k]:
				continue // found already
			default:
				if c.fresh == nil {
					c.fresh = make(map[key]bool)
				}
				c.fresh[k] = true
			}
			c.sessions++
			fp := stats.fingerprint(ref)
			switch {
			case ok && sameAs(ref, fp, h.fp) && h.title == ref.Title:
				c.unchanged++
				continue
			case ok:
				c.updated++
			default:
				c.added++
			}
			c.jobs = append(c.jobs, job{a: a, ref: ref, fp: fp, id: h.id, held: h.fp, size: fp.size})
		}
		c.missed = was.missed
	}
	partial := false
	if sc.only != nil && fromManifest {
		if _, was, err := decodeFound(man.found, true); err == nil && len(was) > 0 {
			partial, opts.Cache = true, asFound{was, sc.only}
		}
	}
	found, err := catalog.DiscoverEach(opts)
	if err != nil {
		return res, nil, err
	}
	stamps.fill(found)
	if partial {
		// The folders and databases of the stores not listed are as they
		// were.
		for d, l := range man.dirs {
			if _, ok := dirs.new[d]; !ok {
				dirs.new[d] = l
			}
		}
		for p, st := range man.stamps {
			if _, ok := stamps.new[p]; !ok {
				stamps.new[p] = st
			}
		}
	}
	for _, f := range found {
		if partial && !sc.only[f.CLI] {
			continue // said by the refresh that listed them
		}
		res.Warnings = append(res.Warnings, f.Warnings...)
	}
	var jobs []job
	known := 0 // of the sessions seen, those the index holds
	missed := 0
	for _, a := range adapters.All {
		c := byCLI[a.Name]
		missed += c.missed
		res.Sessions += c.sessions
		res.Unchanged += c.unchanged
		res.Updated += c.updated
		res.Added += c.added
		known += c.known
		jobs = append(jobs, c.jobs...)
	}
	var gone []int64
	var goneKeys []key
	if known < len(holds.list) { // else every session held was found
		for i, e := range holds.list {
			if !holds.seen[i] {
				gone = append(gone, e.h.id)
				goneKeys = append(goneKeys, e.k)
			}
		}
	}
	res.Folders, res.Listed = len(dirs.new), dirs.listed
	changed := len(jobs)+len(gone) > 0
	if changed {
		if err := ix.dropManifest(ctx); err != nil {
			return res, nil, err
		}
	}
	if err := ix.remove(ctx, gone); err != nil {
		return res, nil, err
	}
	res.Removed = len(gone)
	if ts := ix.tails; ts != nil {
		for _, k := range goneKeys {
			if t := ts.take(k.path); t != nil {
				t.close()
			}
		}
	}

	// Sessions are read by a worker per core and written by this
	// goroutine, oldest first: a search ranks a common word's most
	// recently indexed matches.
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].ref.ModTime.Before(jobs[b].ref.ModTime) })
	if len(jobs) > 0 && ix.dicts.packer() == nil {
		sample := make([]sampleJob, len(jobs))
		for i, j := range jobs {
			sample[i] = sampleJob{a: j.a, ref: j.ref, size: j.size}
		}
		ix.trainFrom(ctx, env, sample)
	}
	host, _ := os.Hostname()
	type done struct {
		j        job
		doc      *indexed
		appended bool
		warn     *session.Warning
		weight   int64 // of room
	}
	work := make(chan job)
	out := make(chan done, 64)
	room := newBudget(inFlight)
	outer := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				doc, appended, err := ix.readSafely(env, j.a, j.ref, j.fp, j.held, j.id != 0)
				d := done{j: j, doc: doc, appended: appended, weight: doc.weight()}
				if err != nil {
					d.warn = &session.Warning{Path: j.ref.Path, Message: fmt.Sprintf("not indexed: %v", err)}
				}
				if room.take(ctx, d.weight) != nil {
					return
				}
				select {
				case out <- d:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(work)
		for _, j := range jobs {
			select {
			case work <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(out) }()
	var werr error
	n := 0
	read := make(map[string]bool)
	b := &batch{ix: ix}
	// What the index now holds of each session read, or dropped (nil).
	wrote := make(map[key]*held)
	for d := range out {
		n++
		room.give(d.weight)
		if werr != nil {
			continue
		}
		if d.warn != nil {
			res.Warnings = append(res.Warnings, *d.warn)
			// What is known of it goes, so that a session that can no
			// longer be read is not found as it was.
			werr = b.drop(ctx, d.j.id)
			wrote[keyOf(d.j.ref)] = nil
		} else {
			var h held
			h, werr = b.write(ctx, d.j.id, d.j.ref, d.j.fp, host, d.doc, "")
			wrote[keyOf(d.j.ref)] = &h
			res.Warnings = append(res.Warnings, d.doc.warns...)
			res.Entries += len(d.doc.rows)
			if d.appended {
				res.Appended++
			}
			if !read[d.j.ref.Path] {
				// A file of many sessions (a database) counts once.
				read[d.j.ref.Path] = true
				res.Bytes += d.j.size
			}
		}
		if werr != nil {
			cancel()
		}
		if progress != nil {
			progress(n, len(jobs), res.Bytes)
		}
	}
	if werr == nil {
		werr = b.commit()
	}
	b.rollback()
	if merr := b.merged(ctx); werr == nil {
		werr = merr
	}
	if werr != nil {
		return res, nil, interrupted(outer, werr)
	}
	if err := ctx.Err(); err != nil {
		return res, nil, err
	}
	var totals map[key]held
	if changed {
		// What the index holds now: what it held, with what this refresh
		// wrote and dropped; read again when another process changed it
		// meanwhile (its generation moved).
		totals = holds.toMap()
		for _, k := range goneKeys {
			delete(totals, k)
		}
		for k, h := range wrote {
			if h == nil {
				delete(totals, k)
			} else {
				totals[k] = *h
			}
		}
		if gen, err := generation(ctx, ix.db); err != nil || gen != gen0 {
			if totals, err = ix.fingerprints(ctx); err != nil {
				return res, nil, err
			}
		}
	}
	var save *manifest
	if changed || !fromManifest || dirs.listed > 0 || missed > 0 || !maps.Equal(stamps.new, man.stamps) || !sameFound(man.found, found) {
		// In the order found, for the next refresh to meet them so.
		m := totals
		if m == nil {
			m = holds.toMap()
		}
		save = &manifest{held: heldFrom(m, found), dirs: dirs.new, stamps: stamps.new, found: string(encodeFound(nil, found))}
	}
	if err := ix.refreshed(ctx, save, totals, !partial || !sc.unlooked); err != nil {
		return res, nil, err
	}
	if changed {
		// What the refresh wrote is folded into the database, and the
		// write-ahead log emptied: it would otherwise stay as large as
		// the largest refresh. (A reader still busy keeps it; the next
		// refresh tries again.)
		ix.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	}
	res.Took = time.Since(begin)
	lk := &looked{dirs: dirs.new, sessions: maps.Keys(totals)}
	if totals == nil {
		lk.sessions = holds.keys
	}
	return res, lk, nil
}

// asFound lists the stores of the CLIs not in fresh as found (a
// catalog.Lister for a partial refresh).
type asFound struct {
	found []catalog.Found
	fresh map[string]bool
}

func (a asFound) Discovered(cli string) ([]session.Ref, []session.Warning, bool) {
	if a.fresh[cli] {
		return nil, nil, false
	}
	for _, f := range a.found {
		if f.CLI == cli {
			return f.Refs, f.Warnings, true
		}
	}
	return nil, nil, false
}

func (asFound) Summary(session.Ref, session.Detail) (session.Summary, bool) {
	return session.Summary{}, false
}

// lister is env made to list the stores from what the index holds: the
// manifest's folders (see dirCache) and the sessions of each file (see
// withKnown). It returns the manifest, and whether it was the manifest
// file's (else what the index holds of each session is from the sessions
// table, and it has no more).
func (ix *Index) lister(ctx context.Context, env session.Env) (session.Env, manifest, *dirCache, *stampCache, bool, error) {
	man, fromManifest := ix.loadManifest(ctx)
	if !fromManifest {
		var err error
		man = manifest{dirs: man.dirs}
		m, err := ix.fingerprints(ctx)
		if err != nil {
			return env, man, nil, nil, false, err
		}
		man.held = heldFrom(m, nil)
	}
	dirs, stamps := newDirCache(man.dirs), newStampCache(man.stamps)
	env = withKnown(env, man.held)
	env.Dirs, env.Unchanged = dirs.ReadDir, stamps.Unchanged
	return env, man, dirs, stamps, fromManifest, nil
}

// withKnown is env with Known telling the sessions the index holds of each
// file, so that Discover opens no file that did not change to tell which
// session it holds.
func withKnown(env session.Env, held *heldSet) session.Env {
	type file struct {
		id string
		fp fingerprint
	}
	type files struct {
		byPath map[string]file
		many   map[string]bool // paths of several sessions
	}
	// Each CLI's are made when it first asks (Gemini CLI's Discover alone
	// does), from its sessions only; a listing answered by a watcher asks
	// none.
	byCLI := make(map[string]func() files, len(adapters.All))
	for _, a := range adapters.All {
		byCLI[a.Name] = sync.OnceValue(func() files {
			its := files{byPath: make(map[string]file), many: make(map[string]bool)}
			for _, e := range held.list {
				k, h := e.k, e.h
				if k.cli != a.Name {
					continue
				}
				if _, ok := its.byPath[k.path]; ok {
					its.many[k.path] = true
				}
				its.byPath[k.path] = file{k.sid, h.fp}
			}
			return its
		})
	}
	env.Known = func(ref session.Ref) (string, bool) {
		made, ok := byCLI[ref.CLI]
		if !ok {
			return "", false
		}
		its := made()
		f, ok := its.byPath[ref.Path]
		if !ok || its.many[ref.Path] {
			return "", false
		}
		return f.id, f.fp == fingerprint{size: ref.Size, mtime: ref.ModTime.UnixNano(), inode: int64(ref.Inode)}
	}
	return env
}

// statCache is what os.Stat said of each file in one refresh: many sessions
// can live in one file (a database).
type statCache map[string]fs.FileInfo

// fingerprint is what tells that ref's session changed: the size and
// modification time Discover gives (a database session's are its rows'),
// else its file's, and its file's inode (a file replaced by another of the
// same size and time is read again). The file is looked at only when
// Discover did not say all three.
func (c statCache) fingerprint(ref session.Ref) fingerprint {
	fp, known := refFingerprint(ref)
	if known {
		return fp
	}
	fi, ok := c[ref.Path]
	if !ok {
		fi, _ = os.Stat(ref.Path)
		c[ref.Path] = fi
	}
	if fi != nil {
		if fp.size == 0 {
			fp.size = fi.Size()
		}
		if ref.ModTime.IsZero() {
			fp.mtime = fi.ModTime().UnixNano()
		}
		fp.inode = inodeOf(fi)
	}
	return fp
}

// sameAs reports whether fp, what tells ref's session now, tells the
// same session as held, what the index holds of it. A session Discover
// gives a time of its own but no size (a database's, timed by its rows)
// is not told changed by its file's size, which writing any other session
// of the file changes: each of OpenCode's sessions was read again
// whenever its database grew.
func sameAs(ref session.Ref, fp, held fingerprint) bool {
	if ref.Size == 0 && !ref.ModTime.IsZero() {
		fp.size, held.size = 0, 0
	}
	return fp == held
}

// refFingerprint is what Discover said of ref's file, and whether it said
// all of it (size, modification time and inode).
func refFingerprint(ref session.Ref) (fingerprint, bool) {
	fp := fingerprint{size: ref.Size, mtime: ref.ModTime.UnixNano(), inode: int64(ref.Inode)}
	return fp, ref.Inode != 0 && ref.Size != 0 && !ref.ModTime.IsZero()
}

func inodeOf(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Ino)
	}
	return 0
}

// refreshed records the end of a refresh, the manifest when m is set,
// and, when the refresh changed the sessions (held, which the index now
// holds, is set), how many sessions and entries the index holds and the
// size of their files (for Status: counting them is a scan). The end is
// recorded as the index's last refresh (Status) only when last is set: a
// refresh of some stores that nothing vouches for the others of is not.
//
// A refresh that changed nothing writes nothing to the database: the
// manifest file's modification time says when it ended (see Status). A
// write would cost a transaction's syncs, and those of the checkpoint
// when the process closes the index, on every search.
func (ix *Index) refreshed(ctx context.Context, m *manifest, held map[key]held, last bool) error {
	if m == nil && held == nil {
		if !last {
			return nil
		}
		now := time.Now()
		if os.Chtimes(manifestFile(ix.path), now, now) == nil {
			return nil
		}
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	defer tx.Rollback()
	if held != nil {
		// A file of many sessions (a database) counts once.
		size := make(map[string]int64)
		for k, h := range held {
			size[k.path] = max(size[k.path], h.fp.size)
		}
		var bytes int64
		for _, n := range size {
			bytes += n
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta (key, value) SELECT 'entries', coalesce(sum(entries), 0) FROM sessions WHERE run = ''`); err != nil {
			return fmt.Errorf("index: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta (key, value) VALUES ('sessions', ?), ('indexed', ?)`, len(held), bytes); err != nil {
			return fmt.Errorf("index: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('generation', 1)
			ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`); err != nil {
			return fmt.Errorf("index: %w", err)
		}
	}
	if last {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta (key, value) VALUES ('refreshed', ?)`,
			time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
			return fmt.Errorf("index: %w", err)
		}
	}
	if m != nil {
		was, _ := os.Stat(manifestFile(ix.path))
		token, err := ix.writeManifest(*m)
		if err != nil {
			return err
		}
		if !last && was != nil {
			// Its time is the last refresh's end (Status), kept.
			os.Chtimes(manifestFile(ix.path), was.ModTime(), was.ModTime())
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta (key, value) VALUES ('manifest', ?)`, token); err != nil {
			return fmt.Errorf("index: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	return nil
}

// querier is a database or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// generation counts the refreshes that changed the index, each adding one
// as it ends: a query that read generation G read what the index holds
// after a refresh that ended and left it at G.
func generation(ctx context.Context, q querier) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, `SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'generation'), 0)`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("index: %w", err)
	}
	return n, nil
}

// Generation is how many refreshes have changed the index (see
// generation).
func (ix *Index) Generation(ctx context.Context) (int64, error) { return generation(ctx, ix.db) }

// held is what the index holds of a session: its row, its file's
// fingerprint, and the title Discover gave it (from outside its file).
type held struct {
	id    int64
	fp    fingerprint
	title string
	list  string // what a listing shows of it, encoded (encodeListed): decoded only for a listing
}

// listed is what a listing shows of a session, as the index holds it.
type listed struct {
	project, title   string
	start, end       int64 // Unix nanoseconds; 0 for none
	messages, turns  int64
	skipped, size    int64
	parent, warnings string // JSON; "" for none
}

func keyOf(ref session.Ref) key { return key{ref.CLI, ref.ID, ref.Path} }

// fingerprints is what the index holds of each session of the stores (not
// the runs it holds from the bus).
func (ix *Index) fingerprints(ctx context.Context) (map[key]held, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT id, cli, sid, path, size, mtime, inode, reftitle,
		project, title, start, end, messages, turns, skipped, sumsize, parent, warnings FROM sessions WHERE run = ''`)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	defer rows.Close()
	out := make(map[key]held)
	for rows.Next() {
		var k key
		var h held
		var l listed
		if err := rows.Scan(&h.id, &k.cli, &k.sid, &k.path, &h.fp.size, &h.fp.mtime, &h.fp.inode, &h.title,
			&l.project, &l.title, &l.start, &l.end, &l.messages, &l.turns, &l.skipped, &l.size, &l.parent, &l.warnings); err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
		h.list = string(encodeListed(nil, &l))
		out[k] = h
	}
	return out, rows.Err()
}

// remove drops sessions and their entries.
func (ix *Index) remove(ctx context.Context, ids []int64) error {
	if len(ids) == 0 || (len(ids) == 1 && ids[0] == 0) {
		return nil
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	defer tx.Rollback()
	for _, id := range ids {
		if err := dropSession(ctx, tx, id); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	return nil
}

func dropSession(ctx context.Context, tx *sql.Tx, id int64) error {
	if id == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM entries WHERE session = ?`, id); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	return nil
}

// indexed is a session as the index keeps it.
type indexed struct {
	sum session.Summary
	// list is what a listing shows of the session's problems: a reader
	// at list detail may check less than a full one (OpenCode's reads a
	// database's text parts only), and list from the index shows what a
	// scan would.
	list struct {
		warnings []session.Warning
		skipped  int
	}
	rows []row
	// warns are the records that could not be read (the rest were).
	warns []session.Warning
	// held, when not 0, is how many of rows, from the first, the index
	// holds as they are, when it holds that many (a tail's: it wrote
	// them); 0 has them compared.
	held int
}

// row is one indexed entry.
type row struct {
	entry, role, tool, model, text string
	time                           time.Time
	packed                         []byte // text as the entries table keeps it
}

// readSafely is readTail, a panic in the adapter's code (a session file
// is untrusted input, and the daemon that keeps the index fresh also
// supervises runs) its error: the session is reported, not indexed, and
// the rest are.
func (ix *Index) readSafely(env session.Env, a adapters.Adapter, ref session.Ref, fp, held fingerprint, update bool) (doc *indexed, appended bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			doc, appended = nil, false
			err = fmt.Errorf("%s: reading it failed: panic: %v", ref.Path, p)
			ix.log.Error("index: reading a session panicked", "path", ref.Path, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	return ix.readTail(env, a, ref, fp, held, update)
}

// summarize is what the index keeps of a session but its entries: its
// summary, and what a listing shows of its problems.
func summarize(a adapters.Adapter, ref session.Ref) (*indexed, error) {
	sum, err := a.SummarizeFile(ref, session.DetailFull)
	if err != nil {
		return nil, err
	}
	return summarized(a, ref, sum), nil
}

// summarized is what the index keeps of a session but its entries, given
// its summary at full detail.
func summarized(a adapters.Adapter, ref session.Ref, sum session.Summary) *indexed {
	doc := &indexed{sum: sum}
	doc.list.warnings, doc.list.skipped = sum.Warnings, sum.Skipped
	if len(sum.Warnings) > 0 || sum.Skipped > 0 {
		// Only a session with problems can show fewer at list detail.
		if l, err := a.SummarizeFile(ref, session.DetailList); err == nil {
			doc.list.warnings, doc.list.skipped = l.Warnings, l.Skipped
		}
	}
	return doc
}

// read reads a session for the index: its summary, and its entries' text,
// packed by pk.
func read(env session.Env, a adapters.Adapter, ref session.Ref, pk *packer) (*indexed, error) {
	if a.OpenSummarized != nil {
		return readSummarized(env, a, ref, pk)
	}
	doc, err := summarize(a, ref)
	if err != nil {
		return nil, err
	}
	add := func(e *session.Entry) { doc.rows = append(doc.rows, rowsOf(a, e, pk)...) }
	fi, err := os.Stat(ref.Path)
	stream := err == nil && fi.Mode().IsRegular() && fi.Size() > catalog.TwoPassAbove && a.StreamDecoder != nil
	if !stream {
		defer readWhole(doc.sum.Size)()
	}
	if stream {
		// A large self-contained file is read once, its entries indexed
		// as they are decoded (a later record's status or usage for an
		// entry changes nothing the index keeps).
		f, err := os.Open(ref.Path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		dec := a.StreamDecoder(f)
		for {
			ev, err := dec.Decode()
			if errors.Is(err, io.EOF) {
				return doc, nil
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ref.Path, err)
			}
			if ev.Warning != nil {
				w := *ev.Warning
				if w.Path == "" {
					w.Path = ref.Path
				}
				doc.warns = append(doc.warns, w)
			}
			for i := range ev.Entries {
				add(&ev.Entries[i])
			}
		}
	}
	if a.OpenConversation != nil {
		// Read whole, without the native records the index does not keep.
		s, err := a.OpenConversation(env, ref)
		if err != nil {
			return nil, err
		}
		doc.warns = s.Warnings
		for i := range s.Timeline {
			add(&s.Timeline[i])
		}
		return doc, nil
	}
	opened, err := catalog.Open(env, a, ref, catalog.Keep{})
	if err != nil {
		return nil, err
	}
	defer opened.Close()
	doc.warns = opened.Session.Warnings
	if opened.Entries == nil {
		for i := range opened.Session.Timeline {
			add(&opened.Session.Timeline[i])
		}
		return doc, nil
	}
	for {
		e, err := opened.Entries.Next()
		if errors.Is(err, io.EOF) {
			return doc, nil
		}
		if err != nil {
			return nil, err
		}
		add(e)
	}
}

// readSummarized is read of a session whose adapter reads it and
// summarises it at once (OpenCode's database: reading its rows was most
// of what an OpenCode session cost a build, and the summary read them a
// second time).
func readSummarized(env session.Env, a adapters.Adapter, ref session.Ref, pk *packer) (*indexed, error) {
	done := func() {}
	defer func() { done() }()
	s, sum, err := a.OpenSummarized(env, ref, func(size int64) { done = readWhole(size) })
	if err != nil {
		return nil, err
	}
	doc := summarized(a, ref, sum)
	doc.warns = s.Warnings
	for i := range s.Timeline {
		doc.rows = append(doc.rows, rowsOf(a, &s.Timeline[i], pk)...)
	}
	return doc, nil
}

// interrupted is err, or ctx's error when ctx ended: a batch's statements
// do not watch ctx (see write), and a transaction rolled back as ctx
// ended fails the next one with "transaction has already been committed
// or rolled back", not with why.
func interrupted(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// wholeAbove is the size of a session from which a refresh reads one
// such session at a time (when it is not streamed): a session read whole
// takes several times its size while it is read. A cold build of the
// 10,000-session corpus peaked at 258–293 MB of RSS where two large ones
// were read at once (an OpenCode session and a Gemini CLI one held 52 and
// 60 MB of the Go heap).
const wholeAbove = 4 << 20

// wholeReads is held by the read of a session over wholeAbove.
var wholeReads sync.Mutex

// readWhole waits, for a session of size that is read whole, until no
// other such read is under way, and returns what ends its turn.
func readWhole(size int64) (done func()) {
	if size <= wholeAbove {
		return func() {}
	}
	// It is held whole while it is read: one such read at a time.
	wholeReads.Lock()
	return wholeReads.Unlock
}

// rowsOf is what the index keeps of an entry: a row for its text, and one
// for its thinking.
func rowsOf(a adapters.Adapter, e *session.Entry, pk *packer) []row {
	base := row{entry: e.ID, time: e.Timestamp, model: e.Model}
	var out []row
	addRow := func(role, tool, text string) {
		if text = strings.TrimSpace(text); text == "" {
			return
		}
		r := base
		r.role, r.tool, r.text = role, tool, safetext.CutBytes(text, MaxEntryText)
		r.packed = pk.pack(r.text) // here, on the reading workers
		out = append(out, r)
	}
	switch e.Type {
	case session.User, session.Assistant, session.System:
		// What the CLI injected (its instructions, context, environment)
		// is not what anyone wrote or did: it is left out.
		if e.Kind == session.KindContext || e.Kind == session.KindInstructions || e.Kind == session.KindMeta {
			break
		}
		addRow(string(e.Type), "", e.Content)
	case session.ToolCall:
		addRow(string(e.Type), toolName(e), toolText(a, e))
	case session.ToolResult:
		text := e.Output
		if e.Error != "" {
			text = strings.TrimSpace(text + "\n" + e.Error)
		}
		addRow(string(e.Type), toolName(e), text)
	}
	addRow("thinking", "", e.Thinking)
	return out
}

// toolName is the tool an entry names: the universal one, else the CLI's.
func toolName(e *session.Entry) string {
	if e.Tool != "" {
		return string(e.Tool)
	}
	return e.OriginalTool
}

// tags are words the full-text index holds beside an entry's text (and
// not in it: the entries table keeps the text alone) for the filters a
// search hands FTS5 with its words: the entry's CLI, role and tool. FTS5
// intersects a word's entries with a filter's far faster than SQL checks
// the filter on each of them; Search still checks the filters in SQL.
func tags(cli, role, tool string) string {
	t := tag("cli", cli) + " " + tag("role", role)
	if tool != "" {
		t += " " + tag("tool", tool)
	}
	return t
}

// tagPrefix starts every tag: not a word anyone writes.
const tagPrefix = "steadx"

// tag is a filter's word: tagPrefix, what it filters, and the value
// lower-cased with only its ASCII letters and digits (one word for the
// tokenizer; values that come out the same are told apart by SQL).
func tag(kind, value string) string {
	b := make([]byte, 0, len(tagPrefix)+len(kind)+len(value))
	b = append(b, tagPrefix...)
	b = append(b, kind...)
	for i := 0; i < len(value); i++ {
		switch c := value[i]; {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			b = append(b, c)
		case 'A' <= c && c <= 'Z':
			b = append(b, c+'a'-'A')
		}
	}
	return string(b)
}

// keyArgs are the universal arguments a tool call is found by.
var keyArgs = []string{session.ArgCommand, session.ArgPath, session.ArgPattern, session.ArgURL, session.ArgQuery}

// toolText is what a tool call is found by: its tool's names and its key
// arguments (command, path, pattern, URL, query), else its input as it is.
func toolText(a adapters.Adapter, e *session.Entry) string {
	var b strings.Builder
	b.WriteString(toolName(e))
	if e.OriginalTool != "" && e.OriginalTool != string(e.Tool) {
		b.WriteString(" " + e.OriginalTool)
	}
	if a.ToolArgs != nil && e.OriginalTool != "" {
		if _, args, ok := a.ToolArgs(e.OriginalTool, e.Input); ok {
			found := false
			for _, k := range keyArgs {
				if v, ok := args[k].(string); ok && v != "" {
					b.WriteString("\n" + v)
					found = true
				}
			}
			if found {
				return b.String()
			}
		}
	}
	if len(e.Input) > 0 {
		b.WriteString("\n" + e.InputText())
	}
	return b.String()
}

// batch writes sessions in transactions of several, each with a
// full-text segment of the words of the entries it wrote: a transaction
// per session would make a segment of each. Each transaction holds whole
// sessions, so an interrupted refresh leaves the index as it was after
// the last one committed. The words are gathered beside the writer (a
// gatherer) as it writes the entries, and written out as a segment when
// the transaction commits, in it.
type batch struct {
	ix     *Index
	tx     *sql.Tx
	bytes  int // the text written in tx
	began  time.Time
	gather *gatherer // the words of the entries written in tx
	wrote  bool      // a segment was written: merge
	// merging hears the end of the merge running beside the writer,
	// started after a transaction that wrote a segment (nil: none runs);
	// its merge waits in ready for the next transaction to put it in
	// place (the writer's: SQLite has one writer, and a transaction that
	// read before another wrote cannot write).
	merging chan mergeDone
	ready   *segMerge
	// damaged is a merge's error when a segment it read was damaged:
	// merging stops, and the full-text index is made again once the
	// batch is done (see merged).
	damaged error
}

// mergeDone is how a merge beside the writer ended: nil when there was
// nothing to merge.
type mergeDone struct {
	m   *segMerge
	err error
}

// batchText and batchTime bound a transaction: about 16 MB of text, or a
// second (so that a search waiting on a long refresh is not held up long).
const (
	batchText = 16 << 20
	batchTime = time.Second
)

func (b *batch) begin(ctx context.Context) (*sql.Tx, error) {
	if b.tx != nil {
		return b.tx, nil
	}
	tx, err := b.ix.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	// The transaction writes first, so that it waits for another writer
	// (another process's refresh, a run's feed beside a watcher) to end:
	// one whose first statement reads (the session's row) fails instead,
	// with SQLITE_BUSY_SNAPSHOT, when another commits before it writes.
	if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = value WHERE key = 'schema'`); err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("index: %w", err)
	}
	b.tx, b.bytes, b.began, b.gather = tx, 0, time.Now(), startGatherer()
	return tx, nil
}

// done commits the transaction once it is large or old enough.
func (b *batch) done() error {
	if b.bytes < batchText && time.Since(b.began) < batchTime {
		return nil
	}
	return b.commit()
}

func (b *batch) commit() error {
	if b.tx == nil {
		return nil
	}
	words, err := b.gather.finish()
	b.gather = nil
	if err != nil {
		return err
	}
	var seg string
	if !words.empty() {
		if seg, err = b.ix.addSegment(context.Background(), b.tx, words); err != nil {
			return err
		}
	}
	m, swapped := b.ready, false
	b.ready = nil
	if m != nil {
		if swapped, err = m.swapIn(context.Background(), b.tx); err != nil {
			m.settle(false)
			return err
		}
	}
	err = b.tx.Commit()
	b.tx = nil
	if m != nil {
		m.settle(err == nil && swapped)
	}
	if err != nil {
		if seg != "" {
			os.Remove(seg)
		}
		return fmt.Errorf("index: %w", err)
	}
	if seg != "" {
		b.wrote = true
		return b.mergeBeside()
	}
	return nil
}

// mergeBeside starts merging the index's segments beside the writer,
// unless a merge runs already; it reports how the last one ended.
func (b *batch) mergeBeside() error {
	if b.merging != nil {
		select {
		case r := <-b.merging:
			if err := b.heard(r); err != nil {
				return err
			}
		default:
		}
	}
	if b.merging != nil || b.ready != nil || b.damaged != nil {
		return nil
	}
	ch := make(chan mergeDone, 1)
	b.merging = ch
	go func() {
		m, err := b.ix.nextMerge(context.Background())
		ch <- mergeDone{m, err}
	}()
	return nil
}

func (b *batch) rollback() {
	if b.gather != nil {
		b.gather.finish()
		b.gather = nil
	}
	if b.tx != nil {
		b.tx.Rollback()
		b.tx = nil
	}
}

// heard takes in how the merge beside the writer ended: its merge to put
// in place, or a damaged segment it met (see merged).
func (b *batch) heard(r mergeDone) error {
	b.merging = nil
	if errors.Is(r.err, errSegment) {
		b.damaged = r.err
	} else if r.err != nil {
		return r.err
	}
	b.ready = r.m
	return nil
}

// merged merges the index's segments once a batch that wrote some is
// done (see mergeSegments).
func (b *batch) merged(ctx context.Context) error {
	if b.merging != nil {
		if err := b.heard(<-b.merging); err != nil {
			return err
		}
	}
	if err := b.damaged; err != nil {
		b.damaged, b.wrote = nil, false
		if b.ready != nil {
			b.ready.settle(false)
			b.ready = nil
		}
		return b.ix.healWords(ctx, err)
	}
	if m := b.ready; m != nil {
		b.ready = nil
		if err := m.put(ctx); err != nil {
			return err
		}
	}
	if !b.wrote {
		return nil
	}
	b.wrote = false
	err := b.ix.mergeSegments(ctx)
	if errors.Is(err, errSegment) {
		return b.ix.healWords(ctx, err)
	}
	return err
}

func (b *batch) drop(ctx context.Context, id int64) error {
	if id == 0 {
		return nil
	}
	tx, err := b.begin(ctx)
	if err != nil {
		return err
	}
	if err := dropSession(ctx, tx, id); err != nil {
		return err
	}
	return b.done()
}

// write replaces session old (0: none) with doc, read from a store (run
// "") or from the bus of a live run (see RunFeed). A store's session
// replaces a run's of the same key.
func (b *batch) write(ctx context.Context, old int64, ref session.Ref, fp fingerprint, host string, doc *indexed, run string) (held, error) {
	tx, err := b.begin(ctx)
	if err != nil {
		return held{}, err
	}
	// The session's statements run without ctx's cancellation: the driver
	// watches a cancellable context with a goroutine of its own for each
	// statement: two for each of a cold build's two million entries. ctx
	// is heeded between sessions, and its end rolls the transaction back.
	if err := ctx.Err(); err != nil {
		return held{}, err
	}
	ctx = context.WithoutCancel(ctx)
	// The session's row: the one this refresh looked at, or one a
	// refresh in another process wrote since (its key is unique).
	var base int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM sessions WHERE cli = ? AND sid = ? AND path = ?`, ref.CLI, ref.ID, ref.Path).Scan(&base)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return held{}, fmt.Errorf("index: %w", err)
	}
	if old != 0 && old != base {
		if err := dropSession(ctx, tx, old); err != nil {
			return held{}, err
		}
	}
	sum := encodeSummary(doc.sum)
	parent, warns := "", ""
	if doc.sum.Parent != nil {
		p, _ := json.Marshal(doc.sum.Parent)
		parent = string(p)
	}
	if len(doc.list.warnings) > 0 {
		w, _ := json.Marshal(doc.list.warnings)
		warns = string(w)
	}
	cols := []any{ref.CLI, ref.ID, ref.Path, fp.size, fp.mtime, fp.inode, host, doc.sum.Project, doc.sum.Title,
		unixNano(doc.sum.Start), unixNano(doc.sum.End), len(doc.rows),
		ref.Title, doc.sum.Messages, doc.sum.Turns, parent, warns, doc.list.skipped, doc.sum.Size, sum, run}
	id, kept := base, 0
	if base != 0 {
		// The entries it still has, where it had them, are kept: a
		// session a CLI appended to keeps all but its last few, and the
		// full-text index is spared taking them out and in again.
		if kept, err = keptEntries(ctx, tx, base, doc); err != nil {
			return held{}, err
		}
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET cli = ?, sid = ?, path = ?, size = ?, mtime = ?, inode = ?, host = ?,
			project = ?, title = ?, start = ?, end = ?, entries = ?, reftitle = ?, messages = ?, turns = ?, parent = ?,
			warnings = ?, skipped = ?, sumsize = ?, summary = ?, run = ? WHERE id = ?`, append(cols, base)...)
		if err != nil {
			return held{}, fmt.Errorf("index: %w", err)
		}
	} else {
		res, err := tx.ExecContext(ctx, `INSERT INTO sessions (cli, sid, path, size, mtime, inode, host, project, title, start, end, entries,
			reftitle, messages, turns, parent, warnings, skipped, sumsize, summary, run)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, cols...)
		if err != nil {
			return held{}, fmt.Errorf("index: %w", err)
		}
		if id, err = res.LastInsertId(); err != nil {
			return held{}, fmt.Errorf("index: %w", err)
		}
	}
	h := held{id: id, fp: fp, title: ref.Title, list: string(encodeListed(nil, &listed{
		project: doc.sum.Project, title: doc.sum.Title, start: unixNano(doc.sum.Start), end: unixNano(doc.sum.End),
		messages: int64(doc.sum.Messages), turns: int64(doc.sum.Turns), skipped: int64(doc.list.skipped), size: doc.sum.Size,
		parent: parent, warnings: warns,
	}))}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO entries (session, entry, time, role, tool, model, text) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return held{}, fmt.Errorf("index: %w", err)
	}
	defer stmt.Close()
	for _, r := range doc.rows[kept:] {
		res, err := stmt.ExecContext(ctx, id, r.entry, unixNano(r.time), r.role, r.tool, r.model, r.packed)
		if err != nil {
			return held{}, fmt.Errorf("index: %w", err)
		}
		eid, err := res.LastInsertId()
		if err != nil {
			return held{}, fmt.Errorf("index: %w", err)
		}
		b.gather.add(ftDoc{id: eid, text: r.text, cli: ref.CLI, role: r.role, tool: r.tool})
		b.bytes += len(r.text)
	}
	var last int64
	for i := range doc.rows {
		last = max(last, unixNano(doc.rows[i].time))
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET last = ?, first = coalesce((SELECT min(id) FROM entries WHERE session = ?2), 0) WHERE id = ?2`, last, id); err != nil {
		return held{}, fmt.Errorf("index: %w", err)
	}
	return h, b.done()
}

// keptEntries is keepEntries, sparing the comparison when the index holds
// as many entries of the session as doc says it holds as they are.
func keptEntries(ctx context.Context, tx *sql.Tx, id int64, doc *indexed) (int, error) {
	if doc.held > 0 {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM entries WHERE session = ?`, id).Scan(&n); err != nil {
			return 0, fmt.Errorf("index: %w", err)
		}
		if n == doc.held {
			return n, nil
		}
	}
	return keepEntries(ctx, tx, id, doc.rows)
}

// keepEntries keeps the entries of session id that rows begins with, as
// they are (the same entry, time, role, tool, model and text, in the same
// place), drops the others, and says how many it kept.
func keepEntries(ctx context.Context, tx *sql.Tx, id int64, rows []row) (int, error) {
	stored, err := tx.QueryContext(ctx, `SELECT id, entry, time, role, tool, model, text FROM entries WHERE session = ? ORDER BY id`, id)
	if err != nil {
		return 0, fmt.Errorf("index: %w", err)
	}
	kept, cut := 0, int64(0)
	for stored.Next() {
		var eid, at int64
		var entry, role, tool, model string
		var packed []byte
		if err := stored.Scan(&eid, &entry, &at, &role, &tool, &model, &packed); err != nil {
			stored.Close()
			return 0, fmt.Errorf("index: %w", err)
		}
		if kept == len(rows) {
			cut = eid
			break
		}
		r := &rows[kept]
		if entry != r.entry || at != unixNano(r.time) || role != r.role || tool != r.tool || model != r.model || !bytes.Equal(packed, r.packed) {
			cut = eid
			break
		}
		kept++
	}
	stored.Close()
	if err := stored.Err(); err != nil {
		return 0, fmt.Errorf("index: %w", err)
	}
	if cut != 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM entries WHERE session = ? AND id >= ?`, id, cut); err != nil {
			return 0, fmt.Errorf("index: %w", err)
		}
	}
	return kept, nil
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
