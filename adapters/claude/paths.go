package claude

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// maxDirName is where Claude Code cuts an encoded folder name.
const maxDirName = 200

// EncodeProjectDir returns the folder name Claude Code uses under projects/
// for the working directory cwd. cwd must already be the physical path
// (symlinks resolved, as Claude resolves them); see ProjectDir.
//
// Every UTF-16 code unit that is not an ASCII letter or digit becomes '-'
// (so a character outside the BMP becomes "--"). A name longer than 200
// characters is cut to 200 and suffixed with "-" and the base-36 absolute
// value of the Java String.hashCode of cwd.
func EncodeProjectDir(cwd string) string {
	units := utf16.Encode([]rune(cwd))
	var b strings.Builder
	b.Grow(len(units))
	for _, u := range units {
		if u < 128 && isAlnum(byte(u)) {
			b.WriteByte(byte(u))
		} else {
			b.WriteByte('-')
		}
	}
	enc := b.String()
	if len(enc) <= maxDirName {
		return enc
	}
	var h int32
	for _, u := range units {
		h = 31*h + int32(u)
	}
	abs := int64(h)
	if abs < 0 {
		abs = -abs
	}
	return enc[:maxDirName] + "-" + strconv.FormatInt(abs, 36)
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// ProjectDir returns the folder under root/projects where Claude Code
// stores sessions started in cwd, resolving symlinks in cwd when it exists.
func ProjectDir(root, cwd string) string {
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	return filepath.Join(root, "projects", EncodeProjectDir(cwd))
}

// Root returns Claude Code's config directory: $CLAUDE_CONFIG_DIR, or
// ~/.claude.
func Root(env session.Env) string {
	if d := env.Get("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	if env.Home == "" {
		return ""
	}
	return filepath.Join(env.Home, ".claude")
}

// Roots is where Discover looks without listing through env.Dirs: the
// config directory (it lists projects/ and sessions/ in it).
func Roots(env session.Env) []string { return storefile.Roots(Root(env)) }

// decodeBase64Dir decodes a project folder named with the seed's base64url
// scheme, returning the project path it names, or "".
func decodeBase64Dir(name string) string {
	if name == "" || strings.HasPrefix(name, "-") {
		return ""
	}
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding} {
		b, err := enc.DecodeString(name)
		if err != nil {
			continue
		}
		p := string(b)
		if strings.HasPrefix(p, "/") || (len(p) > 2 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')) {
			return p
		}
	}
	return ""
}

// Discover lists the session files in Claude Code's store. Folders it
// cannot read are reported as warnings; a missing store is not an error.
func Discover(env session.Env) ([]session.Ref, []session.Warning) {
	root := Root(env)
	if root == "" {
		return nil, nil
	}
	d := discoverer{env: env}
	projects := filepath.Join(root, "projects")
	entries := d.readDir(projects)
	for _, e := range entries {
		p := filepath.Join(projects, e.Name())
		if !e.IsDir() || isSessionName(e.Name()) {
			d.addFile(p, "") // flat projects/<id>.jsonl
			continue
		}
		d.scanProject(p)
	}
	for _, e := range d.readDir(filepath.Join(root, "sessions")) {
		d.addFile(filepath.Join(root, "sessions", e.Name()), "")
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

// scanProject lists one project folder: sessions, subagents under
// <session>/subagents/, and older agent-*.jsonl and subagents/ layouts.
func (d *discoverer) scanProject(dir string) {
	for _, e := range d.readDir(dir) {
		p := filepath.Join(dir, e.Name())
		if !e.IsDir() || isSessionName(e.Name()) {
			d.addFile(p, "")
			continue
		}
		switch e.Name() {
		case "memory", "tool-results":
			continue
		case "subagents":
			d.scanSubagents(p, "")
			continue
		}
		sub := filepath.Join(p, "subagents")
		if _, err := os.Stat(sub); err == nil {
			d.scanSubagents(sub, e.Name())
		}
	}
}

func (d *discoverer) scanSubagents(dir, parent string) {
	for _, e := range d.readDir(dir) {
		d.addFile(filepath.Join(dir, e.Name()), parent)
	}
}

// isSessionName reports whether name is that of a session file.
func isSessionName(name string) bool { return strings.HasSuffix(name, ".jsonl") }

// addFile adds the session file at path, when it is named like one. One
// that is not a regular file (a folder, a named pipe) is reported and
// skipped, never opened.
func (d *discoverer) addFile(path, parent string) {
	name := filepath.Base(path)
	if !isSessionName(name) {
		return
	}
	info, err := storefile.Check(path)
	if err != nil {
		d.warns = append(d.warns, storefile.Skipped(path, err))
		return
	}
	ref := storefile.RefAt(session.Claude, strings.TrimSuffix(name, ".jsonl"), path, info)
	ref.Parent = parent
	d.refs = append(d.refs, ref)
}

func unwrapPathError(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// ValidID reports whether id can name a session file: it must be a plain
// file name, so no id read from input can reach outside the store.
func ValidID(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, `/\*?[`+"\x00") && len(id) <= 255
}

// Locate finds the file of the session with the given id.
func Locate(env session.Env, id string) (string, error) {
	if !ValidID(id) {
		return "", fmt.Errorf("claude: invalid session id %q: %w", id, session.ErrNotFound)
	}
	root := Root(env)
	if root == "" {
		return "", fmt.Errorf("claude: no config directory (set CLAUDE_CONFIG_DIR or HOME): %w", session.ErrNotFound)
	}
	name := id + ".jsonl"
	var found []string
	for _, pattern := range []string{
		filepath.Join(root, "projects", "*", name),
		filepath.Join(root, "projects", name),
		filepath.Join(root, "sessions", name),
		filepath.Join(root, "projects", "*", "*", "subagents", name),
		filepath.Join(root, "projects", "*", "subagents", name),
	} {
		m, _ := filepath.Glob(pattern)
		found = append(found, m...)
	}
	found, skipped := storefile.Regular(found)
	switch {
	case len(found) == 0 && skipped != nil:
		return "", fmt.Errorf("claude: session %s: %w: %w", id, skipped, session.ErrNotFound)
	case len(found) == 0:
		return "", fmt.Errorf("claude: session %s in %s: %w", id, root, session.ErrNotFound)
	case len(found) == 1:
		return found[0], nil
	}
	return "", fmt.Errorf("claude: session %s matches %d files (%s): %w", id, len(found), strings.Join(found, ", "), session.ErrAmbiguous)
}
