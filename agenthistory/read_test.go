package agenthistory_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/agenthistory"
	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// goldenLines returns the lines of the golden export, without newlines.
func goldenLines(t testing.TB) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "golden", "pair.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// header is a header line announcing n sessions.
func header(n int) string {
	return fmt.Sprintf(`{"type":"header","schema_version":"1.0","export_timestamp":"2026-01-02T03:04:05Z","agent_types":["claude-code"],"homes":["local"],"workspaces":["w"],"session_count":%d}`, n)
}

// bigLine is a valid session line of more than 5 MB.
func bigLine(t testing.TB) string {
	s := &session.Session{ID: "big", Source: session.Source{CLI: session.Claude}, Project: session.Project{Path: "/p"},
		Timeline: []session.Entry{{ID: "u1", Type: session.User, Content: strings.Repeat("0123456789abcdef", 5<<20/16+1)}}}
	lines := strings.Split(strings.TrimSuffix(string(export(t, []*session.Session{s})), "\n"), "\n")
	return lines[1]
}

// TestReaderSkipsMalformedLines reads exports with bad lines: each gives a
// warning naming its line, and every other session is read.
func TestReaderSkipsMalformedLines(t *testing.T) {
	g := goldenLines(t)
	forked, linear := g[1], g[2]
	big := bigLine(t)
	badMessage := strings.Replace(linear, `"index":3,`, `"index":"three",`, 1)
	tests := []struct {
		name  string
		lines []string // after the header; the header counts the non-blank ones
		count int      // the header's session_count when not that
		end   string   // what follows the last line ("\n" unless set)
		ids   []string // sessions read
		warns []string // "line: text in the warning"
	}{
		{name: "valid", lines: []string{forked, linear}, ids: []string{"c7e6fbcb", "0193a000"}},
		{name: "bad JSON", lines: []string{forked, `{"type":"session",`, linear}, ids: []string{"c7e6fbcb", "0193a000"},
			warns: []string{"3: unexpected end of JSON input"}},
		{name: "not an object", lines: []string{`[1,2]`, linear}, ids: []string{"0193a000"},
			warns: []string{"2: not a JSON object"}},
		{name: "unknown line type", lines: []string{`{"type":"footer","sessions":2}`, forked}, ids: []string{"c7e6fbcb"},
			warns: []string{`2: unknown line type "footer"`}},
		{name: "second header", lines: []string{forked, header(1), linear}, ids: []string{"c7e6fbcb", "0193a000"},
			warns: []string{"3: a second header line"}},
		{name: "no session object", lines: []string{`{"type":"session","messages":[]}`, linear}, ids: []string{"0193a000"},
			warns: []string{"2: a session line without a session object"}},
		{name: "bad session object", lines: []string{`{"type":"session","session":{"id":7},"messages":[]}`, linear}, ids: []string{"0193a000"},
			warns: []string{"2: session object: id: unexpected JSON number"}},
		{name: "truncated last line", lines: []string{forked, linear[:len(linear)/2]}, end: "-",
			ids: []string{"c7e6fbcb"}, warns: []string{"3: unexpected end of JSON input"}},
		{name: "last line without newline", lines: []string{forked, linear}, end: "-", ids: []string{"c7e6fbcb", "0193a000"}},
		{name: "5 MB line", lines: []string{`{bad`, big, forked}, ids: []string{"big", "c7e6fbcb"},
			warns: []string{"2: invalid character 'b'"}},
		{name: "blank lines and CRLF", lines: []string{"", forked + "\r", "  ", linear + "\r"}, ids: []string{"c7e6fbcb", "0193a000"}},
		{name: "bad message kept as a record", lines: []string{badMessage}, ids: []string{"0193a000"},
			warns: []string{"2: message 3: index: unexpected JSON string (kept as a record)"}},
		{name: "session count", lines: []string{forked}, count: 3, ids: []string{"c7e6fbcb"},
			warns: []string{"1: the header's session_count is 3, the export has 1 session lines"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.count
			if n == 0 {
				for _, l := range tt.lines {
					if strings.TrimSpace(l) != "" {
						n++
					}
				}
			}
			data := header(n) + "\n" + strings.Join(tt.lines, "\n")
			if tt.end != "-" {
				data += "\n"
			}
			r, err := agenthistory.NewReader(strings.NewReader(data), "x.ndjson")
			if err != nil {
				t.Fatal(err)
			}
			r.Names = names
			var ids []string
			var sessions []*session.Session
			for {
				s, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, s.ID)
				sessions = append(sessions, s)
			}
			if len(ids) != len(tt.ids) {
				t.Fatalf("read %q, want %q", ids, tt.ids)
			}
			for i := range ids {
				if !strings.HasPrefix(ids[i], tt.ids[i]) {
					t.Errorf("session %d is %s, want %s…", i, ids[i], tt.ids[i])
				}
			}
			warns := r.Warnings()
			if len(warns) != len(tt.warns) {
				t.Fatalf("warnings %q, want %q", warns, tt.warns)
			}
			for i, w := range warns {
				want := "x.ndjson:" + tt.warns[i]
				if !strings.HasPrefix(w.Error(), want) {
					t.Errorf("warning %q, want %q…", w, want)
				}
				var le *agenthistory.LineError
				if !errors.As(w, &le) || le.Name != "x.ndjson" {
					t.Errorf("warning %v is not a *LineError", w)
				}
			}
			if tt.name == "5 MB line" && len(sessions[0].Timeline[0].Content) < 5<<20 {
				t.Errorf("the 5 MB prompt came back with %d bytes", len(sessions[0].Timeline[0].Content))
			}
			if tt.name == "bad message kept as a record" {
				recs := sessions[0].Records
				if last := recs[len(recs)-1]; last.Line != 2 || !bytes.Contains(last.Record, []byte(`"three"`)) {
					t.Errorf("the bad message is not kept: last record %d %s", last.Line, last.Record)
				}
				if len(sessions[0].Timeline) != len(linearSession().Timeline)-1 {
					t.Errorf("%d entries, want all but the bad message's", len(sessions[0].Timeline))
				}
			}
		})
	}
}

