package gemini

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// FuzzRead is seeded with the start of every testdata case, and with the
// two whole-document formats.
func FuzzRead(f *testing.F) {
	if legacy, err := os.ReadFile(filepath.Join("testdata", "legacy", "session-2026-11-21T19-26-66666666.json")); err == nil {
		f.Add(legacy)
	}
	f.Add([]byte("[\n  {\"sessionId\": \"s\", \"messageId\": 0, \"type\": \"user\", \"message\": \"hi\", \"timestamp\": \"2026-11-22T08:00:00.000Z\"}\n]\n"))
	usftest.Fuzz(f, Read, Summarize)
}

// sample reads a file of the real samples kept in testdata archives.
func sample(t *testing.T, archive, suffix string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", archive+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range strings.Split(string(data), "\n-- ")[1:] {
		name, body, _ := strings.Cut(part, " --\n")
		if strings.HasSuffix(name, suffix) {
			return body
		}
	}
	t.Fatalf("no %s in %s", suffix, archive)
	return ""
}

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const (
	resumedID = "b28a2652-78ad-40cb-8ef8-a5bc4227158d"
	legacySID = "66666666-0000-4000-8000-000000000004"
	logsOnly  = "dddddddd-0000-4000-8000-00000000000d"
	parentID  = "aaaa0001-0000-4000-8000-000000000001"
	agentID   = "bbbb0002-0000-4000-8000-000000000002"
)

// store lays out a Gemini CLI home: project alpha named by .project_root,
// beta only by projects.json, and a legacy hash folder named by nothing.
func store(t *testing.T) string {
	home := t.TempDir()
	resumed := sample(t, "headless-resumed", "19-12-b28a2652.jsonl")
	orphan := sample(t, "headless-resumed", "19-14-b28a2652.jsonl")
	legacy, err := os.ReadFile(filepath.Join("testdata", "legacy", "session-2026-11-21T19-26-66666666.json"))
	if err != nil {
		t.Fatal(err)
	}
	twin := string(legacy) // the CLI continues a legacy file in a .jsonl twin
	twin = `{"sessionId":"` + legacySID + `","projectHash":"x","startTime":"2026-11-21T19:26:52.837Z","lastUpdated":"2026-11-21T19:30:00.000Z"}` + "\n" +
		`{"id":"abadfb5e-e07d-4640-b2a0-b692d3a18af7","timestamp":"2026-11-21T19:26:52.837Z","type":"user","content":[{"text":"Run the greeting command for me (INJECTED-USER-MARKER)"}]}` + "\n" +
		`{"id":"n1","timestamp":"2026-11-21T19:30:00.000Z","type":"user","content":"and again"}` + "\n"
	write(t, home, map[string]string{
		".gemini/projects.json":                                           `{"projects":{"/w/alpha":"alpha","/w/beta":"beta"}}`,
		".gemini/tmp/alpha/.project_root":                                 "/w/alpha\n",
		".gemini/tmp/alpha/chats/session-2026-11-21T19-12-b28a2652.jsonl": resumed,
		".gemini/tmp/alpha/chats/session-2026-11-21T19-14-b28a2652.jsonl": orphan,
		".gemini/tmp/alpha/chats/session-named-by-hand.jsonl":             strings.ReplaceAll(sample(t, "injected-minimal", ".jsonl"), "66666666-0000-4000-8000-000000000002", "cccccccc-0000-4000-8000-00000000000c"),
		".gemini/tmp/alpha/chats/notes.txt":                               "not a session",
		".gemini/tmp/alpha/chats/checkpoint-x.json":                       "[]",
		".gemini/tmp/alpha/chats/" + parentID + "/" + agentID + ".jsonl":  sample(t, "subagent-child", agentID+".jsonl"),
		".gemini/tmp/beta/chats/session-2026-11-21T19-26-66666666.json":   string(legacy),
		".gemini/tmp/beta/chats/session-2026-11-21T19-26-66666666.jsonl":  twin,
		".gemini/tmp/beta/logs.json": `[
  {"sessionId": "` + legacySID + `", "messageId": 0, "type": "user", "message": "and again", "timestamp": "2026-11-21T19:30:00.000Z"},
  {"sessionId": "` + logsOnly + `", "messageId": 0, "type": "user", "message": "a prompt whose session was deleted", "timestamp": "2026-11-22T08:00:00.000Z"},
  {"sessionId": "` + logsOnly + `", "messageId": 1, "type": "user", "message": "/quit", "timestamp": "2026-11-22T08:01:00.000Z"}
]
`,
		".gemini/tmp/0794238032e7ac580fb650737b89566e24e586f4fd9ffb9531b27b076bfc211e/chats/session-2026-01-01T00-00-77777777.jsonl": `{"sessionId":"77777777-0000-4000-8000-000000000007","projectHash":"x"}` + "\n" + `{"id":"1","type":"user","content":"hash folder"}` + "\n",
	})
	return home
}

