package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// expected is what a native file holds, read independently of the adapters
// with encoding/json: the texts a universal session must keep, tool calls
// and which of them have results, the last model, and the usage.
type expected struct {
	texts   []string
	calls   map[string]bool // call id -> has a result in the file
	model   string
	usage   session.Usage
	records int
}

func readLines(t *testing.T, path string, each func(map[string]any)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			each(m)
		}
	}
}

func str(v any) string { s, _ := v.(string); return s }
func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
func num(v any) int64 { f, _ := v.(float64); return int64(f) }

func expectClaude(t *testing.T, path string) expected {
	e := expected{calls: map[string]bool{}}
	seen := map[string]bool{}
	readLines(t, path, func(r map[string]any) {
		typ := str(r["type"])
		if typ != "user" && typ != "assistant" {
			return
		}
		e.records++
		msg := r["message"]
		if s, ok := msg.(string); ok {
			e.texts = append(e.texts, s)
			return
		}
		m := obj(msg)
		if s, ok := m["content"].(string); ok {
			e.texts = append(e.texts, s)
		}
		blocks, _ := m["content"].([]any)
		for _, b := range blocks {
			bm := obj(b)
			switch str(bm["type"]) {
			case "text":
				e.texts = append(e.texts, str(bm["text"]))
			case "thinking":
				e.texts = append(e.texts, str(bm["thinking"]))
			case "tool_use":
				if _, ok := e.calls[str(bm["id"])]; !ok {
					e.calls[str(bm["id"])] = false
				}
			case "tool_result":
				e.calls[str(bm["tool_use_id"])] = true
			}
		}
		if typ == "assistant" && str(m["model"]) != "" && str(m["model"]) != "<synthetic>" {
			e.model = str(m["model"])
			if u := obj(m["usage"]); u != nil {
				key := str(m["id"]) + "/" + str(r["requestId"])
				if !seen[key] {
					seen[key] = true
					e.usage.Add(session.Usage{Input: num(u["input_tokens"]), Output: num(u["output_tokens"]),
						CacheRead: num(u["cache_read_input_tokens"]), CacheWrite: num(u["cache_creation_input_tokens"])})
				}
			}
		}
	})
	return e
}

