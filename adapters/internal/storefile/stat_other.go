//go:build !linux

package storefile

import (
	"io/fs"
	"os"
	"syscall"
)

// Stat is os.Stat, as an Info.
func Stat(path string) (Info, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Info{}, err
	}
	in := Info{Mode: fi.Mode().Type(), Size: fi.Size(), ModTime: fi.ModTime()}
	if in.Mode == 0 && !fi.Mode().IsRegular() {
		in.Mode = fs.ModeIrregular
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		in.Inode = uint64(st.Ino)
	}
	return in, nil
}
