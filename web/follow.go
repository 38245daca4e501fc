package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/oklog/run"

	"github.com/stead-dev/stead/internal/notify"
)

// settle is how long a session's page waits after its file changed
// before it is told: a CLI writes a turn as a few records in a burst.
const settle = 20 * time.Millisecond

// sessionEvents answers GET /api/v1/sessions/{ref}/events with
// Server-Sent Events: "changed" each time the session's file changes, so
// that its open page shows what the CLI appended at once, whether or not
// stead runs it (the daemon's watcher of the stores tells every page, but
// only once the stores are quiet for a while). Nothing is polled: the
// system tells (inotify). Where it cannot (not Linux, or out of
// notifiers), 501 or 503: the page falls back to the sessions' changes.
func (s *Server) sessionEvents(w http.ResponseWriter, r *http.Request) error {
	_, ref, err := s.resolve(r.PathValue("ref"))
	if err != nil {
		return err
	}
	dir, match, err := watched(ref.Path)
	if err != nil {
		return err
	}
	n, err := notify.New()
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		return errorf(http.StatusNotImplemented, "following a session's file: %v", err)
	case err != nil:
		return errorf(http.StatusServiceUnavailable, "following a session's file: %v", err)
	}
	defer n.Close()
	if _, err := n.Add(dir); err != nil {
		return errorf(http.StatusServiceUnavailable, "following a session's file: %v", err)
	}
	flusher, err := openStream(w, "session")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	evs := make(chan []notify.Event, 16)
	var g run.Group
	g.Add(func() error { return n.Run(evs) }, func(error) { n.Close() })
	g.Add(func() error {
		tell := time.NewTimer(settle)
		tell.Stop()
		defer tell.Stop()
		alive := time.NewTicker(keepAlive)
		defer alive.Stop()
		var due bool
		for {
			select {
			case <-ctx.Done():
				return nil
			case batch := <-evs:
				for _, e := range batch {
					if e.Overflow || e.Ignored || match(e.Name) {
						if !due {
							tell.Reset(settle)
							due = true
						}
					}
				}
			case <-tell.C:
				due = false
				io.WriteString(w, "event: changed\ndata: {}\n\n")
				flusher.Flush()
			case <-alive.C:
				io.WriteString(w, ": keep-alive\n\n")
				flusher.Flush()
			}
		}
	}, func(error) { cancel() })
	return g.Run()
}

// watched says which folder to watch for a session stored at path, and
// which names in it are the session's: a folder is the session (every
// name in it), a file is itself and the files named after it (SQLite's
// -wal and -journal beside a database).
func watched(path string) (dir string, match func(string) bool, err error) {
	if path == "" {
		return "", nil, errorf(http.StatusNotFound, "the session has no file to follow")
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", nil, fmt.Errorf("web: %w", err)
	}
	if fi.IsDir() {
		return path, func(string) bool { return true }, nil
	}
	base := filepath.Base(path)
	return filepath.Dir(path), func(name string) bool { return strings.HasPrefix(name, base) }, nil
}