func expectCodex(t *testing.T, path string) expected {
	e := expected{calls: map[string]bool{}}
	var prev map[string]any
	var prevIn, prevCached, prevOut, prevWrite int64
	readLines(t, path, func(r map[string]any) {
		p := obj(r["payload"])
		switch str(r["type"]) {
		case "turn_context":
			if m := str(p["model"]); m != "" {
				e.model = m
			}
		case "response_item":
			e.records++
			switch str(p["type"]) {
			case "message":
				for _, c := range p["content"].([]any) {
					if s := str(obj(c)["text"]); s != "" {
						e.texts = append(e.texts, s)
					}
				}
			case "reasoning":
				if sum, ok := p["summary"].([]any); ok {
					for _, c := range sum {
						e.texts = append(e.texts, str(obj(c)["text"]))
					}
				}
			case "function_call", "custom_tool_call":
				if _, ok := e.calls[str(p["call_id"])]; !ok {
					e.calls[str(p["call_id"])] = false
				}
			case "function_call_output", "custom_tool_call_output":
				e.calls[str(p["call_id"])] = true
			}
		case "event_msg":
			if str(p["type"]) != "token_count" || p["info"] == nil {
				return
			}
			info := obj(p["info"])
			total := obj(info["total_token_usage"])
			same := prev != nil && total != nil && equalJSON(total, prev)
			if total != nil {
				prev = total
			}
			if same {
				return
			}
			in, cached, out, write := num(total["input_tokens"]), num(total["cached_input_tokens"]), num(total["output_tokens"]), num(total["cache_write_input_tokens"])
			dIn, dCached, dOut, dWrite := in-prevIn, cached-prevCached, out-prevOut, write-prevWrite
			if total != nil {
				prevIn, prevCached, prevOut, prevWrite = in, cached, out, write
			}
			if last := obj(info["last_token_usage"]); last != nil {
				dIn, dCached, dOut, dWrite = num(last["input_tokens"]), num(last["cached_input_tokens"]), num(last["output_tokens"]), num(last["cache_write_input_tokens"])
			}
			e.usage.Add(session.Usage{Input: dIn - dCached, CacheRead: dCached, Output: dOut, CacheWrite: dWrite})
		}
	})
	return e
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestShowJSON shows every session of the test homes as universal JSON and
// checks each against the schema and against its native file: every user
// and assistant text and thinking is there, every tool call is there and
// paired with its result by id, and the model and token usage match.
func TestShowJSON(t *testing.T) {
	env := homes(t)
	var got listed
	json.Unmarshal([]byte(mustRun(t, env, "session", "list", "--json", "--subagents")), &got)
	if len(got.Sessions) < 15 {
		t.Fatalf("only %d sessions", len(got.Sessions))
	}
	for _, ls := range got.Sessions {
		ref := ls.CLI + ":" + ls.ID
		t.Run(ref, func(t *testing.T) {
			out := mustRun(t, env, "session", "show", ref, "--json")
			usftest.Validate(t, []byte(out))
			s, err := session.Unmarshal([]byte(out))
			if err != nil {
				t.Fatal(err)
			}
			var want expected
			if ls.CLI == session.Claude {
				want = expectClaude(t, ls.Path)
			} else {
				want = expectCodex(t, ls.Path)
			}
			var all strings.Builder
			calls := map[string]bool{}
			results := map[string]bool{}
			var usage session.Usage
			for _, e := range s.Timeline {
				all.WriteString(e.Content + "\x00" + e.Thinking + "\x00")
				switch e.Type {
				case session.ToolCall:
					calls[e.ID] = true
				case session.ToolResult:
					results[e.CallID] = true
				}
				if e.Usage != nil && (e.Native == nil || e.Native.Path == "") {
					usage.Add(*e.Usage)
				}
			}
			for _, text := range want.texts {
				if !strings.Contains(all.String(), text) {
					t.Errorf("text missing from the universal session: %.80q", text)
				}
			}
			for id, hasResult := range want.calls {
				if !calls[id] {
					t.Errorf("tool call %s missing", id)
				}
				if hasResult != results[id] {
					t.Errorf("tool call %s: result in file %v, in session %v", id, hasResult, results[id])
				}
			}
			for id := range results {
				if !calls[id] {
					t.Errorf("result for %s has no call", id)
				}
			}
			if want.model != "" && s.Model.Model != want.model {
				t.Errorf("model %q, want %q", s.Model.Model, want.model)
			}
			usage.Reasoning = 0
			if usage != want.usage {
				t.Errorf("usage of the entries %+v, the file's usage records %+v", usage, want.usage)
			}
		})
	}
}

func TestShowMarkdownAndPaths(t *testing.T) {
	env := homes(t)
	md := mustRun(t, env, "session", "show", "claude:742233ee-d311-4040-bf40-f490e4667f65")
	for _, want := range []string{"# Please run a command for me", "## User", "Please run a command for me",
		"**Tool call** `bash (Bash)`", "$ echo hello-from-tool", "**Result** (ok)", "hello-from-tool", "second prompt, notool please"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if strings.Contains(md, "Primary working directory") {
		t.Error("markdown shows injected context without --all")
	}
	if all := mustRun(t, env, "session", "show", "claude:742233ee-d311-4040-bf40-f490e4667f65", "--all"); !strings.Contains(all, "Primary working directory") {
		t.Error("--all does not show injected context")
	}
	// A bare id, and a file path with the CLI detected from its content.
	bare := mustRun(t, env, "session", "show", "01a1ff86-0e88-7863-a344-97213dbbd07a", "--json", "--no-native")
	if !strings.Contains(bare, `"cli": "codex"`) || strings.Contains(bare, `"native"`) {
		t.Error("bare id not resolved to the codex session, or native records kept with --no-native")
	}
	var ls listed
	json.Unmarshal([]byte(mustRun(t, env, "session", "list", "--json")), &ls)
	for _, s := range ls.Sessions {
		out := mustRun(t, env, "session", "show", s.Path, "--json")
		if !strings.Contains(out, `"cli": "`+s.CLI+`"`) {
			t.Errorf("%s detected as the wrong CLI", s.Path)
		}
	}
	// A file no CLI wrote.
	junk := t.TempDir() + "/junk.jsonl"
	os.WriteFile(junk, []byte("{\"hello\":1}\n"), 0o644)
	if _, errOut, code := run(t, env, "session", "show", junk); code != ExitUsage || !strings.Contains(errOut, "--cli") {
		t.Errorf("junk file: exit %d %s", code, errOut)
	}
}

// TestShowStreamed shows every session of every CLI's test store, read
// whole and in two passes (as a file over catalog.TwoPassAbove is: its outline,
// then its entries shown as they are read again), in every output: the
// same bytes either way, and the JSON is what encoding/json writes for the
// session read whole.
func TestShowStreamed(t *testing.T) {
	env := allHomes(t)
	var got listed
	json.Unmarshal([]byte(mustRun(t, env, "session", "list", "--json", "--subagents")), &got)
	if len(got.Sessions) < 20 {
		t.Fatalf("only %d sessions", len(got.Sessions))
	}
	show := func(twoPass bool, args ...string) string {
		t.Helper()
		defer func(n int64) { catalog.TwoPassAbove = n }(catalog.TwoPassAbove)
		catalog.TwoPassAbove = 1 << 62
		if twoPass {
			catalog.TwoPassAbove = 0
		}
		return mustRun(t, env, append([]string{"session", "show"}, args...)...)
	}
	streamed := 0
	for _, ls := range got.Sessions {
		ref := ls.CLI + ":" + ls.ID
		t.Run(ref, func(t *testing.T) {
			f := &Factory{Env: env, Logger: slog.New(slog.DiscardHandler)}
			defer func(n int64) { catalog.TwoPassAbove = n }(catalog.TwoPassAbove)
			catalog.TwoPassAbove = 0
			src, err := openShown(&ShowOptions{Factory: f, Ref: ref, Format: "json"})
			if err != nil {
				t.Fatal(err)
			}
			if src.Entries != nil {
				streamed++
			}
			src.Close()
			a, r, err := resolveRef(env, ref, "")
			if err != nil {
				t.Fatal(err)
			}
			s, err := a.Open(env, r)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"--json"}, {"--json", "--no-native"}, {}, {"--all"}, {"--full"}, {"--all", "--full"}} {
				args = append([]string{ref}, args...)
				whole, two := show(false, args...), show(true, args...)
				if whole != two {
					t.Errorf("show %s: read in two passes differs at byte %d:\nwhole: %.300q\ntwo:   %.300q", strings.Join(args, " "),
						firstDiff(whole, two), whole[max(0, firstDiff(whole, two)-100):], two[max(0, firstDiff(whole, two)-100):])
				}
				if len(args) == 2 && args[1] == "--json" && whole != want.String() {
					t.Errorf("show --json differs from encoding/json at byte %d", firstDiff(whole, want.String()))
				}
			}
		})
	}
	if streamed < 10 {
		t.Errorf("%d sessions read in two passes, want every Claude Code and Codex session but forks", streamed)
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestMarkdownPieces: the transcript's pieces that no longer copy long
// texts write what they wrote when they did.
func TestMarkdownPieces(t *testing.T) {
	oldClip := func(s string, n int) string { return clip(strings.Join(strings.Fields(s), " "), n) }
	oldFence := func(w io.Writer, lang, text string, full bool) {
		text = strings.TrimRight(text, "\n")
		lines := strings.Split(text, "\n")
		more := 0
		if !full && len(lines) > mdMaxLines {
			more = len(lines) - mdMaxLines
			lines = lines[:mdMaxLines]
		}
		text = strings.Join(lines, "\n")
		ticks, run := 3, 0
		for _, c := range text {
			if c == '`' {
				run++
				if run >= ticks {
					ticks = run + 1
				}
			} else {
				run = 0
			}
		}
		f := strings.Repeat("`", ticks)
		fmt.Fprintf(w, "%s%s\n%s\n%s\n", f, lang, text, f)
		if more > 0 {
			fmt.Fprintf(w, "_… %s (--full shows all)_\n", plural(more, "more line"))
		}
		fmt.Fprintln(w)
	}
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "é", "日本", " ", "\t", "\n", "\n\n", "`", "``", "````", "\xff", "\xc3", "\u00a0", "\u2028", "$ ", "word"}
	for range 3000 {
		var b strings.Builder
		for range r.IntN(400) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		for _, n := range []int{1, 2, 5, 80, 200} {
			if got, want := clipFields(s, n), oldClip(s, n); got != want {
				t.Fatalf("clipFields(%q, %d) = %q, want %q", s, n, got, want)
			}
		}
		for _, full := range []bool{false, true} {
			for _, head := range []string{"", "$ "} {
				var got, want bytes.Buffer
				fence(&got, "sh", head, s, full)
				oldFence(&want, "sh", head+s, full)
				if got.String() != want.String() {
					t.Fatalf("fence(%q, %q, full %v):\n%q\nwant\n%q", head, s, full, got.String(), want.String())
				}
			}
		}
	}
}

// TestFenceShortensLongLines: a transcript shows no more than mdMaxBytes of
// a tool's output, however few lines it has, cut at a character's start,
// and says how much it left out.
func TestFenceShortensLongLines(t *testing.T) {
	long := strings.Repeat("x", 300<<10)
	for _, c := range []struct {
		name, text string
		shown      int // bytes of text shown
		more       string
	}{
		{"one long line", long, mdMaxBytes, "_… 292.0 KB more (--full shows all)_"},
		{"a line of mdMaxBytes", long[:mdMaxBytes], mdMaxBytes, ""},
		{"long lines", strings.Repeat(strings.Repeat("y", 2000)+"\n", 10), mdMaxBytes, "_… 11.5 KB more, 5 more lines (--full shows all)_"},
		{"many short lines", strings.Repeat("z\n", 100), 79, "_… 60 more lines (--full shows all)_"},
		{"one line more", strings.Repeat("z\n", 41), 79, "_… 1 more line (--full shows all)_"},
		{"a character across the cut", strings.Repeat("x", mdMaxBytes-1) + "日本", mdMaxBytes - 1, "_… 6 B more (--full shows all)_"},
	} {
		var b bytes.Buffer
		fence(&b, "", "", c.text, false)
		out := b.String()
		body, rest, _ := strings.Cut(strings.TrimPrefix(out, "```\n"), "\n```\n")
		if len(body) != c.shown || !strings.HasPrefix(c.text, body) {
			t.Errorf("%s: %d bytes shown, want %d", c.name, len(body), c.shown)
		}
		if got := strings.TrimSpace(rest); got != c.more {
			t.Errorf("%s: after the fence %q, want %q", c.name, got, c.more)
		}
		b.Reset()
		fence(&b, "", "", c.text, true)
		if !strings.Contains(b.String(), strings.TrimRight(c.text, "\n")) {
			t.Errorf("%s: --full does not show the whole text", c.name)
		}
	}
}
