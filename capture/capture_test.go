package capture_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/capture"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/session"
	"github.com/stead-dev/stead/vt"
)

// pub records what a capture publishes.
type pub struct {
	mu       sync.Mutex
	terminal bytes.Buffer
	native   []string
	lines    []int
	entries  []session.Entry
	updates  int
	statuses []live.Status
	more     chan struct{}
}

func newPub() *pub { return &pub{more: make(chan struct{}, 1)} }

// trail is the statuses published so far, each as state/signal/detail.
func (p *pub) trail() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var seq []string
	for _, s := range p.statuses {
		seq = append(seq, string(s.State)+"/"+s.Signal+"/"+s.Detail)
	}
	return seq
}

// snapshotStore is a CLI's session store as a database: add puts entries
// in it, and c reads it every 10 ms (Snapshot) until cancel.
func snapshotStore(t *testing.T, c *capture.Capture, ctx context.Context, cancel func()) (add func(...session.Entry)) {
	var mu sync.Mutex
	var store []session.Entry
	start(t, "Snapshot", func() error {
		return c.Snapshot(ctx, 10*time.Millisecond, func() ([]session.Entry, error) {
			mu.Lock()
			defer mu.Unlock()
			return append([]session.Entry(nil), store...), nil
		})
	}, cancel)
	return func(es ...session.Entry) {
		mu.Lock()
		store = append(store, es...)
		mu.Unlock()
	}
}

func (p *pub) poke() {
	select {
	case p.more <- struct{}{}:
	default:
	}
}
func (p *pub) Terminal(b []byte) error {
	p.mu.Lock()
	p.terminal.Write(b)
	p.mu.Unlock()
	p.poke()
	return nil
}
func (p *pub) Native(line []byte, n int) error {
	p.mu.Lock()
	p.native = append(p.native, string(line))
	p.lines = append(p.lines, n)
	p.mu.Unlock()
	p.poke()
	return nil
}
func (p *pub) Entry(ev session.Event) error {
	p.mu.Lock()
	p.entries = append(p.entries, ev.Entries...)
	p.updates += len(ev.Updates)
	p.mu.Unlock()
	p.poke()
	return nil
}

// published waits until the last status published is of state: the
// capture changes its state before it publishes the status.
func (p *pub) published(t *testing.T, state live.RunState) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		p.mu.Lock()
		ok := len(p.statuses) > 0 && p.statuses[len(p.statuses)-1].State == state
		p.mu.Unlock()
		if ok {
			return
		}
	}
	t.Fatalf("no %s status was published", state)
}

func (p *pub) Status(st live.Status) error {
	p.mu.Lock()
	p.statuses = append(p.statuses, st)
	p.mu.Unlock()
	p.poke()
	return nil
}

func (p *pub) waitEntries(t *testing.T, n int, why string) {
	t.Helper()
	deadline := time.After(3 * time.Second)
	for {
		p.mu.Lock()
		got := len(p.entries)
		p.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-p.more:
		case <-deadline:
			t.Fatalf("%s: %d entries published, want %d", why, got, n)
		}
	}
}

// nativeFile returns the first session file in an adapter's testdata
// archive.
func nativeFile(t *testing.T, cli, archive string) []byte {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("..", "adapters", cli, "testdata", archive))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Files {
		if strings.HasSuffix(f.Name, ".jsonl") {
			return f.Data
		}
	}
	t.Fatalf("no .jsonl in %s", archive)
	return nil
}

