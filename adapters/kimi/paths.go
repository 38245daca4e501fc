package kimi

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// Root returns Kimi Code's home: $KIMI_CODE_HOME, or ~/.kimi-code.
func Root(env session.Env) string {
	if d := env.Get("KIMI_CODE_HOME"); d != "" {
		return d
	}
	if env.Home == "" {
		return ""
	}
	return filepath.Join(env.Home, ".kimi-code")
}

// LegacyRoot returns the legacy kimi-cli's share dir: $KIMI_SHARE_DIR, or
// ~/.kimi.
func LegacyRoot(env session.Env) string {
	if d := env.Get("KIMI_SHARE_DIR"); d != "" {
		return d
	}
	if env.Home == "" {
		return ""
	}
	return filepath.Join(env.Home, ".kimi")
}

// Roots is where Discover looks without listing through env.Dirs: Kimi
// Code's home and the legacy share dir.
func Roots(env session.Env) []string { return storefile.Roots(Root(env), LegacyRoot(env)) }

// WorkDirKey returns the folder Kimi Code (v2 engine) keeps the sessions of
// the working directory workDir in, under sessions/: wd_<slug>_<hash>,
// where hash is the first 12 hex digits of the SHA-256 of the normalised
// path (backslashes made slashes, trailing slashes removed) and slug its
// last element, lowercased, with every run of characters other than
// [a-z0-9._-] made "-", trimmed of "-" and cut to 40 characters
// ("workspace" when nothing is left).
func WorkDirKey(workDir string) string {
	norm := strings.TrimRight(strings.ReplaceAll(workDir, `\`, "/"), "/")
	base := norm[strings.LastIndexByte(norm, '/')+1:]
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(base) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	slug := strings.Trim(b.String(), "-")
	if len(slug) > 40 {
		slug = strings.Trim(slug[:40], "-")
	}
	if slug == "" || slug == "." || slug == ".." {
		slug = "workspace"
	}
	sum := sha256.Sum256([]byte(norm))
	return "wd_" + slug + "_" + hex.EncodeToString(sum[:])[:12]
}

// LegacyBucket returns the folder the legacy kimi-cli keeps the sessions of
// workDir in, under sessions/: the MD5 of the path, prefixed with
// "<kaos>_" for a non-local KAOS (kimi.md §2.2).
func LegacyBucket(workDir, kaos string) string {
	sum := md5.Sum([]byte(workDir))
	h := hex.EncodeToString(sum[:])
	if kaos != "" && kaos != "local" {
		return kaos + "_" + h
	}
	return h
}

// ValidID reports whether id can name a Kimi session: a session folder's
// name, or <session>/<agent> for a subagent, each made only of the
// characters Kimi uses in ids ([A-Za-z0-9._-], not "." or ".."), so no id
// from input can reach outside the store or act as a glob pattern.
func ValidID(id string) bool {
	sid, agent, sub := strings.Cut(id, "/")
	return validName(sid) && (!sub || validName(agent))
}

func validName(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 255 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Store kinds.
const (
	storeNone   = iota
	storeCode   // Kimi Code: sessions/<bucket>/<id>/agents/<agent>/wire.jsonl
	storeLegacy // kimi-cli: sessions/<bucket>/<id>/{wire,context}.jsonl
)

// place is where a session file sits in one of the two stores, worked out
// from its path alone.
type place struct {
	store int
	// root is the store's home, when the file sits at its usual depth.
	root string
	// dir is the session's folder ("" for a legacy flat file).
	dir    string
	bucket string
	// sid is the session's id; agent is the subagent's, "" for the main
	// agent.
	sid, agent string
}

// id is the id stead lists the file under.
func (p place) id() string {
	if p.agent == "" {
		return p.sid
	}
	return p.sid + "/" + p.agent
}

// placeOf works out which store and session a file belongs to from its
// path.
func placeOf(path string) place {
	path = filepath.Clean(path)
	name := filepath.Base(path)
	d1 := filepath.Dir(path)
	d2 := filepath.Dir(d1)
	up := func(dir string, n int) string {
		for range n {
			dir = filepath.Dir(dir)
		}
		return dir
	}
	rootOf := func(bucketDir string) string {
		if filepath.Base(filepath.Dir(bucketDir)) == "sessions" {
			return up(bucketDir, 2)
		}
		return ""
	}
	switch {
	case name == "wire.jsonl" && filepath.Base(d2) == "agents":
		p := place{store: storeCode, dir: filepath.Dir(d2), agent: filepath.Base(d1)}
		if p.agent == "main" {
			p.agent = ""
		}
		p.sid = filepath.Base(p.dir)
		p.bucket = filepath.Base(filepath.Dir(p.dir))
		p.root = rootOf(filepath.Dir(p.dir))
		return p
	case isLegacyFile(name) && filepath.Base(d2) == "subagents":
		p := place{store: storeLegacy, dir: filepath.Dir(d2), agent: filepath.Base(d1)}
		p.sid = filepath.Base(p.dir)
		p.bucket = filepath.Base(filepath.Dir(p.dir))
		p.root = rootOf(filepath.Dir(p.dir))
		return p
	case isLegacyFile(name):
		p := place{store: storeLegacy, dir: d1, sid: filepath.Base(d1), bucket: filepath.Base(d2)}
		p.root = rootOf(d2)
		return p
	case strings.HasSuffix(name, ".jsonl") && filepath.Base(d2) == "sessions":
		// The oldest kimi-cli kept the context as sessions/<bucket>/<id>.jsonl.
		return place{store: storeLegacy, sid: strings.TrimSuffix(name, ".jsonl"), bucket: filepath.Base(d1), root: filepath.Dir(d2)}
	}
	return place{sid: strings.TrimSuffix(name, filepath.Ext(name))}
}

// isLegacyFile reports whether name is one of a legacy session's files:
// wire.jsonl, context.jsonl or a rotated context_<n>.jsonl.
func isLegacyFile(name string) bool {
	return name == "wire.jsonl" || name == "context.jsonl" || strings.HasPrefix(name, "context_") && strings.HasSuffix(name, ".jsonl")
}

// legacyFile returns the file a legacy session folder is read from: its
// wire.jsonl, the lossless event log (seed 000 §4.4; kimi.md §2.3:
// context.jsonl holds only the context since the last /clear or
// compaction), unless the wire holds no record beyond its metadata line,
// then context.jsonl. It returns "" when the folder has neither.
func legacyFile(dir string) string {
	wire := filepath.Join(dir, "wire.jsonl")
	ctx := filepath.Join(dir, "context.jsonl")
	hasWire := hasRecords(wire)
	if hasWire {
		return wire
	}
	if isFile(ctx) {
		return ctx
	}
	if isFile(wire) {
		return wire
	}
	return ""
}

// hasRecords reports whether the wire file at path holds a record other
// than its metadata line, reading only its start.
func hasRecords(path string) bool {
	f, err := storefile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 4<<10)
	n, _ := io.ReadFull(f, buf)
	for line := range bytes.Lines(buf[:n]) {
		if t := bytes.TrimSpace(line); len(t) > 0 && !isMetadataLine(t) {
			return true
		}
	}
	return false
}

func isMetadataLine(b []byte) bool {
	return bytes.HasPrefix(b, []byte(`{"type": "metadata"`)) || bytes.HasPrefix(b, []byte(`{"type":"metadata"`))
}

func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

// Discover lists the session files of both Kimi stores: every agent's
// wire.jsonl of every Kimi Code session (subagents as <session>/<agent>,
// with Parent set) and every legacy kimi-cli session's wire.jsonl or
// context.jsonl (see legacyFile), subagents likewise. Folders it cannot
// read are reported as warnings; a missing store is not an error.
func Discover(env session.Env) ([]session.Ref, []session.Warning) {
	d := discoverer{env: env}
	if root := Root(env); root != "" {
		d.code(root)
	}
	if root := LegacyRoot(env); root != "" {
		d.legacy(root)
	}
	return d.refs, d.warns
}

type discoverer struct {
	env   session.Env
	refs  []session.Ref
	warns []session.Warning
}

func (d *discoverer) readDir(dir string) []os.DirEntry {
	entries, err := storefile.ReadDir(d.env, dir)
	if err != nil && !os.IsNotExist(err) {
		d.warns = append(d.warns, session.Warning{Path: dir, Message: "cannot read folder: " + unwrapPathError(err)})
	}
	return entries
}

func (d *discoverer) buckets(root string) []string {
	sessions := filepath.Join(root, "sessions")
	var dirs []string
	for _, b := range d.readDir(sessions) {
		// .index-dirty and .index-cache are Kimi Code's bookkeeping.
		if b.IsDir() && !strings.HasPrefix(b.Name(), ".") {
			dirs = append(dirs, filepath.Join(sessions, b.Name()))
		}
	}
	return dirs
}

func (d *discoverer) code(root string) {
	for _, bucket := range d.buckets(root) {
		for _, s := range d.readDir(bucket) {
			if !s.IsDir() || !validName(s.Name()) {
				continue
			}
			agents := filepath.Join(bucket, s.Name(), "agents")
			for _, a := range d.readDir(agents) {
				if !a.IsDir() || !validName(a.Name()) {
					continue
				}
				id, parent := s.Name(), ""
				if a.Name() != "main" {
					id, parent = s.Name()+"/"+a.Name(), s.Name()
				}
				d.add(filepath.Join(agents, a.Name(), "wire.jsonl"), id, parent)
			}
		}
	}
}

func (d *discoverer) legacy(root string) {
	for _, bucket := range d.buckets(root) {
		for _, s := range d.readDir(bucket) {
			name := s.Name()
			if !s.IsDir() {
				if stem := strings.TrimSuffix(name, ".jsonl"); stem != name && validName(stem) {
					d.add(filepath.Join(bucket, name), stem, "")
				}
				continue
			}
			if !validName(name) {
				continue
			}
			dir := filepath.Join(bucket, name)
			if f := legacyFile(dir); f != "" {
				d.add(f, name, "")
			} else {
				d.special(filepath.Join(dir, "wire.jsonl"), filepath.Join(dir, "context.jsonl"))
			}
			subs := filepath.Join(dir, "subagents")
			if !isDir(subs) {
				continue
			}
			for _, a := range d.readDir(subs) {
				if a.IsDir() && validName(a.Name()) {
					sub := filepath.Join(subs, a.Name())
					if f := legacyFile(sub); f != "" {
						d.add(f, name+"/"+a.Name(), name)
					} else {
						d.special(filepath.Join(sub, "wire.jsonl"), filepath.Join(sub, "context.jsonl"))
					}
				}
			}
		}
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// add adds the session file at path, when there is one. One that is not
// a regular file (a folder, a named pipe) is reported and skipped, never
// opened.
func (d *discoverer) add(path, id, parent string) {
	info, err := storefile.Check(path)
	if err != nil {
		if !os.IsNotExist(err) {
			d.warns = append(d.warns, storefile.Skipped(path, err))
		}
		return
	}
	ref := storefile.RefAt(session.Kimi, id, path, info)
	ref.Parent = parent
	d.refs = append(d.refs, ref)
}

// special reports those of paths, where session files should be, that
// exist but are not regular files.
func (d *discoverer) special(paths ...string) {
	for _, p := range paths {
		if _, err := storefile.Check(p); errors.Is(err, storefile.ErrNotRegular) {
			d.warns = append(d.warns, storefile.Skipped(p, err))
		}
	}
}

func unwrapPathError(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// Locate finds the session with the given id in either store: a Kimi Code
// session (session_<uuid>, or ses_<uuid> when migrated) or a legacy
// kimi-cli one (a UUID); <session>/<agent> names a subagent. The Ref names
// the file Open decodes.
func Locate(env session.Env, id string) (session.Ref, error) {
	if !ValidID(id) {
		return session.Ref{}, fmt.Errorf("kimi: invalid session id %q: %w", id, session.ErrNotFound)
	}
	sid, agent, _ := strings.Cut(id, "/")
	if agent == "main" {
		agent, id = "", sid
	}
	code, legacy := Root(env), LegacyRoot(env)
	if code == "" && legacy == "" {
		return session.Ref{}, fmt.Errorf("kimi: no home directory (set KIMI_CODE_HOME, KIMI_SHARE_DIR or HOME): %w", session.ErrNotFound)
	}
	var found []string
	if code != "" {
		a := agent
		if a == "" {
			a = "main"
		}
		m, _ := filepath.Glob(filepath.Join(code, "sessions", "*", sid, "agents", a, "wire.jsonl"))
		found = append(found, m...)
	}
	if legacy != "" {
		pattern := filepath.Join(legacy, "sessions", "*", sid)
		if agent != "" {
			pattern = filepath.Join(pattern, "subagents", agent)
		}
		dirs, _ := filepath.Glob(pattern)
		for _, dir := range dirs {
			if !isDir(dir) {
				continue
			}
			if f := legacyFile(dir); f != "" {
				found = append(found, f)
			} else if w := filepath.Join(dir, "wire.jsonl"); exists(w) {
				found = append(found, w) // not a regular file: reported below
			}
		}
		if agent == "" {
			m, _ := filepath.Glob(filepath.Join(legacy, "sessions", "*", sid+".jsonl"))
			found = append(found, m...)
		}
	}
	found, skipped := storefile.Regular(found)
	switch {
	case len(found) == 0 && skipped != nil:
		return session.Ref{}, fmt.Errorf("kimi: session %s: %w: %w", id, skipped, session.ErrNotFound)
	case len(found) == 0:
		return session.Ref{}, fmt.Errorf("kimi: session %s in %s: %w", id, strings.Join(nonEmpty(code, legacy), " or "), session.ErrNotFound)
	case len(found) == 1:
		ref := session.Ref{CLI: session.Kimi, ID: id, Path: found[0]}
		if info, err := os.Stat(found[0]); err == nil {
			ref.Size, ref.ModTime = info.Size(), info.ModTime()
		}
		if agent != "" {
			ref.Parent = sid
		}
		return ref, nil
	}
	return session.Ref{}, fmt.Errorf("kimi: session %s matches %d files (%s): %w", id, len(found), strings.Join(found, ", "), session.ErrAmbiguous)
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
