package modelstub

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stead-dev/stead/session"
)

// Options configures a Stub. Script is required.
type Options struct {
	Script *Script
	// Addr is the address to listen on; it must be a loopback address.
	// The default is 127.0.0.1 with a random port.
	Addr string
	// Log, when set, receives every request as one JSON line.
	Log io.Writer
	// ToolNames returns the names CLIs give a universal tool; the stub
	// calls whichever of them a request declared. Nil falls back to the
	// universal name and to declared names that contain it.
	ToolNames func(session.Tool) []string
	// ToolCall, when set, writes a scripted tool use (universal tool and
	// arguments) as a native call. It may offer several candidates to
	// accept, which takes one the request declared whose schema the input
	// fits; ToolCall returns the accepted one. The stub's own mapping
	// (ToolNames and argument aliases) is the fallback.
	ToolCall func(tool session.Tool, args map[string]any, accept func(name string, input json.RawMessage) bool) (name string, input json.RawMessage, ok bool)
	// Dir, when set, is the directory the CLI works in: relative paths
	// in scripted tool calls (read, write, edit, list) are made absolute
	// against it, since most CLIs' file tools take absolute paths only.
	Dir string
	// StallFor bounds how long a stalled stream hangs (default 10
	// minutes); Close ends stalls at once.
	StallFor time.Duration
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
	// Permissive turns off the checks a strict stub (the default) makes
	// of every request, refusing, with the real API's status and error,
	// what that API refuses: a model of another provider, a tool result
	// without its call or a call without its result, thinking or
	// reasoning the API could not have signed. Only for a test or a demo
	// that needs such a request answered.
	Permissive bool
}

// Stub is a running model server.
type Stub struct {
	opts Options
	ln   net.Listener
	srv  *http.Server
	log  *slog.Logger
	done chan struct{}

	mu      sync.Mutex
	next    int         // index of the next script turn
	faulted map[int]int // faults served per turn
	reqs    []Request
	ids     int    // counter for ids the stub makes up
	idTag   string // this stub's own part of them: ids are unique across stubs, as a real API's are
	logErr  error
	served  chan error
	closing sync.Once
	// active counts the requests being answered, so Close can let them
	// finish without waiting on idle connections.
	active atomic.Int64
}

// maxBody bounds a request body.
const maxBody = 256 << 20

// Start checks the options, listens and starts serving.
func Start(opts Options) (*Stub, error) {
	if opts.Script == nil {
		return nil, errors.New("modelstub: no script")
	}
	if err := opts.Script.Check(); err != nil {
		return nil, err
	}
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("modelstub: address %q: %w", opts.Addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("modelstub: address %q is not a loopback address", opts.Addr)
	}
	if opts.StallFor == 0 {
		opts.StallFor = 10 * time.Minute
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("modelstub: %w", err)
	}
	s := &Stub{opts: opts, ln: ln, done: make(chan struct{}), faulted: map[int]int{}, served: make(chan error, 1)}
	s.log = opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 30 * time.Second}
	go func() { s.served <- s.srv.Serve(ln) }()
	return s, nil
}

// URL is the stub's base URL, http://127.0.0.1:PORT.
func (s *Stub) URL() string { return "http://" + s.ln.Addr().String() }

// Wait blocks until the stub stops, returning why.
func (s *Stub) Wait() error {
	err := <-s.served
	s.served <- err
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Close stops the stub, ending stalled streams. It is safe to call more
// than once.
func (s *Stub) Close() error {
	var err error
	s.closing.Do(func() {
		close(s.done) // ends stalls and delays
		// Let the answers in flight finish, briefly, then close every
		// connection. (http.Server.Shutdown would also wait up to 5 s
		// on each connection that has not sent a request yet.)
		for deadline := time.Now().Add(5 * time.Second); s.active.Load() > 0 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		err = s.srv.Close()
	})
	return err
}

// Requests returns every request received so far.
func (s *Stub) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// MainRequests returns the requests that took a script turn (or a fault).
func (s *Stub) MainRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if !r.Side {
			out = append(out, r)
		}
	}
	return out
}

// Play replaces the script: the next main request takes the new
// script's first turn. Requests already recorded are kept.
func (s *Stub) Play(script *Script) error {
	if err := script.Check(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Script, s.next, s.faulted = script, 0, map[int]int{}
	return nil
}

func (s *Stub) script() *Script {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opts.Script
}

// Played returns how many script turns have been played.
func (s *Stub) Played() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// LogErr returns the first error writing the request log, if any.
func (s *Stub) LogErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logErr
}

