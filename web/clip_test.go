package web

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/stead-dev/stead/session"
)

const clipSID = "c11b0000-0000-4000-8000-000000000001"

// writeClipSession writes a Claude Code session whose Bash output is one
// line of size bytes, ending in "END-OF-OUTPUT", and whose Write call's
// content is as long: its reference.
func writeClipSession(t *testing.T, env session.Env, size int) string {
	t.Helper()
	out := "START " + strings.Repeat("é", (size-20)/2) + " END-OF-OUTPUT"
	line := func(v map[string]any) string {
		v["sessionId"], v["cwd"] = clipSID, "/tmp/clip"
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	data := line(map[string]any{"type": "user", "uuid": "u1", "timestamp": "2026-11-20T10:00:00Z",
		"message": map[string]any{"role": "user", "content": "dump the log"}}) +
		line(map[string]any{"type": "assistant", "uuid": "a1", "parentUuid": "u1", "timestamp": "2026-11-20T10:00:01Z",
			"message": map[string]any{"id": "m1", "role": "assistant", "model": "claude-sonnet-4-5", "content": []any{
				map[string]any{"type": "tool_use", "id": "t1", "name": "Bash", "input": map[string]any{"command": "cat big.log"}},
				map[string]any{"type": "tool_use", "id": "t2", "name": "Write", "input": map[string]any{"file_path": "/tmp/clip/copy.log", "content": out}},
			}}}) +
		line(map[string]any{"type": "user", "uuid": "u2", "parentUuid": "a1", "timestamp": "2026-11-20T10:00:02Z",
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": out}}}})
	path := filepath.Join(env.Vars["CLAUDE_CONFIG_DIR"], "projects", "-tmp-clip", clipSID+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return "claude:" + clipSID
}

// TestPageClipsLongTexts: a page's entries carry no text over clipAt (cut
// at a character's start), say what was cut and how long it is, and
// full=true sends an entry whole.
func TestPageClipsLongTexts(t *testing.T) {
	s, hs := newTestServer(t, false)
	s.Env.Vars["CLAUDE_CONFIG_DIR"] = t.TempDir()
	ref := writeClipSession(t, s.Env, 1<<20)
	type page struct {
		Entries []struct {
			Type    string
			Output  string
			Input   map[string]string
			Clipped map[string]int
		}
	}
	get := func(query string) page {
		resp, body := do(t, hs, request{path: "/api/v1/sessions/" + ref + query, header: bearer()})
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", query, resp.StatusCode, body)
		}
		var p page
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var sawOutput, sawWrite bool
	for _, e := range get("").Entries {
		switch {
		case e.Type == "tool_result":
			sawOutput = true
			if len(e.Output) > clipAt || !strings.HasPrefix(e.Output, "START é") || strings.Contains(e.Output, "END-OF-OUTPUT") ||
				!strings.HasSuffix(e.Output, "é") || e.Clipped["output"] < 1<<20-20 {
				t.Errorf("a clipped output of %d bytes, ending %q, clipped %v", len(e.Output), e.Output[max(0, len(e.Output)-8):], e.Clipped)
			}
		case e.Input["file_path"] != "":
			sawWrite = true
			if e.Input["file_path"] != "/tmp/clip/copy.log" || len(e.Input["content"]) > clipAt || e.Clipped["input"] == 0 {
				t.Errorf("a clipped Write input: path %q, content of %d bytes, clipped %v", e.Input["file_path"], len(e.Input["content"]), e.Clipped)
			}
		case e.Clipped != nil:
			t.Errorf("a %s entry with nothing long clipped: %v", e.Type, e.Clipped)
		}
	}
	if !sawOutput || !sawWrite {
		t.Fatalf("the page lacks the output (%v) or the Write call (%v)", sawOutput, sawWrite)
	}
	whole := get("?offset=3&limit=1&full=true").Entries
	if len(whole) != 1 || whole[0].Clipped != nil || !strings.HasSuffix(whole[0].Output, "END-OF-OUTPUT") {
		t.Errorf("full=true: %d entries, the output's end missing or clipped", len(whole))
	}
}

// TestClippedLeavesTheEntry: clipping a page's entry copies it; the entry
// read stays whole (a session's entries may be held and shown again).
func TestClippedLeavesTheEntry(t *testing.T) {
	long := strings.Repeat("日", clipAt)
	e := &session.Entry{ID: "r", Type: session.ToolResult, Output: long, Error: long}
	p := clipped(e, false)
	if e.Output != long || e.Error != long {
		t.Fatal("clipped changed the entry it was given")
	}
	if len(p.Output) > clipAt || len(p.Output)%3 != 0 || p.clipped["output"] != len(long) || p.clipped["error"] != len(long) {
		t.Errorf("clipped output of %d bytes, clipped %v", len(p.Output), p.clipped)
	}
	short := &session.Entry{ID: "s", Type: session.ToolResult, Output: "ok"}
	if p := clipped(short, false); p.Entry != short || p.clipped != nil {
		t.Error("an entry with nothing long was copied or clipped")
	}
}

// TestShowAll: the timeline shows a long output's first 64 KB with a note
// of its length, of which it draws the first 1,000 characters (the output
// is one line), and "show all" puts the whole output in its place.
func TestShowAll(t *testing.T) {
	s, hs := newTestServer(t, false)
	s.Env.Vars["CLAUDE_CONFIG_DIR"] = t.TempDir()
	ref := writeClipSession(t, s.Env, 1<<20)
	br := newBrowser(t, s, hs)
	br.do(t, chromedp.Navigate(hs.URL+"/#/session/"+ref), chromedp.WaitVisible(chromedp.CSS(`#timeline .clip-note`)))
	ctx := br.ctx
	text, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(`#timeline`)))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text, "END-OF-OUTPUT") || !strings.Contains(text, "Shortened to its first 64 KB: output 1.0 MB") {
		t.Fatalf("the timeline before show all: %d bytes, note missing or the whole output shown", len(text))
	}
	// What is drawn of the one long line is its first 1,000 characters,
	// the rest folded.
	head, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
		const r = document.querySelector('#timeline .tool-result');
		return r.querySelector('.fold-head').textContent.length + ' ' + r.querySelector('.fold-rest summary').textContent;
	})()`))
	if err != nil || head != "1000 31,771 more characters" {
		t.Errorf("the result's fold: %q (%v), want its first 1,000 characters and the number of the rest", head, err)
	}
	br.do(t, chromedp.Click(chromedp.CSS(`#timeline .tool-result .show-all`)),
		chromedp.Poll[chromedp.Void](`[...document.querySelectorAll('#timeline .tool-result .entry-body')].some((b) => b.textContent.includes('END-OF-OUTPUT'))`))
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#timeline .tool-result .clip-note').length`))
	if err != nil || n != 0 {
		t.Errorf("the result's note is still shown (%d, %v)", n, err)
	}
}
