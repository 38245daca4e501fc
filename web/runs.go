package web

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// keepAlive is how often an idle event stream sends a comment, so that
// a proxy or the browser does not take it for dead.
const keepAlive = 30 * time.Second

func (s *Server) runsOrNone() (*runs.Supervisor, error) {
	if s.Supervisor == nil || s.Supervisor.Bus == nil {
		return nil, errorf(http.StatusServiceUnavailable, "this server has no bus: runs are not available")
	}
	return s.Supervisor, nil
}

// runs answers GET /api/v1/runs: every run on the bus, newest first.
func (s *Server) runs(w http.ResponseWriter, r *http.Request) error {
	sv, err := s.runsOrNone()
	if err != nil {
		return err
	}
	list, err := sv.Bus.Runs(r.Context())
	if err != nil {
		return err
	}
	slices.SortFunc(list, func(a, b live.Run) int { return b.Started.Compare(a.Started) })
	if list == nil {
		list = []live.Run{}
	}
	return writeJSON(w, map[string]any{"runs": list})
}

// run answers GET /api/v1/runs/{run}: one run's record.
func (s *Server) run(w http.ResponseWriter, r *http.Request) error {
	rec, err := s.findRun(r)
	if err != nil {
		return err
	}
	return writeJSON(w, rec)
}

func (s *Server) findRun(r *http.Request) (live.Run, error) {
	sv, err := s.runsOrNone()
	if err != nil {
		return live.Run{}, err
	}
	id := r.PathValue("run")
	if !bus.ValidRun(id) {
		return live.Run{}, errorf(http.StatusBadRequest, "%q is not a run id", id)
	}
	rec, err := sv.ResolveRun(r.Context(), id)
	if errors.Is(err, bus.ErrNoRun) {
		return rec, errorf(http.StatusNotFound, "no run %q", id)
	}
	return rec, err
}

// input answers POST /api/v1/runs/{run}/input: {"data": text typed into
// the run's terminal as it is} or {"prompt": a prompt the CLI takes
// once it is ready}.
func (s *Server) input(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Data   *string `json:"data"`
		Prompt *string `json:"prompt"`
	}
	if err := decodeBody(r, &body, `{"data": …} or {"prompt": …}`); err != nil {
		return err
	}
	if (body.Data == nil) == (body.Prompt == nil) {
		return errorf(http.StatusBadRequest, "give one of data and prompt")
	}
	sv, rec, err := s.running(r)
	if err != nil {
		return err
	}
	if body.Prompt != nil {
		err = sv.Prompt(r.Context(), rec, *body.Prompt)
	} else {
		err = sv.Input(r.Context(), rec, []byte(*body.Data))
	}
	if err != nil {
		return runError(err)
	}
	return writeJSON(w, map[string]any{"run": rec.ID, "sent": true})
}

// stop answers POST /api/v1/runs/{run}/stop: the run's CLI exits, and
// the run's final record is returned.
func (s *Server) stop(w http.ResponseWriter, r *http.Request) error {
	sv, rec, err := s.running(r)
	if err != nil {
		return err
	}
	rec, err = sv.Stop(r.Context(), rec)
	if err != nil {
		return runError(err)
	}
	return writeJSON(w, rec)
}

// resize answers POST /api/v1/runs/{run}/resize: {"rows", "cols"} sizes
// the run's terminal (the CLI draws for that size), as an attached
// terminal does when it is resized.
func (s *Server) resize(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Rows uint16 `json:"rows"`
		Cols uint16 `json:"cols"`
	}
	if err := decodeBody(r, &body, `{"rows": …, "cols": …}`); err != nil {
		return err
	}
	if body.Rows < 5 || body.Cols < 20 || body.Rows > bus.MaxRows || body.Cols > bus.MaxCols {
		return errorf(http.StatusBadRequest, "a terminal has 5 to %d rows and 20 to %d columns", bus.MaxRows, bus.MaxCols)
	}
	sv, rec, err := s.running(r)
	if err != nil {
		return err
	}
	if err := sv.Bus.Ask(r.Context(), rec.ID, bus.Request{Op: bus.OpResize, Rows: body.Rows, Cols: body.Cols}); err != nil {
		return runError(err)
	}
	return writeJSON(w, map[string]any{"run": rec.ID, "rows": body.Rows, "cols": body.Cols})
}

// running finds the run a request names, when it has not ended.
func (s *Server) running(r *http.Request) (*runs.Supervisor, live.Run, error) {
	sv, err := s.runsOrNone()
	if err != nil {
		return nil, live.Run{}, err
	}
	rec, err := sv.Running(r.Context(), r.PathValue("run"))
	if err != nil {
		return nil, rec, runError(err)
	}
	return sv, rec, nil
}

func runError(err error) error {
	switch {
	case errors.Is(err, bus.ErrNoRun):
		return errorf(http.StatusNotFound, "%v", err)
	case errors.Is(err, runs.ErrEnded), errors.Is(err, bus.ErrNotRunning), errors.Is(err, bus.ErrNotListening):
		return errorf(http.StatusConflict, "%v", err)
	}
	return err
}

