package capture

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"
)

// Follower reads a file that another process is appending to, like
// tail -f: at the end of what is written, Read waits for more instead of
// returning io.EOF, until Stop. The file may not exist yet.
type Follower struct {
	path string
	poll time.Duration

	f       *os.File
	offset  int64
	stop    chan struct{}
	once    sync.Once
	stopped bool
}

// DefaultPoll is how often a Follower looks for more: the bound on the
// delay it adds between a record's write and its read.
const DefaultPoll = 5 * time.Millisecond

// Follow starts following path from its beginning, looking for more every
// poll (DefaultPoll when zero).
func Follow(path string, poll time.Duration) *Follower {
	if poll <= 0 {
		poll = DefaultPoll
	}
	return &Follower{path: path, poll: poll, stop: make(chan struct{})}
}

// Offset is how many bytes have been read.
func (f *Follower) Offset() int64 { return f.offset }

// Stop makes Read return what is left in the file, then io.EOF. Call it
// once the writer is done (its process exited). It is safe to call more
// than once and from another goroutine.
func (f *Follower) Stop() { f.once.Do(func() { close(f.stop) }) }

// Read reads what is there, waiting for more while there is none.
func (f *Follower) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	t := time.NewTimer(f.poll)
	defer t.Stop()
	for {
		if f.f == nil {
			file, err := os.Open(f.path)
			switch {
			case err == nil:
				f.f = file
			case !errors.Is(err, fs.ErrNotExist):
				return 0, err
			}
		}
		if f.f != nil {
			n, err := f.f.Read(p)
			f.offset += int64(n)
			if n > 0 {
				return n, nil
			}
			if err != nil && err != io.EOF {
				return 0, err
			}
		}
		if f.stopped {
			return 0, io.EOF
		}
		t.Reset(f.poll)
		select {
		case <-t.C:
		case <-f.stop:
			// One more read picks up what was written before Stop.
			f.stopped = true
		}
	}
}

// Close closes the file.
func (f *Follower) Close() error {
	f.Stop()
	if f.f != nil {
		return f.f.Close()
	}
	return nil
}
