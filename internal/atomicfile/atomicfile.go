package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes data to path atomically with the given permissions.
func Write(path string, data []byte, perm os.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("atomicfile: syncing %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	return nil
}

// Create writes data to path atomically, failing with an error matching
// os.ErrExist when path already exists: it never replaces a file.
func Create(path string, data []byte, perm os.FileMode) error {
	return CreateFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// CreateFunc is Create for content written as it is made: write gets a
// buffered writer on a temporary file, which becomes path only when
// write returns nil.
func CreateFunc(path string, perm os.FileMode, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	bw := bufio.NewWriterSize(f, 256<<10)
	if err = write(bw); err == nil {
		if err = bw.Flush(); err == nil {
			if err = f.Chmod(perm); err == nil {
				err = f.Sync()
			}
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	// A hard link fails when the target exists, unlike rename.
	if err = os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("atomicfile: %s: %w", path, os.ErrExist)
		}
		return fmt.Errorf("atomicfile: %w", err)
	}
	return nil
}
