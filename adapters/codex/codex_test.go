package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stead-dev/stead/adapters/internal/jsonread"
	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

const tid = "0193d000-0000-7000-8000-000000000abc"

func metaLine() string {
	return `{"timestamp":"2026-11-21T10:00:00.000Z","type":"session_meta","payload":{"id":"` + tid + `","timestamp":"2026-11-21T10:00:00.000Z","cwd":"/w","originator":"codex_exec","cli_version":"0.169.0"}}` + "\n"
}

func tokenCount(total, cached, out, reasoning int, last string) string {
	info := fmt.Sprintf(`"total_token_usage":{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":%d,"total_tokens":0}`, total, cached, out, reasoning)
	if last != "" {
		info += `,"last_token_usage":` + last
	}
	return `{"timestamp":"2026-11-21T10:00:01.000Z","type":"event_msg","payload":{"type":"token_count","info":{` + info + `}}}` + "\n"
}

func last(in, cached, out, reasoning int) string {
	return fmt.Sprintf(`{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":%d,"total_tokens":0}`, in, cached, out, reasoning)
}

// TestUsageRules checks the token_count rules measured against ccusage
// 20.0.24 on crafted rollouts: cached input is not input; a repeated total
// counts once; a null info counts nothing; without last_token_usage the
// change in the total counts; with it, it does.
func TestUsageRules(t *testing.T) {
	assistant := `{"timestamp":"2026-11-21T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x"}]}}` + "\n"
	tests := []struct {
		name  string
		lines string
		want  session.Usage
	}{
		{"cached", tokenCount(1000, 400, 50, 10, last(1000, 400, 50, 10)), session.Usage{Input: 600, CacheRead: 400, Output: 50, Reasoning: 10}},
		{"repeat", tokenCount(1000, 400, 50, 10, last(1000, 400, 50, 10)) + tokenCount(1000, 400, 50, 10, last(1000, 400, 50, 10)), session.Usage{Input: 600, CacheRead: 400, Output: 50, Reasoning: 10}},
		{"null info", `{"timestamp":"2026-11-21T10:00:01.000Z","type":"event_msg","payload":{"type":"token_count","info":null}}` + "\n" + tokenCount(1000, 400, 50, 10, last(1000, 400, 50, 10)), session.Usage{Input: 600, CacheRead: 400, Output: 50, Reasoning: 10}},
		{"total only", tokenCount(100, 0, 10, 0, "") + tokenCount(250, 0, 30, 0, ""), session.Usage{Input: 250, Output: 30}},
		{"last wins over delta", tokenCount(100, 0, 10, 0, last(100, 0, 10, 0)) + tokenCount(250, 0, 30, 0, last(120, 0, 15, 0)), session.Usage{Input: 220, Output: 25}},
		{"usage record not counted", `{"timestamp":"2026-11-21T10:00:01.000Z","type":"token_usage_record","payload":{"thread_id":"` + tid + `","usage":{"input_tokens":1000,"output_tokens":20}}}` + "\n", session.Usage{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := metaLine() + assistant + tt.lines
			sum, err := Summarize(strings.NewReader(data), session.DetailFull)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Usage != tt.want {
				t.Errorf("summary usage %+v, want %+v", sum.Usage, tt.want)
			}
			s, err := Read(strings.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			var got session.Usage
			if s.Metadata.Tokens != nil {
				got = *s.Metadata.Tokens
			}
			if got != tt.want {
				t.Errorf("session tokens %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestIDFromName(t *testing.T) {
	for name, want := range map[string]string{
		"rollout-2026-11-21T19-12-18-01a1ff86-0e88-7863-a344-97213dbbd07a.jsonl": "01a1ff86-0e88-7863-a344-97213dbbd07a",
		"rollout-01a1ff86-0e88-7863-a344-97213dbbd07a.jsonl":                     "01a1ff86-0e88-7863-a344-97213dbbd07a",
		"rollout-2026-11-21-5ff6bc2a-ab87-4567-bbbf-1c792caea0c8.jsonl":          "5ff6bc2a-ab87-4567-bbbf-1c792caea0c8",
		"rollout-custom.jsonl":                       "custom",
		"01a1ff86-0e88-7863-a344-97213dbbd07a.jsonl": "",
		"rollout-x.json":                             "",
	} {
		if got := IDFromName(name); got != want {
			t.Errorf("IDFromName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestDiscoverAndLocate(t *testing.T) {
	home := t.TempDir()
	files := []string{
		"sessions/2026/11/21/rollout-2026-11-21T19-12-18-01a1ff86-0e88-7863-a344-97213dbbd07a.jsonl",
		"sessions/2020/01/01/rollout-2019-01-01T00-00-00-5ff6bc2a-ab87-4567-bbbf-1c792caea0c8.jsonl",
		"sessions/misc/rollout-0dc1f7d7-55a9-435c-8664-fe402ea76e32.jsonl",
		"archived_sessions/rollout-2026-10-01T00-00-00-7b03ff3b-6b65-4dd6-a3fb-80a7ea1d6212.jsonl",
	}
	for _, f := range files {
		p := filepath.Join(home, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("{}\n"), 0o644)
	}
	os.WriteFile(filepath.Join(home, "sessions/2026/11/21/notes.jsonl"), []byte("{}\n"), 0o644)
	// A line that is no record is a warning; one of 2 MB is read as
	// any other, and so are those after it.
	long := strings.Repeat("long ", 400_000)
	os.WriteFile(filepath.Join(home, "session_index.jsonl"), []byte(
		`{"id":"01a1ff86-0e88-7863-a344-97213dbbd07a","thread_name":"Old name","updated_at":"2026-11-21T19:14:55Z"}`+"\n"+
			`not json`+"\n"+
			`{"id":"5ff6bc2a-ab87-4567-bbbf-1c792caea0c8","thread_name":"`+long+`","updated_at":"2026-11-21T19:15:00Z"}`+"\n"+
			`{"id":"01a1ff86-0e88-7863-a344-97213dbbd07a","thread_name":"Fake title 2","updated_at":"2026-11-21T19:15:55Z"}`+"\n"), 0o644)
	env := session.Env{Home: "/nonexistent", Vars: map[string]string{"CODEX_HOME": home}}
	refs, warns := Discover(env)
	if len(warns) != 1 || warns[0].Line != 2 || !strings.HasSuffix(warns[0].Path, "session_index.jsonl") {
		t.Errorf("warnings %v; want one, of session_index.jsonl's line 2", warns)
	}
	for i := range refs {
		if refs[i].Title == long {
			refs[i].Title = "(2 MB)"
		}
	}
	var got []string
	for _, r := range refs {
		got = append(got, r.ID+" "+r.Title)
	}
	sort.Strings(got)
	want := []string{
		"01a1ff86-0e88-7863-a344-97213dbbd07a Fake title 2",
		"0dc1f7d7-55a9-435c-8664-fe402ea76e32 ",
		"5ff6bc2a-ab87-4567-bbbf-1c792caea0c8 (2 MB)",
		"7b03ff3b-6b65-4dd6-a3fb-80a7ea1d6212 ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Discover:\n%s", strings.Join(got, "\n"))
	}
	for _, r := range refs {
		p, err := Locate(env, r.ID)
		if err != nil || p != r.Path {
			t.Errorf("Locate(%s) = %s, %v", r.ID, p, err)
		}
	}
	for _, id := range []string{"99999999-0000-4000-8000-000000000000", "../x", "*", ""} {
		if _, err := Locate(env, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Locate(%q) = %v", id, err)
		}
	}
	if got := Root(session.Env{Home: "/h"}); got != "/h/.codex" {
		t.Errorf("Root = %q", got)
	}
}

func TestHugeLineAndMemory(t *testing.T) {
	big := strings.Repeat("y", 24<<20)
	data := metaLine() +
		`{"timestamp":"2026-11-21T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"dump it"}]}}` + "\n" +
		`{"timestamp":"2026-11-21T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cat big\"}","call_id":"c1"}}` + "\n" +
		`{"timestamp":"2026-11-21T10:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Process exited with code 0\nOutput:\n` + big + `"}}` + "\n" +
		tokenCount(500, 0, 20, 0, last(500, 0, 20, 0))
	s, err := Read(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Timeline) != 3 || len(s.Timeline[2].Output) < 24<<20 {
		t.Fatalf("entries %d", len(s.Timeline))
	}
	Summarize(strings.NewReader(data), session.DetailFull) // warm the pool
	var sum session.Summary
	alloc := usftest.Allocated(func() { sum, err = Summarize(strings.NewReader(data), session.DetailFull) })
	if err != nil || sum.Usage.Input != 500 || sum.Turns != 1 {
		t.Fatalf("summary %+v %v", sum, err)
	}
	if alloc > 1<<20 {
		t.Errorf("summary of a %d MB file allocated %d KB; want under 1 MB", len(data)>>20, alloc>>10)
	}
}

func FuzzDecode(f *testing.F) { usftest.Fuzz(f, Read, Summarize) }

func TestPatchFiles(t *testing.T) {
	raw := "*** Begin Patch\n*** Update File: pkg/x.go\n@@\n-a\n+b\n*** Add File: C:\\new\\y.go\n+x\n*** Move to: z.go\n*** End Patch\n"
	want := []string{"pkg/x.go", `C:\new\y.go`, "z.go"}
	if got := PatchFiles([]byte(raw)); !reflect.DeepEqual(got, want) {
		t.Errorf("raw patch: %q", got)
	}
	wrapped, _ := json.Marshal(map[string]string{"input": raw})
	if got := PatchFiles(wrapped); !reflect.DeepEqual(got, want) {
		t.Errorf("patch in JSON arguments %s: %q", wrapped, got)
	}
}

// TestToolPairing checks orders of items and events the golden cases do
// not hold: the decoder and the summary count each call once and agree on
// its outcome.
func TestToolPairing(t *testing.T) {
	ev := func(p string) string {
		return `{"timestamp":"2026-11-21T10:00:02.000Z","type":"event_msg","payload":` + p + "}\n"
	}
	it := func(p string) string {
		return `{"timestamp":"2026-11-21T10:00:02.000Z","type":"response_item","payload":` + p + "}\n"
	}
	call := it(`{"type":"function_call","name":"shell","arguments":"{\"command\":[\"make\"]}","call_id":"c1"}`)
	out := it(`{"type":"function_call_output","call_id":"c1","output":"done"}`)
	end := func(exit int) string {
		return ev(fmt.Sprintf(`{"type":"exec_command_end","call_id":"c1","command":["make"],"exit_code":%d}`, exit))
	}
	tests := []struct {
		name          string
		lines         string
		calls, errors int
	}{
		{"event before output", call + end(2) + out, 1, 1},
		{"event after output", call + out + end(2), 1, 1},
		{"event after output agrees", call + out + end(0), 1, 0},
		{"event repeated", call + end(2) + out + end(2), 1, 1},
		{"event alone", end(1), 1, 1},
		{"begin and end", ev(`{"type":"collab_agent_interaction_begin","call_id":"c2","prompt":"go"}`) +
			ev(`{"type":"collab_agent_interaction_end","call_id":"c2","prompt":"go","status":"not_found"}`), 1, 1},
		{"begin without end", ev(`{"type":"collab_agent_spawn_begin","call_id":"c3","prompt":"go"}`), 1, 0},
		{"web search item then event", it(`{"type":"web_search_call","status":"completed","action":{"type":"search","query":"q"}}`) +
			ev(`{"type":"web_search_end","call_id":"ws_1","query":"q"}`), 1, 0},
		{"web search event then failed item", ev(`{"type":"web_search_end","call_id":"ws_1","query":"q"}`) +
			it(`{"type":"web_search_call","status":"failed","action":{"type":"search","query":"q"}}`), 1, 1},
		{"web searches of two turns", it(`{"type":"web_search_call","status":"completed","action":{"type":"search","query":"q"}}`) +
			ev(`{"type":"task_complete"}`) + ev(`{"type":"web_search_end","call_id":"ws_2","query":"r"}`), 2, 0},
		{"image event then item", ev(`{"type":"image_generation_end","call_id":"ig_1","status":"completed","result":"AA=="}`) +
			it(`{"type":"image_generation_call","id":"ig_1","status":"completed","result":"AA=="}`), 1, 0},
		{"command item completed", call + ev(`{"type":"item_completed","item":{"type":"CommandExecution","id":"c1","status":"declined"}}`) + out, 1, 1},
		{"user command item completed", ev(`{"type":"item_completed","item":{"type":"CommandExecution","id":"c9","command":["ls"],"status":"completed","aggregated_output":"a\n","exit_code":0}}`), 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := metaLine() + tt.lines
			s, err := Read(strings.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			sum, err := Summarize(strings.NewReader(data), session.DetailFull)
			if err != nil {
				t.Fatal(err)
			}
			f := usftest.Derive(s)
			calls := 0
			for _, n := range f.Tools {
				calls += n
			}
			if calls != tt.calls || f.ToolErrors != tt.errors {
				t.Errorf("decoded %d calls, %d errors; want %d, %d", calls, f.ToolErrors, tt.calls, tt.errors)
			}
			if got := usftest.SummaryFigures(sum); !reflect.DeepEqual(got, f) {
				t.Errorf("summary %+v\ndecoder %+v", got, f)
			}
		})
	}
}

func TestContextCwd(t *testing.T) {
	for text, want := range map[string]string{
		"<environment_context>\nCurrent working directory: /home/dev/p q\nApproval policy: never\n</environment_context>": "/home/dev/p q",
		"<environment_context>\n  <cwd>/w</cwd>\n  <shell>bash</shell>\n</environment_context>":                           "/w",
		"<environment_context>\nCurrent working directory: /cut":                                                          "",
		"<environment_context>\n  <shell>bash</shell>\n</environment_context>":                                            "",
	} {
		if got := contextCwd([]byte(text)); got != want {
			t.Errorf("contextCwd(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestOutputStatus reads a tool output's status from Codex's header alone:
// what a command printed after "Output:" is the command's, not Codex's.
func TestOutputStatus(t *testing.T) {
	for out, want := range map[string]session.ToolStatus{
		"Chunk ID: 7e\nWall time: 0.0 seconds\nProcess exited with code 0\nOriginal token count: 4\nOutput:\nhi\n": session.StatusOK,
		"Chunk ID: 7e\nWall time: 0.0 seconds\nProcess exited with code 2\nOriginal token count: 4\nOutput:\nhi\n": session.StatusError,
		"Exit code: 1\nWall time: 0.2 seconds\nOutput:\nboom\n":                                                    session.StatusError,
		"Chunk ID: 7e\nWall time: 1.0 seconds\nProcess running with session ID 9\nOutput:\nExit code: 3\n":         session.StatusOK,
		"Exit code: 0\nWall time: 0.1 seconds\nOutput:\nProcess exited with code 1\nrejected by user\n":            session.StatusOK,
		"Output:\nExit code: 1\n": session.StatusOK,
		`Exit code: 0\nWall time: 0.1 seconds\nOutput:\nProcess exited with code 1`: session.StatusOK, // as the summarizer reads it, escaped
		`Exit code: 2\nWall time: 0.1 seconds\nOutput:\nok`:                         session.StatusError,
		`{"output":"x","metadata":{"exit_code":1}}`:                                 session.StatusError,
		"exec command rejected by user":                                             session.StatusDenied,
		"aborted by user":                                                           session.StatusInterrupted,
		"plain text of an MCP tool":                                                 session.StatusOK,
	} {
		if got := outputStatus([]byte(out)); got != want {
			t.Errorf("outputStatus(%q) = %q, want %q", out, got, want)
		}
	}
}

// TestThreadNamesEitherReader: session_index.jsonl gives the same titles
// and warnings read by the fast reader as by encoding/json alone.
func TestThreadNamesEitherReader(t *testing.T) {
	home := t.TempDir()
	ids := []string{"01a1ff86-0e88-7863-a344-97213dbbd07a", "5ff6bc2a-ab87-4567-bbbf-1c792caea0c8", "0dc1f7d7-55a9-435c-8664-fe402ea76e32"}
	for i, id := range ids {
		p := filepath.Join(home, "sessions/2026/11/21", fmt.Sprintf("rollout-2026-11-21T19-12-1%d-%s.jsonl", i, id))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("{}\n"), 0o644)
	}
	os.WriteFile(filepath.Join(home, "session_index.jsonl"), []byte(
		`{"id":"`+ids[0]+`","thread_name":"Caf\u00e9 \"quoted\" \ud83d\ude00","updated_at":"2026-11-21T19:14:55Z"}`+"\n"+
			`{"id":"`+ids[1]+`","thread_name":null}`+"\n"+
			`{"id":"`+ids[1]+`","Thread_Name":"case folded"}`+"\n"+
			`{"id":42,"thread_name":"not an id"}`+"\n"+
			`{"id":"`+ids[2]+`","thread_name":"first"}  `+"\n"+
			`{"id":"`+ids[2]+`","thread_name":"second","extra":{"nested":[1,2]}}`+"\n"), 0o644)
	env := session.Env{Home: "/nonexistent", Vars: map[string]string{"CODEX_HOME": home}}
	read := func(disabled bool) string {
		defer func(v bool) { jsonread.Disabled = v }(jsonread.Disabled)
		jsonread.Disabled = disabled
		refs, warns := Discover(env)
		var out []string
		for _, r := range refs {
			out = append(out, r.ID+" "+r.Title)
		}
		sort.Strings(out)
		for _, w := range warns {
			out = append(out, fmt.Sprintf("warning %d: %s", w.Line, w.Message))
		}
		return strings.Join(out, "\n")
	}
	fast, slow := read(false), read(true)
	if fast != slow {
		t.Errorf("fast reader:\n%s\nencoding/json:\n%s", fast, slow)
	}
	for _, want := range []string{ids[0] + ` Café "quoted" 😀`, ids[1] + " case folded", ids[2] + " second", "warning 4: "} {
		if !strings.Contains(fast, want) {
			t.Errorf("missing %q in\n%s", want, fast)
		}
	}
}

// BenchmarkThreadNames reads a session_index.jsonl of 2,000 threads, as
// every listing and freshness check does.
func BenchmarkThreadNames(b *testing.B) {
	var buf strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&buf, `{"id":"01a1ff86-0e88-7863-a344-%012d","thread_name":"Fix the parser %d","updated_at":"2026-11-21T19:14:55.1220155Z"}`+"\n", i, i)
	}
	path := filepath.Join(b.TempDir(), "session_index.jsonl")
	if err := os.WriteFile(path, []byte(buf.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		if titles, _ := readIndex(path); len(titles) != 2000 {
			b.Fatalf("%d titles", len(titles))
		}
	}
}
