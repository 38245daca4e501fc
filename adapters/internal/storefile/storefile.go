package storefile

import (
	"errors"
	"io/fs"
	"os"

	"github.com/stead-dev/stead/session"
)

// ErrNotRegular is what the errors of Check, Open and ReadFile match for a
// file that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// notRegular says what a file is instead of a regular file.
type notRegular struct{ kind string }

func (e *notRegular) Error() string        { return e.kind + ", not a regular file" }
func (e *notRegular) Is(target error) bool { return target == ErrNotRegular }

// Kind names what a file of mode m is, for a message: "a folder", "a
// named pipe (FIFO)", "a socket", "a device", or "a special file".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// Check returns what Stat says of path when it is a regular file (or a
// symbolic link to one), and otherwise an *fs.PathError saying what it is,
// matching ErrNotRegular.
func Check(path string) (Info, error) {
	in, err := Stat(path)
	if err != nil {
		return Info{}, err
	}
	if in.Mode != 0 {
		return Info{}, &fs.PathError{Op: "open", Path: path, Err: &notRegular{Kind(in.Mode)}}
	}
	return in, nil
}

// Open opens path for reading once Check has found it a regular file.
// (The file could be swapped for a named pipe between the two; nothing in
// a CLI's store does that.)
func Open(path string) (*os.File, error) {
	if _, err := Check(path); err != nil {
		return nil, err
	}
	return os.Open(path)
}

// ReadFile reads the whole file at path once Check has found it a regular
// file.
func ReadFile(path string) ([]byte, error) {
	if _, err := Check(path); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// Skipped is the warning for path, found where a session file should be
// and skipped because Check failed with err.
func Skipped(path string, err error) session.Warning {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	msg := "skipped: " + err.Error()
	if !errors.Is(err, ErrNotRegular) {
		msg = "cannot read: " + err.Error()
	}
	return session.Warning{Path: path, Message: msg}
}

// Regular returns the paths that Check finds regular files, in order, and
// the error of the first that it does not.
func Regular(paths []string) ([]string, error) {
	var ok []string
	var first error
	for _, p := range paths {
		if _, err := Check(p); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		ok = append(ok, p)
	}
	return ok, first
}

// ReadDir lists dir as os.ReadDir does, through env.Dirs when it is set.
func ReadDir(env session.Env, dir string) ([]fs.DirEntry, error) {
	if env.Dirs != nil {
		return env.Dirs(dir)
	}
	return os.ReadDir(dir)
}

// Roots is the folders given that are set, for an adapter's Roots.
func Roots(dirs ...string) []string {
	var out []string
	for _, d := range dirs {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}
