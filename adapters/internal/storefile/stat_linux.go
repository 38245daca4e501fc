//go:build linux

package storefile

import (
	"errors"
	"io/fs"
	"syscall"
	"time"
)

// Stat is os.Stat for a Discover, which stats every session file of a
// store: it makes no fs.FileInfo (os.Stat allocates one of over 200
// bytes per call, and the 10,000-session corpus's freshness check made
// 12,000 of them). Errors are os.Stat's: an *fs.PathError.
func Stat(path string) (Info, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Stat(path, &st)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EINTR) {
			return Info{}, &fs.PathError{Op: "stat", Path: path, Err: err}
		}
	}
	return Info{Mode: typeOf(st.Mode), Size: st.Size, ModTime: time.Unix(st.Mtim.Unix()), Inode: uint64(st.Ino)}, nil
}

// typeOf is the fs.FileMode type bits of a stat's mode.
func typeOf(m uint32) fs.FileMode {
	switch m & syscall.S_IFMT {
	case syscall.S_IFREG:
		return 0
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFLNK:
		return fs.ModeSymlink
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}
