package modelstub

import (
	"net/http"
	"strconv"
	"time"
)

// fault answers a request with the turn's fault.
func (s *Stub) fault(w http.ResponseWriter, r *http.Request, req *Request, t Turn) {
	switch t.Fault {
	case Fault429, Fault500:
		code, _ := strconv.Atoi(t.Fault)
		switch {
		case t.RetryAfterMs != nil:
			ms := *t.RetryAfterMs
			w.Header().Set("Retry-After-Ms", strconv.Itoa(ms))
			w.Header().Set("Retry-After", strconv.Itoa((ms+999)/1000))
		case code == http.StatusTooManyRequests:
			w.Header().Set("Retry-After", "1")
		}
		apiError(w, req.API, code, "stead stub: fault "+t.Fault+" injected at turn "+strconv.Itoa(req.Turn))
	case FaultStall:
		// Start the stream, then send nothing more until the client
		// gives up or the stub closes.
		e := newSSE(w, 0, s.done)
		e.comment("stalled")
		select {
		case <-r.Context().Done():
		case <-s.done:
		case <-time.After(s.opts.StallFor):
		}
	case FaultDrop:
		// Start the stream, then cut the connection without ending it.
		e := newSSE(w, 0, s.done)
		e.comment("dropping")
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler) // net/http closes the connection
	}
}

// apiError writes an error in the shape of the API.
func apiError(w http.ResponseWriter, api API, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	var body any
	switch api {
	case Anthropic:
		typ := "api_error"
		switch code {
		case http.StatusTooManyRequests:
			typ = "rate_limit_error"
		case http.StatusBadRequest:
			typ = "invalid_request_error"
		case http.StatusNotFound:
			typ = "not_found_error"
		}
		body = map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
	case Gemini:
		status := "INTERNAL"
		switch code {
		case http.StatusTooManyRequests:
			status = "RESOURCE_EXHAUSTED"
		case http.StatusBadRequest:
			status = "INVALID_ARGUMENT"
		case http.StatusNotFound:
			status = "NOT_FOUND"
		}
		body = map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}}
	default:
		typ := "server_error"
		if code == http.StatusTooManyRequests {
			typ = "rate_limit_exceeded"
		} else if code < 500 {
			typ = "invalid_request_error"
		}
		body = map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": typ}}
	}
	writeJSONBody(w, body)
}
