package storefile

import (
	"io/fs"
	"os"
	"strconv"
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

// StampOf is the stamp of the files at paths (session.Stamp): of each, its
// size, modification time and inode, or that it is missing.
func StampOf(paths ...string) (session.Stamp, error) {
	var st session.Stamp
	var key []byte
	for _, p := range paths {
		in, err := Stat(p)
		switch {
		case os.IsNotExist(err):
			key = append(key, '-', ';')
		case err != nil:
			return session.Stamp{}, err
		default:
			key = in.appendKey(key)
			if in.ModTime.After(st.Newest) {
				st.Newest = in.ModTime
			}
		}
	}
	st.Key = string(key)
	return st, nil
}

// Stamp is the stamp of the one file in is what Stat said of: StampOf of
// its path alone.
func (in Info) Stamp() session.Stamp {
	return session.Stamp{Key: string(in.appendKey(nil)), Newest: in.ModTime}
}

func (in Info) appendKey(key []byte) []byte {
	key = strconv.AppendInt(key, in.Size, 10)
	key = append(key, ':')
	key = strconv.AppendInt(key, in.ModTime.UnixNano(), 10)
	key = append(key, ':')
	key = strconv.AppendUint(key, in.Inode, 10)
	return append(key, ';')
}
