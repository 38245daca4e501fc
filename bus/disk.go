package bus

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
)

// FreeBytes is what an unprivileged process may still write on the file
// system holding path, or its nearest existing parent.
func FreeBytes(path string) (uint64, error) {
	for {
		var st syscall.Statfs_t
		err := syscall.Statfs(path, &st)
		if err == nil {
			return uint64(st.Bavail) * uint64(st.Bsize), nil
		}
		parent := filepath.Dir(path)
		if !errors.Is(err, fs.ErrNotExist) || parent == path {
			return 0, err
		}
		path = parent
	}
}
