package session_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

func ts(s string) time.Time {
	t, err := session.ParseTime(s)
	if err != nil {
		panic(err)
	}
	return t
}

// sample builds a session with one entry of each type and most extensions.
func sample() *session.Session {
	b := session.NewBuilder(session.Claude, "/tmp/x.jsonl")
	b.Add(session.Event{Line: 1, Info: &session.Info{ID: "s1", Path: "/home/u/proj", Provider: "anthropic", Git: &session.Git{Branch: "main"}}})
	b.Add(session.Event{Line: 2, Entries: []session.Entry{{ID: "u1", Timestamp: ts("2026-11-20T10:00:00Z"), Type: session.User, Content: "hi <b>&</b>",
		Attachments: []session.Attachment{{Type: "image", MediaType: "image/png", Data: "iVBO"}}}}})
	b.Add(session.Event{Line: 3, Entries: []session.Entry{
		{ID: "a1", Timestamp: ts("2026-11-20T10:00:01.5Z"), Type: session.Assistant, ParentID: "u1", Thinking: "hmm", Content: "ok",
			Reasoning: []session.Reasoning{{Format: "anthropic", Text: "hmm", Signature: "sig"}}, Model: "claude-sonnet-4-5",
			Usage: &session.Usage{Input: 10, Output: 5, CacheRead: 100, CacheWrite: 7}},
		{ID: "call1", Timestamp: ts("2026-11-20T10:00:02Z"), Type: session.ToolCall, ParentID: "a1", Tool: session.ToolBash, Input: json.RawMessage(`{"command":"ls"}`), OriginalTool: "Bash"},
	}})
	b.Add(session.Event{Line: 4, Entries: []session.Entry{{ID: "r1", Timestamp: ts("2026-11-20T10:00:03Z"), Type: session.ToolResult, ParentID: "call1", CallID: "call1", Success: false, Error: "boom"}}})
	b.Add(session.Event{Line: 5, Entries: []session.Entry{{ID: "call2", Type: session.ToolCall, Tool: session.ToolRead}}})
	b.Add(session.Event{Line: 6, Entries: []session.Entry{{ID: "sys", Timestamp: ts("2026-11-20T10:00:04.123456Z"), Type: session.System, Kind: session.KindCompaction, Content: "compacted"}}})
	b.Add(session.Event{Line: 7, Record: &session.Record{Line: 7, Record: json.RawMessage(`{"type":"mode"}`)}})
	b.Add(session.Event{Line: 8, Updates: []session.Update{{EntryID: "call1", Model: "claude-sonnet-4-5"}}})
	b.Add(session.Event{Line: 9, Warning: &session.Warning{Path: "/tmp/x.jsonl", Line: 9, Message: "bad"}})
	return b.Session()
}

func TestBuilder(t *testing.T) {
	s := sample()
	if s.ID != "s1" || s.Source.OriginalID != "s1" || s.Project.Name != "proj" || s.Model.Model != "claude-sonnet-4-5" || s.Model.Provider != "anthropic" {
		t.Errorf("session fields: %+v", s)
	}
	if !s.Metadata.Created.Equal(ts("2026-11-20T10:00:00Z")) || !s.Metadata.LastModified.Equal(ts("2026-11-20T10:00:04.123456Z")) {
		t.Errorf("times: %v %v", s.Metadata.Created, s.Metadata.LastModified)
	}
	if want := (session.Usage{Input: 10, Output: 5, CacheRead: 100, CacheWrite: 7}); s.Metadata.Tokens == nil || *s.Metadata.Tokens != want {
		t.Errorf("tokens %+v", s.Metadata.Tokens)
	}
	// Pairing: the failed result makes its call an error; a call with no
	// result is pending.
	byID := map[string]session.Entry{}
	for _, e := range s.Timeline {
		byID[e.ID] = e
	}
	if byID["call1"].Status != session.StatusError || byID["r1"].Status != session.StatusError || byID["call2"].Status != session.StatusPending {
		t.Errorf("statuses: call1=%s r1=%s call2=%s", byID["call1"].Status, byID["r1"].Status, byID["call2"].Status)
	}
	if byID["call1"].Model != "claude-sonnet-4-5" {
		t.Errorf("update not applied")
	}
	if len(s.Records) != 1 || len(s.Warnings) != 1 {
		t.Errorf("records %d warnings %d", len(s.Records), len(s.Warnings))
	}
}

func TestBuilderUniqueIDs(t *testing.T) {
	b := session.NewBuilder(session.Codex, "")
	b.Add(session.Event{Line: 1, Entries: []session.Entry{{ID: "x", Type: session.User}, {ID: "x", Type: session.User}, {Type: session.User}}})
	b.Add(session.Event{Line: 2, Entries: []session.Entry{{Type: session.User}}})
	var ids []string
	for _, e := range b.Session().Timeline {
		ids = append(ids, e.ID)
	}
	if want := []string{"x", "x#2", "L1", "L2"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids = %v, want %v", ids, want)
	}
}