func TestDiscoverAndLocate(t *testing.T) {
	home := store(t)
	env := session.Env{Home: "/nonexistent", Vars: map[string]string{"GEMINI_CLI_HOME": home}}
	refs, warns := Discover(env)
	if len(warns) != 0 {
		t.Errorf("warnings %v", warns)
	}
	root := filepath.Join(home, ".gemini", "tmp")
	var got []string
	for _, r := range refs {
		rel, _ := filepath.Rel(root, r.Path)
		got = append(got, r.ID+" "+filepath.ToSlash(rel)+" "+r.Parent)
	}
	sort.Strings(got)
	want := []string{
		"77777777-0000-4000-8000-000000000007 0794238032e7ac580fb650737b89566e24e586f4fd9ffb9531b27b076bfc211e/chats/session-2026-01-01T00-00-77777777.jsonl ",
		agentID + " alpha/chats/" + parentID + "/" + agentID + ".jsonl " + parentID,
		resumedID + " alpha/chats/session-2026-11-21T19-12-b28a2652.jsonl ",
		legacySID + " beta/chats/session-2026-11-21T19-26-66666666.jsonl ",
		"cccccccc-0000-4000-8000-00000000000c alpha/chats/session-named-by-hand.jsonl ",
		logsOnly + " beta/logs.json ",
	}
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Discover:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, r := range refs {
		l, err := Locate(env, r.ID)
		if err != nil || l.Path != r.Path || l.ID != r.ID {
			t.Errorf("Locate(%s) = %+v, %v; want %s", r.ID, l, err, r.Path)
		}
	}
	for _, id := range []string{"../x", "..", ".", "*", "", "a/b", `a\b`, "b28a2652", "99999999-0000-4000-8000-000000000000"} {
		if _, err := Locate(env, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Locate(%q) = %v, want ErrNotFound", id, err)
		}
	}

	// The same session in two projects cannot be told apart.
	write(t, home, map[string]string{".gemini/tmp/gamma/chats/session-2026-11-21T19-12-b28a2652.jsonl": sample(t, "headless-resumed", "19-12-b28a2652.jsonl")})
	if _, err := Locate(env, resumedID); !errors.Is(err, session.ErrAmbiguous) {
		t.Errorf("Locate of a session in two projects = %v, want ErrAmbiguous", err)
	}

	for path, want := range map[string]string{
		"alpha/chats/session-2026-11-21T19-12-b28a2652.jsonl": "/w/alpha",
		"alpha/chats/" + parentID + "/" + agentID + ".jsonl":  "/w/alpha",
		"beta/chats/session-2026-11-21T19-26-66666666.jsonl":  "/w/beta",
		"beta/logs.json": "/w/beta",
		"0794238032e7ac580fb650737b89566e24e586f4fd9ffb9531b27b076bfc211e/chats/session-2026-01-01T00-00-77777777.jsonl": "",
	} {
		if got := ProjectOf(filepath.Join(root, path)); got != want {
			t.Errorf("ProjectOf(%s) = %q, want %q", path, got, want)
		}
	}
	if got := Root(session.Env{Home: "/h"}); got != "/h/.gemini" {
		t.Errorf("Root = %q", got)
	}
	if got := Root(session.Env{Home: "/h", Vars: map[string]string{"GEMINI_CLI_HOME": "/g"}}); got != "/g/.gemini" {
		t.Errorf("Root with GEMINI_CLI_HOME = %q", got)
	}
	if refs, warns := Discover(session.Env{Home: t.TempDir()}); len(refs) != 0 || len(warns) != 0 {
		t.Errorf("an empty home: %v %v", refs, warns)
	}
}

