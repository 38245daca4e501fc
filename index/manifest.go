package index

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/session"
)

// The manifest is what a freshness pass needs, kept in a file of its own
// beside the database (index.db.manifest) so that it is read in a
// millisecond rather than row by row: each session's fingerprint and
// what a listing shows of it, each folder the stores' Discover listed,
// with its modification time and entries, each file Discover read to list
// its sessions (a database), with its stamp and the sessions it held, and
// what each CLI's Discover found. It is written whole
// (to a temporary file renamed over it) with a random token, and the
// token then recorded in the database in the transaction that ends the
// refresh; a refresh that changes the sessions table first takes the
// token out. A manifest whose token is not the database's is stale and
// not used: the sessions table is read instead.

// manifestMagic starts a manifest; another start is no manifest.
const manifestMagic = "stead-manifest-6\n"

// listing is a folder as Discover last listed it.
type listing struct {
	mtime int64 // the folder's modification time then
	at    int64 // when it was listed
	names []string
	types []fs.FileMode
}

// manifest is a decoded manifest.
type manifest struct {
	held *heldSet
	dirs map[string]listing
	// found is what each CLI's Discover found, as it gave it, encoded
	// (encodeFound; "" for nothing): a listing answered by the index
	// while a watcher says nothing changed since (Cache) lists the stores
	// from it (decodeFound). A refresh only compares it with what it
	// found, encoded: decoding it would make 10,000 refs to throw away.
	found string
	// stamps are the files Discover read to list their sessions (a
	// database; session.Env.Unchanged), by path.
	stamps map[string]stamped
}

// stamped is a file as Discover last read it: its stamp (with its
// journals', for a database), when it was taken (Unix nanoseconds), and
// the sessions found in it, encoded (appendRef, one after another).
type stamped struct {
	key    string
	newest int64
	at     int64
	refs   string
}

// manifestFile is where the manifest of the index at path is kept.
func manifestFile(path string) string { return path + ".manifest" }