func TestJSONShape(t *testing.T) {
	s := sample()
	b, err := session.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	usftest.Validate(t, b)
	doc := string(b)
	for _, want := range []string{
		`"version":"1.0"`,
		`"source":{"cli":"claude","originalId":"s1","path":"/tmp/x.jsonl"}`,
		`"project":{"path":"/home/u/proj","name":"proj","git":{"branch":"main","commit":""}}`,
		`"content":"hi <b>&</b>"`, // no HTML escaping
		`{"id":"call1","timestamp":"2026-11-20T10:00:02.000Z","type":"tool_call","tool":"bash","input":{"command":"ls"},"originalTool":"Bash"`,
		`{"id":"r1","timestamp":"2026-11-20T10:00:03.000Z","type":"tool_result","callId":"call1","success":false,"output":"","error":"boom"`,
		`{"id":"call2","timestamp":"","type":"tool_call","tool":"read","input":{}`,
		`"timestamp":"2026-11-20T10:00:04.123456Z"`,
		`"metadata":{"created":"2026-11-20T10:00:00.000Z","lastModified":"2026-11-20T10:00:04.123456Z","tokens":{"input":10,"output":5,"cacheRead":100,"cacheWrite":7}}`,
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("document lacks %s", want)
		}
	}
	// Round trip.
	s2, err := session.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, s2) {
		t.Errorf("round trip changed the session\n%+v\n%+v", s, s2)
	}
	b2, _ := session.Marshal(s2)
	if !bytes.Equal(b, b2) {
		t.Error("round trip changed the JSON")
	}
	// An empty session still has a timeline array.
	empty, _ := session.Marshal(&session.Session{ID: "e", Source: session.Source{CLI: session.Universal}})
	if !strings.Contains(string(empty), `"timeline":[]`) {
		t.Errorf("empty session: %s", empty)
	}
	usftest.Validate(t, empty)
}

func TestSchemaRejects(t *testing.T) {
	good, _ := session.Marshal(sample())
	for name, edit := range map[string]func(string) string{
		"unknown entry type":   func(d string) string { return strings.Replace(d, `"type":"system"`, `"type":"note"`, 1) },
		"tool call sans input": func(d string) string { return strings.Replace(d, `"input":{"command":"ls"},`, ``, 1) },
		"unknown tool":         func(d string) string { return strings.Replace(d, `"tool":"bash"`, `"tool":"shell"`, 1) },
		"result sans callId":   func(d string) string { return strings.Replace(d, `"callId":"call1",`, ``, 1) },
		"bad status":           func(d string) string { return strings.Replace(d, `"status":"error"`, `"status":"meh"`, 1) },
		"bad version":          func(d string) string { return strings.Replace(d, `"version":"1.0"`, `"version":"2"`, 1) },
		"stray field": func(d string) string {
			return strings.Replace(d, `"kind":"compaction"`, `"kind":"compaction","extra":1`, 1)
		},
		"bad timestamp": func(d string) string { return strings.Replace(d, `"2026-11-20T10:00:03.000Z"`, `"yesterday"`, 1) },
	} {
		bad := edit(string(good))
		if bad == string(good) {
			t.Fatalf("%s: edit did not apply", name)
		}
		if err := usftest.ValidateErr([]byte(bad)); err == nil {
			t.Errorf("%s: schema accepted it", name)
		}
	}
}

func TestParseTime(t *testing.T) {
	for in, want := range map[string]string{
		"2026-11-21T19:12:18.080Z":      "2026-11-21T19:12:18.080Z",
		"2026-11-21T19:12:18Z":          "2026-11-21T19:12:18.000Z",
		"2026-11-21T20:12:18.5+01:00":   "2026-11-21T19:12:18.500Z",
		"2026-11-21T19:12:18.123456789": "2026-11-21T19:12:18.123456789Z",
		"":                              "",
	} {
		got, err := session.ParseTime(in)
		if err != nil || session.FormatTime(got) != want {
			t.Errorf("ParseTime(%q) = %s, %v; want %s", in, session.FormatTime(got), err, want)
		}
	}
	if _, err := session.ParseTime("not-a-time"); err == nil {
		t.Error("garbage accepted")
	}
}

func TestJoinRenames(t *testing.T) {
	a := []session.Entry{{ID: "L1", Type: session.System}, {ID: "c", Type: session.ToolCall}}
	b := []session.Entry{{ID: "L1", Type: session.User}, {ID: "c", Type: session.ToolCall, ParentID: "L1"}, {ID: "r", Type: session.ToolResult, CallID: "c", ParentID: "c"}}
	got := session.Join(a, b)
	var ids []string
	for _, e := range got {
		ids = append(ids, e.ID+"<"+e.ParentID+"|"+e.CallID)
	}
	if want := []string{"L1<|", "c<|", "L1#2<|", "c#2<L1#2|", "r<c#2|c#2"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("Join = %v, want %v", ids, want)
	}
}

func TestSummaryHelpers(t *testing.T) {
	var s session.Summary
	s.AddUsage(time.Time{}, "m", session.Usage{Input: 1, Output: 2})
	s.AddBorrowed("origin", time.Time{}, "m", session.Usage{Input: 10})
	s.Adopt("origin")
	if s.Usage.Input != 11 || s.Models["m"].Input != 11 || len(s.Borrowed) != 0 {
		t.Errorf("adopt: %+v", s)
	}
	for i := 0; i < session.MaxSummaryFiles+10; i++ {
		s.AddFile(strings.Repeat("f", i%7) + string(rune('a'+i%26)) + strings.Repeat("x", i))
	}
	if len(s.Files) != session.MaxSummaryFiles {
		t.Errorf("files not capped: %d", len(s.Files))
	}
	for i := 0; i < 20; i++ {
		s.Skip(i, "bad")
	}
	if s.Skipped != 20 || len(s.Warnings) != session.MaxSummaryWarnings {
		t.Errorf("skip: %d %d", s.Skipped, len(s.Warnings))
	}
	if r := (session.Usage{CacheRead: 3, CacheWrite: 1}).CacheHitRate(); r != 0.75 {
		t.Errorf("cache hit rate %v", r)
	}
}
