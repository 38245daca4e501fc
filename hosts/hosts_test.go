package hosts_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/hosts"
	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
)

func newBus(t *testing.T) *bus.Bus {
	t.Helper()
	b, err := bus.New(context.Background(), bus.Options{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// fakeStore is a machine of n sessions, each of n entries.
type fakeStore int

func fakeSessions(n int) hosts.Store { return fakeStore(n) }

func (n fakeStore) Sessions(_ context.Context, q hosts.Query) (*catalog.Result, error) {
	res := &catalog.Result{Warnings: []session.Warning{{Path: "/x", Line: 3, Message: "a bad line"}}}
	for i := range int(n) {
		res.Summaries = append(res.Summaries, session.Summary{CLI: "claude", ID: fmt.Sprintf("s%04d", i), Messages: i})
	}
	return res, nil
}

func (n fakeStore) Session(_ context.Context, ref string) (*session.Session, error) {
	if ref != "claude:s0001" {
		return nil, fmt.Errorf("no session %s", ref)
	}
	s := &session.Session{Version: session.Version, ID: "s0001", Source: session.Source{CLI: "claude"}}
	for i := range int(n) {
		s.Timeline = append(s.Timeline, session.Entry{ID: fmt.Sprintf("e%d", i), Type: session.Assistant,
			Content: strings.Repeat("x", 1000) + fmt.Sprint(i)})
	}
	return s, nil
}

// TestListGathersEveryHost: two hosts answer, one in several messages; a
// host recorded whose daemon is gone is a warning, at once, not a wait.
func TestListGathersEveryHost(t *testing.T) {
	ctx := context.Background()
	b := newBus(t)
	for name, n := range map[string]int{"alpha": 1234, "beta": 3} {
		stop, err := hosts.Serve(ctx, b, name, fakeSessions(n))
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		if err := b.PutHost(ctx, live.Host{Name: name, Started: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	// A machine whose daemon was killed: recorded, and nobody answers.
	if err := b.PutHost(ctx, live.Host{Name: "gone", Started: time.Now()}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := hosts.List(ctx, b, hosts.Query{}, nil, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("the list took %v: it waited for the host that is gone", waited)
	}
	want := map[string]int{"alpha": 1234, "beta": 3}
	for _, h := range got {
		switch h.Host {
		case "gone":
			if !errors.Is(h.Err, hosts.ErrOffline) {
				t.Errorf("the host that is gone: %v; want ErrOffline", h.Err)
			}
		default:
			if h.Err != nil || len(h.Sessions) != want[h.Host] || len(h.Warnings) != 1 {
				t.Errorf("%s: %d sessions, %d warnings, %v; want %d, 1", h.Host, len(h.Sessions), len(h.Warnings), h.Err, want[h.Host])
			}
			for i, s := range h.Sessions {
				if s.ID != fmt.Sprintf("s%04d", i) {
					t.Fatalf("%s: session %d is %s: out of order", h.Host, i, s.ID)
				}
			}
		}
	}
	if len(got) != 3 {
		t.Errorf("%d hosts answered for; want 3", len(got))
	}
	if _, err := hosts.List(ctx, b, hosts.Query{}, []string{"nobody"}, time.Second); err == nil {
		t.Error("a host not on the bus was asked without an error")
	}
}

// TestServeRefusesALaterVersion: a host says which protocol it speaks.
func TestServeRefusesALaterVersion(t *testing.T) {
	ctx := context.Background()
	b := newBus(t)
	stop, err := hosts.Serve(ctx, b, "alpha", fakeSessions(1))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var said string
	err = b.RequestStream(ctx, bus.HostSubject("alpha", "sessions"), []byte(`{"v":99}`), func(p []byte) (bool, error) {
		said = string(p)
		return true, nil
	})
	if err != nil || !strings.Contains(said, "version 99") {
		t.Errorf("a request of version 99 was answered %q, %v", said, err)
	}
}

// TestFetchReadsASessionOfAnotherHost: a session of a host, larger than a
// message, arrives whole; a path or a malformed reference is refused
// before it leaves, and the host refuses one that reaches it.
func TestFetchReadsASessionOfAnotherHost(t *testing.T) {
	ctx := context.Background()
	b := newBus(t)
	stop, err := hosts.Serve(ctx, b, "alpha", fakeSessions(1000)) // about 1 MB of JSON
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	s, err := hosts.Fetch(ctx, b, "alpha", "claude:s0001", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Timeline) != 1000 || s.Timeline[999].Content != strings.Repeat("x", 1000)+"999" {
		t.Fatalf("fetched %d entries; want the 1000 whole", len(s.Timeline))
	}
	if _, err := hosts.Fetch(ctx, b, "alpha", "claude:nope", 10*time.Second); err == nil || !strings.Contains(err.Error(), "no session") {
		t.Errorf("a session the host does not have: %v", err)
	}
	for _, bad := range []string{"/etc/passwd", "claude:../../x", "claude:a/b", "nocli:x", "claude:"} {
		if _, err := hosts.Fetch(ctx, b, "alpha", bad, time.Second); err == nil {
			t.Errorf("%q was fetched", bad)
		}
		var said string
		q := fmt.Sprintf(`{"v":1,"ref":%q}`, bad)
		b.RequestStream(ctx, bus.HostSubject("alpha", "session"), []byte(q), func(p []byte) (bool, error) {
			said = string(p)
			return true, nil
		})
		if !strings.Contains(said, "not a session reference") {
			t.Errorf("the host answered %q to a request for %q", said, bad)
		}
	}
	if _, err := hosts.Fetch(ctx, b, "gone", "claude:s0001", time.Second); !errors.Is(err, hosts.ErrOffline) {
		t.Errorf("a host nobody answers for: %v; want ErrOffline", err)
	}
}

func (n fakeStore) Search(_ context.Context, q index.Query) ([]index.Hit, error) {
	if q.Text == "" {
		return nil, fmt.Errorf("an empty search")
	}
	return []index.Hit{{CLI: "claude", SessionID: "s0001", Entry: "e1", Snippet: q.Text, Score: -float64(n)}}, nil
}

// TestSearchEveryHost: each host searches its own index; every hit names
// its host, and a host that is gone is an error of its own.
func TestSearchEveryHost(t *testing.T) {
	ctx := context.Background()
	b := newBus(t)
	for name, n := range map[string]int{"alpha": 1, "beta": 2} {
		stop, err := hosts.Serve(ctx, b, name, fakeSessions(n))
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		b.PutHost(ctx, live.Host{Name: name})
	}
	b.PutHost(ctx, live.Host{Name: "gone"})
	got, err := hosts.Search(ctx, b, index.Query{Text: "marker"}, nil, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range got {
		if h.Host == "gone" {
			if !errors.Is(h.Err, hosts.ErrOffline) {
				t.Errorf("gone: %v; want ErrOffline", h.Err)
			}
			continue
		}
		if h.Err != nil || len(h.Hits) != 1 || h.Hits[0].Host != h.Host || h.Hits[0].Snippet != "marker" {
			t.Errorf("%s answered %+v, %v; want one hit naming it", h.Host, h.Hits, h.Err)
		}
	}
	got, _ = hosts.Search(ctx, b, index.Query{}, []string{"alpha"}, 10*time.Second)
	if len(got) != 1 || got[0].Err == nil || !strings.Contains(got[0].Err.Error(), "empty search") {
		t.Errorf("a search the host refuses: %+v; want its error", got)
	}
}
