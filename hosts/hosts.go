package hosts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

// Version is the protocol's version: a host refuses a request of a later
// one, saying which it speaks.
const Version = 1

// Query asks a host for its sessions, or for one.
type Query struct {
	V int `json:"v"`
	// CLIs limits the sessions to these CLIs' (none: every CLI's).
	CLIs []string `json:"clis,omitempty"`
	// Ref names one session, <cli>:<id> (never a path), for a request
	// on the "session" subject.
	Ref string `json:"ref,omitempty"`
	// Search is a search of the host's index, for a request on the
	// "search" subject.
	Search *index.Query `json:"search,omitempty"`
}

// Chunk is one message of a host's answer.
type Chunk struct {
	Sessions []session.Summary `json:"sessions,omitempty"`
	Warnings []session.Warning `json:"warnings,omitempty"`
	// Data is a piece of one session's universal JSON (session.Encode),
	// the pieces in order.
	Data []byte `json:"data,omitempty"`
	// Hits are a search's.
	Hits []index.Hit `json:"hits,omitempty"`
	// Error says why the host could not answer.
	Error string `json:"error,omitempty"`
	Last  bool   `json:"last,omitempty"`
}

// chunkSize is how many sessions a message carries: about 250 KB, well
// inside NATS's default largest message (1 MB).
const chunkSize = 500

// ServeBus is what Serve needs of the bus.
type ServeBus interface {
	HandleStream(subject string, handle func(data []byte, send func([]byte) error)) (stop func(), err error)
}

// Store is this machine's stores, as a host answers for them.
type Store interface {
	// Sessions lists the sessions for a query.
	Sessions(ctx context.Context, q Query) (*catalog.Result, error)
	// Session reads the session ref names (<cli>:<id>).
	Session(ctx context.Context, ref string) (*session.Session, error)
	// Search searches the machine's index.
	Search(ctx context.Context, q index.Query) ([]index.Hit, error)
}

// dataSize is how much of a session's JSON a message carries.
const dataSize = 256 << 10

// Serve answers for host's stores until stop is called.
func Serve(ctx context.Context, b ServeBus, host string, st Store) (stop func(), err error) {
	stopList, err := serveList(ctx, b, host, st)
	if err != nil {
		return nil, err
	}
	stopOne, err := b.HandleStream(bus.HostSubject(host, "session"), func(data []byte, send func([]byte) error) {
		out := chunkSender(send)
		q, err := parseQuery(data)
		if err != nil {
			out(Chunk{Error: err.Error(), Last: true})
			return
		}
		if !ValidRef(q.Ref) {
			out(Chunk{Error: fmt.Sprintf("%q is not a session reference (<cli>:<id>)", q.Ref), Last: true})
			return
		}
		s, err := st.Session(ctx, q.Ref)
		if err != nil {
			out(Chunk{Error: err.Error(), Last: true})
			return
		}
		var buf bytes.Buffer
		if err := session.Encode(&buf, s, false); err != nil {
			out(Chunk{Error: err.Error(), Last: true})
			return
		}
		p := buf.Bytes()
		for len(p) > dataSize {
			if out(Chunk{Data: p[:dataSize]}) != nil {
				return
			}
			p = p[dataSize:]
		}
		out(Chunk{Data: p, Last: true})
	})
	if err != nil {
		stopList()
		return nil, err
	}
	stopSearch, err := b.HandleStream(bus.HostSubject(host, "search"), func(data []byte, send func([]byte) error) {
		c := Chunk{Last: true}
		q, err := parseQuery(data)
		switch {
		case err != nil:
			c.Error = err.Error()
		case q.Search == nil:
			c.Error = "a search request without its search"
		default:
			if c.Hits, err = st.Search(ctx, *q.Search); err != nil {
				c.Error = err.Error()
			}
		}
		chunkSender(send)(c)
	})
	if err != nil {
		stopList()
		stopOne()
		return nil, err
	}
	return func() { stopList(); stopOne(); stopSearch() }, nil
}

// chunkSender sends each chunk it is given as one message of an answer.
func chunkSender(send func([]byte) error) func(Chunk) error {
	return func(c Chunk) error {
		p, err := json.Marshal(c)
		if err != nil {
			return err
		}
		return send(p)
	}
}

