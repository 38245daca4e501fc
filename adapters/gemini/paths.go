package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// Root returns Gemini CLI's store: $GEMINI_CLI_HOME/.gemini, or
// ~/.gemini.
func Root(env session.Env) string {
	if d := env.Get("GEMINI_CLI_HOME"); d != "" {
		return filepath.Join(d, ".gemini")
	}
	if env.Home == "" {
		return ""
	}
	return filepath.Join(env.Home, ".gemini")
}

// Roots is where Discover looks without listing through env.Dirs: the
// store (it lists tmp/ in it).
func Roots(env session.Env) []string { return storefile.Roots(Root(env)) }

// ValidID reports whether id can name a session: the characters Gemini CLI
// keeps in file names (it replaces any other with '_'), plus '.', so no id
// from input can reach outside the store or act as a glob pattern.
func ValidID(id string) bool {
	if id == "" || id == "." || id == ".." || len(id) > 255 {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// sanitize is the CLI's sanitizeFilenamePart: the name a session id gets
// in paths.
func sanitize(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

// isSessionFile reports whether name is a main session file, as the CLI
// lists them: session-*.json or session-*.jsonl.
func isSessionFile(name string) bool {
	return strings.HasPrefix(name, "session-") && isChatFile(name)
}

func isChatFile(name string) bool {
	return strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".json")
}

// layout is where a file sits in the store.
type layout struct {
	project string // tmp/<slug>
	parent  string // the parent session's folder name, for a subagent
	logs    bool   // a logs.json prompt history
}

// placeOf reads a path's place in the store from its shape:
// tmp/<slug>/chats/<file>, tmp/<slug>/chats/<parent>/<file>, or
// tmp/<slug>/logs.json.
func placeOf(path string) layout {
	dir, name := filepath.Split(path)
	dir = filepath.Clean(dir)
	if name == "logs.json" {
		return layout{project: dir, logs: true}
	}
	if filepath.Base(dir) == "chats" {
		return layout{project: filepath.Dir(dir)}
	}
	if up := filepath.Dir(dir); filepath.Base(up) == "chats" {
		return layout{project: filepath.Dir(up), parent: filepath.Base(dir)}
	}
	return layout{}
}

// ProjectOf returns the project directory of a session file in the store:
// what tmp/<slug>/.project_root holds, or else the path projects.json maps
// to the slug. It returns "" for a file outside the store's layout or a
// slug nothing names (a legacy hash folder).
func ProjectOf(path string) string {
	pl := placeOf(path)
	if pl.project == "" {
		return ""
	}
	if b, err := storefile.ReadFile(filepath.Join(pl.project, ".project_root")); err == nil {
		if p := strings.TrimSpace(string(b)); p != "" {
			return p
		}
	}
	slug := filepath.Base(pl.project)
	root := filepath.Dir(filepath.Dir(pl.project)) // .gemini
	b, err := storefile.ReadFile(filepath.Join(root, "projects.json"))
	if err != nil {
		return ""
	}
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if json.Unmarshal(b, &reg) != nil {
		return ""
	}
	var found []string
	for p, s := range reg.Projects {
		if s == slug {
			found = append(found, p)
		}
	}
	if len(found) != 1 {
		return "" // none, or no way to tell
	}
	return found[0]
}

// Discover lists the session files in Gemini CLI's store: every
// tmp/<slug>/chats/session-*.json[l], subagent sessions in
// chats/<parent id>/, and sessions that only logs.json remembers. A session
// id is read from the file (the name holds only its first 8 characters).
// When several files of one project carry the same session id (the
// "orphan" a resume leaves behind, or a legacy .json beside its .jsonl
// twin), only the one the CLI would resume is listed. Folders it cannot
// read are warnings; a missing store is not an error.
func Discover(env session.Env) ([]session.Ref, []session.Warning) {
	root := Root(env)
	if root == "" {
		return nil, nil
	}
	d := discoverer{env: env}
	tmp := filepath.Join(root, "tmp")
	for _, p := range d.readDir(tmp) {
		if !p.IsDir() {
			continue
		}
		project := filepath.Join(tmp, p.Name())
		d.scanProject(project)
	}
	return d.refs, d.warns
}

type discoverer struct {
	refs  []session.Ref
	warns []session.Warning
	env   session.Env
}

func (d *discoverer) readDir(dir string) []os.DirEntry {
	entries, err := storefile.ReadDir(d.env, dir)
	if err != nil && !os.IsNotExist(err) {
		d.warns = append(d.warns, session.Warning{Path: dir, Message: "cannot read folder: " + unwrapPathError(err)})
	}
	return entries
}

func (d *discoverer) scanProject(project string) {
	chats := filepath.Join(project, "chats")
	var refs []session.Ref
	for _, e := range d.readDir(chats) {
		p := filepath.Join(chats, e.Name())
		if e.IsDir() && !isSessionFile(e.Name()) {
			for _, s := range d.readDir(p) {
				if isChatFile(s.Name()) {
					if r, ok := d.ref(filepath.Join(p, s.Name()), e.Name()); ok {
						refs = append(refs, r)
					}
				}
			}
			continue
		}
		if isSessionFile(e.Name()) {
			if r, ok := d.ref(p, ""); ok {
				refs = append(refs, r)
			}
		}
	}
	refs = dedupe(refs)
	d.refs = append(d.refs, refs...)
	logs := filepath.Join(project, "logs.json")
	info, err := storefile.Check(logs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		d.warns = append(d.warns, storefile.Skipped(logs, err))
	}
	if err == nil {
		have := make(map[string]bool, len(refs))
		for _, r := range refs {
			have[r.ID] = true
		}
		ids, err := logSessions(logs)
		if err != nil {
			d.warns = append(d.warns, session.Warning{Path: logs, Message: "cannot read: " + err.Error()})
		}
		for _, id := range ids {
			if !have[id] {
				d.refs = append(d.refs, storefile.RefAt(session.Gemini, id, logs, info))
			}
		}
	}
}

// ref makes the Ref of the session file at path. One that is not a
// regular file (a folder, a named pipe) is reported and skipped, never
// opened.
func (d *discoverer) ref(path, parent string) (session.Ref, bool) {
	info, err := storefile.Check(path)
	if err != nil {
		d.warns = append(d.warns, storefile.Skipped(path, err))
		return session.Ref{}, false
	}
	// The id is read from the file, unless an earlier discovery read it
	// from the file as it still is.
	ref := storefile.RefAt(session.Gemini, "", path, info)
	ok := false
	if d.env.Known != nil {
		ref.ID, ok = d.env.Known(ref)
	}
	if !ok {
		ref.ID = IDOf(path)
	}
	ref.Parent = parent
	return ref, true
}

// dedupe keeps one file per session id and folder: of files that say the
// same id, the ones with a conversation, and of those the latest.
func dedupe(refs []session.Ref) []session.Ref {
	type key struct{ dir, id string }
	groups := map[key][]int{}
	for i, r := range refs {
		k := key{filepath.Dir(r.Path), r.ID}
		groups[k] = append(groups[k], i)
	}
	drop := map[int]bool{}
	for _, idx := range groups {
		if len(idx) < 2 {
			continue
		}
		best, bestScore := -1, scored{}
		for _, i := range idx {
			sc := score(refs[i])
			if best < 0 || bestScore.less(sc) {
				best, bestScore = i, sc
			}
		}
		for _, i := range idx {
			if i != best {
				drop[i] = true
			}
		}
	}
	out := refs[:0]
	for i, r := range refs {
		if !drop[i] {
			out = append(out, r)
		}
	}
	return out
}

// scored ranks files of one session: a conversation beats none, then the
// later last update wins (as the CLI's listing picks).
type scored struct {
	content bool
	last    int64
}

func (a scored) less(b scored) bool {
	if a.content != b.content {
		return b.content
	}
	return a.last < b.last
}

func score(r session.Ref) scored {
	sum, err := SummarizeFile(r, session.DetailList)
	if err != nil {
		return scored{last: r.ModTime.UnixNano()}
	}
	last := sum.End
	if last.IsZero() {
		last = r.ModTime
	}
	return scored{content: sum.Turns > 0 || sum.Messages > 0, last: last.UnixNano()}
}

// IDOf returns the session id a file holds: its metadata's sessionId, or
// the first "$set" of one among its first records, or (for a file that
// names none) the file name without its extension.
func IDOf(path string) string {
	stem := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".jsonl"), ".json")
	if placeOf(path).logs {
		return ""
	}
	f, err := storefile.Open(path)
	if err != nil {
		return stem
	}
	defer f.Close()
	if id := readID(f); id != "" {
		return id
	}
	return stem
}

