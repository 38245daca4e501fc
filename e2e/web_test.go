package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/stead-dev/stead/internal/clitest"
	"github.com/stead-dev/stead/modelstub"
)

// The hostile session's texts: a prompt and an answer that would run
// script, or link to it, if a page took them for HTML.
const (
	hostilePrompt = `Say hi. <script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> HOSTILE-PROMPT`
	hostileReply  = "Hi. [click me](javascript:window.__pwned=3) <b onmouseover=\"window.__pwned=4\">bold</b> HOSTILE-REPLY"
)

// The A/B run started from the runs page: its prompt and Codex's answer.
const (
	abPagePrompt = "Say which CLI you are. AB-PAGE-PROMPT"
	abPageReply  = "I am Codex. AB-PAGE-REPLY"
)

// The chain started from the runs page: two Codex steps.
const (
	chainPrompt1 = "Plan it. CHAIN-PROMPT-1"
	chainReply1  = "The plan is ready. CHAIN-REPLY-1"
	chainPrompt2 = "Do it. CHAIN-PROMPT-2"
	chainReply2  = "Done as planned. CHAIN-REPLY-2"
)

// controlRoom is a daemon serving the control room over a Claude Code
// store holding the matrix conversation and a hostile session, whose runs
// of Codex reach a stub, and a browser signed in to it.
type controlRoom struct {
	*steadCmd
	base, token string
	matrix      string // the matrix session's reference
	hostile     string
	browser     context.Context
}

func newControlRoom(t *testing.T) *controlRoom {
	t.Helper()
	chrome := chromium(t)
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	l := &steadCmd{t: t, bin: steadBinary(t), root: root}
	script := matrixScript()
	script.Prompts = append(script.Prompts, hostilePrompt)
	script.Turns = append(script.Turns, modelstub.Turn{Text: hostileReply})
	l.src = clitest.New(t, "claude", script, clitest.In(filepath.Join(root, "src")))
	if err := os.WriteFile(filepath.Join(l.src.Dir, "notes.txt"), []byte(typoNotes), 0o644); err != nil {
		t.Fatal(err)
	}
	r1 := l.src.Run(script.Prompts[0], "")
	succeeded(t, r1, matrixFinal1)
	succeeded(t, l.src.Run(script.Prompts[1], r1.SessionID), matrixFinal2)
	r3 := l.src.Run(hostilePrompt, "")
	succeeded(t, r3, "HOSTILE-REPLY")
	// Codex answers the run started from a page, then the two variants of
	// an A/B run.
	l.dst = clitest.New(t, "codex", &modelstub.Script{Prompts: []string{livePrompt, abPagePrompt, abPagePrompt, chainPrompt1, chainPrompt2},
		Turns: []modelstub.Turn{{Text: liveReply}, {Text: abPageReply}, {Text: abPageReply}, {Text: chainReply1}, {Text: chainReply2}}},
		clitest.In(filepath.Join(root, "dst")))
	l.dir = l.dst.Dir
	l.env = cliEnv(root, l.src, l.dst)
	l.startDaemon(root)

	var ui struct{ URL, Base, Token string }
	if err := json.Unmarshal([]byte(l.stead("ui", "--json")), &ui); err != nil || ui.URL == "" {
		t.Fatalf("stead ui --json: %+v %v", ui, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(filepath.Join(root, "chromium")), chromedp.WindowSize(1400, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(cancelBrowser)
	// The browser lives as long as the context of its first action.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting %s: %v", chrome, err)
	}
	c := &controlRoom{steadCmd: l, base: ui.Base, token: ui.Token, browser: bctx,
		matrix: "claude:" + r1.SessionID, hostile: "claude:" + r3.SessionID}
	// Signing in sets the cookie and lands on the sessions.
	c.do(t, "sign in", chromedp.Navigate(ui.URL), chromedp.WaitVisible(chromedp.CSS(`#sessions-list .session-row`)))
	return c
}

// do runs browser actions, failing the test with the page's text and a
// screenshot when they do not complete within a minute.
func (c *controlRoom) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	get(t, c, what, chromedp.Steps(steps...))
}

// get runs a browser action that gives a value, failing as do does.
func get[T any](t *testing.T, c *controlRoom, what string, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(c.browser, time.Minute)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		sctx, scancel := context.WithTimeout(c.browser, 10*time.Second)
		defer scancel()
		shot := filepath.Join(c.root, strings.ReplaceAll(what, " ", "-")+".png")
		if png, err := chromedp.Run(sctx, chromedp.FullScreenshot(80)); err == nil {
			os.WriteFile(shot, png, 0o644)
		}
		body, _ := chromedp.Run(sctx, chromedp.TextContent(chromedp.CSS("body")))
		t.Fatalf("%s: %v\npage text: %s\nscreenshot: %s", what, err, tailText(body, 3000), shot)
	}
	return v
}

