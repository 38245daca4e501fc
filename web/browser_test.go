package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/internal/samples"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// browser is headless Chromium signed in to a server.
type browser struct {
	ctx  context.Context
	base string
}

// newBrowser starts headless Chromium (Debian's) signed in to s, served
// by hs; skipped when Chromium is missing, unless STEAD_REQUIRE_CLIS is
// set (CI).
func newBrowser(tb testing.TB, s *Server, hs *httptest.Server) *browser {
	tb.Helper()
	var chrome string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			chrome = p
			break
		}
	}
	if chrome == "" {
		if os.Getenv("STEAD_REQUIRE_CLIS") != "" {
			tb.Fatal("Chromium is not installed (the CI installs Debian's chromium)")
		}
		tb.Skip("Chromium is not installed: apt-get install chromium")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(tb.TempDir()), chromedp.WindowSize(1400, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tb.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	tb.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		tb.Fatalf("starting %s: %v", chrome, err)
	}
	b := &browser{ctx: ctx, base: hs.URL}
	b.do(tb, chromedp.Navigate(hs.URL+"/signin?code="+s.SignIn()))
	return b
}

func (b *browser) do(tb testing.TB, steps ...chromedp.Action[chromedp.Void]) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		body, _ := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS("body")))
		tb.Fatalf("browser: %v\npage: %.2000s", err, body)
	}
}

// writeLongSession writes a Claude Code session of n entries into env's
// store (samples.ClaudeSession); its reference.
func writeLongSession(tb testing.TB, env session.Env, n int) string {
	tb.Helper()
	_, ref := samples.ClaudeSession(tb, env.Vars["CLAUDE_CONFIG_DIR"], samples.LongSID, n)
	return ref
}

// TestLiveSessions: with the daemon's watcher of the stores telling the
// server, an open session's page shows what its CLI appends, and the
// sessions page a session that appears, without a reload.
func TestLiveSessions(t *testing.T) {
	s, hs := newTestServer(t, false)
	s.Env.Vars["CLAUDE_CONFIG_DIR"] = t.TempDir()
	ref := writeLongSession(t, s.Env, 8)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ix, err := index.Open(ctx, index.DefaultPath(s.Env), nil)
	if err != nil {
		t.Fatal(err)
	}
	ix.OnChange(s.SessionsChanged)
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- ix.Watch(ctx, s.Env, func(index.Refreshed) { close(ready) }) }()
	defer func() { cancel(); <-done; ix.Close() }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("watch: %v", err)
	}
	br := newBrowser(t, s, hs)
	br.do(t, chromedp.Navigate(hs.URL+"/#/session/"+ref), chromedp.WaitVisible(chromedp.CSS(`#timeline .entry`)))
	// The CLI appends a prompt and an answer.
	path, _ := samples.ClaudeSessionPath(s.Env.Vars["CLAUDE_CONFIG_DIR"], samples.LongSID)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	appended := time.Now()
	f.Write(append(samples.ClaudeLine(samples.LongSID, 8), samples.ClaudeLine(samples.LongSID, 11)...))
	f.Close()
	br.do(t, chromedp.Poll[chromedp.Void](`document.querySelector('#timeline').textContent.includes('check-2')`,
		chromedp.WithPollingTimeout(20*time.Second)))
	t.Logf("an appended record was shown in %v", time.Since(appended).Round(time.Millisecond))
	// A new session appears in the list.
	br.do(t, chromedp.Navigate(hs.URL+"/#/sessions"), chromedp.WaitVisible(chromedp.CSS(`#sessions-list .session-row`)))
	samples.ClaudeSession(t, s.Env.Vars["CLAUDE_CONFIG_DIR"], "5e55a000-0000-4000-8000-000000000002", 1)
	br.do(t, chromedp.Poll[chromedp.Void](`!!document.querySelector('#sessions-list .session-row[data-ref="claude:5e55a000-0000-4000-8000-000000000002"]')`,
		chromedp.WithPollingTimeout(20*time.Second)))
}

// TestSessionFollowsItsFile: a session's open page shows what its CLI
// appends, with no watcher of the stores (no index): its own stream of
// the file's changes tells it, whether or not stead runs the CLI.
func TestSessionFollowsItsFile(t *testing.T) {
	s, hs := newTestServer(t, false)
	s.Env.Vars["CLAUDE_CONFIG_DIR"] = t.TempDir()
	ref := writeLongSession(t, s.Env, 8)
	br := newBrowser(t, s, hs)
	br.do(t, chromedp.Navigate(hs.URL+"/#/session/"+ref), chromedp.WaitVisible(chromedp.CSS(`#timeline .entry`)))
	for i, mark := range []string{"check-2", "check-3"} {
		appended := appendLongSession(t, s.Env, 8+4*i)
		br.do(t, chromedp.Poll[chromedp.Void](`document.querySelector('#timeline').textContent.includes(`+strconv.Quote(mark)+`)`,
			chromedp.WithPollingTimeout(10*time.Second)))
		t.Logf("an appended record was shown in %v", time.Since(appended).Round(time.Millisecond))
	}
}