// events answers GET /api/v1/runs/{run}/events with Server-Sent Events
// from the bus, as they are stored: the run's entries and state changes
// ("entry" events: a universal entry; "update": a change to one;
// "status": a live.Status), or, with ?terminal=true, its terminal output
// ("terminal": {"data": base64}).
// A client that reconnects with Last-Event-ID gets only what followed.
func (s *Server) events(w http.ResponseWriter, r *http.Request) error {
	rec, err := s.findRun(r)
	if err != nil {
		return err
	}
	kinds := []bus.Kind{bus.Entry, bus.Status}
	if r.URL.Query().Get("terminal") == "true" {
		kinds = []bus.Kind{bus.PTY}
	}
	var after uint64
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		after, _ = strconv.ParseUint(v, 10, 64)
	}
	flusher, err := openStream(w, "run "+rec.ID)
	if err != nil {
		return err
	}

	ctx := r.Context()
	msgs := make(chan bus.Msg, 64)
	watchErr := make(chan error, 1)
	go func() {
		watchErr <- s.Supervisor.Bus.Watch(ctx, rec.ID, bus.FromStart, func(m bus.Msg) error {
			select {
			case msgs <- m:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}, kinds...)
	}()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-watchErr:
			if err != nil && ctx.Err() == nil {
				fmt.Fprintf(w, "event: error\ndata: %s\n\n", jsonString(err.Error()))
				flusher.Flush()
			}
			return nil
		case <-tick.C:
			io.WriteString(w, ": keep-alive\n\n")
			flusher.Flush()
		case m := <-msgs:
			if m.Seq <= after {
				continue
			}
			writeEvent(w, m)
			// Send what else is waiting before flushing: a burst of
			// terminal output goes out in one write.
			for more := true; more; {
				select {
				case m := <-msgs:
					if m.Seq > after {
						writeEvent(w, m)
					}
				default:
					more = false
				}
			}
			flusher.Flush()
		}
	}
}

// writeEvent writes one bus message as Server-Sent Events, each with the
// message's position in its stream as its id: an entry message (a
// session.Event) as an "entry" event per universal entry it made (without
// its native record) and an "update" event per change to an earlier one;
// a state change as a "status" event; terminal output as a "terminal"
// event, base64.
func writeEvent(w io.Writer, m bus.Msg) {
	emit := func(kind string, data []byte) {
		fmt.Fprintf(w, "event: %s\nid: %d\ndata: %s\n\n", kind, m.Seq, data)
	}
	switch m.Kind {
	case bus.PTY:
		emit("terminal", []byte(`{"data":"`+base64.StdEncoding.EncodeToString(m.Data)+`"}`))
	case bus.Entry:
		var ev session.Event
		if err := json.Unmarshal(m.Data, &ev); err != nil {
			emit("error", []byte(jsonString(fmt.Sprintf("entry %d: %v", m.Seq, err))))
			return
		}
		for i := range ev.Entries {
			e := ev.Entries[i]
			e.Native = nil
			// JSON holds no raw newline: one data line.
			if data, err := json.Marshal(clipped(&e, false)); err == nil {
				emit("entry", data)
			}
		}
		for _, u := range ev.Updates {
			if data, err := json.Marshal(u); err == nil {
				emit("update", data)
			}
		}
	default:
		data := m.Data
		if !json.Valid(data) {
			data = []byte(jsonString(string(data)))
		}
		var compact bytes.Buffer
		if json.Compact(&compact, data) == nil {
			data = compact.Bytes()
		}
		emit(string(m.Kind), data)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// startJSON is the body of POST /api/v1/runs.
type startJSON struct {
	From        string `json:"from"`
	To          string `json:"to"`
	At          string `json:"at"`
	Prompt      string `json:"prompt"`
	Dir         string `json:"dir"`
	Model       string `json:"model"`
	AutoApprove bool   `json:"autoApprove"`
}

// start answers POST /api/v1/runs: the session from names (cut after the
// entry at names, for a fork) is written into the CLI to names and
// resumed there by a worker, in dir (default: the session's project).
// The answer is the run's record (201).
func (s *Server) start(w http.ResponseWriter, r *http.Request) error {
	var body startJSON
	if err := decodeBody(r, &body, "a run to start"); err != nil {
		return err
	}
	sv, err := s.runsOrNone()
	if err != nil {
		return err
	}
	to, err := runnableCLI("to", body.To)
	if err != nil {
		return err
	}
	if body.From == "" {
		return errorf(http.StatusBadRequest, "from: name the session to continue (<cli>:<id>)")
	}
	sess, err := s.openRef(body.From)
	if err != nil {
		return err
	}
	if _, err := runs.Cut(sess, body.At); err != nil {
		return errorf(http.StatusBadRequest, "at: %v", err)
	}
	dir := body.Dir
	if dir == "" {
		dir = sess.Project.Path
	}
	if err := folder("dir", dir, "say where the run works"); err != nil {
		return err
	}
	spec := runs.Spec{ID: runs.NewID(), To: to.Name, Dir: dir, Prompt: body.Prompt, Model: body.Model, Auto: body.AutoApprove}
	rec, err := sv.Detach(r.Context(), sess, spec)
	if errors.Is(err, bus.ErrNotListening) {
		return errorf(http.StatusServiceUnavailable, "%v", err)
	}
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/v1/runs/"+rec.ID)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	return writeJSON(w, rec)
}