// TestReaderHeader checks what NewReader refuses, naming line 1, and what
// it keeps of a header.
func TestReaderHeader(t *testing.T) {
	g := goldenLines(t)
	for _, tt := range []struct{ name, data, err string }{
		{"empty", "", "x.ndjson:1: no header"},
		{"blank first line", "\n" + g[0] + "\n", "x.ndjson:1: no header"},
		{"session first", g[1] + "\n", `x.ndjson:1: not a header: the first line's type is "session"`},
		{"not JSON", "hello\n", "x.ndjson:1: not a header: invalid character"},
		{"major version 2", strings.Replace(g[0], `"1.0"`, `"2.0"`, 1) + "\n", `x.ndjson:1: schema_version "2.0" is not supported`},
		{"bad gzip", "\x1f\x8b\x00garbage", "x.ndjson:1: gzip:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := agenthistory.NewReader(strings.NewReader(tt.data), "x.ndjson")
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Fatalf("error %v, want %q…", err, tt.err)
			}
		})
	}

	h := strings.Replace(g[0], `"session_count":2`, `"session_count":0,"generator":{"name":"x","v":[1, 2]}`, 1)
	r, err := agenthistory.NewReader(strings.NewReader("\xef\xbb\xbf"+h+"\n"), "x.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	got := r.Header()
	if !got.ExportTimestamp.Equal(exportTime) || got.SessionCount != 0 || got.SchemaVersion != "1.0" ||
		strings.Join(got.AgentTypes, ",") != "claude-code,codex" || string(got.Extra["generator"]) != `{"name":"x","v":[1, 2]}` {
		t.Errorf("header %+v", got)
	}
	var buf bytes.Buffer
	w, err := agenthistory.NewWriter(&buf, got)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(g[0], `"session_count":2`, `"session_count":0,"generator":{"name":"x","v":[1,2]}`, 1) + "\n"
	if buf.String() != want {
		t.Errorf("header written back as\n%s\nwant\n%s", buf.String(), want)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("Next on a header-only export: %v, want io.EOF", err)
	}
}