// ValidRef reports whether ref is a session reference a host takes from
// the bus: <cli>:<id>, a known CLI, an id of letters, digits, '-', '_'
// and '.' (never a path: a request must not name a file to read).
func ValidRef(ref string) bool {
	cli, id, ok := strings.Cut(ref, ":")
	if !ok || !slices.Contains(adapters.Names(), cli) || id == "" || len(id) > 200 || id[0] == '.' {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func parseQuery(data []byte) (Query, error) {
	var q Query
	if err := json.Unmarshal(data, &q); err != nil {
		return q, fmt.Errorf("a request stead cannot read: %v", err)
	}
	if q.V > Version {
		return q, fmt.Errorf("the request speaks version %d of the hosts protocol; this host speaks %d (update its stead)", q.V, Version)
	}
	return q, nil
}

// serveList answers for host's list of sessions.
func serveList(ctx context.Context, b ServeBus, host string, st Store) (stop func(), err error) {
	return b.HandleStream(bus.HostSubject(host, "sessions"), func(data []byte, send func([]byte) error) {
		out := chunkSender(send)
		q, err := parseQuery(data)
		if err != nil {
			out(Chunk{Error: err.Error(), Last: true})
			return
		}
		res, err := st.Sessions(ctx, q)
		if err != nil {
			out(Chunk{Error: err.Error(), Last: true})
			return
		}
		sums := res.Summaries
		for len(sums) > chunkSize {
			if out(Chunk{Sessions: sums[:chunkSize]}) != nil {
				return
			}
			sums = sums[chunkSize:]
		}
		out(Chunk{Sessions: sums, Warnings: res.Warnings, Last: true})
	})
}

// ListBus is what List needs of the bus.
type ListBus interface {
	Hosts(ctx context.Context) ([]live.Host, error)
	RequestStream(ctx context.Context, subject string, data []byte, fn func([]byte) (last bool, err error)) error
}

// Sessions is one host's answer.
type Sessions struct {
	Host     string
	Sessions []session.Summary
	Warnings []session.Warning
	// Err says why the host did not answer (offline, or failed).
	Err error
}

// ErrOffline is a host's error when it did not answer in time.
var ErrOffline = errors.New("did not answer (offline?)")

// List asks the hosts named (none: every host recorded) for their
// sessions, all at once, and waits at most wait for each. A host that
// does not answer, or fails, has its Err set: the others' answers stand.
func List(ctx context.Context, b ListBus, q Query, names []string, wait time.Duration) ([]Sessions, error) {
	q.V = Version
	answers, err := askAll(ctx, b, names, "sessions", q, wait)
	if err != nil {
		return nil, err
	}
	out := make([]Sessions, len(answers))
	for i, a := range answers {
		out[i] = Sessions{Host: a.host, Err: a.err}
		for _, c := range a.chunks {
			out[i].Sessions = append(out[i].Sessions, c.Sessions...)
			out[i].Warnings = append(out[i].Warnings, c.Warnings...)
		}
	}
	return out, nil
}

// answer is what one host answered: its chunks, or why it did not.
type answer struct {
	host   string
	chunks []Chunk
	err    error
}

// askAll asks the hosts named (none: every host recorded) on their
// subject what, all at once, waiting at most wait for each.
func askAll(ctx context.Context, b ListBus, names []string, what string, q Query, wait time.Duration) ([]answer, error) {
	known, err := b.Hosts(ctx)
	if err != nil {
		return nil, err
	}
	if names, err = named(known, names); err != nil {
		return nil, err
	}
	req, err := json.Marshal(q)
	if err != nil {
		return nil, err
	}
	out := make([]answer, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			out[i].host = name
			out[i].err = ask(ctx, b, name, what, req, wait, func(c Chunk) { out[i].chunks = append(out[i].chunks, c) })
			if out[i].err != nil {
				out[i].chunks = nil // not a part of an answer as if it were whole
			}
		})
	}
	wg.Wait()
	return out, nil
}

// ask sends req to host's subject what, and gives take each chunk of the
// answer until its last. Its error says why the host did not answer:
// ErrOffline when nobody answers there or not within wait.
func ask(ctx context.Context, b ListBus, host, what string, req []byte, wait time.Duration, take func(Chunk)) error {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	err := b.RequestStream(ctx, bus.HostSubject(host, what), req, func(p []byte) (bool, error) {
		var c Chunk
		if err := json.Unmarshal(p, &c); err != nil {
			return true, fmt.Errorf("an answer stead cannot read: %w", err)
		}
		if c.Error != "" {
			return true, errors.New(c.Error)
		}
		take(c)
		return c.Last, nil
	})
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, bus.ErrNotListening):
		return fmt.Errorf("host %s: %w", host, ErrOffline)
	case err != nil:
		return fmt.Errorf("host %s: %w", host, err)
	}
	return nil
}

// Fetch reads one session of host through the bus: ref is <cli>:<id> on
// that machine. It waits at most wait.
func Fetch(ctx context.Context, b ListBus, host, ref string, wait time.Duration) (*session.Session, error) {
	if !bus.ValidHost(host) {
		return nil, fmt.Errorf("%q is not a host name", host)
	}
	if !ValidRef(ref) {
		return nil, fmt.Errorf("%q is not a session reference (<cli>:<id>)", ref)
	}
	req, err := json.Marshal(Query{V: Version, Ref: ref})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := ask(ctx, b, host, "session", req, wait, func(c Chunk) { buf.Write(c.Data) }); err != nil {
		return nil, err
	}
	s, err := session.Decode(&buf)
	if err != nil {
		return nil, fmt.Errorf("host %s: %s: %w", host, ref, err)
	}
	return s, nil
}

// Hits is one host's answer to a search.
type Hits struct {
	Host string
	Hits []index.Hit
	// Err says why the host did not answer (offline, no index, failed).
	Err error
}

// Search searches the indexes of the hosts named (none: every host
// recorded), all at once, waiting at most wait for each; each hit names
// its host. A host that does not answer has its Err set.
func Search(ctx context.Context, b ListBus, q index.Query, names []string, wait time.Duration) ([]Hits, error) {
	answers, err := askAll(ctx, b, names, "search", Query{V: Version, Search: &q}, wait)
	if err != nil {
		return nil, err
	}
	out := make([]Hits, len(answers))
	for i, a := range answers {
		out[i] = Hits{Host: a.host, Err: a.err}
		for _, c := range a.chunks {
			for _, h := range c.Hits {
				if h.Run == "" {
					h.Host = a.host
				}
				out[i].Hits = append(out[i].Hits, h)
			}
		}
	}
	return out, nil
}

// named checks the names asked for against the hosts recorded; none asks
// for every host.
func named(known []live.Host, names []string) ([]string, error) {
	if len(names) == 0 {
		for _, h := range known {
			names = append(names, h.Name)
		}
		return names, nil
	}
	for _, n := range names {
		if !slices.ContainsFunc(known, func(h live.Host) bool { return h.Name == n }) {
			return nil, fmt.Errorf("no host %q on the bus (its daemon does not run; stead session list --hosts all lists those that do)", n)
		}
	}
	return names, nil
}