// idProbe is how many records readID looks at.
const idProbe = 64

func readID(r io.Reader) string {
	head, first, err := peekFirstLine(r)
	if err != nil {
		return ""
	}
	r = io.MultiReader(bytes.NewReader(head), r)
	if first == "{" {
		return legacyID(r)
	}
	s := jsonl.GetScanner(r)
	defer jsonl.PutScanner(s)
	for n := 0; n < idProbe && s.NextLine(); n++ {
		if id := recordID(s); id != "" {
			return id
		}
	}
	return ""
}

// recordID returns the session id a metadata or "$set" record names, or
// "" for any other record.
func recordID(s *jsonl.Scanner) string {
	if !s.BeginObject() {
		return ""
	}
	var sid, setSID string
	meta, msg, rewind, set := false, false, false, false
	for s.NextKey() {
		switch string(s.Key()) {
		case "sessionId":
			if s.Kind() == '"' {
				sid = string(s.String(1024))
			} else {
				s.Skip()
			}
		case "projectHash":
			meta = s.Kind() == '"'
			s.Skip()
		case "$set":
			setSID, set = setID(s)
		case "id":
			msg = s.Kind() == '"'
			s.Skip()
		case "$rewindTo":
			rewind = s.Kind() == '"'
			s.Skip()
		default:
			s.Skip()
		}
	}
	s.Finish()
	switch {
	case s.Failed() || rewind || msg:
		return ""
	case set:
		return setSID
	case meta:
		return sid
	}
	return ""
}