func TestOpenFromStore(t *testing.T) {
	home := store(t)
	env := session.Env{Vars: map[string]string{"GEMINI_CLI_HOME": home}}
	open := func(id string) (*session.Session, session.Ref) {
		t.Helper()
		ref, err := Locate(env, id)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Open(env, ref)
		if err != nil {
			t.Fatal(err)
		}
		usftest.ValidateSession(t, s)
		return s, ref
	}

	// A subagent knows its parent from its folder; the parent finds it.
	s, _ := open(agentID)
	if s.Parent == nil || s.Parent.ID != parentID || s.Parent.Kind != session.LinkSubagent || s.Project.Path != "/w/alpha" {
		t.Errorf("subagent: parent %+v, project %q", s.Parent, s.Project.Path)
	}

	// The session logs.json alone remembers: its prompts.
	s, ref := open(logsOnly)
	if s.ID != logsOnly || s.Source.Format != FormatLogs || s.Project.Path != "/w/beta" || len(s.Timeline) != 2 {
		t.Fatalf("logs session %+v", s)
	}
	if e := s.Timeline[1]; e.Kind != session.KindCommand || e.Native == nil || e.Native.Line != 4 || !strings.Contains(string(e.Native.Record), `"/quit"`) {
		t.Errorf("second prompt %+v", e)
	}
	sum, err := SummarizeFile(ref, session.DetailFull)
	if err != nil || sum.ID != logsOnly || sum.Turns != 1 || sum.Messages != 1 || sum.Title != "a prompt whose session was deleted" || sum.Project != "/w/beta" {
		t.Errorf("logs summary %+v %v", sum, err)
	}
	// Opened by path alone, logs.json is the whole history.
	all, err := Open(env, session.Ref{Path: ref.Path})
	if err != nil || len(all.Timeline) != 3 || all.ID != legacySID {
		t.Errorf("whole history: %v entries, id %q, %v", len(all.Timeline), all.ID, err)
	}

	// The .jsonl twin of a legacy session is the one listed.
	s, _ = open(legacySID)
	if s.Source.Format != FormatJSONL || len(s.Timeline) != 2 {
		t.Errorf("twin: format %q, %d entries", s.Source.Format, len(s.Timeline))
	}
}

