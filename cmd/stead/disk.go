package main

import (
	"errors"
	"fmt"

	"github.com/stead-dev/stead/bus"
)

// minFree is the free space below which stead does not start work that
// writes to its state: JetStream cannot store a message on a full disk,
// and a command would otherwise wait for a daemon that cannot answer.
const minFree = 1 << 20

// ErrDiskFull is returned when the disk holding stead's state is full.
var ErrDiskFull = errors.New("the disk is full")

// checkFree fails with ErrDiskFull when the file system holding dir (or
// its nearest existing parent) has less than minFree bytes free.
func checkFree(dir string) error {
	free, err := bus.FreeBytes(dir)
	if err != nil || free >= minFree {
		return nil // what cannot be measured is not reported
	}
	return fmt.Errorf("the disk holding stead's state (%s) has %s free: free some space and try again: %w",
		dir, humanBytes(int64(free)), ErrDiskFull)
}
