package inject

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/session"
)

// recorder is an Encoder that keeps what it is given and writes one line
// per entry.
type recorder struct {
	w       io.Writer
	entries []session.Entry
	closed  bool
}

func (r *recorder) Encode(e *session.Entry) error {
	r.entries = append(r.entries, *e)
	_, err := io.WriteString(r.w, string(e.Type)+"\n")
	return err
}

func (r *recorder) Close() error { r.closed = true; return nil }

// fakeWriter is a target CLI "fake" whose store is root and whose only
// tool is "sh" (bash).
func fakeWriter(root string, rec **recorder) Writer {
	return Writer{
		CLI: "fake",
		Place: func(env session.Env, t *session.Target) (session.Placement, error) {
			if t.ID == "" {
				t.ID = "new-id"
			}
			return session.Placement{Root: root, Path: filepath.Join(root, "s", t.ID+".txt"), Resume: []string{"fake", "resume", t.ID}}, nil
		},
		NewEncoder: func(w io.Writer, t session.Target, lost func(session.Loss)) Encoder {
			*rec = &recorder{w: w}
			return *rec
		},
		ToolCall: func(tool session.Tool, a map[string]any) (string, json.RawMessage, bool) {
			if tool != session.ToolBash {
				return "", nil, false
			}
			b, _ := json.Marshal(map[string]any{"script": a[session.ArgCommand]})
			return "sh", b, true
		},
	}
}

// src is a source CLI whose tool "run" is bash and "peek" has no
// universal form.
var src = Reader{CLI: "src", ToolArgs: func(name string, in json.RawMessage) (session.Tool, map[string]any, bool) {
	if name != "run" {
		return "", nil, false
	}
	var a map[string]any
	json.Unmarshal(in, &a)
	return session.ToolBash, map[string]any{session.ArgCommand: a["cmd"]}, true
}}

func entry(id string, typ session.EntryType, content string) session.Entry {
	return session.Entry{ID: id, Type: typ, Content: content}
}

func call(id, name, input, msg string) session.Entry {
	return session.Entry{ID: id, Type: session.ToolCall, OriginalTool: name, Input: json.RawMessage(input), MessageID: msg}
}

func result(callID, out string) session.Entry {
	return session.Entry{ID: callID + ":r", Type: session.ToolResult, CallID: callID, Output: out, Success: true, Status: session.StatusOK}
}

func convertFake(t *testing.T, s *session.Session, opts Options) ([]session.Entry, *Report) {
	t.Helper()
	var rec *recorder
	var out strings.Builder
	rep, err := Convert(s, src, fakeWriter(t.TempDir(), &rec), opts, &out)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.closed {
		t.Error("the encoder was not closed")
	}
	return rec.entries, rep
}