// TestLegacyDocument reads the older single-JSON session format, which the
// line-based golden checks cannot hold.
func TestLegacyDocument(t *testing.T) {
	path := filepath.Join("testdata", "legacy", "session-2026-11-21T19-26-66666666.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	usftest.ValidateSession(t, s)
	if s.ID != legacySID || s.Source.Format != FormatLegacy || len(s.Warnings) != 0 {
		t.Fatalf("session %q format %q warnings %v", s.ID, s.Source.Format, s.Warnings)
	}
	var types []string
	for _, e := range s.Timeline {
		types = append(types, string(e.Type))
	}
	if got := strings.Join(types, " "); got != "user tool_call tool_result assistant" {
		t.Errorf("timeline %s", got)
	}
	// Each message is kept once, compact, at the line its object starts.
	lines := strings.Split(string(data), "\n")
	for _, e := range s.Timeline {
		if e.Native == nil || e.Native.Part != 0 && e.Type != session.ToolResult {
			continue
		}
		if e.Native.Part == 0 && strings.TrimSpace(lines[e.Native.Line-1]) != "{" {
			t.Errorf("entry %s: line %d is %q, not an object's start", e.ID, e.Native.Line, lines[e.Native.Line-1])
		}
	}
	if len(s.Records) != 1 || s.Records[0].Line != 1 || bytes.Contains(s.Records[0].Record, []byte("messages")) || !bytes.Contains(s.Records[0].Record, []byte(`"kind":"main"`)) {
		t.Errorf("metadata record %+v", s.Records)
	}
	sum, err := Summarize(bytes.NewReader(data), session.DetailFull)
	if err != nil || sum.ID != legacySID || sum.Turns != 1 || sum.Messages != 2 || sum.Tools[session.ToolBash] != 1 {
		t.Errorf("summary %+v %v", sum, err)
	}
	if got, want := usftest.SummaryFigures(sum), usftest.Derive(s); !reflect.DeepEqual(got, want) {
		t.Errorf("summary %+v, session %+v", got, want)
	}

	// A document cut short keeps what came before the cut.
	cut := data[:bytes.Index(data, []byte(`"id": "1b181d8b`))]
	s, err = Read(bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Timeline) != 3 || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0].Message, "skipped") {
		t.Errorf("cut document: %d entries, warnings %v", len(s.Timeline), s.Warnings)
	}
}

func TestSniff(t *testing.T) {
	for _, line := range []string{
		`{"sessionId":"s","projectHash":"p","startTime":"2026-11-21T21:36:08.814Z","kind":"main"}`,
		`{"$set":{"lastUpdated":"2026-11-21T21:36:08.825Z"}}`,
		`{"$rewindTo":"m1"}`,
		`{"id":"m1","timestamp":"2026-11-21T21:36:08.824Z","type":"user","content":[{"text":"hi"}]}`,
		`{"id": "m2", "type": "gemini", "content": "hello"}`,
		`  "projectHash": "5303c48a",`,
		`    "messageId": 0,`,
	} {
		if !Sniff([]byte(line)) {
			t.Errorf("Sniff(%s) = false", line)
		}
	}
	for _, line := range []string{
		`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"sessionId":"s"}`,
		`{"type":"file-history-snapshot","messageId":"m","snapshot":{}}`,
		`{"timestamp":"2026-11-21T10:00:00.000Z","type":"session_meta","payload":{"id":"x"}}`,
		`{"role":"user","content":"hi"}`,
		`not json`,
	} {
		if Sniff([]byte(line)) {
			t.Errorf("Sniff(%s) = true", line)
		}
	}
}