// BenchmarkSessionAppendShown measures how long a record a CLI appends to
// a session takes to be shown in its open page, with no watcher of the
// stores: the file's stream of changes, then the page's read of its end.
func BenchmarkSessionAppendShown(b *testing.B) {
	s, hs := newTestServer(b, false)
	s.Env.Vars["CLAUDE_CONFIG_DIR"] = b.TempDir()
	ref := writeLongSession(b, s.Env, 8)
	br := newBrowser(b, s, hs)
	br.do(b, chromedp.Navigate(hs.URL+"/#/session/"+ref), chromedp.WaitVisible(chromedp.CSS(`#timeline .entry`)))
	time.Sleep(500 * time.Millisecond) // the stream opens after the page's load
	i := 8
	for b.Loop() {
		mark := fmt.Sprintf("check-%d", (i+3)/4)
		appendLongSession(b, s.Env, i)
		i += 4
		br.do(b, chromedp.Poll[chromedp.Void](`document.querySelector('#timeline').textContent.includes(`+strconv.Quote(mark)+`)`,
			chromedp.WithPollingTimeout(10*time.Second), chromedp.WithPollingInterval(time.Millisecond)))
	}
}

// appendLongSession appends a prompt and its answer to the session of
// writeLongSession, as its CLI would: the records of step i/4 (i a
// multiple of 4), whose answer says check-<i/4>. It returns when.
func appendLongSession(tb testing.TB, env session.Env, i int) time.Time {
	tb.Helper()
	path, _ := samples.ClaudeSessionPath(env.Vars["CLAUDE_CONFIG_DIR"], samples.LongSID)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	at := time.Now()
	if _, err := f.Write(append(samples.ClaudeLine(samples.LongSID, i), samples.ClaudeLine(samples.LongSID, i+3)...)); err != nil {
		tb.Fatal(err)
	}
	return at
}

// BenchmarkTimelineFirstScreen measures how long a 100,000-entry
// session's page takes to show its first screen of entries in headless
// Chromium: from the navigation to the entries laid out on screen.
func BenchmarkTimelineFirstScreen(b *testing.B) {
	s, hs := newTestServer(b, false)
	s.Env.Vars["CLAUDE_CONFIG_DIR"] = b.TempDir() // not the examples'
	ref := writeLongSession(b, s.Env, 100_000)
	br := newBrowser(b, s, hs)
	var total int
	for b.Loop() {
		br.do(b, chromedp.Navigate("about:blank"))
		br.do(b, chromedp.Navigate(hs.URL+"/#/session/"+ref), chromedp.WaitVisible(chromedp.CSS(`#timeline .entry`)))
	}
	ctx, cancel := context.WithTimeout(br.ctx, 10*time.Second)
	defer cancel()
	total, _ = chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#timeline .entry').length`))
	b.ReportMetric(float64(total), "entries-drawn")
}

// BenchmarkEntryShown measures how long an entry takes from the bus to an
// open run page: published as a capture publishes it, shown once the
// page's event stream delivered it and the page drew it.
func BenchmarkEntryShown(b *testing.B) {
	s, hs := newTestServer(b, false)
	run := fakeRun(b, s)
	br := newBrowser(b, s, hs)
	br.do(b, chromedp.Navigate(hs.URL+"/#/run/"+run), chromedp.WaitVisible(chromedp.CSS(`#run-entries`)))
	i := 0
	for b.Loop() {
		i++
		marker := fmt.Sprintf("SHOWN-MARKER-%d", i)
		publishEntry(b, s, run, i, marker)
		ctx, cancel := context.WithTimeout(br.ctx, 30*time.Second)
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](
			fmt.Sprintf(`document.querySelector('#run-entries').textContent.includes(%q)`, marker),
			chromedp.WithPollingInterval(time.Millisecond)))
		cancel()
		if err != nil {
			b.Fatalf("the entry %s was not shown: %v", marker, err)
		}
	}
}

