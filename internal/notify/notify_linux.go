//go:build linux

package notify

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Notifier is the system's file change notification (inotify).
type Notifier struct {
	fd   int      // for adding and removing watches
	f    *os.File // for reading, which close interrupts
	done chan struct{}
	once sync.Once
}

// New makes a notifier; Close lets go of it.
func New() (*Notifier, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	// A non-blocking descriptor is read through Go's poller, so closing
	// the file ends a read in progress.
	return &Notifier{fd: fd, f: os.NewFile(uintptr(fd), "inotify"), done: make(chan struct{})}, nil
}

// watchMask is the changes heard: a file made, written, touched, renamed
// or removed, and the folder itself removed or renamed.
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_ATTRIB |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_EXCL_UNLINK

// Add watches dir, returning its watch; a folder watched already returns
// the same watch.
func (n *Notifier) Add(dir string) (int, error) {
	wd, err := unix.InotifyAddWatch(n.fd, dir, watchMask)
	if err != nil {
		return 0, &os.PathError{Op: "watch", Path: dir, Err: err}
	}
	return wd, nil
}

// Remove stops watching wd.
func (n *Notifier) Remove(wd int) { unix.InotifyRmWatch(n.fd, uint32(wd)) }

// Run sends what it hears to out until Close.
func (n *Notifier) Run(out chan<- []Event) error {
	buf := make([]byte, 64<<10)
	for {
		k, err := n.f.Read(buf)
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				return nil
			}
			return fmt.Errorf("inotify: %w", err)
		}
		evs := parseEvents(buf[:k])
		select {
		case out <- evs:
		case <-n.done:
			return nil
		}
	}
}

// parseEvents reads struct inotify_event records: wd, mask, cookie, len,
// and a name of len bytes padded with NULs.
func parseEvents(b []byte) []Event {
	var evs []Event
	for len(b) >= unix.SizeofInotifyEvent {
		wd := int(int32(binary.NativeEndian.Uint32(b[0:])))
		mask := binary.NativeEndian.Uint32(b[4:])
		size := int(binary.NativeEndian.Uint32(b[12:]))
		b = b[unix.SizeofInotifyEvent:]
		if size > len(b) {
			break
		}
		name := strings.TrimRight(string(b[:size]), "\x00")
		b = b[size:]
		evs = append(evs, Event{
			WD:       wd,
			Name:     name,
			Created:  mask&unix.IN_CREATE != 0,
			Ignored:  mask&unix.IN_IGNORED != 0,
			Overflow: mask&unix.IN_Q_OVERFLOW != 0,
		})
	}
	return evs
}

// Close stops Run and lets go of the notifier.
func (n *Notifier) Close() {
	n.once.Do(func() {
		close(n.done)
		n.f.Close()
	})
}