func shape(es []session.Entry) string {
	var parts []string
	for _, e := range es {
		p := string(e.Type)
		switch e.Type {
		case session.ToolCall:
			p += ":" + e.OriginalTool + string(e.Input)
		case session.ToolResult:
			p += ":" + e.CallID + "=" + e.Output + e.Error
		default:
			p += ":" + e.Content
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "\n")
}

func losses(rep *Report) string {
	var parts []string
	for _, l := range rep.Losses {
		parts = append(parts, l.What+"/"+l.How+"/"+l.Entry)
	}
	return strings.Join(parts, " ")
}

func newSession(entries ...session.Entry) *session.Session {
	return &session.Session{ID: "s1", Source: session.Source{CLI: "src"}, Project: session.Project{Path: "/p"},
		Timeline: entries, Metadata: session.Metadata{Created: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}}
}

func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []session.Entry
		want    string
		losses  string
	}{
		{
			name: "calls mapped, results in place",
			entries: []session.Entry{entry("u1", session.User, "hi"), entry("a1", session.Assistant, "ok"),
				call("c1", "run", `{"cmd":"ls"}`, "m1"), result("c1", "a.txt"), entry("a2", session.Assistant, "done")},
			want: "user:hi\nassistant:ok\ntool_call:sh{\"script\":\"ls\"}\ntool_result:c1=a.txt\nassistant:done",
		},
		{
			name: "a result placed late is moved next to its call",
			entries: []session.Entry{entry("u1", session.User, "hi"), call("c1", "run", `{"cmd":"ls"}`, "m1"),
				entry("a2", session.Assistant, "meanwhile"), result("c1", "a.txt")},
			want: "user:hi\ntool_call:sh{\"script\":\"ls\"}\ntool_result:c1=a.txt\nassistant:meanwhile",
		},
		{
			name: "a call without a result gets a placeholder before the next prompt",
			entries: []session.Entry{entry("u1", session.User, "hi"), call("c1", "run", `{"cmd":"ls"}`, "m1"),
				entry("u2", session.User, "again")},
			want:   "user:hi\ntool_call:sh{\"script\":\"ls\"}\ntool_result:c1=" + placeholder + "\nuser:again",
			losses: "result/placeholder/c1",
		},
		{
			name:    "at the end too",
			entries: []session.Entry{entry("u1", session.User, "hi"), call("c1", "run", `{"cmd":"ls"}`, "m1")},
			want:    "user:hi\ntool_call:sh{\"script\":\"ls\"}\ntool_result:c1=" + placeholder,
			losses:  "result/placeholder/c1",
		},
		{
			name:    "a tool the target lacks becomes text, with its result",
			entries: []session.Entry{entry("u1", session.User, "hi"), call("c1", "peek", `{"x":1}`, "m1"), result("c1", "seen")},
			want:    "user:hi\nassistant:[tool call: peek {\"x\":1}]\n[tool result]\nseen",
			losses:  "tool/text/c1",
		},
		{
			name:    "an orphaned result is dropped",
			entries: []session.Entry{entry("u1", session.User, "hi"), result("c9", "lost"), entry("a1", session.Assistant, "ok")},
			want:    "user:hi\nassistant:ok",
			losses:  "result/dropped/c9:r",
		},
		{
			name: "CLI context stays behind, silently; other system messages are reported",
			entries: []session.Entry{
				{ID: "x1", Type: session.System, Kind: session.KindContext, Content: "<env>"},
				{ID: "x2", Type: session.System, Kind: session.KindInstructions, Content: "be nice"},
				{ID: "x3", Type: session.User, Kind: session.KindMeta, Content: "caveat"},
				entry("u1", session.User, "hi"),
				{ID: "x4", Type: session.System, Content: "Gemini says hello"},
				{ID: "x5", Type: session.Assistant, Kind: session.KindError, Content: "API Error: 500"},
				{ID: "x6", Type: session.User, Kind: session.KindCommand, Content: "/model"},
				entry("a1", session.Assistant, "ok"),
			},
			want:   "user:hi\nassistant:ok",
			losses: "entry/dropped/x4 entry/dropped/x5 entry/dropped/x6",
		},
		{
			name: "a summary becomes a user message",
			entries: []session.Entry{{ID: "s", Type: session.System, Kind: session.KindSummary, Content: "We fixed the bug."},
				entry("u1", session.User, "hi")},
			want:   "user:[Summary of the earlier conversation]\n\nWe fixed the bug.\nuser:hi",
			losses: "entry/text/s",
		},
		{
			name: "sidechains stay behind",
			entries: []session.Entry{entry("u1", session.User, "hi"),
				{ID: "sc", Type: session.User, Content: "subagent prompt", Sidechain: true}, entry("a1", session.Assistant, "ok")},
			want:   "user:hi\nassistant:ok",
			losses: "branch/dropped/",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, rep := convertFake(t, newSession(tc.entries...), Options{})
			if s := shape(got); s != tc.want {
				t.Errorf("entries:\n%s\nwant:\n%s", s, tc.want)
			}
			if l := losses(rep); l != tc.losses {
				t.Errorf("losses %q, want %q", l, tc.losses)
			}
		})
	}
}

func TestTextFidelity(t *testing.T) {
	s := newSession(entry("u1", session.User, "hi"),
		session.Entry{ID: "a1", Type: session.Assistant, Content: "ok", Thinking: "hmm"},
		call("c1", "run", `{"cmd":"ls"}`, "m1"), result("c1", "a.txt"))
	got, rep := convertFake(t, s, Options{Fidelity: Text})
	want := "user:hi\nassistant:ok\nassistant:[tool call: run {\"cmd\":\"ls\"}]\n[tool result]\na.txt"
	if sh := shape(got); sh != want {
		t.Errorf("entries:\n%s\nwant:\n%s", sh, want)
	}
	if got[1].Thinking != "" {
		t.Error("text fidelity kept thinking")
	}
	if l := losses(rep); l != "thinking/dropped/a1 tool/text/c1" {
		t.Errorf("losses %q", l)
	}
}

func TestEmpty(t *testing.T) {
	var rec *recorder
	_, err := Convert(newSession(session.Entry{ID: "x", Type: session.System, Kind: session.KindContext, Content: "env"}),
		src, fakeWriter(t.TempDir(), &rec), Options{}, io.Discard)
	if !errors.Is(err, ErrEmpty) {
		t.Fatalf("got %v, want ErrEmpty", err)
	}
}