// setID reads the sessionId of a "$set" object, and whether it is one.
func setID(s *jsonl.Scanner) (string, bool) {
	if s.Kind() != '{' {
		s.Skip()
		return "", false
	}
	s.BeginObject()
	id := ""
	for s.NextKey() {
		if string(s.Key()) == "sessionId" && s.Kind() == '"' {
			id = string(s.String(1024))
		} else {
			s.Skip()
		}
	}
	return id, true
}

// legacyID reads the top-level sessionId of a legacy session document.
func legacyID(r io.Reader) string {
	dec := json.NewDecoder(r)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return ""
		}
		if tok == "sessionId" {
			return str(raw)
		}
	}
	return ""
}

// logSessions lists the session ids of a logs.json prompt history, each
// once, in order of first appearance.
func logSessions(path string) ([]string, error) {
	f, err := storefile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		if err == nil {
			err = fmt.Errorf("not a list of prompts")
		}
		return nil, err
	}
	seen := map[string]bool{}
	var ids []string
	for dec.More() {
		var e struct {
			SessionID json.RawMessage `json:"sessionId"`
		}
		if err := dec.Decode(&e); err != nil {
			return ids, err
		}
		if id := str(e.SessionID); id != "" && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, nil
}

func unwrapPathError(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// Locate finds the file of the session with the given id, as the CLI does
// for --resume: any session file of any project whose records carry that
// id (of several in one folder, the one Discover lists), a subagent's file,
// or the logs.json that alone remembers it.
func Locate(env session.Env, id string) (session.Ref, error) {
	if !ValidID(id) {
		return session.Ref{}, fmt.Errorf("gemini: invalid session id %q: %w", id, session.ErrNotFound)
	}
	root := Root(env)
	if root == "" {
		return session.Ref{}, fmt.Errorf("gemini: no home directory (set GEMINI_CLI_HOME or HOME): %w", session.ErrNotFound)
	}
	refs, _ := Discover(env)
	var found []session.Ref
	for _, r := range refs {
		if r.ID == id {
			found = append(found, r)
		}
	}
	// A chat file wins over the logs.json of another project.
	if len(found) > 1 {
		var files []session.Ref
		for _, r := range found {
			if !placeOf(r.Path).logs {
				files = append(files, r)
			}
		}
		if len(files) > 0 {
			found = files
		}
	}
	switch len(found) {
	case 0:
		return session.Ref{}, fmt.Errorf("gemini: session %s in %s: %w", id, root, session.ErrNotFound)
	case 1:
		return found[0], nil
	}
	paths := make([]string, len(found))
	for i, r := range found {
		paths[i] = r.Path
	}
	sort.Strings(paths)
	return session.Ref{}, fmt.Errorf("gemini: session %s matches %d files (%s): %w", id, len(found), strings.Join(paths, ", "), session.ErrAmbiguous)
}