// TestReadForeign reads the seed's own example, written by another tool:
// what maps onto a session is read, and what does not (a WSL source, a
// stop reason, a field it does not know, a graph that is not the
// messages') is kept: the session line without its messages as a record,
// a message as its entries' native record.
func TestReadForeign(t *testing.T) {
	const seed = `{"type":"header","schema_version":"1.0","export_timestamp":"2025-12-27T10:30:00Z","agent_types":["claude-code"],"homes":["local","wsl_ubuntu"],"workspaces":["myproject"],"session_count":2}
{"type":"session","session":{"id":"c7e6fbcb","agent":"claude-code","workspace":"/home/user/myproject","workspace_encoded":"-home-user-myproject","started_at":"2025-12-27T09:00:00Z","ended_at":"2025-12-27T09:15:00Z","source":{"type":"local","host":null,"path":"/home/user/.claude/projects/-home-user-myproject/c7e6fbcb.jsonl"},"is_agent_session":false,"parent_session_id":null,"agent_id":null},"messages":[{"index":1,"uuid":"msg-001","parent_uuid":null,"role":"user","timestamp":"2025-12-27T09:00:00Z","content":[{"type":"text","text":"List files"}],"metadata":{"cwd":"/home/user/myproject"}},{"index":2,"uuid":"msg-002","parent_uuid":"msg-001","role":"assistant","timestamp":"2025-12-27T09:00:05Z","content":[{"type":"text","text":"I'll list the files."},{"type":"tool_use","tool_id":"tool_001","tool_name":"Bash","input":{"command":"ls -la"}}],"metadata":{"model":{"name":"claude-sonnet-4-5-20250929","stop_reason":"tool_use"}}}],"graph":{"is_linear":false,"fork_points":[],"active_path":["msg-001","msg-002"]}}
{"type":"session","session":{"id":"d8f7ghij","agent":"claude-code","workspace":"/home/user/myproject","workspace_encoded":"-home-user-myproject","started_at":"2025-12-27T10:00:00Z","ended_at":"2025-12-27T10:30:00Z","source":{"type":"wsl","host":"ubuntu","path":"/home/user/.claude/projects/-home-user-myproject/d8f7ghij.jsonl"},"is_agent_session":false,"parent_session_id":null,"agent_id":null},"messages":[{"index":1,"uuid":"msg-003","parent_uuid":null,"role":"user","timestamp":"2025-12-27T10:00:00Z","content":[{"type":"text","text":"Hello"}]}],"x_tags":["demo"]}
`
	ss, warns := importAll(t, []byte(seed), "seed.ndjson")
	if len(warns) > 0 || len(ss) != 2 {
		t.Fatalf("%d sessions, warnings %v", len(ss), warns)
	}
	a, b := ss[0], ss[1]
	usftest.ValidateSession(t, a)
	usftest.ValidateSession(t, b)
	if a.Source.CLI != session.Claude || a.Project.Path != "/home/user/myproject" || !a.Metadata.Created.Equal(t0) {
		t.Errorf("session 1: %+v %+v %v", a.Source, a.Project, a.Metadata.Created)
	}
	if len(a.Records) != 1 || !bytes.Contains(a.Records[0].Record, []byte(`"active_path":["msg-001","msg-002"]`)) {
		t.Errorf("a graph the messages do not give is not kept: %+v", a.Records)
	}
	var got []string
	for _, e := range a.Timeline {
		got = append(got, fmt.Sprintf("%s %s<-%s %s %q %s/%s %s native=%v", e.Type, e.ID, e.ParentID, e.MessageID, e.Content, e.Tool, e.OriginalTool, e.Input, e.Native != nil))
	}
	want := []string{
		`user msg-001<-  "List files" / ` + " native=false",
		`assistant msg-002<-msg-001 msg-002 "I'll list the files." / ` + " native=true",
		`tool_call tool_001<-msg-002 msg-002 "" /Bash {"command":"ls -la"} native=true`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := a.Timeline[1].Native; n == nil || n.Path != "seed.ndjson" || n.Line != 2 || !bytes.Contains(n.Record, []byte(`"stop_reason":"tool_use"`)) {
		t.Errorf("the message with a stop reason is not kept: %+v", n)
	}
	if n := a.Timeline[2].Native; n == nil || n.Part != 1 || n.Record != nil {
		t.Errorf("the message's second entry should point at the first's record: %+v", n)
	}
	if len(b.Records) != 1 || b.Records[0].Line != 3 || !bytes.Contains(b.Records[0].Record, []byte(`"host":"ubuntu"`)) ||
		!bytes.Contains(b.Records[0].Record, []byte(`"x_tags":["demo"]`)) {
		t.Errorf("the WSL source and the unknown field are not kept: %+v", b.Records)
	}
	// From here on the export is stead's own: a fixed point.
	once := export(t, ss)
	back, warns := importAll(t, once, "once.ndjson")
	if len(warns) > 0 {
		t.Errorf("warnings: %v", warns)
	}
	if twice := export(t, back); !bytes.Equal(once, twice) {
		t.Errorf("export of the import differs:\n%s", firstDiff(once, twice))
	}
}

// TestGzip reads a gzip-compressed export, and writes plain and compressed
// ones atomically with Create.
func TestGzip(t *testing.T) {
	built := []*session.Session{forkedSession(), linearSession()}
	plain := export(t, built)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(plain)
	zw.Close()
	back, warns := importAll(t, z.Bytes(), "x.ndjson.gz")
	if len(warns) > 0 || len(back) != 2 {
		t.Fatalf("%d sessions, warnings %v", len(back), warns)
	}
	for i := range built {
		if err := sameSession(built[i], back[i]); err != nil {
			t.Errorf("session %d: %v", i, err)
		}
	}

	// A stream cut short reads what it holds, then fails, naming the
	// line it was cut in.
	r, err := agenthistory.NewReader(bytes.NewReader(z.Bytes()[:z.Len()*2/3]), "cut.ndjson.gz")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for err == nil {
		_, err = r.Next()
		n++
	}
	if err == io.EOF || !strings.HasPrefix(err.Error(), "cut.ndjson.gz:") || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("reading a cut gzip stream ended with %v after %d sessions", err, n-1)
	}

	dir := t.TempDir()
	for _, name := range []string{"export.ndjson", "export.ndjson.gz"} {
		p := filepath.Join(dir, name)
		h := agenthistory.Header{ExportTimestamp: exportTime}
		for _, s := range built {
			h.Add(s, names)
		}
		w, c, err := agenthistory.Create(p, h)
		if err != nil {
			t.Fatal(err)
		}
		w.Names = names
		for _, s := range built {
			if err := w.Write(s); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists before Close", name)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if gz := strings.HasSuffix(name, ".gz"); gz != (len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b) {
			t.Errorf("%s: compressed is %v", name, !gz)
		}
		ss, warns := importAll(t, data, name)
		if len(warns) > 0 || len(ss) != 2 {
			t.Fatalf("%s: %d sessions, warnings %v", name, len(ss), warns)
		}
		if again := export(t, ss); !bytes.Equal(again, plain) {
			t.Errorf("%s: read back differently:\n%s", name, firstDiff(plain, again))
		}
	}

	// An export that cannot be finished (its path is a directory) leaves
	// no temporary file.
	p := filepath.Join(dir, "taken")
	if err := os.MkdirAll(filepath.Join(p, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	w, c, err := agenthistory.Create(p, agenthistory.Header{SessionCount: 1})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(built[0])
	if err := c.Close(); err == nil || !strings.HasPrefix(err.Error(), "agenthistory: ") {
		t.Errorf("Close: %v, want an error", err)
	}
	if err := c.Close(); err == nil {
		t.Errorf("a second Close forgot the error")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("%d files left in the directory, want 3", len(ents))
	}
}

type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// TestWriterFails checks an error of the underlying writer is returned by
// the Write that meets it, and by every later call.
func TestWriterFails(t *testing.T) {
	w, err := agenthistory.NewWriter(&failingWriter{n: 100 << 10}, agenthistory.Header{SessionCount: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := bigSession(1, 200)
	err = w.Write(s)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Write: %v, want disk full", err)
	}
	if err2 := w.Write(forkedSession()); err2 != err {
		t.Errorf("a later Write: %v, want %v", err2, err)
	}
	if err3 := w.Close(); err3 != err {
		t.Errorf("Close: %v, want %v", err3, err)
	}
}

// TestWriteRejects checks a session the format cannot hold is refused
// before anything is written, and the Writer goes on.
func TestWriteRejects(t *testing.T) {
	var buf bytes.Buffer
	w, err := agenthistory.NewWriter(&buf, agenthistory.Header{ExportTimestamp: exportTime, SessionCount: 1})
	if err != nil {
		t.Fatal(err)
	}
	bad := &session.Session{ID: "bad", Timeline: []session.Entry{{ID: "x", Type: "note"}}}
	if err := w.Write(bad); err == nil {
		t.Error("an entry of an unknown type was written")
	}
	if err := w.Write(nil); err == nil {
		t.Error("a nil session was written")
	}
	if err := w.Write(forkedSession()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !json.Valid([]byte(lines[1])) {
		t.Errorf("%d lines, want the header and one valid session line", len(lines))
	}
}
