package inject

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/stead-dev/stead/internal/atomicfile"
	"github.com/stead-dev/stead/session"
)

// ErrExists is returned when the place chosen for a new session is taken:
// Install never replaces a file.
var ErrExists = errors.New("a session already exists there")

// Install converts s and places it in the target CLI's store as a new
// session. The session file is written to a temporary file beside its
// place, synced, and linked into place only if nothing is there; the
// files the CLI also needs are created only where none exist.
func Install(s *session.Session, r Reader, w Writer, opts Options) (*Report, error) {
	return install(s, nil, r, w, opts)
}

// InstallStream is Install for a session read as it goes (see
// ConvertStream).
func InstallStream(meta *session.Session, events Stream, r Reader, w Writer, opts Options) (*Report, error) {
	return install(meta, events, r, w, opts)
}

func install(s *session.Session, events Stream, r Reader, w Writer, opts Options) (*Report, error) {
	rep, t, err := prepare(s, w, opts)
	if err != nil {
		return nil, err
	}
	p := rep.Placement
	if _, err := os.Lstat(p.Path); err == nil && w.Commit == nil {
		// (A CLI that commits itself stores sessions in a shared file,
		// a database, and refuses an existing session on its own.)
		return nil, fmt.Errorf("inject: %s: %w", p.Path, ErrExists)
	}
	dir := filepath.Dir(p.Path)
	if err := mkdirInside(p.Root, dir); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".stead-convert-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("inject: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	bw := bufio.NewWriterSize(f, 256<<10)
	err = encode(s, events, r, w, t, bw, rep)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	// Files the CLI needs beside the session (markers) come first, so
	// that the session is complete once it appears.
	for _, file := range rep.Placement.Files {
		if err := createFile(p.Root, file); err != nil {
			return nil, err
		}
	}
	if w.Commit != nil {
		if err := w.Commit(opts.Env, p, t, tmp); err != nil {
			return nil, fmt.Errorf("inject: installing into %s's store: %w", w.CLI, err)
		}
	} else if err := os.Link(tmp, p.Path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("inject: %s: %w", p.Path, ErrExists)
		}
		return nil, fmt.Errorf("inject: %w", err)
	}
	rep.Installed = true
	return rep, nil
}

// createFile creates file unless it exists: an existing file, the CLI's
// own, is never changed.
func createFile(root string, file session.File) error {
	if err := mkdirInside(root, filepath.Dir(file.Path)); err != nil {
		return err
	}
	err := atomicfile.Create(file.Path, file.Data, 0o600)
	if err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("inject: %w", err)
	}
	return nil
}

// mkdirInside creates dir, inside root, after checking that its deepest
// existing ancestor, with symbolic links resolved, lies inside root (also
// resolved): a link in the store cannot lead a write elsewhere.
func mkdirInside(root, dir string) error {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return fmt.Errorf("inject: %w", err)
	}
	existing := dir
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		existing = filepath.Dir(existing)
	}
	if err := inside(root, existing); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("inject: %w", err)
	}
	return inside(root, dir)
}

// checkPlacement makes sure every path of p lies inside its root, before
// anything is written.
func checkPlacement(p session.Placement) error {
	if !filepath.IsAbs(p.Root) {
		return fmt.Errorf("inject: store root %q is not absolute", p.Root)
	}
	paths := []string{p.Path}
	for _, f := range p.Files {
		paths = append(paths, f.Path)
	}
	for _, path := range paths {
		if !within(filepath.Clean(p.Root), filepath.Clean(path)) {
			return fmt.Errorf("inject: %q lies outside the store %s", path, p.Root)
		}
	}
	return nil
}

// inside checks that dir, with symbolic links resolved, lies inside root
// (also resolved): a link in the store cannot lead a write elsewhere.
func inside(root, dir string) error {
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("inject: %w", err)
	}
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("inject: %w", err)
	}
	if r != d && !within(r, d) {
		return fmt.Errorf("inject: %s leads outside the store %s", dir, root)
	}
	return nil
}

func within(root, path string) bool {
	return strings.HasPrefix(path, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}