// TestFileEntriesAsRecordsArrive appends a real session's records one by
// one after a history, and checks that each record's entries are
// published before the next record is written, once, in order, marked
// with the CLI.
func TestFileEntriesAsRecordsArrive(t *testing.T) {
	cases := []struct{ cli, archive string }{
		{"claude", "tui-session.txtar"},
		{"codex", "injected-legacy-with-events-after-resume.txtar"},
		{"gemini", "interactive-tool-run.txtar"},
		{"kimi", "code-e2e-conversation.txtar"},
	}
	for _, tc := range cases {
		t.Run(tc.cli, func(t *testing.T) {
			a, _ := adapters.Lookup(tc.cli)
			data := nativeFile(t, tc.cli, tc.archive)
			lines := bytes.SplitAfter(data, []byte("\n"))
			if len(lines[len(lines)-1]) == 0 {
				lines = lines[:len(lines)-1]
			}
			// What a whole read yields, by line.
			byLine := map[int][]session.Entry{}
			dec := a.NewDecoder(bytes.NewReader(data))
			for {
				ev, err := dec.Decode()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				byLine[ev.Line] = append(byLine[ev.Line], ev.Entries...)
			}
			history := len(lines) / 2
			path := filepath.Join(t.TempDir(), "session.jsonl")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var histBytes int64
			for _, l := range lines[:history] {
				n, _ := f.Write(l)
				histBytes += int64(n)
			}
			p := newPub()
			c := capture.New(capture.Config{Run: "r", CLI: tc.cli}, p)
			fol := capture.Follow(path, 0)
			join := start(t, "File", func() error {
				defer fol.Close()
				return c.File(fol, histBytes, func(r io.Reader) capture.Decoder { return a.NewDecoder(r) })
			}, fol.Stop)
			var want []session.Entry
			for i := history; i < len(lines); i++ {
				if _, err := f.Write(lines[i]); err != nil {
					t.Fatal(err)
				}
				want = append(want, byLine[i+1]...)
				p.waitEntries(t, len(want), "after line "+strconv.Itoa(i+1))
			}
			fol.Stop()
			if err := join(); err != nil {
				t.Fatal(err)
			}
			if len(p.entries) != len(want) {
				t.Fatalf("%d entries published, want %d", len(p.entries), len(want))
			}
			for i, e := range p.entries {
				if e.ID != want[i].ID || e.Type != want[i].Type || e.Content != want[i].Content {
					t.Errorf("entry %d = %s %s %q, want %s %s %q", i, e.ID, e.Type, e.Content, want[i].ID, want[i].Type, want[i].Content)
				}
				if e.CLI != tc.cli {
					t.Errorf("entry %d is marked %q", i, e.CLI)
				}
			}
			if len(p.native) != len(lines)-history || p.lines[0] != history+1 {
				t.Errorf("%d native records from line %v, want %d from %d", len(p.native), p.lines, len(lines)-history, history+1)
			}
		})
	}
}

func TestReadinessTitlesAndTurns(t *testing.T) {
	p := newPub()
	tui := live.TUI{Paste: true, Settle: 100 * time.Millisecond, Title: func(title string) (live.RunState, string, bool) {
		switch {
		case strings.HasPrefix(title, "Ready"):
			return live.RunReady, "", true
		case strings.HasPrefix(title, "Working"):
			return live.RunBusy, "", true
		case strings.HasPrefix(title, "Action"):
			return live.RunWaiting, "approval", true
		}
		return "", "", false
	}}
	c := capture.New(capture.Config{Run: "r", CLI: "x", TUI: tui}, p)
	r, w := io.Pipe()
	joinTerminal := start(t, "Terminal", func() error { return c.Terminal(r, nil) }, func() { w.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start(t, "Readiness", func() error { return c.Readiness(ctx) }, cancel)
	// A title saying ready before paste mode is on does not make the
	// CLI ready: keystrokes would be lost.
	io.WriteString(w, "\x1b]0;Ready (x)\x07logo")
	time.Sleep(300 * time.Millisecond)
	if st := c.State(); st != live.RunStarting {
		t.Fatalf("state %s before paste mode, want starting", st)
	}
	// Split across writes.
	io.WriteString(w, "\x1b[?20")
	io.WriteString(w, "04h")
	begin := time.Now()
	if _, err := c.Wait(ctx, live.RunReady); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took < 90*time.Millisecond {
		t.Errorf("ready after %s, before the settle time", took)
	}
	io.WriteString(w, "\x1b]0;Working… (x)\x1b\\")
	if _, err := c.Wait(ctx, live.RunBusy); err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "\x1b]2;Action Required (x)\x07")
	if _, err := c.Wait(ctx, live.RunWaiting); err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "\x1b]0;Ready (x)\x07")
	if _, err := c.Wait(ctx, live.RunReady); err != nil {
		t.Fatal(err)
	}
	code := 0
	c.Set(live.RunExited, "process", "", &code)
	c.Set(live.RunReady, "title", "", nil) // over is over
	w.Close()
	if err := joinTerminal(); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var states []string
	for _, s := range p.statuses {
		states = append(states, string(s.State))
	}
	if got := strings.Join(states, " "); got != "ready busy waiting ready exited" {
		t.Errorf("states %q", got)
	}
	if !strings.Contains(p.terminal.String(), "logo") {
		t.Error("terminal output not published")
	}
}