func TestInstall(t *testing.T) {
	root := filepath.Join(t.TempDir(), "store")
	var rec *recorder
	w := fakeWriter(root, &rec)
	s := newSession(entry("u1", session.User, "hi"), entry("a1", session.Assistant, "ok"))
	rep, err := Install(s, src, w, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Installed || rep.Target.ID != "new-id" || rep.Target.Dir != "/p" || rep.Target.Origin.ID != "s1" {
		t.Errorf("report %+v", rep)
	}
	b, err := os.ReadFile(rep.Placement.Path)
	if err != nil || string(b) != "user\nassistant\n" {
		t.Fatalf("installed file %q, %v", b, err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(rep.Placement.Path)); len(ents) != 1 {
		t.Errorf("the store holds %d files; temporary files left behind?", len(ents))
	}
	// The same id again: never replaced.
	_, err = Install(s, src, w, Options{ID: "new-id"})
	if !errors.Is(err, ErrExists) {
		t.Fatalf("second install: %v, want ErrExists", err)
	}
	if b2, _ := os.ReadFile(rep.Placement.Path); string(b2) != string(b) {
		t.Error("the existing session was changed")
	}
}

func TestInstallStaysInsideTheStore(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "store")
	outside := filepath.Join(dir, "outside")
	os.MkdirAll(root, 0o700)
	os.MkdirAll(outside, 0o700)
	var rec *recorder
	s := newSession(entry("u1", session.User, "hi"))

	w := fakeWriter(root, &rec)
	w.Place = func(env session.Env, t *session.Target) (session.Placement, error) {
		return session.Placement{Root: root, Path: filepath.Join(root, "..", "outside", "x.txt")}, nil
	}
	if _, err := Install(s, src, w, Options{}); err == nil || !strings.Contains(err.Error(), "outside the store") {
		t.Errorf("a path leaving the store: %v", err)
	}

	// A symbolic link inside the store that points out of it.
	os.Symlink(outside, filepath.Join(root, "link"))
	w.Place = func(env session.Env, t *session.Target) (session.Placement, error) {
		return session.Placement{Root: root, Path: filepath.Join(root, "link", "x.txt")}, nil
	}
	if _, err := Install(s, src, w, Options{}); err == nil || !strings.Contains(err.Error(), "outside the store") {
		t.Errorf("a link leaving the store: %v", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("files were written outside the store: %v", ents)
	}
}

func TestInstallKeepsExistingFiles(t *testing.T) {
	root := t.TempDir()
	marker := filepath.Join(root, "marker")
	os.WriteFile(marker, []byte("the CLI's own"), 0o600)
	var rec *recorder
	w := fakeWriter(root, &rec)
	place := w.Place
	w.Place = func(env session.Env, t *session.Target) (session.Placement, error) {
		p, err := place(env, t)
		p.Files = []session.File{{Path: marker, Data: []byte("ours")}, {Path: filepath.Join(root, "new-marker"), Data: []byte("ours")}}
		return p, err
	}
	if _, err := Install(newSession(entry("u1", session.User, "hi")), src, w, Options{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(marker); string(b) != "the CLI's own" {
		t.Errorf("an existing file was changed to %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "new-marker")); string(b) != "ours" {
		t.Errorf("a missing file was not created: %q", b)
	}
}

func TestCommit(t *testing.T) {
	root := t.TempDir()
	var rec *recorder
	w := fakeWriter(root, &rec)
	var got string
	w.Commit = func(env session.Env, p session.Placement, tg session.Target, tmp string) error {
		b, err := os.ReadFile(tmp)
		got = string(b)
		return err
	}
	rep, err := Install(newSession(entry("u1", session.User, "hi")), src, w, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got != "user\n" || !rep.Installed {
		t.Errorf("Commit saw %q", got)
	}
	if _, err := os.Stat(rep.Placement.Path); !os.IsNotExist(err) {
		t.Error("with Commit, the file was also linked into place")
	}
}

// TestToolArgsOfEntryCLI converts a session two CLIs made: a call another
// CLI made (Entry.CLI) is read with that CLI's ToolArgs, so it stays a
// structured call instead of falling back to text; a call the target CLI
// itself made passes through as it is.
func TestToolArgsOfEntryCLI(t *testing.T) {
	other := func(name string, in json.RawMessage) (session.Tool, map[string]any, bool) {
		if name != "Shell" {
			return "", nil, false
		}
		var a map[string]any
		json.Unmarshal(in, &a)
		return session.ToolBash, map[string]any{session.ArgCommand: a["line"]}, true
	}
	r := src
	r.ToolArgsOf = func(cli string) ToolArgs {
		if cli == "other" {
			return other
		}
		return nil
	}
	theirs := call("c1", "Shell", `{"line":"echo 1"}`, "m1")
	theirs.CLI = "other"
	own := call("c2", "sh", `{"script":"echo 2"}`, "m2")
	own.CLI = "fake"
	s := newSession(entry("u1", session.User, "hi"), theirs, result("c1", "1"), own, result("c2", "2"), entry("a1", session.Assistant, "done"))
	var rec *recorder
	rep, err := Convert(s, r, fakeWriter(t.TempDir(), &rec), Options{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := "user:hi\ntool_call:sh{\"script\":\"echo 1\"}\ntool_result:c1=1\ntool_call:sh{\"script\":\"echo 2\"}\ntool_result:c2=2\nassistant:done"
	if got := shape(rec.entries); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if len(rep.Losses) != 0 {
		t.Errorf("losses: %s", losses(rep))
	}
	// Without ToolArgsOf, the other CLI's call is read as the source's:
	// it has no universal form there, and goes as text.
	rep, err = Convert(s, src, fakeWriter(t.TempDir(), &rec), Options{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(shape(rec.entries), "[tool call: Shell") {
		t.Errorf("without ToolArgsOf: %s", shape(rec.entries))
	}
}
