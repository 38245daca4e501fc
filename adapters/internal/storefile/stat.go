package storefile

import (
	"io/fs"
	"time"

	"github.com/stead-dev/stead/session"
)

// Info is what a stat says of a file: what a Ref needs, and its type.
type Info struct {
	Mode    fs.FileMode // its type bits only (fs.ModeType); 0 for a regular file
	Size    int64
	ModTime time.Time
	Inode   uint64
}

// CheckInfo is Check through Stat: the Info of path when it is a regular
// file (or a symbolic link to one), and otherwise an *fs.PathError saying
// what it is, matching ErrNotRegular.
func CheckInfo(path string) (Info, error) {
	in, err := Stat(path)
	if err != nil {
		return Info{}, err
	}
	if in.Mode != 0 {
		return Info{}, &fs.PathError{Op: "open", Path: path, Err: &notRegular{Kind(in.Mode)}}
	}
	return in, nil
}

// RefAt is the Ref of the session id of cli in the file at path, of which
// in is what CheckInfo said: its size, modification time and inode.
func RefAt(cli, id, path string, in Info) session.Ref {
	return session.Ref{CLI: cli, ID: id, Path: path, Size: in.Size, ModTime: in.ModTime, Inode: in.Inode}
}