// ServeHTTP routes a request to the API it belongs to.
func (s *Stub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.active.Add(1)
	defer s.active.Add(-1)
	p := r.URL.Path
	switch {
	case r.Method == http.MethodHead || (r.Method == http.MethodGet && (p == "/" || p == "/api/hello")):
		w.WriteHeader(http.StatusOK) // Claude's preconnect, health checks
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
		s.models(w)
	case r.Method != http.MethodPost:
		apiError(w, Anthropic, http.StatusNotFound, "not found")
	case strings.HasSuffix(p, "/messages/count_tokens"):
		s.serve(w, r, Anthropic, "count_tokens")
	case strings.HasSuffix(p, "/messages"):
		s.serve(w, r, Anthropic, "")
	case strings.HasSuffix(p, "/responses"):
		s.serve(w, r, Responses, "")
	case strings.HasSuffix(p, "/chat/completions"):
		s.serve(w, r, Chat, "")
	case strings.Contains(p, "/models/") && strings.Contains(p, ":"):
		s.serve(w, r, Gemini, p[strings.LastIndexByte(p, ':')+1:])
	default:
		apiError(w, Anthropic, http.StatusNotFound, "no such endpoint: "+p)
	}
}

func (s *Stub) models(w http.ResponseWriter) {
	m := s.script().Model
	if m == "" {
		m = "stub-model"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list",
		"data":   []map[string]any{{"id": m, "object": "model", "type": "model", "display_name": m}},
		"models": []map[string]any{{"name": "models/" + m}},
	})
}

// selected are the request headers recorded in the log.
var selected = []string{"User-Agent", "X-App", "Anthropic-Version", "Anthropic-Beta", "X-Claude-Code-Session-Id",
	"Originator", "Session-Id", "Thread-Id", "X-Codex-Turn-Metadata", "X-Goog-Api-Client", "X-Session-Id",
	"X-Msh-Platform", "X-Msh-Version"}

func (s *Stub) serve(w http.ResponseWriter, r *http.Request, api API, action string) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		apiError(w, api, http.StatusBadRequest, "reading the request: "+err.Error())
		return
	}
	req, err := parse(api, body)
	if err != nil {
		s.record(&Request{API: api, Path: r.URL.String(), Side: true, Body: rawJSON(body), Warnings: []string{err.Error()}})
		apiError(w, api, http.StatusBadRequest, err.Error())
		return
	}
	req.API, req.Path = api, r.URL.String()
	req.Headers = map[string]string{}
	for _, h := range selected {
		if v := r.Header.Get(h); v != "" {
			req.Headers[strings.ToLower(h)] = v
		}
	}
	if api == Gemini {
		req.Model = geminiModel(r.URL.Path)
		req.Stream = action == "streamGenerateContent"
	}
	if !s.opts.Permissive {
		if no := check(req); no != nil {
			req.Side, _ = sideRequest(api, action, req)
			req.Refused = no.String()
			s.record(req)
			refuse(w, api, no)
			return
		}
	}

	if side, kind := sideRequest(api, action, req); side {
		req.Side = true
		a := s.sideAnswer(kind, req)
		s.record(req)
		s.respond(w, r, req, a)
		return
	}

	s.mu.Lock()
	script := s.opts.Script
	var turn Turn
	played := false
	for s.next < len(script.Turns) {
		turn = script.Turns[s.next]
		req.Turn = s.next + 1
		if turn.Fault != "" && (turn.FaultTimes == 0 || s.faulted[s.next] < turn.FaultTimes) {
			s.faulted[s.next]++
			req.Fault = turn.Fault
			break
		}
		s.next++
		if !turn.faultOnly() {
			played = true
			break
		}
		// A fault-only turn whose faults are spent: the request gets
		// the next turn.
		req.Turn = 0
	}
	s.mu.Unlock()

	switch {
	case req.Fault != "":
		s.record(req)
		s.fault(w, r, req, turn)
	case !played:
		req.Warnings = append(req.Warnings, fmt.Sprintf("the script has no turn left (it has %d)", len(script.Turns)))
		s.record(req)
		s.respond(w, r, req, &answer{text: "[stead stub: the script has no turn left]"})
	default:
		a := s.turnAnswer(turn, req)
		s.record(req)
		s.respond(w, r, req, a)
	}
}