// loadManifest reads the manifest; ok is false when there is none, it is
// stale or it cannot be read (the caller then reads the sessions table).
func (ix *Index) loadManifest(ctx context.Context) (m manifest, ok bool) {
	var token string
	if err := ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'manifest'`).Scan(&token); err != nil {
		if !errors.Is(err, sql.ErrNoRows) {
			ix.log.Debug("index: no manifest", "err", err)
		}
		return m, false
	}
	data, unmap, err := readManifest(manifestFile(ix.path), ix.oneAnswer)
	if err != nil {
		ix.log.Debug("index: no manifest", "err", err)
		return m, false
	}
	rest, ok := bytes.CutPrefix(data, []byte(manifestMagic+token+"\n"))
	if !ok {
		unmap()
		ix.log.Debug("index: the manifest is stale", "path", manifestFile(ix.path))
		return m, false
	}
	m, err = decodeManifest(rest)
	if err != nil {
		unmap()
		ix.log.Warn("index: the manifest cannot be read; reading the sessions table", "path", manifestFile(ix.path), "err", err)
		return m, false
	}
	return m, true
}

// readManifest reads the manifest file at path, or maps it into memory
// when mapped is set; unmap undoes the mapping, for data that nothing
// points into. A mapped manifest stays as it was when mapped: a new one
// is written to another file, renamed over it (writeManifest).
func readManifest(path string, mapped bool) (data []byte, unmap func(), err error) {
	unmap = func() {}
	if !mapped {
		data, err = os.ReadFile(path)
		return data, unmap, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, unmap, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, unmap, err
	}
	if fi.Size() == 0 || int64(int(fi.Size())) != fi.Size() {
		data, err = os.ReadFile(path)
		return data, unmap, err
	}
	data, err = unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		data, err = os.ReadFile(path) // a file system that cannot map it
		return data, unmap, err
	}
	return data, func() { unix.Munmap(data) }, nil
}

// dropManifest takes the manifest's token out of the database, before a
// refresh changes the sessions table.
func (ix *Index) dropManifest(ctx context.Context) error {
	if _, err := ix.db.ExecContext(ctx, `DELETE FROM meta WHERE key = 'manifest'`); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	return nil
}

// writeManifest writes m to the manifest file with a new token, which it
// returns for the caller to record in the database.
func (ix *Index) writeManifest(m manifest) (string, error) {
	var r [16]byte
	rand.Read(r[:])
	token := hex.EncodeToString(r[:])
	data := append([]byte(manifestMagic+token+"\n"), encodeManifest(m)...)
	path := manifestFile(ix.path)
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("index: manifest: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return "", fmt.Errorf("index: manifest: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("index: manifest: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("index: manifest: %w", err)
	}
	return token, nil
}

// encodeManifest writes m as length-prefixed fields.
func encodeManifest(m manifest) []byte {
	var b []byte
	var list []heldAt
	if m.held != nil {
		list = m.held.list
	}
	b = binary.AppendUvarint(b, uint64(len(list)))
	for _, e := range list {
		k, h := e.k, e.h
		b = appendStr(b, k.cli)
		b = appendStr(b, k.sid)
		b = appendStr(b, k.path)
		b = binary.AppendVarint(b, h.id)
		b = binary.AppendVarint(b, h.fp.size)
		b = binary.AppendVarint(b, h.fp.mtime)
		b = binary.AppendVarint(b, h.fp.inode)
		b = appendStr(b, h.title)
		if h.list == "" {
			b = encodeListed(b, &listed{})
		} else {
			b = append(b, h.list...) // encoded already (encodeListed)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(m.dirs)))
	for dir, l := range m.dirs {
		b = appendStr(b, dir)
		b = binary.AppendVarint(b, l.mtime)
		b = binary.AppendVarint(b, l.at)
		b = binary.AppendUvarint(b, uint64(len(l.names)))
		for i, name := range l.names {
			b = appendStr(b, name)
			b = binary.AppendUvarint(b, uint64(l.types[i]))
		}
	}
	b = binary.AppendUvarint(b, uint64(len(m.stamps)))
	for path, st := range m.stamps {
		b = appendStr(b, path)
		b = appendStr(b, st.key)
		b = binary.AppendVarint(b, st.newest)
		b = binary.AppendVarint(b, st.at)
		b = appendStr(b, st.refs)
	}
	return append(b, m.found...)
}

// appendRef appends r, encoded for a manifest, to b.
func appendRef(b []byte, r *session.Ref) []byte {
	b = appendStr(b, r.CLI)
	b = appendStr(b, r.ID)
	b = appendStr(b, r.Path)
	b = binary.AppendVarint(b, r.Size)
	if r.ModTime.IsZero() {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = binary.AppendVarint(b, r.ModTime.UnixNano())
	}
	b = binary.AppendUvarint(b, r.Inode)
	b = appendStr(b, r.Parent)
	return appendStr(b, r.Title)
}

// ref reads what appendRef wrote into r (its strings point into d's).
func (d *decoder) ref(r *session.Ref) {
	r.CLI, r.ID, r.Path = d.str(), d.str(), d.str()
	r.Size = d.varint()
	r.ModTime = time.Time{}
	if d.byte() == 1 {
		r.ModTime = time.Unix(0, d.varint())
	}
	r.Inode = d.uvarint()
	r.Parent, r.Title = d.str(), d.str()
}

// decodeRefs reads refs appendRef wrote one after another.
func decodeRefs(s string) ([]session.Ref, error) {
	d := decoder{s: s}
	var refs []session.Ref
	for d.s != "" && !d.bad {
		refs = append(refs, session.Ref{})
		d.ref(&refs[len(refs)-1])
	}
	if d.bad {
		return nil, errBadManifest
	}
	return refs, nil
}

// encodeFound appends found, encoded for a manifest, to b.
func encodeFound(b []byte, found []catalog.Found) []byte {
	b = binary.AppendUvarint(b, uint64(len(found)))
	for _, f := range found {
		b = appendStr(b, f.CLI)
		b = binary.AppendUvarint(b, uint64(len(f.Refs)))
		for i := range f.Refs {
			b = appendRef(b, &f.Refs[i])
		}
		b = binary.AppendUvarint(b, uint64(len(f.Warnings)))
		for _, w := range f.Warnings {
			b = appendStr(b, w.Path)
			b = binary.AppendVarint(b, int64(w.Line))
			b = appendStr(b, w.Message)
		}
	}
	return b
}

var errBadManifest = errors.New("a malformed manifest")

// decodeManifest reads what encodeManifest wrote. Its strings point into
// data, which the caller hands over: nothing may change it after. (A copy
// of a 5.4 MB manifest, the 10,000-session corpus's, was 8 of the 49 ms
// its freshness check took: the copy's pages are new to the process.)
func decodeManifest(data []byte) (manifest, error) {
	var m manifest
	d := decoder{s: unsafe.String(unsafe.SliceData(data), len(data))}
	n := d.uvarint()
	if n > uint64(len(d.s)) {
		return manifest{}, errBadManifest
	}
	list := make([]heldAt, n)
	for i := range list {
		e := &list[i]
		e.k = key{cli: d.str(), sid: d.str(), path: d.str()}
		e.h.id = d.varint()
		e.h.fp.size, e.h.fp.mtime, e.h.fp.inode = d.varint(), d.varint(), d.varint()
		e.h.title = d.str()
		e.h.list = d.listed()
	}
	m.held = newHeldSet(list)
	n = d.uvarint()
	if n > uint64(len(d.s)) {
		return manifest{}, errBadManifest
	}
	m.dirs = make(map[string]listing, n)
	for range n {
		dir := d.str()
		l := listing{mtime: d.varint(), at: d.varint()}
		e := d.uvarint()
		if e > uint64(len(d.s)) {
			return manifest{}, errBadManifest
		}
		l.names, l.types = make([]string, e), make([]fs.FileMode, e)
		for i := range e {
			l.names[i], l.types[i] = d.str(), fs.FileMode(d.uvarint())
		}
		m.dirs[dir] = l
	}
	n = d.uvarint()
	if n > uint64(len(d.s)) {
		return manifest{}, errBadManifest
	}
	if n > 0 {
		m.stamps = make(map[string]stamped, n)
	}
	for range n {
		path := d.str()
		m.stamps[path] = stamped{key: d.str(), newest: d.varint(), at: d.varint(), refs: d.str()}
	}
	if d.bad {
		return manifest{}, errBadManifest
	}
	// The rest is what Discover found: checked, not decoded.
	if _, _, err := decodeFound(d.s, false); err != nil {
		return manifest{}, err
	}
	m.found = d.s
	return m, nil
}

// sameFound reports whether s, what encodeFound wrote, says found: a
// refresh compares what Discover found with the manifest's without
// encoding it (2 MB for the 10,000-session corpus) or decoding the
// manifest's.
func sameFound(s string, found []catalog.Found) bool {
	d := decoder{s: s}
	if d.uvarint() != uint64(len(found)) {
		return false
	}
	for _, f := range found {
		if d.str() != f.CLI || d.uvarint() != uint64(len(f.Refs)) {
			return false
		}
		for _, r := range f.Refs {
			if d.str() != r.CLI || d.str() != r.ID || d.str() != r.Path || d.varint() != r.Size {
				return false
			}
			if r.ModTime.IsZero() {
				if d.byte() != 0 {
					return false
				}
			} else if d.byte() != 1 || d.varint() != r.ModTime.UnixNano() {
				return false
			}
			if d.uvarint() != r.Inode || d.str() != r.Parent || d.str() != r.Title {
				return false
			}
		}
		if d.uvarint() != uint64(len(f.Warnings)) {
			return false
		}
		for _, w := range f.Warnings {
			if d.str() != w.Path || d.varint() != int64(w.Line) || d.str() != w.Message {
				return false
			}
		}
	}
	return !d.bad && d.s == ""
}

// decodeFound reads what encodeFound wrote, and how many CLIs' finds it
// holds. Unless keep is set it only checks it, and returns no finds.
func decodeFound(s string, keep bool) (int, []catalog.Found, error) {
	d := decoder{s: s}
	n := d.uvarint()
	if n > uint64(len(d.s)) {
		return 0, nil, errBadManifest
	}
	var found []catalog.Found
	if keep && n > 0 {
		found = make([]catalog.Found, n)
	}
	var f catalog.Found
	var r session.Ref
	var w session.Warning
	for i := range n {
		fp := &f
		if keep {
			fp = &found[i]
		}
		fp.CLI = d.str()
		e := d.uvarint()
		if e > uint64(len(d.s)) {
			return 0, nil, errBadManifest
		}
		if keep {
			fp.Refs = make([]session.Ref, e)
		}
		for j := range e {
			rp := &r
			if keep {
				rp = &fp.Refs[j]
			}
			d.ref(rp)
		}
		e = d.uvarint()
		if e > uint64(len(d.s)) {
			return 0, nil, errBadManifest
		}
		if keep && e > 0 {
			fp.Warnings = make([]session.Warning, e)
		}
		for j := range e {
			wp := &w
			if keep {
				wp = &fp.Warnings[j]
			}
			wp.Path, wp.Line, wp.Message = d.str(), int(d.varint()), d.str()
		}
	}
	if d.bad || d.s != "" {
		return 0, nil, errBadManifest
	}
	return int(n), found, nil
}

// decoder reads a manifest's fields; bad is set once one is malformed,
// and every read after it gives zero.
type decoder struct {
	s   string
	bad bool
}

// appendStr appends s to b, its length first.
func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// listed passes over what encodeListed wrote, and returns it as it is:
// it is decoded only when a listing asks for it (decodeListed).
func (d *decoder) listed() string {
	start := d.s
	d.readListed()
	if d.bad {
		return ""
	}
	return start[:len(start)-len(d.s)]
}

// readListed reads what encodeListed wrote (its strings point into d's).
func (d *decoder) readListed() listed {
	var l listed
	l.project, l.title = d.str(), d.str()
	l.start, l.end, l.messages, l.turns, l.skipped, l.size = d.varint(), d.varint(), d.varint(), d.varint(), d.varint(), d.varint()
	l.parent, l.warnings = d.str(), d.str()
	return l
}

// encodeListed appends l, encoded for a manifest, to b.
func encodeListed(b []byte, l *listed) []byte {
	b = appendStr(b, l.project)
	b = appendStr(b, l.title)
	for _, n := range []int64{l.start, l.end, l.messages, l.turns, l.skipped, l.size} {
		b = binary.AppendVarint(b, n)
	}
	b = appendStr(b, l.parent)
	b = appendStr(b, l.warnings)
	return b
}

// decodeListed reads what encodeListed wrote.
func decodeListed(s string) (listed, error) {
	d := decoder{s: s}
	l := d.readListed()
	if d.bad || d.s != "" {
		return listed{}, errBadManifest
	}
	return l, nil
}

func (d *decoder) uvarint() uint64 {
	var x uint64
	for i, shift := 0, uint(0); i < len(d.s) && i < binary.MaxVarintLen64; i, shift = i+1, shift+7 {
		c := d.s[i]
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			d.s = d.s[i+1:]
			return x
		}
	}
	d.bad, d.s = true, ""
	return 0
}

func (d *decoder) byte() byte {
	if d.s == "" {
		d.bad = true
		return 0
	}
	c := d.s[0]
	d.s = d.s[1:]
	return c
}

func (d *decoder) varint() int64 { return unzigzag(d.uvarint()) }

func (d *decoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.s)) {
		d.bad, d.s = true, ""
		return ""
	}
	v := d.s[:n]
	d.s = d.s[n:]
	return v
}

// racy is how close to its listing a folder's modification time may be
// for the listing to be trusted later: a file system stamps times at a
// coarse tick, so a folder changed in the tick it was listed in can keep
// the time it was listed with.
const racy = 2 * time.Second

// dirCache lists folders for Discover (session.Env.Dirs): a folder whose
// modification time is the one it had when last listed (and not too
// close to that listing) is answered from the manifest, with a stat in
// place of a listing. What it answers is kept for the next manifest.
type dirCache struct {
	old map[string]listing
	now int64

	mu     sync.Mutex
	new    map[string]listing
	listed int // folders listed anew
}

func newDirCache(old map[string]listing) *dirCache {
	return &dirCache{old: old, now: time.Now().UnixNano(), new: make(map[string]listing, len(old))}
}

// ReadDir lists dir: the same entries, order and errors as os.ReadDir.
func (c *dirCache) ReadDir(dir string) ([]fs.DirEntry, error) {
	// unix.Stat, not os.Stat: an fs.FileInfo is an allocation of over
	// 200 bytes, for each folder of every store.
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
		mtime := st.Mtim.Nano()
		if l, ok := c.old[dir]; ok && l.mtime == mtime && l.at-l.mtime > int64(racy) {
			c.keep(dir, l, false)
			// One allocation for the entries (each made an interface value
			// of its own was 3,700 allocations on the 10,000-session corpus).
			out := make([]fs.DirEntry, len(l.names))
			es := make([]dirEntry, len(l.names))
			for i, name := range l.names {
				es[i] = dirEntry{dir: dir, name: name, typ: l.types[i]}
				out[i] = &es[i]
			}
			return out, nil
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return entries, err
		}
		l := listing{mtime: mtime, at: c.now, names: make([]string, len(entries)), types: make([]fs.FileMode, len(entries))}
		for i, e := range entries {
			l.names[i], l.types[i] = e.Name(), e.Type()
		}
		c.keep(dir, l, true)
		return entries, nil
	}
	return os.ReadDir(dir)
}

func (c *dirCache) keep(dir string, l listing, listed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.new[dir] = l
	if listed {
		c.listed++
	}
}

// dirEntry is a folder entry from the manifest.
type dirEntry struct {
	dir, name string
	typ       fs.FileMode
}

func (e *dirEntry) Name() string               { return e.name }
func (e *dirEntry) IsDir() bool                { return e.typ.IsDir() }
func (e *dirEntry) Type() fs.FileMode          { return e.typ }
func (e *dirEntry) Info() (fs.FileInfo, error) { return os.Lstat(filepath.Join(e.dir, e.name)) }
func (e *dirEntry) String() string             { return fs.FormatDirEntry(e) }

// stampCache answers Discover for the files it would read to list their
// sessions, a database or OpenCode's old session info files
// (session.Env.Unchanged), from the sessions the manifest says it found in
// each, while the file keeps the stamp it had; and keeps the stamps it is
// asked with for the next manifest. As for a folder, a stamp taken within
// racy of the file's last change does not tell: the file is read again.
type stampCache struct {
	old map[string]stamped

	mu  sync.Mutex
	new map[string]stamped // refs "" until filled (fill)
	// queried are the paths of new whose sessions Discover read again.
	queried map[string]bool
}

func newStampCache(old map[string]stamped) *stampCache {
	return &stampCache{old: old, new: make(map[string]stamped), queried: make(map[string]bool)}
}

// Unchanged is session.Env.Unchanged.
func (c *stampCache) Unchanged(path string, stamp session.Stamp) ([]session.Ref, bool) {
	at := time.Now().UnixNano()
	c.mu.Lock()
	defer c.mu.Unlock()
	if was, ok := c.old[path]; ok && was.key == stamp.Key && was.at-was.newest > int64(racy) {
		if refs, err := decodeRefs(was.refs); err == nil {
			c.new[path] = was
			return refs, true
		}
	}
	c.new[path] = stamped{key: stamp.Key, newest: stamp.Newest.UnixNano(), at: at}
	c.queried[path] = true
	return nil, false
}

// fill records, for each file read, the sessions Discover found in it;
// one it warned of is not kept (it is read again next time).
func (c *stampCache) fill(found []catalog.Found) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queried) == 0 {
		return
	}
	refs := make(map[string][]byte, len(c.queried))
	for _, f := range found {
		for _, w := range f.Warnings {
			if c.queried[w.Path] {
				delete(c.new, w.Path)
			}
		}
		for i := range f.Refs {
			if p := f.Refs[i].Path; c.queried[p] {
				refs[p] = appendRef(refs[p], &f.Refs[i])
			}
		}
	}
	for p := range c.queried {
		if st, ok := c.new[p]; ok {
			st.refs = string(refs[p])
			c.new[p] = st
		}
	}
}