// BenchmarkIdleCPU measures the server's CPU while pages are open and
// nothing happens: the sessions page, and a run's page with its two
// event streams. Each iteration is 10 s of idleness; cpu-% is the share of
// one core the test process (the server, and chromedp's end of the
// browser's connection) used.
func BenchmarkIdleCPU(b *testing.B) {
	s, hs := newTestServer(b, false)
	run := fakeRun(b, s)
	br := newBrowser(b, s, hs)
	br.do(b, chromedp.Navigate(hs.URL+"/#/sessions"), chromedp.WaitVisible(chromedp.CSS(`#sessions-list .session-row`)))
	// A second tab on the run.
	tab, cancel := chromedp.NewContext(br.ctx)
	defer cancel()
	if err := chromedp.Do(tab, chromedp.Navigate(hs.URL+"/#/run/"+run), chromedp.WaitVisible(chromedp.CSS(`#run-entries`))); err != nil {
		b.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	var used, wall time.Duration
	for b.Loop() {
		before, t0 := cpuTime(), time.Now()
		time.Sleep(10 * time.Second)
		used += cpuTime() - before
		wall += time.Since(t0)
	}
	b.ReportMetric(100*used.Seconds()/wall.Seconds(), "cpu-%")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// fakeRun puts a run's record on the server's bus, as a supervisor
// does, with one entry.
func fakeRun(tb testing.TB, s *Server) string {
	tb.Helper()
	id := runs.NewID()
	ctx := context.Background()
	rec := live.Run{ID: id, CLI: "codex", Dir: "/tmp/x", Host: "test-host", State: live.RunReady, Started: time.Now().UTC()}
	if err := s.Supervisor.Bus.PutRun(ctx, rec); err != nil {
		tb.Fatal(err)
	}
	publishEntry(tb, s, id, 0, "FIRST-ENTRY")
	return id
}

func publishEntry(tb testing.TB, s *Server, run string, i int, text string) {
	tb.Helper()
	ev := session.Event{Line: i + 1, Entries: []session.Entry{{ID: fmt.Sprintf("e%d", i), Timestamp: time.Now().UTC(),
		Type: session.Assistant, Content: text}}}
	data, err := json.Marshal(ev)
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.Supervisor.Bus.Publish(context.Background(), run, bus.Entry, data, ""); err != nil {
		tb.Fatal(err)
	}
}

// TestABOpensCompare: an A/B run's page opens straight into the
// comparison of its variants' sessions, listed on the runs page.
func TestABOpensCompare(t *testing.T) {
	s, hs := newTestServer(t, false)
	id := keepAB(t, s)
	br := newBrowser(t, s, hs)
	br.do(t, chromedp.Navigate(hs.URL+"/#/runs"), chromedp.WaitVisible(chromedp.CSS(`#ab-list .ab-row`)),
		chromedp.Click(chromedp.CSS(`#ab-list .ab-row a`)), chromedp.WaitVisible(chromedp.CSS(`.compare-turn`)))
	ctx, cancel := context.WithTimeout(br.ctx, 10*time.Second)
	defer cancel()
	cols, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.compare-col')].map(e => e.dataset.ref)`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"claude:742233ee-d311-4040-bf40-f490e4667f65", "codex:01a1ff87-612f-7d81-a969-d7b8bb66e562"}
	if fmt.Sprint(cols) != fmt.Sprint(want) {
		t.Errorf("A/B run %s opened compare on %v, want %v", id, cols, want)
	}
}

// BenchmarkSessionsPage measures the sessions page over 10,000 sessions
// (watchedCorpus) in headless Chromium: from the navigation to the first
// rows drawn, then a scroll to the end of the list redrawn (the rows in
// view only). rows-drawn is how many rows the page holds.
func BenchmarkSessionsPage(b *testing.B) {
	env := watchedCorpus(b)
	s := &Server{Env: env, Token: testToken}
	hs := httptest.NewServer(s.Handler())
	b.Cleanup(hs.Close)
	br := newBrowser(b, s, hs)
	var scrolled time.Duration
	for b.Loop() {
		br.do(b, chromedp.Navigate("about:blank"))
		br.do(b, chromedp.Navigate(hs.URL+"/#/sessions"), chromedp.WaitVisible(chromedp.CSS(`#sessions-list .session-row`)))
		t0 := time.Now()
		ctx, cancel := context.WithTimeout(br.ctx, 30*time.Second)
		_, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`(() => { document.querySelector('#sessions-list').scrollTop = 1e9 })()`))
		if err == nil {
			_, err = chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`(() => { const r = [...document.querySelectorAll('#sessions-list .session-row')]; return r.length && Math.max(...r.map((e) => Number(e.dataset.i))) >= 9000 })()`))
		}
		cancel()
		if err != nil {
			b.Fatalf("scrolling the list: %v", err)
		}
		scrolled += time.Since(t0)
	}
	ctx, cancel := context.WithTimeout(br.ctx, 10*time.Second)
	defer cancel()
	rows, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#sessions-list .session-row').length`))
	b.ReportMetric(float64(rows), "rows-drawn")
	b.ReportMetric(float64(scrolled.Milliseconds())/float64(b.N), "scroll-ms")
}