// TestScreenFallback: a CLI with no structural signal paints its state by
// cell diffs; the capture reads it from the emulated screen, and only a
// change of what the screen says moves the run's state.
func TestScreenFallback(t *testing.T) {
	p := newPub()
	tui := live.TUI{Screen: func(lines []string) (live.RunState, string, bool) {
		for _, l := range lines {
			switch {
			case strings.Contains(l, "esc interrupt"):
				return live.RunBusy, "", true
			case strings.Contains(l, "Allow this command?"):
				return live.RunWaiting, "approval", true
			}
		}
		return "", "", false
	}}
	c := capture.New(capture.Config{Run: "r", CLI: "x", TUI: tui, Screen: vt.New(10, 60)}, p)
	r, w := io.Pipe()
	start(t, "Terminal", func() error { return c.Terminal(r, nil) }, func() { w.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start(t, "Readiness", func() error { return c.Readiness(ctx) }, cancel)
	io.WriteString(w, "\x1b[?1049h\x1b[H> prompt box")
	if _, err := c.Wait(ctx, live.RunReady); err != nil {
		t.Fatal(err)
	}
	// "esc interrupt" painted in pieces, out of order.
	io.WriteString(w, "\x1b[10;10Hrupt")
	io.WriteString(w, "\x1b[10;1Hesc ")
	io.WriteString(w, "\x1b[10;5Hinter")
	if _, err := c.Wait(ctx, live.RunBusy); err != nil {
		t.Fatalf("%v; screen:\n%s", err, c.Screen())
	}
	io.WriteString(w, "\x1b[5;1HAllow this command?")
	if _, err := c.Wait(ctx, live.RunWaiting); err != nil {
		t.Fatal(err)
	}
	// The dialog goes; the session file says the turn is over while the
	// footer still shows the spinner: the stale footer changes nothing.
	io.WriteString(w, "\x1b[5;1H\x1b[2K")
	time.Sleep(100 * time.Millisecond)
	c.Set(live.RunReady, "session record", "", nil)
	io.WriteString(w, "\x1b[1;1Hrepaint")
	time.Sleep(200 * time.Millisecond)
	if st := c.State(); st != live.RunReady {
		t.Errorf("a footer that did not change made the run %s", st)
	}
	// The footer clears, then shows the spinner again, with no new
	// prompt in the session file: still stale (seen with Codex under
	// load, which then stayed busy for good).
	io.WriteString(w, "\x1b[10;1H\x1b[2K")
	time.Sleep(100 * time.Millisecond)
	io.WriteString(w, "\x1b[10;1Hesc interrupt")
	time.Sleep(200 * time.Millisecond)
	if st := c.State(); st != live.RunReady {
		t.Errorf("a spinner drawn again after the session file ended the turn made the run %s", st)
	}
	// A new turn: its prompt reaches the session file; the screen says
	// busy again from then on.
	c.Set(live.RunBusy, "session record", "", nil)
	c.Set(live.RunReady, "session record", "", nil)
	io.WriteString(w, "\x1b[10;1H\x1b[2K")
	time.Sleep(100 * time.Millisecond)
	c.Set(live.RunBusy, "session record", "", nil)
	io.WriteString(w, "\x1b[10;1Hesc interrupt")
	time.Sleep(100 * time.Millisecond)
	io.WriteString(w, "\x1b[10;1H\x1b[2K")
	time.Sleep(100 * time.Millisecond)
	if !strings.Contains(c.Screen(), "repaintt box") {
		t.Errorf("screen:\n%s", c.Screen())
	}
	var seq []string
	p.mu.Lock()
	for _, s := range p.statuses {
		seq = append(seq, string(s.State)+"/"+s.Signal)
	}
	p.mu.Unlock()
	if got := strings.Join(seq, " "); got != "ready/terminal quiet busy/screen waiting/screen busy/screen ready/session record busy/session record ready/session record busy/session record" {
		t.Errorf("states %q", got)
	}
}

// TestSnapshotWaitsForText: a store row made before its text is filled
// in (OpenCode's assistant part while it streams) reaches the bus once,
// with its text; usage filled in later arrives as an update.
func TestSnapshotWaitsForText(t *testing.T) {
	p := newPub()
	c := capture.New(capture.Config{Run: "r", CLI: "opencode"}, p)
	u := &session.Usage{Input: 10, Output: 2}
	polls := [][]session.Entry{
		{{ID: "u1", Type: session.User, Content: "hi"}, {ID: "a1", Type: session.Assistant}},
		{{ID: "u1", Type: session.User, Content: "hi"}, {ID: "a1", Type: session.Assistant, Content: "hello"}},
		{{ID: "u1", Type: session.User, Content: "hi"}, {ID: "a1", Type: session.Assistant, Content: "hello", Usage: u}},
	}
	var i sync.Mutex
	n := 0
	ctx, cancel := context.WithCancel(context.Background())
	join := start(t, "Snapshot", func() error {
		return c.Snapshot(ctx, 5*time.Millisecond, func() ([]session.Entry, error) {
			i.Lock()
			defer i.Unlock()
			e := polls[min(n, len(polls)-1)]
			n++
			return e, nil
		})
	}, cancel)
	time.Sleep(100 * time.Millisecond)
	cancel()
	if err := join(); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var got []string
	for _, e := range p.entries {
		got = append(got, e.ID+":"+e.Content)
	}
	if strings.Join(got, " ") != "u1:hi a1:hello" {
		t.Errorf("published %q, want each entry once, with its text", got)
	}
	if p.updates != 1 {
		t.Errorf("%d updates, want the usage once", p.updates)
	}
}

// TestBusySpellBetweenPolls: a Claude turn over between two reads of its
// status file (it never reads busy) still shows as busy, then ready,
// from the session's records.
func TestBusySpellBetweenPolls(t *testing.T) {
	root := t.TempDir()
	env := session.Env{Home: root, Vars: map[string]string{"CLAUDE_CONFIG_DIR": root}}
	os.MkdirAll(filepath.Join(root, "sessions"), 0o755)
	os.WriteFile(filepath.Join(root, "sessions", "4242.json"), []byte(`{"status":"idle"}`), 0o644)
	path := filepath.Join(root, "s.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, _ := adapters.Lookup("claude")
	p := newPub()
	c := capture.New(capture.Config{Run: "r", CLI: "claude", TUI: *a.TUI, Env: env}, p)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	fol := capture.Follow(path, 0)
	start(t, "File", func() error {
		defer fol.Close()
		return c.File(fol, 0, func(r io.Reader) capture.Decoder { return a.NewDecoder(r) })
	}, fol.Stop)
	start(t, "Readiness", func() error { return c.Readiness(ctx) }, cancel)
	start(t, "StatusFile", func() error { return c.StatusFile(ctx, 4242, 5*time.Millisecond) }, cancel)
	time.Sleep(50 * time.Millisecond)
	c.Set(live.RunReady, "test", "", nil)
	time.Sleep(50 * time.Millisecond) // the status file reads idle
	f.WriteString(`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-11-21T10:00:00Z","message":{"role":"user","content":"hi"}}` + "\n")
	f.WriteString(`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2026-11-21T10:00:01Z","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"text","text":"hello"}],"usage":{"input_tokens":1,"output_tokens":1}}}` + "\n")
	f.WriteString(`{"type":"system","subtype":"turn_duration","durationMs":100,"uuid":"t1","parentUuid":"a1","sessionId":"s","timestamp":"2026-11-21T10:00:01Z"}` + "\n")
	p.waitEntries(t, 3, "the turn's records")
	deadline := time.Now().Add(3 * time.Second)
	for {
		p.mu.Lock()
		var seq []string
		for _, st := range p.statuses {
			seq = append(seq, string(st.State))
		}
		p.mu.Unlock()
		got := strings.Join(seq, " ")
		if got == "ready busy ready" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("states %q, want ready busy ready", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestErrorBetweenPolls: a turn that fails at once (an API error Claude
// records as an assistant message, and no turn record) between two reads
// of the status file, which reads idle throughout, ends: it left the run
// busy until the A/B step's timeout (seen in the ab-failure scenario).
func TestErrorBetweenPolls(t *testing.T) {
	root := t.TempDir()
	env := session.Env{Home: root, Vars: map[string]string{"CLAUDE_CONFIG_DIR": root}}
	os.MkdirAll(filepath.Join(root, "sessions"), 0o755)
	os.WriteFile(filepath.Join(root, "sessions", "4242.json"), []byte(`{"status":"idle"}`), 0o644)
	path := filepath.Join(root, "s.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, _ := adapters.Lookup("claude")
	p := newPub()
	c := capture.New(capture.Config{Run: "r", CLI: "claude", TUI: *a.TUI, Env: env}, p)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	fol := capture.Follow(path, 0)
	start(t, "File", func() error {
		defer fol.Close()
		return c.File(fol, 0, func(r io.Reader) capture.Decoder { return a.NewDecoder(r) })
	}, fol.Stop)
	start(t, "Readiness", func() error { return c.Readiness(ctx) }, cancel)
	start(t, "StatusFile", func() error { return c.StatusFile(ctx, 4242, 5*time.Millisecond) }, cancel)
	time.Sleep(50 * time.Millisecond)
	c.Set(live.RunReady, "test", "", nil)
	time.Sleep(50 * time.Millisecond) // the status file reads idle
	f.WriteString(`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-11-21T10:00:00Z","message":{"role":"user","content":"hi"}}` + "\n")
	f.WriteString(`{"type":"assistant","isApiErrorMessage":true,"uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2026-11-21T10:00:01Z","message":{"id":"m1","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"API Error: 500 boom"}],"usage":{"input_tokens":0,"output_tokens":0}}}` + "\n")
	p.waitEntries(t, 2, "the turn's records")
	deadline := time.Now().Add(3 * time.Second)
	for {
		p.mu.Lock()
		var seq []string
		for _, st := range p.statuses {
			seq = append(seq, string(st.State))
		}
		p.mu.Unlock()
		got := strings.Join(seq, " ")
		if got == "ready busy ready" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("states %q, want ready busy ready", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStaleScreenBusyExpires: a busy only the screen said, with the
// screen still and nothing from the session file, ends.
func TestStaleScreenBusyExpires(t *testing.T) {
	// Restored once the actors that read it have ended (cleanups run
	// last first).
	t.Cleanup(capture.SetStaleScreenBusy(300 * time.Millisecond))
	p := newPub()
	tui := live.TUI{Screen: func(lines []string) (live.RunState, string, bool) {
		for _, l := range lines {
			if strings.Contains(l, "esc to interrupt") {
				return live.RunBusy, "", true
			}
		}
		return "", "", false
	}}
	c := capture.New(capture.Config{Run: "r", CLI: "x", TUI: tui, Screen: vt.New(10, 60)}, p)
	r, w := io.Pipe()
	start(t, "Terminal", func() error { return c.Terminal(r, nil) }, func() { w.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start(t, "Readiness", func() error { return c.Readiness(ctx) }, cancel)
	io.WriteString(w, "> prompt box")
	if _, err := c.Wait(ctx, live.RunReady); err != nil {
		t.Fatal(err)
	}
	// A working line that keeps changing stays busy.
	begin := time.Now()
	for i := 0; time.Since(begin) < 700*time.Millisecond; i++ {
		io.WriteString(w, "\x1b[10;1HWorking ("+strconv.Itoa(i)+"s • esc to interrupt)")
		time.Sleep(50 * time.Millisecond)
		if i > 2 && c.State() != live.RunBusy {
			t.Fatalf("a working line that moves: the run is %s", c.State())
		}
	}
	// Then it stops moving.
	if _, err := c.Wait(ctx, live.RunReady); err != nil {
		t.Fatal(err)
	}
	p.published(t, live.RunReady)
	p.mu.Lock()
	last := p.statuses[len(p.statuses)-1]
	p.mu.Unlock()
	if last.Signal != "screen" || !strings.Contains(last.Detail, "nothing new") {
		t.Errorf("the stale busy ended with %+v", last)
	}
}

// TestTurnWithoutAnswer: a turn the session file ends without any text
// from the model says so, in its ready status and LastTurn; one with an
// answer does not.
func TestTurnWithoutAnswer(t *testing.T) {
	a, _ := adapters.Lookup("codex")
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := newPub()
	c := capture.New(capture.Config{Run: "r", CLI: "codex"}, p)
	c.Set(live.RunReady, "terminal quiet", "", nil)
	fol := capture.Follow(path, 0)
	start(t, "File", func() error {
		defer fol.Close()
		return c.File(fol, 0, func(r io.Reader) capture.Decoder { return a.NewDecoder(r) })
	}, fol.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	turn := func(n int, answer string) live.Status {
		t.Helper()
		ts := "2026-11-21T19:12:1" + strconv.Itoa(n) + ".000Z"
		lines := `{"timestamp":"` + ts + `","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"prompt ` + strconv.Itoa(n) + `"}]}}` + "\n"
		if answer != "" {
			lines += `{"timestamp":"` + ts + `","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"` + answer + `"}]}}` + "\n"
		}
		lines += `{"timestamp":"` + ts + `","type":"event_msg","payload":{"type":"task_complete","turn_id":"t` + strconv.Itoa(n) + `","last_agent_message":null}}` + "\n"
		turns := c.Turns()
		if _, err := f.WriteString(lines); err != nil {
			t.Fatal(err)
		}
		for c.Turns() == turns {
			if ctx.Err() != nil {
				t.Fatalf("turn %d did not end (the run is %s)", n, c.State())
			}
			time.Sleep(5 * time.Millisecond)
		}
		// The status goes out just after the state changes.
		for ctx.Err() == nil {
			p.mu.Lock()
			last := p.statuses[len(p.statuses)-1]
			p.mu.Unlock()
			if last.State == live.RunReady {
				return last
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("turn %d: no ready status", n)
		return live.Status{}
	}
	if st := turn(1, ""); !strings.Contains(st.Detail, "without an answer") || c.LastTurn().Answered {
		t.Errorf("a turn without an answer ended with %q (%+v)", st.Detail, c.LastTurn())
	}
	if st := turn(2, "Done."); st.Detail != "" || !c.LastTurn().Answered {
		t.Errorf("a turn with an answer ended with %q (%+v)", st.Detail, c.LastTurn())
	}
}

// TestScreenDialogWaits: a dialog only the screen shows (OpenCode's
// permission prompt) makes the run wait while it shows, whatever the
// store says meanwhile (the call it asks about is already there); once it
// is gone the run is busy again, and the store ends the turn.
func TestScreenDialogWaits(t *testing.T) {
	p := newPub()
	tui := live.TUI{Screen: func(lines []string) (live.RunState, string, bool) {
		for _, l := range lines {
			if strings.Contains(l, "Permission required") {
				return live.RunWaiting, "approval", true
			}
		}
		return "", "", false
	}}
	c := capture.New(capture.Config{Run: "r", CLI: "x", TUI: tui, Screen: vt.New(10, 60)}, p)
	r, w := io.Pipe()
	start(t, "Terminal", func() error { return c.Terminal(r, nil) }, func() { w.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start(t, "Readiness", func() error { return c.Readiness(ctx) }, cancel)
	io.WriteString(w, "> prompt box")
	if _, err := c.Wait(ctx, live.RunReady); err != nil {
		t.Fatal(err)
	}
	add := snapshotStore(t, c, ctx, cancel)
	add(session.Entry{ID: "u1", Type: session.User, Content: "make the file"})
	if _, err := c.Wait(ctx, live.RunBusy); err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "\x1b[5;1H△ Permission required")
	if _, err := c.Wait(ctx, live.RunWaiting); err != nil {
		t.Fatal(err)
	}
	add(session.Entry{ID: "c1", Type: session.ToolCall, Tool: session.ToolBash})
	p.waitEntries(t, 2, "the call")
	time.Sleep(100 * time.Millisecond)
	if st := c.State(); st != live.RunWaiting {
		t.Fatalf("the call reached the store while the dialog showed: the run is %s", st)
	}
	io.WriteString(w, "\x1b[5;1H\x1b[2K")
	if _, err := c.Wait(ctx, live.RunBusy); err != nil {
		t.Fatal(err)
	}
	add(session.Entry{ID: "r1", Type: session.ToolResult, Output: "done"},
		session.Entry{ID: "a1", Type: session.Assistant, Content: "Made it.", Usage: &session.Usage{Input: 1, Output: 1}})
	if _, err := c.Wait(ctx, live.RunReady); err != nil {
		t.Fatal(err)
	}
	p.published(t, live.RunReady)
	seq := p.trail()
	want := "ready/terminal quiet/ busy/session record/ waiting/screen/approval busy/screen/the dialog was answered ready/session store/"
	if got := strings.Join(seq, " "); got != want {
		t.Errorf("states\n%s\nwant\n%s", got, want)
	}
}

// TestIdleDialogIsNoTurn: a dialog the CLI draws while it is idle, after
// it looked ready (Codex's folder-trust dialog comes up half a second
// after its prompt), makes the run wait; answered with nothing of a turn
// under it, the run is ready again, not busy, and no turn is counted. A
// dialog that comes up once a prompt was recorded is a turn's question,
// and the turn goes on after it.
func TestIdleDialogIsNoTurn(t *testing.T) {
	p := newPub()
	tui := live.TUI{Screen: func(lines []string) (live.RunState, string, bool) {
		for _, l := range lines {
			if strings.Contains(l, "enter continue") {
				return live.RunWaiting, "a dialog", true
			}
		}
		return "", "", false
	}}
	c := capture.New(capture.Config{Run: "r", CLI: "x", TUI: tui, Screen: vt.New(10, 60)}, p)
	r, w := io.Pipe()
	start(t, "Terminal", func() error { return c.Terminal(r, nil) }, func() { w.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start(t, "Readiness", func() error { return c.Readiness(ctx) }, cancel)
	add := snapshotStore(t, c, ctx, cancel)
	io.WriteString(w, "> prompt box")
	if _, err := c.Wait(ctx, live.RunReady); err != nil {
		t.Fatal(err)
	}
	// The trust dialog, drawn over the idle prompt, then answered.
	io.WriteString(w, "\x1b[5;1HTrust this folder? enter continue")
	if _, err := c.Wait(ctx, live.RunWaiting); err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "\x1b[5;1H\x1b[2K")
	if _, err := c.Wait(ctx, live.RunReady); err != nil {
		t.Fatalf("the idle dialog was answered: %v (the run is %s)", err, c.State())
	}
	if n := c.Turns(); n != 0 {
		t.Errorf("%d turns counted for a dialog no prompt caused", n)
	}
	// A prompt, then a question of its turn: answered, the turn goes on.
	add(session.Entry{ID: "u1", Type: session.User, Content: "make the file"})
	if _, err := c.Wait(ctx, live.RunBusy); err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "\x1b[5;1HRun it? enter continue")
	if _, err := c.Wait(ctx, live.RunWaiting); err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "\x1b[5;1H\x1b[2K")
	if _, err := c.Wait(ctx, live.RunBusy); err != nil {
		t.Fatalf("the turn's question was answered: %v (the run is %s)", err, c.State())
	}
	add(session.Entry{ID: "a1", Type: session.Assistant, Content: "Made it."}, session.Entry{ID: "t1", Type: session.System, Kind: session.KindTurn})
	if _, err := c.Wait(ctx, live.RunReady); err != nil {
		t.Fatal(err)
	}
	if n := c.Turns(); n != 1 {
		t.Errorf("%d turns, want the prompt's one", n)
	}
	p.published(t, live.RunReady)
	seq := p.trail()
	want := "ready/terminal quiet/ waiting/screen/a dialog ready/screen/the dialog was answered; no turn had begun " +
		"busy/session record/ waiting/screen/a dialog busy/screen/the dialog was answered ready/session record/"
	if got := strings.Join(seq, " "); got != want {
		t.Errorf("states\n%s\nwant\n%s", got, want)
	}
}

// TestInterruptEndsTurn: a refused approval ends a Codex turn with
// turn_aborted and no task_complete; a TUI that says so goes ready on it,
// one that does not waits for another turn end.
func TestInterruptEndsTurn(t *testing.T) {
	a, _ := adapters.Lookup("codex")
	for _, ends := range []bool{true, false} {
		path := filepath.Join(t.TempDir(), "rollout.jsonl")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		p := newPub()
		tui := *a.TUI
		tui.Screen = nil
		tui.InterruptEndsTurn = ends
		c := capture.New(capture.Config{Run: "r", CLI: "codex", TUI: tui}, p)
		c.Set(live.RunReady, "terminal quiet", "", nil)
		fol := capture.Follow(path, 0)
		start(t, "File", func() error {
			defer fol.Close()
			return c.File(fol, 0, func(r io.Reader) capture.Decoder { return a.NewDecoder(r) })
		}, fol.Stop)
		ts := `"timestamp":"2026-11-26T03:04:31.000Z",`
		f.WriteString(`{` + ts + `"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Please make the marker file."}]}}` + "\n")
		f.WriteString(`{` + ts + `"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"touch m\"}","call_id":"c1"}}` + "\n")
		f.WriteString(`{` + ts + `"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Wall time: 4.1 seconds\naborted by user"}}` + "\n")
		f.WriteString(`{` + ts + `"type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted","turn_id":"t1"}}` + "\n")
		p.waitEntries(t, 4, "the turn's records")
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		_, err = c.Wait(ctx, live.RunReady)
		cancel()
		switch {
		case ends && err != nil:
			t.Errorf("InterruptEndsTurn: the refused turn did not end: %v", err)
		case !ends && err == nil:
			t.Error("without InterruptEndsTurn an interrupt ended the turn")
		}
	}
}

// TestDebugLogFailure: a model request that failed for good, which the
// CLI says only in its debug log (Gemini CLI, which then retries in
// silence under a title still "Working"), makes the busy run wait; the
// title saying working again changes nothing; once the request is given
// up the turn ends in that failure.
func TestDebugLogFailure(t *testing.T) {
	a, _ := adapters.Lookup("gemini")
	tui := *a.TUI
	p := newPub()
	c := capture.New(capture.Config{Run: "r", CLI: "gemini", TUI: tui, Screen: vt.New(10, 60)}, p)
	r, w := io.Pipe()
	start(t, "Terminal", func() error { return c.Terminal(r, nil) }, func() { w.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start(t, "Readiness", func() error { return c.Readiness(ctx) }, cancel)
	c.Set(live.RunReady, "test", "", nil)
	path := filepath.Join(t.TempDir(), "debug.log")
	os.WriteFile(path, []byte("[2026-11-26T03:40:00.000Z] [WARN] Attempt 1 failed: {\"error\":{\"code\":500}}. Max attempts reached\n"), 0o644)
	old, _ := os.Stat(path)
	fol := capture.Follow(path, 5*time.Millisecond)
	start(t, "DebugLog", func() error {
		defer fol.Close()
		return c.DebugLog(fol, old.Size())
	}, fol.Stop)
	working := "\x1b]0;✦  Working… (project)\a"
	io.WriteString(w, working)
	if _, err := c.Wait(ctx, live.RunBusy); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if st := c.State(); st != live.RunBusy || c.Failure() != "" {
		t.Fatalf("a failure logged before the run (the user's own log) counts: %s %q", st, c.Failure())
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(`[2026-11-26T03:43:10.129Z] [WARN] Attempt 2 failed: {"error":{"code":500,"message":"boom","status":"INTERNAL"}}. Max attempts reached` + "\n")
	if _, err := c.Wait(ctx, live.RunWaiting); err != nil {
		t.Fatal(err)
	}
	why := c.Failure()
	if !strings.Contains(why, "HTTP 500 INTERNAL: boom") {
		t.Errorf("failure %q", why)
	}
	io.WriteString(w, working)
	time.Sleep(100 * time.Millisecond)
	if st := c.State(); st != live.RunWaiting {
		t.Fatalf("the title saying working again made the run %s", st)
	}
	// Given up (Esc): the title says ready, the CLI records no error.
	io.WriteString(w, "\x1b]0;◇  Ready (project)\a")
	if _, err := c.Wait(ctx, live.RunReady); err != nil {
		t.Fatal(err)
	}
	if got := c.LastTurn().Error; got != why {
		t.Errorf("the turn's error %q, want %q", got, why)
	}
	p.published(t, live.RunReady)
	p.mu.Lock()
	last := p.statuses[len(p.statuses)-1]
	var seq []string
	for _, s := range p.statuses {
		seq = append(seq, string(s.State)+"/"+s.Signal)
	}
	p.mu.Unlock()
	if last.Detail != "the turn ended in an error: "+why {
		t.Errorf("ready says %q", last.Detail)
	}
	if got := strings.Join(seq, " "); got != "ready/test busy/title waiting/debug log ready/title" {
		t.Errorf("states %q", got)
	}
	if c.Failure() != "" {
		t.Errorf("the failure outlived its turn: %q", c.Failure())
	}
}
