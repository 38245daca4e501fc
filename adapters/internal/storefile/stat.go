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

// RefAt is the Ref of the session id of cli in the file at path, of which
// in is what Check said: its size, modification time and inode.
func RefAt(cli, id, path string, in Info) session.Ref {
	return session.Ref{CLI: cli, ID: id, Path: path, Size: in.Size, ModTime: in.ModTime, Inode: in.Inode}
}