// shoot saves a screenshot of what the browser shows as <name>.png in
// $STEAD_SCREENSHOTS, when it is set (the screenshots in docs/ are made
// so).
func (c *controlRoom) shoot(t *testing.T, name string) {
	t.Helper()
	dir := os.Getenv("STEAD_SCREENSHOTS")
	if dir == "" {
		return
	}
	// Let fonts and late pages settle.
	time.Sleep(300 * time.Millisecond)
	png := get(t, c, "screenshot", chromedp.CaptureScreenshot())
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Error(err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, c *controlRoom, what, expr string) T {
	t.Helper()
	return get(t, c, what, chromedp.Evaluate[T](expr))
}

// TestControlRoom drives the control room in Chromium over sessions the
// real Claude Code wrote, and a Codex run it starts.
func TestControlRoom(t *testing.T) {
	c := newControlRoom(t)
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	page := func(ref string) string { return c.base + "/#/session/" + url.PathEscape(ref) }

	t.Run("sessions", func(t *testing.T) {
		refs := eval[[]string](t, c, "sessions list",
			`[...document.querySelectorAll('#sessions-list .session-row')].map(r => r.dataset.ref)`)
		for _, want := range []string{c.matrix, c.hostile} {
			if !contains(refs, want) {
				t.Errorf("the sessions page lists %v, not %s", refs, want)
			}
		}
		c.shoot(t, "sessions")
	})

	t.Run("search opens the timeline at the hit", func(t *testing.T) {
		c.do(t, "search", chromedp.Navigate(c.base+"/#/search?q="+url.QueryEscape("marmalade")),
			chromedp.WaitVisible(css(`.hit-row`)))
		entry := get(t, c, "hit", chromedp.AttributeValue(css(`.hit-row`), "data-entry")).Value
		hitRef := get(t, c, "hit", chromedp.AttributeValue(css(`.hit-row`), "data-ref")).Value
		c.shoot(t, "search")
		c.do(t, "open the hit", chromedp.Click(css(`.hit-row`)), chromedp.WaitVisible(css(`#timeline .entry.hit`)))
		at := get(t, c, "hit entry", chromedp.AttributeValue(css(`#timeline .entry.hit`), "data-entry-id")).Value
		if hitRef != c.matrix || at == "" || at != entry {
			t.Errorf("the hit of %s at %s opened %s at %s", hitRef, entry, c.matrix, at)
		}
	})

	t.Run("a tool call with its result, an edit as a diff", func(t *testing.T) {
		c.do(t, "timeline", chromedp.Navigate(page(c.matrix)), chromedp.WaitVisible(css(`#timeline .tool-call`)),
			chromedp.WaitVisible(css(`#timeline .diff`)))
		call := eval[string](t, c, "tool calls",
			`[...document.querySelectorAll('#timeline .tool-call')].map(e => e.textContent).join('\n')`)
		del := eval[string](t, c, "diff", `[...document.querySelectorAll('#timeline .diff .diff-del')].map(e => e.textContent).join('\n')`)
		add := eval[string](t, c, "diff", `[...document.querySelectorAll('#timeline .diff .diff-add')].map(e => e.textContent).join('\n')`)
		c.shoot(t, "session")
		if !strings.Contains(call, "printf") || !strings.Contains(call, "hello-from-42") {
			t.Errorf("the bash call is not shown with its output: %q", tailText(call, 800))
		}
		if !strings.Contains(del, "marmelade") || !strings.Contains(add, "marmalade") {
			t.Errorf("the edit's diff: - %q + %q", del, add)
		}
		// Each answer's tokens, and its cost at list prices.
		if n := eval[int](t, c, "costs", `document.querySelectorAll('#timeline .entry .cost').length`); n == 0 {
			t.Error("no answer shows its cost")
		}
		// Its export as a page to keep.
		page := get(t, c, "export", chromedp.Evaluate[string](
			`fetch(document.querySelector('#export-links a[href*="format=html"]').href).then(async r => r.status + ' ' + r.headers.get('content-disposition') + '\n' + await r.text())`,
			chromedp.EvalAwaitPromise))
		if !strings.HasPrefix(page, "200 attachment") || !strings.Contains(page, "marmalade") {
			t.Errorf("the HTML export: %.300s", page)
		}
	})

	t.Run("hostile text is shown as text", func(t *testing.T) {
		c.do(t, "hostile", chromedp.Navigate(page(c.hostile)),
			chromedp.WaitVisible(css(`#timeline .entry[data-type="assistant"]`)))
		text := get(t, c, "hostile text", chromedp.TextContent(css(`#timeline`)))
		pwned := eval[any](t, c, "pwned", `window.__pwned === undefined ? null : window.__pwned`)
		links := eval[[]string](t, c, "links",
			`[...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href')).filter(h => !/^(#|\/|https?:)/.test(h))`)
		if pwned != nil {
			t.Errorf("the session's text ran script: window.__pwned = %v", pwned)
		}
		if !strings.Contains(text, "<script>window.__pwned=1</script>") || !strings.Contains(text, "HOSTILE-REPLY") {
			t.Errorf("the hostile prompt is not shown as text: %q", tailText(text, 800))
		}
		if len(links) > 0 {
			t.Errorf("links to other schemes: %v", links)
		}
	})

	t.Run("compare aligns two sessions by turn", func(t *testing.T) {
		c.do(t, "compare", chromedp.Navigate(c.base+"/#/compare?refs="+url.QueryEscape(c.matrix+","+c.hostile)),
			chromedp.WaitVisible(css(`.compare-turn`)))
		cols := eval[[]string](t, c, "compare columns", `[...document.querySelectorAll('.compare-col')].map(e => e.dataset.ref)`)
		turns := eval[int](t, c, "compare turns", `document.querySelectorAll('.compare-turn').length`)
		c.shoot(t, "compare")
		if !contains(cols, c.matrix) || !contains(cols, c.hostile) || turns < 2 {
			t.Errorf("compare shows columns %v and %d turns (the matrix session has 2)", cols, turns)
		}
	})

	t.Run("a run started from the page streams its terminal and entries", func(t *testing.T) {
		c.do(t, "start a run", chromedp.Navigate(page(c.matrix)), chromedp.WaitVisible(css(`#resume-form`)),
			chromedp.SetValue(css(`#resume-to`), "codex"),
			chromedp.SetValue(css(`#resume-dir`), c.dir),
			chromedp.SetValue(css(`#resume-prompt`), livePrompt),
			chromedp.Click(css(`#resume-start`)),
			chromedp.WaitVisible(css(`#terminal`)))
		get(t, c, "live entries", chromedp.Poll[chromedp.Void](
			`document.querySelector('#run-entries') && document.querySelector('#run-entries').textContent.includes('LIVE-REPLY')`,
			chromedp.WithPollingTimeout(50*time.Second)))
		// How long each record the CLI wrote took to be shown: from its
		// timestamp (the CLI's clock, this machine's) to the page drawing
		// it; entries replayed from before the page opened are left out.
		lags := eval[[]float64](t, c, "lags", `[...document.querySelectorAll('#run-entries [data-ts]')]
			.map(e => Number(e.dataset.shownAt) - Date.parse(e.dataset.ts)).filter(d => d >= 0 && d < 60000)`)
		t.Logf("a record the CLI wrote → shown in the page: %v ms", lags)
		get(t, c, "terminal", chromedp.Poll[chromedp.Void](
			`(() => { const r = document.querySelector('#terminal .xterm-rows'); return r && r.textContent.trim().length > 20 })()`,
			chromedp.WithPollingTimeout(10*time.Second)))
		c.shoot(t, "run")
		c.do(t, "stop the run", chromedp.Click(css(`#run-stop`)))
		get(t, c, "stopped", chromedp.Poll[chromedp.Void](
			`/stopped|exited|done|failed/.test(document.querySelector('#run-state').textContent)`,
			chromedp.WithPollingTimeout(40*time.Second)))
	})

	t.Run("an A/B run started from the page opens into compare", func(t *testing.T) {
		c.do(t, "start an A/B run", chromedp.Navigate(c.base+"/#/runs"), chromedp.WaitVisible(css(`#ab-form`)),
			chromedp.SetValue(css(`#ab-prompt`), abPagePrompt),
			chromedp.Click(css(`#ab-form input.ab-cli[value="codex"]`)),
			chromedp.SetValue(css(`#ab-repeat`), "2"),
			chromedp.SetValue(css(`#ab-project`), c.dir),
			chromedp.Click(css(`#ab-start`)))
		get(t, c, "A/B compare", chromedp.Poll[chromedp.Void](
			`document.querySelectorAll('.compare-col').length === 2 && document.querySelector('#view').textContent.includes('AB-PAGE-REPLY')`,
			chromedp.WithPollingTimeout(55*time.Second)))
		c.shoot(t, "ab")
	})

	t.Run("a chain started from the page runs its steps", func(t *testing.T) {
		c.do(t, "start a chain", chromedp.Navigate(c.base+"/#/runs"), chromedp.WaitVisible(css(`#chain-form`)),
			chromedp.SetValue(css(`#chain-steps`), "codex: "+chainPrompt1+"\ncodex: "+chainPrompt2),
			chromedp.SetValue(css(`#chain-dir`), c.dir),
			chromedp.Click(css(`#chain-start`)))
		get(t, c, "chain done", chromedp.Poll[chromedp.Void](
			`(() => { const s = document.querySelector('#chain-status'); return s && /Done|Stopped/.test(s.textContent) })()`, chromedp.WithPollingTimeout(55*time.Second)))
		text := get(t, c, "chain", chromedp.TextContent(css(`#view`)))
		if !strings.Contains(text, "Done.") || !strings.Contains(text, "CHAIN-REPLY-1") || !strings.Contains(text, "CHAIN-REPLY-2") {
			t.Errorf("the chain's page: %q", tailText(text, 800))
		}
		c.shoot(t, "chain")
	})

	t.Run("usage and runs", func(t *testing.T) {
		c.do(t, "usage", chromedp.Navigate(c.base+"/#/usage"), chromedp.WaitVisible(css(`#usage-totals`)))
		c.shoot(t, "usage")
		c.do(t, "runs", chromedp.Navigate(c.base+"/#/runs"), chromedp.WaitVisible(css(`#runs-list .run-row`)))
		text := get(t, c, "runs", chromedp.TextContent(css(`#view`)))
		if !strings.Contains(text, "codex") {
			t.Errorf("the runs page does not list the Codex run: %q", tailText(text, 500))
		}
		c.shoot(t, "runs")
	})

	t.Run("no data without the token, for another host or origin", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			header map[string]string
			code   int
		}{
			{"no token", nil, 401},
			{"another host", map[string]string{"Authorization": "Bearer " + c.token, "Host": "rebound.example"}, 421},
			{"another origin", map[string]string{"Authorization": "Bearer " + c.token, "Origin": "http://evil.example"}, 403},
		} {
			req, _ := http.NewRequest("GET", c.base+"/api/v1/sessions", nil)
			for k, v := range tc.header {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.code {
				t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.code)
			}
		}
		// A page of another origin cannot read the API, even with the
		// browser's cookie.
		c.do(t, "elsewhere", chromedp.Navigate("data:text/html,<p>elsewhere</p>"))
		status := get(t, c, "cross-origin fetch", chromedp.Evaluate[any](
			fmt.Sprintf(`fetch(%q, {credentials: 'include'}).then(r => r.status, e => 'blocked')`, c.base+"/api/v1/sessions"),
			chromedp.EvalAwaitPromise))
		if status != "blocked" && status != float64(401) && status != float64(403) {
			t.Errorf("a page of another origin read the API: %v", status)
		}
	})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
