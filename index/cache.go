package index

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/session"
)

// Cache answers the summaries the index holds, for a listing or for
// statistics (a catalog.Cache): a session's, while its file is as it was
// when the index read it. It is safe for concurrent use.
type Cache struct {
	ix     *Index
	detail session.Detail
	held   *heldSet       // at session.DetailList: the manifest's
	byKey  map[key]cached // at session.DetailFull

	// found is what each CLI's Discover would find now (Discovered),
	// when a watcher said nothing changed since the last refresh.
	found []catalog.Found

	mu    sync.Mutex
	stats statCache
}

// cached is one session's row.
type cached struct {
	id      int64
	fp      fingerprint
	title   string // Discover's
	list    string // encoded (encodeListed)
	summary []byte // the stored summary (DetailFull), decoded when asked for
}

// Cache loads what the index holds at detail (session.DetailList: what a
// listing shows, from the manifest; session.DetailFull: every summary),
// and returns env made to list the stores from the index's manifest: a
// folder unchanged since the last refresh is not listed again, and no
// unchanged file is opened to tell its session. When a watcher keeps the
// index fresh for env's stores, it is asked first (it reads what changed),
// and the stores need not be listed at all (see Discovered).
func (ix *Index) Cache(ctx context.Context, env session.Env, detail session.Detail) (session.Env, *Cache, error) {
	c := &Cache{ix: ix, detail: detail, stats: statCache{}}
	_, watched := ix.askWatcher(ctx, env, nil)
	env, man, _, _, fromManifest, err := ix.lister(ctx, env)
	if err != nil {
		return env, nil, err
	}
	if watched && fromManifest {
		if _, c.found, err = decodeFound(man.found, true); err != nil {
			c.found = nil // listed from the stores
		}
	}
	if detail != session.DetailFull {
		c.held = man.held
		return env, c, nil
	}
	c.byKey = make(map[key]cached, len(man.held.list))
	rows, err := ix.db.QueryContext(ctx, `SELECT id, cli, sid, path, size, mtime, inode, reftitle, summary FROM sessions WHERE run = ''`)
	if err != nil {
		return env, nil, fmt.Errorf("index: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k key
		var r cached
		if err := rows.Scan(&r.id, &k.cli, &k.sid, &k.path, &r.fp.size, &r.fp.mtime, &r.fp.inode, &r.title, &r.summary); err != nil {
			return env, nil, fmt.Errorf("index: %w", err)
		}
		c.byKey[k] = r
	}
	if err := rows.Err(); err != nil {
		return env, nil, fmt.Errorf("index: %w", err)
	}
	return env, c, nil
}

// Watched reports whether a watcher said that nothing changed since the
// index's last refresh, so that the stores are listed from the index.
func (c *Cache) Watched() bool { return c.found != nil }

// Discovered is what cli's Discover would find now, when the index's
// watcher said that nothing changed since the refresh that found it (a
// catalog.Lister).
func (c *Cache) Discovered(cli string) ([]session.Ref, []session.Warning, bool) {
	for _, f := range c.found {
		if f.CLI == cli {
			return f.Refs, f.Warnings, true
		}
	}
	return nil, nil, false
}

// Summary is the summary of ref's session as the index holds it, when
// the session has not changed since and the index holds it at detail.
func (c *Cache) Summary(ref session.Ref, detail session.Detail) (session.Summary, bool) {
	k := key{ref.CLI, ref.ID, ref.Path}
	var r cached
	var ok bool
	if c.held != nil {
		var h held
		h, ok = c.held.get(k)
		r = cached{id: h.id, fp: h.fp, title: h.title, list: h.list}
	} else {
		r, ok = c.byKey[k]
	}
	if !ok || r.title != ref.Title || (detail == session.DetailFull && c.detail != session.DetailFull) {
		return session.Summary{}, false
	}
	fp, known := refFingerprint(ref)
	if !known {
		c.mu.Lock()
		fp = c.stats.fingerprint(ref)
		c.mu.Unlock()
	}
	if !sameAs(ref, fp, r.fp) {
		return session.Summary{}, false
	}
	var sum session.Summary
	if c.detail == session.DetailFull {
		var err error
		if sum, err = decodeSummary(r.summary); err != nil {
			c.ix.log.Warn("index: a stored summary cannot be read; reading the session", "path", ref.Path, "err", err)
			return session.Summary{}, false
		}
	} else {
		l, err := decodeListed(r.list)
		if err != nil {
			return session.Summary{}, false
		}
		sum = session.Summary{Project: l.project, Title: l.title, Start: fromUnixNano(l.start), End: fromUnixNano(l.end),
			Messages: int(l.messages), Turns: int(l.turns), Skipped: int(l.skipped), Size: l.size}
		if l.parent != "" {
			sum.Parent = new(session.Link)
			if err := json.Unmarshal([]byte(l.parent), sum.Parent); err != nil {
				return session.Summary{}, false
			}
		}
		if l.warnings != "" {
			if err := json.Unmarshal([]byte(l.warnings), &sum.Warnings); err != nil {
				return session.Summary{}, false
			}
		}
	}
	sum.CLI, sum.ID, sum.Path = ref.CLI, ref.ID, ref.Path
	return sum, true
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
