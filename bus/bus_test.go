package bus_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/live"
)

func newBus(t *testing.T, opts bus.Options) *bus.Bus {
	t.Helper()
	if opts.StoreDir == "" {
		opts.StoreDir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := bus.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// collect watches run until n messages arrived.
func collect(t *testing.T, b *bus.Bus, run string, from bus.From, n int, kinds ...bus.Kind) []bus.Msg {
	t.Helper()
	var got []bus.Msg
	err := b.Watch(ctx(t), run, from, func(m bus.Msg) error {
		got = append(got, m)
		if len(got) == n {
			return bus.ErrStop
		}
		return nil
	}, kinds...)
	if err != nil {
		t.Fatalf("watch %s: %v (got %d of %d)", run, err, len(got), n)
	}
	return got
}

func TestLateWatcherGetsEverythingOnceInOrder(t *testing.T) {
	b := newBus(t, bus.Options{})
	c := ctx(t)
	for i := range 5 {
		id := fmt.Sprintf("r1-e%d", i)
		data := fmt.Appendf(nil, `{"n":%d}`, i)
		if err := b.Publish(c, "r1", bus.Entry, data, id); err != nil {
			t.Fatal(err)
		}
		// A capture that restarts publishes again: the id drops it.
		if err := b.Publish(c, "r1", bus.Entry, data, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Publish(c, "r1", bus.Status, []byte(`{"state":"exited"}`), ""); err != nil {
		t.Fatal(err)
	}
	// Another run's messages are not delivered.
	if err := b.Publish(c, "r2", bus.Entry, []byte(`{"other":true}`), ""); err != nil {
		t.Fatal(err)
	}
	got := collect(t, b, "r1", bus.FromStart, 6)
	for i, m := range got[:5] {
		if m.Kind != bus.Entry || m.Run != "r1" || string(m.Data) != fmt.Sprintf(`{"n":%d}`, i) {
			t.Errorf("message %d = %s %s %s", i, m.Run, m.Kind, m.Data)
		}
	}
	if got[5].Kind != bus.Status {
		t.Errorf("last message is %s, want status", got[5].Kind)
	}
	entries := collect(t, b, "r1", bus.FromStart, 5, bus.Entry)
	if len(entries) != 5 {
		t.Errorf("entries only: %d", len(entries))
	}
}

func TestReplayEndsAtTheLastStored(t *testing.T) {
	b := newBus(t, bus.Options{})
	c := ctx(t)
	var n int
	count := func(bus.Msg) error { n++; return nil }
	if err := b.Replay(c, "quiet", bus.Entry, count); err != nil || n != 0 {
		t.Fatalf("a run with nothing stored: %d messages, err %v", n, err)
	}
	for i := range 3 {
		b.Publish(c, "busy", bus.Entry, fmt.Appendf(nil, `{"n":%d}`, i), "")
		b.Publish(c, "busy", bus.Status, []byte(`{}`), "")
		b.Publish(c, "other", bus.Entry, []byte(`{}`), "")
	}
	if err := b.Replay(c, "busy", bus.Entry, count); err != nil || n != 3 {
		t.Fatalf("replay: %d messages, err %v; want 3", n, err)
	}
	if err := b.Replay(c, "bad id.*", bus.Entry, count); !errors.Is(err, bus.ErrNoRun) {
		t.Errorf("a bad run id: %v", err)
	}
}

func TestWatchFromNewAndTerminal(t *testing.T) {
	b := newBus(t, bus.Options{})
	c := ctx(t)
	b.PublishTerminal("r", []byte("old"))
	if err := b.Flush(c); err != nil {
		t.Fatal(err)
	}
	done := make(chan []bus.Msg)
	go func() { done <- collect(t, b, "r", bus.FromNew, 2, bus.PTY) }()
	time.Sleep(200 * time.Millisecond) // let the watch start
	b.PublishTerminal("r", []byte("new1"))
	b.PublishTerminal("r", []byte("new2"))
	got := <-done
	if string(got[0].Data) != "new1" || string(got[1].Data) != "new2" {
		t.Errorf("got %q %q", got[0].Data, got[1].Data)
	}
	if err := b.Watch(c, "r", bus.FromStart, nil, bus.PTY, bus.Entry); err == nil {
		t.Error("watching terminal output with entries: no error")
	}
}

func TestSendReachesTheServer(t *testing.T) {
	b := newBus(t, bus.Options{})
	c := ctx(t)
	if err := b.Send(c, "nobody", []byte("x")); !errors.Is(err, bus.ErrNotListening) {
		t.Fatalf("send with no supervisor: %v", err)
	}
	got := make(chan string, 1)
	stop, err := b.Serve("r", bus.Input, func(req bus.Request) error {
		if string(req.Data) == "bad" {
			return fmt.Errorf("the run has ended: %w", bus.ErrNotRunning)
		}
		got <- string(req.Data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := b.Send(c, "r", []byte("hello\r")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "hello\r" {
		t.Errorf("served %q", s)
	}
	// The supervisor's error comes back with its text and its code.
	if err := b.Send(c, "r", []byte("bad")); !errors.Is(err, bus.ErrNotRunning) || !strings.Contains(err.Error(), "the run has ended") {
		t.Errorf("send refused: %v", err)
	}
	if err := b.Send(c, "no.dots", nil); !errors.Is(err, bus.ErrNoRun) {
		t.Errorf("bad run id: %v", err)
	}
}

func TestRunsAndSessionsOutliveTheServer(t *testing.T) {
	dir := t.TempDir()
	b := newBus(t, bus.Options{StoreDir: dir})
	c := ctx(t)
	start := time.Now().UTC().Truncate(time.Second)
	for i, id := range []string{"old", "new"} {
		if err := b.PutRun(c, live.Run{ID: id, CLI: "codex", State: live.RunReady, Started: start.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	code := 0
	if err := b.PutRun(c, live.Run{ID: "old", CLI: "codex", State: live.RunExited, ExitCode: &code, Started: start}); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 3<<20)
	if err := b.PutSession(c, "old", strings.NewReader(big)); err != nil {
		t.Fatal(err)
	}
	b.Close()

	b = newBus(t, bus.Options{StoreDir: dir})
	runs, err := b.Runs(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].ID != "new" || runs[1].State != live.RunExited || *runs[1].ExitCode != 0 {
		t.Fatalf("runs after restart: %+v", runs)
	}
	if _, err := b.Run(c, "missing"); !errors.Is(err, bus.ErrNoRun) {
		t.Errorf("missing run: %v", err)
	}
	r, err := b.Session(c, "old")
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(r)
	r.Close()
	if err != nil || string(data) != big {
		t.Errorf("stored session: %d bytes, %v", len(data), err)
	}
}

func TestListenIsLoopbackWithToken(t *testing.T) {
	if _, err := bus.New(context.Background(), bus.Options{StoreDir: t.TempDir(), Listen: "0.0.0.0:0"}); !errors.Is(err, bus.ErrNotLoopback) {
		t.Fatalf("listen on all interfaces: %v", err)
	}
	srv := newBus(t, bus.Options{Listen: "127.0.0.1:0"})
	if !strings.HasPrefix(srv.ClientURL(), "nats://127.0.0.1:") || srv.ClientToken() == "" {
		t.Fatalf("url %q token %q", srv.ClientURL(), srv.ClientToken())
	}
	c := ctx(t)
	if _, err := bus.New(c, bus.Options{URL: srv.ClientURL()}); err == nil {
		t.Fatal("connected without the token")
	}
	// Another process's view: the same code path as an external server.
	client := newBus(t, bus.Options{URL: srv.ClientURL(), Token: srv.ClientToken()})
	if client.Embedded() {
		t.Error("client says it is embedded")
	}
	if err := client.Publish(c, "r", bus.Entry, []byte("from client"), ""); err != nil {
		t.Fatal(err)
	}
	got := collect(t, srv, "r", bus.FromStart, 1)
	if string(got[0].Data) != "from client" {
		t.Errorf("got %q", got[0].Data)
	}
}

// A watch whose iterator the client library closes under it resumes after
// the last message it delivered: nothing lost, nothing twice. Closed again
// and again, it ends with an error, never as if the run had ended.
func TestWatchSurvivesACut(t *testing.T) {
	b := newBus(t, bus.Options{})
	c := ctx(t)
	for i := range 10 {
		if err := b.Publish(c, "r", bus.Entry, fmt.Appendf(nil, "%d", i), ""); err != nil {
			t.Fatal(err)
		}
	}
	var stop func()
	bus.SetWatching(b, func(s func()) func() { stop = s; return func() {} })
	var got []string
	err := b.Watch(c, "r", bus.FromStart, func(m bus.Msg) error {
		got = append(got, string(m.Data))
		if len(got) == 3 || len(got) == 7 {
			stop() // the iterator is closed under the watch
		}
		if len(got) == 10 {
			return bus.ErrStop
		}
		return nil
	})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	if s := strings.Join(got, ","); s != "0,1,2,3,4,5,6,7,8,9" {
		t.Errorf("got %s; want every message once, in order", s)
	}

	bus.SetWatching(b, func(s func()) func() { s(); return func() {} })
	n := 0
	err = b.Watch(c, "r", bus.FromStart, func(bus.Msg) error { n++; return nil })
	if err == nil || c.Err() != nil {
		t.Fatalf("a watch cut every time it starts: %v (context %v); want an error", err, c.Err())
	}
	if !strings.Contains(err.Error(), "watch r") {
		t.Errorf("the error does not name the run: %v", err)
	}
}

func TestOtherWorker(t *testing.T) {
	srv := newBus(t, bus.Options{Listen: "127.0.0.1:0"})
	other := newBus(t, bus.Options{URL: srv.ClientURL(), Token: srv.ClientToken()})
	c := ctx(t)
	if host, err := srv.OtherWorker(c, "a", 200*time.Millisecond); host != "" || err != nil {
		t.Fatalf("with no worker up, OtherWorker = %q, %v; want none", host, err)
	}
	stopA, err := srv.AnswerWorkers("a")
	if err != nil {
		t.Fatal(err)
	}
	defer stopA()
	if host, err := srv.OtherWorker(c, "a", 200*time.Millisecond); host != "" || err != nil {
		t.Fatalf("with only itself up, OtherWorker = %q, %v; want none", host, err)
	}
	stopB, err := other.AnswerWorkers("b")
	if err != nil {
		t.Fatal(err)
	}
	if host, err := srv.OtherWorker(c, "a", 5*time.Second); host != "b" || err != nil {
		t.Fatalf("with b up, OtherWorker of a = %q, %v; want b", host, err)
	}
	stopB()
	if host, err := srv.OtherWorker(c, "a", 200*time.Millisecond); host != "" || err != nil {
		t.Fatalf("once b stopped answering, OtherWorker = %q, %v; want none", host, err)
	}
}
