package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/stead-dev/stead/index"
)

// hub tells the pages listening (GET /api/v1/events) that the sessions
// changed. A listener that has not taken the last news gets it once:
// news coalesce.
type hub struct {
	mu   sync.Mutex
	subs map[chan index.Refreshed]struct{}
}

func (h *hub) subscribe() (ch chan index.Refreshed, cancel func()) {
	ch = make(chan index.Refreshed, 1)
	h.mu.Lock()
	if h.subs == nil {
		h.subs = map[chan index.Refreshed]struct{}{}
	}
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.subs, ch)
		h.mu.Unlock()
	}
}

func (h *hub) publish(r index.Refreshed) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- r:
		default: // it has news waiting: that will do
		}
	}
}

// openStream starts an answer of Server-Sent Events, with a comment
// naming what it streams.
func openStream(w http.ResponseWriter, what string) (http.Flusher, error) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		return nil, errors.New("web: the response cannot be streamed")
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, ": %s\n\n", what)
	flusher.Flush()
	return flusher, nil
}

// SessionsChanged tells the open pages that the stores' sessions changed:
// the daemon calls it on each refresh of its index's watcher that changed
// the index (index.Index.OnChange). It returns at once.
func (s *Server) SessionsChanged(r index.Refreshed) { s.hub.publish(r) }

// changes answers GET /api/v1/events with Server-Sent Events: "sessions"
// each time the sessions changed (data: what the refresh did: sessions
// added, updated, removed), so that a page shows them again. Nothing is
// polled: the daemon's watcher of the stores tells the server.
func (s *Server) changes(w http.ResponseWriter, r *http.Request) error {
	flusher, err := openStream(w, "sessions")
	if err != nil {
		return err
	}
	ch, cancel := s.hub.subscribe()
	defer cancel()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-tick.C:
			io.WriteString(w, ": keep-alive\n\n")
			flusher.Flush()
		case res := <-ch:
			data, _ := json.Marshal(map[string]int{"sessions": res.Sessions, "added": res.Added,
				"updated": res.Updated, "removed": res.Removed})
			fmt.Fprintf(w, "event: sessions\ndata: %s\n\n", data)
			flusher.Flush()
		}
	}
}