// TestRewriteEvents checks the events of a message written three times:
// the later versions add calls, a result and usage to what the first
// made, and each line is kept once.
func TestRewriteEvents(t *testing.T) {
	in := `{"sessionId":"s","projectHash":"p"}
{"id":"g","type":"gemini","content":"Looking.","model":"gemini-2.5-flash"}
{"id":"g","type":"gemini","content":"Looking.","model":"gemini-2.5-flash","tokens":{"input":100,"output":5,"cached":40,"thoughts":2,"tool":1}}
{"id":"g","type":"gemini","content":"Looking.","model":"gemini-2.5-pro","tokens":{"input":100,"output":5,"cached":40,"thoughts":2,"tool":1},"toolCalls":[{"id":"c","name":"glob","args":{"pattern":"*"},"status":"executing"}]}
{"id":"g","type":"gemini","content":"Looking.","model":"gemini-2.5-pro","tokens":{"input":100,"output":5,"cached":40,"thoughts":2,"tool":1},"toolCalls":[{"id":"c","name":"glob","args":{"pattern":"*"},"result":"a.go","status":"success"}]}
`
	dec := NewDecoder(strings.NewReader(in))
	var evs []session.Event
	for {
		ev, err := dec.Decode()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	if len(evs) != 5 {
		t.Fatalf("%d events", len(evs))
	}
	want := session.Usage{Input: 61, Output: 7, CacheRead: 40, Reasoning: 2}
	if e := evs[1].Entries; len(e) != 1 || e[0].Type != session.Assistant || e[0].Usage != nil {
		t.Errorf("first version: %+v", e)
	}
	if u := evs[2].Updates; evs[2].Record == nil || len(u) != 1 || u[0].EntryID != "g" || *u[0].Usage != want {
		t.Errorf("second version: record %v, updates %+v", evs[2].Record, u)
	}
	if e := evs[3].Entries; len(e) != 1 || e[0].Type != session.ToolCall || e[0].Model != "gemini-2.5-pro" || e[0].Native.Line != 4 || e[0].Native.Record == nil {
		t.Errorf("third version: %+v", e)
	}
	if u := evs[3].Updates; len(u) != 1 || u[0].EntryID != "g" || u[0].Model != "gemini-2.5-pro" {
		t.Errorf("third version's updates: %+v", u)
	}
	if e := evs[4].Entries; len(e) != 1 || e[0].Type != session.ToolResult || e[0].CallID != "c" || e[0].Output != "a.go" {
		t.Errorf("fourth version: %+v", e)
	}
	s, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if *s.Metadata.Tokens != want || s.Timeline[0].Model != "gemini-2.5-pro" || s.Timeline[1].Status != session.StatusOK {
		t.Errorf("session: tokens %+v, timeline %+v", s.Metadata.Tokens, s.Timeline)
	}
	sum, err := Summarize(strings.NewReader(in), session.DetailFull)
	if err != nil || sum.Usage != want || sum.Messages != 1 || sum.Tools[session.ToolGlob] != 1 || sum.Models["gemini-2.5-pro"] != want {
		t.Errorf("summary %+v %v", sum, err)
	}
}

func TestShellFailed(t *testing.T) {
	for out, want := range map[string]bool{
		"Output: (empty)\nProcess Group PGID: 1":                                           false,
		"Output: boom\nExit Code: 1\nProcess Group PGID: 7":                                true,
		"<untrusted_context>\nOutput: x\nExit Code: 2\nSignal: 9\n</untrusted_context>":    true,
		"Output: x\nError: spawn failed\nExit Code: 127":                                   true,
		"Output: Exit Code: 3\nProcess Group PGID: 1":                                      false, // inside the output
		"Output: echo\nExit Code: 5\nmore output the command printed\nProcess Group PGID:": false,
		"Output: x\nExit Code: 0\nProcess Group PGID: 1":                                   false,
		"Output: x\nExit Code: (none)":                                                     false,
		"Output: x\r\nExit Code: 1\r\nSignal: (none)\r\n":                                  true,
		"Exit Code: 4": true,
		"":             false,
		"\n\n":         false,
		"Output: x\nExit Code: 1\nSignal: Exit Code: 0": true, // the last line is the signal's
	} {
		if got := shellFailed([]byte(out)); got != want {
			t.Errorf("shellFailed(%q) = %v", out, got)
		}
	}
}

func TestHugeLineAndMemory(t *testing.T) {
	big := strings.Repeat("y", 24<<20)
	data := `{"sessionId":"s","projectHash":"p"}` + "\n" +
		`{"id":"u","type":"user","content":"dump it"}` + "\n" +
		`{"id":"g","type":"gemini","content":"","model":"gemini-2.5-flash","tokens":{"input":500,"output":20},"toolCalls":[{"id":"c","name":"run_shell_command","args":{"command":"cat big"},"result":[{"functionResponse":{"id":"c","name":"run_shell_command","response":{"output":"Output: ` + big + `\nExit Code: 1"}}}],"status":"success"}]}` + "\n" +
		`{"id":"u2","type":"user","content":"` + big + `"}` + "\n"
	s, err := Read(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Timeline) != 4 || len(s.Timeline[2].Output) < 24<<20 {
		t.Fatalf("entries %d", len(s.Timeline))
	}
	// An output longer than the CLI ever keeps is not read for its exit
	// code, by either reader.
	if s.Timeline[2].Status != session.StatusOK {
		t.Errorf("huge output: status %s", s.Timeline[2].Status)
	}
	Summarize(strings.NewReader(data), session.DetailFull) // warm the pool
	var sum session.Summary
	alloc := usftest.Allocated(func() { sum, err = Summarize(strings.NewReader(data), session.DetailFull) })
	if err != nil || sum.Usage.Input != 500 || sum.Turns != 2 || sum.ToolErrors != 0 {
		t.Fatalf("summary %+v %v", sum, err)
	}
	if alloc > 1<<20 {
		t.Errorf("summary of a %d MB file allocated %d KB; want under 1 MB", len(data)>>20, alloc>>10)
	}
}

func TestTokens(t *testing.T) {
	got := tokens{Input: 1107, Output: 13, Cached: 100, Thoughts: 4, Tool: 2, Total: 1126}.universal()
	if want := (session.Usage{Input: 1009, Output: 17, CacheRead: 100, Reasoning: 4}); got != want {
		t.Errorf("usage %+v, want %+v", got, want)
	}
	if got := (tokens{Input: 5, Cached: 9, Output: -1}).universal(); got.Input != 0 || got.Output != 0 {
		t.Errorf("negative counts: %+v", got)
	}
}

func TestClassify(t *testing.T) {
	for text, want := range map[string]class{
		"Fix the bug":                         {typ: session.User},
		"  \n":                                {typ: session.User, empty: true},
		"/stats":                              {typ: session.User, kind: session.KindCommand},
		"?":                                   {typ: session.User, kind: session.KindCommand},
		"<session_context>\nThis is the CLI.": {typ: session.System, kind: session.KindContext},
		"<hook_context>x</hook_context>":      {typ: session.System, kind: session.KindContext},
		"<state_snapshot>\n<goal/>":           {typ: session.System, kind: session.KindSummary},
	} {
		if got := classify([]byte(text), false); got != want {
			t.Errorf("classify(%q) = %+v, want %+v", text, got, want)
		}
	}
	// Blanks up to the limit with more after them are not an empty text.
	if got := classify([]byte("   "), true); got.empty {
		t.Errorf("cut blanks read as empty")
	}
	for text, want := range map[string]string{
		"<session_context>\n- **Workspace Directories:**\n  - /w/a\n  - /w/b\n- **Directory Structure:**": "/w/a",
		"<session_context>\n- **Workspace Directories:**\n  - /w/cut-her":                                 "",
		"- **Workspace Directories:**\n  - /w/a\n":                                                        "",
	} {
		if got := workspaceDir([]byte(text)); got != want {
			t.Errorf("workspaceDir(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestPeekFirstLine(t *testing.T) {
	for in, want := range map[string]string{
		"{\n  \"sessionId\": \"s\"\n}\n": "{",
		"\n\n  [\r\n  {}\n]":             "[",
		"{\"sessionId\":\"s\"}\n":        "",
		"{":                              "{",
		"":                               "",
		"   \n":                          "",
		"not json\n":                     "",
	} {
		head, got, err := peekFirstLine(strings.NewReader(in))
		if err != nil || got != want {
			t.Errorf("peekFirstLine(%q) = %q, %v; want %q", in, got, err, want)
		}
		rest, _ := io.ReadAll(io.MultiReader(bytes.NewReader(head), strings.NewReader(in[len(head):])))
		if string(rest) != in {
			t.Errorf("peekFirstLine(%q) lost input: %q", in, rest)
		}
	}
}