func (s *Stub) record(req *Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req.Seq = len(s.reqs) + 1
	req.Time = time.Now().UTC()
	s.reqs = append(s.reqs, *req)
	if s.opts.Log != nil && s.logErr == nil {
		b, err := json.Marshal(req)
		if err == nil {
			_, err = s.opts.Log.Write(append(b, '\n'))
		}
		s.logErr = err
	}
	s.log.Debug("request", "seq", req.Seq, "api", req.API, "side", req.Side, "turn", req.Turn, "fault", req.Fault, "refused", req.Refused)
}

func (s *Stub) newID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	if s.idTag == "" {
		var b [3]byte
		rand.Read(b[:])
		s.idTag = hex.EncodeToString(b[:])
	}
	return fmt.Sprintf("%s%s_%04d", prefix, s.idTag, s.ids)
}

// answer is what the stub replies, whatever the API.
type answer struct {
	model    string
	thinking string
	text     string
	calls    []call
	usage    session.Usage
	delay    time.Duration
	count    bool // a token count, not a message
}

type call struct {
	id     string
	name   string
	args   json.RawMessage // a JSON object
	custom bool            // a freeform tool: input is args' "input" string
	input  string
}

func (s *Stub) turnAnswer(t Turn, req *Request) *answer {
	a := &answer{thinking: t.Thinking, text: t.Text, delay: time.Duration(t.DelayMs) * time.Millisecond}
	for _, u := range t.Tools {
		c, warn := resolveTool(absArgs(u, s.opts.Dir), req.Tools, s.opts.ToolNames, s.opts.ToolCall)
		if warn != "" {
			req.Warnings = append(req.Warnings, warn)
		}
		c.id = s.newID(callPrefix(req.API))
		a.calls = append(a.calls, c)
		req.Calls = append(req.Calls, ToolCall{ID: c.id, Name: c.name, Args: c.args})
	}
	if t.Usage != nil {
		a.usage = *t.Usage
	}
	return a
}

func callPrefix(api API) string {
	switch api {
	case Anthropic:
		return "toolu_stub_"
	case Gemini:
		return "stub_call_"
	}
	return "call_stub_"
}

// respond fills in what the answer leaves open and writes it in the
// request's API.
func (s *Stub) respond(w http.ResponseWriter, r *http.Request, req *Request, a *answer) {
	if a.model == "" {
		a.model = s.script().Model
	}
	if a.model == "" {
		a.model = req.Model
	}
	if a.model == "" {
		a.model = "stub-model"
	}
	if a.usage.Input == 0 {
		a.usage.Input = int64(len(req.Body)/4 + 1)
	}
	if a.usage.Output == 0 {
		n := len(a.text) + len(a.thinking)
		for _, c := range a.calls {
			n += len(c.args) + len(c.input)
		}
		a.usage.Output = int64(n/4 + 1)
	}
	switch req.API {
	case Anthropic:
		s.writeAnthropic(w, req, a)
	case Responses:
		s.writeResponses(w, req, a)
	case Chat:
		s.writeChat(w, req, a)
	case Gemini:
		s.writeGemini(w, req, a)
	}
}

// sse writes server-sent events, pausing between them when asked.
type sse struct {
	w     http.ResponseWriter
	f     http.Flusher
	delay time.Duration
	done  <-chan struct{}
}

func newSSE(w http.ResponseWriter, delay time.Duration, done <-chan struct{}) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f, delay: delay, done: done}
}

// event writes one event; name may be empty.
func (e *sse) event(name string, data any) {
	var buf bytes.Buffer
	if name != "" {
		buf.WriteString("event: " + name + "\n")
	}
	buf.WriteString("data: ")
	switch d := data.(type) {
	case string:
		buf.WriteString(d)
	default:
		b, _ := json.Marshal(d)
		buf.Write(b)
	}
	buf.WriteString("\n\n")
	e.w.Write(buf.Bytes())
	if e.f != nil {
		e.f.Flush()
	}
	if e.delay > 0 {
		select {
		case <-time.After(e.delay):
		case <-e.done:
		}
	}
}

// comment writes an SSE comment line, which clients ignore.
func (e *sse) comment(text string) {
	e.w.Write([]byte(": " + text + "\n\n"))
	if e.f != nil {
		e.f.Flush()
	}
}

func rawJSON(b []byte) json.RawMessage {
	if json.Valid(b) {
		return json.RawMessage(b)
	}
	q, _ := json.Marshal(string(b))
	return q
}
