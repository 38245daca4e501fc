package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

const hugeSession = "99999999-9999-4999-8999-999999999999"

// hugeFile returns a session whose tool result line is n bytes long.
func hugeFile(n int) []byte {
	out := strings.Repeat("x", n)
	var b bytes.Buffer
	b.WriteString(`{"parentUuid":null,"type":"user","message":{"role":"user","content":"cat the big file"},"uuid":"u1","timestamp":"2026-11-20T10:00:00.000Z","sessionId":"` + hugeSession + `","cwd":"/p"}` + "\n")
	b.WriteString(`{"parentUuid":"u1","type":"assistant","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cat big"}}],"usage":{"input_tokens":7,"output_tokens":3}},"requestId":"r1","uuid":"a1","timestamp":"2026-11-20T10:00:01.000Z","sessionId":"` + hugeSession + `"}` + "\n")
	b.WriteString(`{"parentUuid":"a1","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"` + out + `"}]},"uuid":"u2","timestamp":"2026-11-20T10:00:02.000Z","toolUseResult":{"stdout":"` + out + `"},"sessionId":"` + hugeSession + `"}` + "\n")
	b.WriteString(`{"parentUuid":"u2","type":"assistant","message":{"id":"m2","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":11,"output_tokens":5}},"requestId":"r2","uuid":"a2","timestamp":"2026-11-20T10:00:03.000Z","sessionId":"` + hugeSession + `"}` + "\n")
	return b.Bytes()
}

func TestHugeLines(t *testing.T) {
	data := hugeFile(12 << 20)
	s, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Timeline); n != 4 {
		t.Fatalf("got %d entries", n)
	}
	if got := len(s.Timeline[2].Output); got != 12<<20 {
		t.Errorf("tool output has %d bytes, want %d", got, 12<<20)
	}
	if s.Metadata.Tokens == nil || s.Metadata.Tokens.Input != 18 || s.Metadata.Tokens.Output != 8 {
		t.Errorf("tokens = %+v", s.Metadata.Tokens)
	}
	sum, err := Summarize(bytes.NewReader(data), session.DetailFull)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Usage.Input != 18 || sum.Usage.Output != 8 || sum.Messages != 2 || sum.Turns != 1 || sum.Skipped != 0 {
		t.Errorf("summary = %+v", sum)
	}
}

// TestSummarizeMemoryIndependentOfSize checks that a summary of a file with
// a 24 MB line allocates a small, bounded amount: the scanner never holds a
// whole record.
func TestSummarizeMemoryIndependentOfSize(t *testing.T) {
	data := hugeFile(24 << 20)
	if _, err := Summarize(bytes.NewReader(data), session.DetailFull); err != nil { // warm the scanner pool
		t.Fatal(err)
	}
	alloc := usftest.Allocated(func() {
		if _, err := Summarize(bytes.NewReader(data), session.DetailFull); err != nil {
			t.Error(err)
		}
	})
	if alloc > 1<<20 {
		t.Errorf("summarising a %d MB file allocated %d KB; want under 1 MB", len(data)>>20, alloc>>10)
	}
}

func TestLineEndingsAndMissingNewline(t *testing.T) {
	data := hugeFile(10)
	crlf := bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
	noNL := bytes.TrimSuffix(data, []byte("\n"))
	for name, in := range map[string][]byte{"crlf": crlf, "no final newline": noNL} {
		s, err := Read(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Timeline) != 4 || len(s.Warnings) != 0 {
			t.Errorf("%s: %d entries, warnings %v", name, len(s.Timeline), s.Warnings)
		}
		sum, _ := Summarize(bytes.NewReader(in), session.DetailFull)
		if sum.Messages != 2 || sum.Skipped != 0 {
			t.Errorf("%s: summary %+v", name, sum)
		}
	}
}

func TestWarningsNameFileAndLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.jsonl")
	data := append(hugeFile(10), []byte("{\"type\":\"user\",\"message\":\n{\"type\":\"assistant\"}\n")...)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || s.Warnings[0].Path != path || s.Warnings[0].Line != 5 {
		t.Fatalf("warnings = %+v", s.Warnings)
	}
	sum, _ := SummarizeFile(session.Ref{Path: path, ID: "x"}, session.DetailFull)
	if sum.Skipped != 1 || len(sum.Warnings) != 1 || sum.Warnings[0].Line != 5 {
		t.Fatalf("summary skipped %d, warnings %+v", sum.Skipped, sum.Warnings)
	}
}

func TestSubagentFile(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/synthetic-features.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if !strings.HasSuffix(f.Name, "agent-a9211ce.jsonl") {
			continue
		}
		s, err := Read(bytes.NewReader(f.Data))
		if err != nil {
			t.Fatal(err)
		}
		if s.ID != "agent-a9211ce" || s.Parent == nil || s.Parent.Kind != session.LinkSubagent || s.Parent.ID != "5e55e55e-0000-4000-8000-000000000001" {
			t.Errorf("subagent session id %q parent %+v", s.ID, s.Parent)
		}
		// Its records are marked isSidechain, but in its own file they
		// are the conversation: converted, it resumes like any session.
		for _, e := range s.Timeline {
			if e.Sidechain {
				t.Errorf("entry %s marked sidechain in the subagent's own file", e.ID)
			}
		}
		if len(s.Timeline) == 0 || s.Timeline[0].Type != session.User || s.Timeline[0].Kind != "" {
			t.Errorf("the subagent's prompt is not its first prompt: %+v", s.Timeline)
		}
		usftest.ValidateSession(t, s)
		return
	}
	t.Fatal("no subagent file in testdata")
}

func FuzzDecode(f *testing.F) { usftest.Fuzz(f, Read, Summarize) }

// TestListEndTimeWithHugeLastRecords checks that a listing, which skips
// most of big records, still finds the last record's time.
func TestListEndTimeWithHugeLastRecords(t *testing.T) {
	full := hugeFile(3 << 20)
	lines := bytes.SplitAfter(full, []byte("\n"))
	withoutLast := bytes.Join(lines[:3], nil) // ends with the 3 MB tool result
	for name, data := range map[string][]byte{"small last record": full, "huge last record": withoutLast} {
		path := filepath.Join(t.TempDir(), hugeSession+".jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ref := session.Ref{ID: hugeSession, Path: path}
		f, _ := SummarizeFile(ref, session.DetailFull)
		l, _ := SummarizeFile(ref, session.DetailList)
		if !l.End.Equal(f.End) || !l.Start.Equal(f.Start) || l.Messages != f.Messages {
			t.Errorf("%s: list %v..%v (%d msgs), full %v..%v (%d msgs)", name, l.Start, l.End, l.Messages, f.Start, f.End, f.Messages)
		}
	}
}

func TestCommandTitle(t *testing.T) {
	for text, want := range map[string]string{
		"<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>auth module</command-args>":            "/review auth module",
		"<command-message>review is reviewing pull request…</command-message>\n   <command-name>review</command-name>\n   <command-args>42</command-args>": "/review 42",
		"<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>":                                     "",
		"<local-command-stdout>Set model to opus</local-command-stdout>":                                                                                   "",
	} {
		if got := commandTitle([]byte(text)); got != want {
			t.Errorf("commandTitle(%.60q) = %q, want %q", text, got, want)
		}
	}
	// Only the first TitleMax bytes of the record's text are read, as a
	// summary reads them.
	long := "<command-name>/fix</command-name><command-args>" + strings.Repeat("word ", 60) + "</command-args>"
	if got := commandTitle([]byte(long)); !strings.HasPrefix(got, "/fix word word") || len(got) > TitleMax {
		t.Errorf("commandTitle of long arguments = %q", got)
	}
}

// TestResultStatus reads a tool result's status as a user would check it:
// a denial's text counts only in a result Claude Code marked is_error, so a
// file or an output that quotes a denial is not one.
func TestResultStatus(t *testing.T) {
	for _, c := range []struct {
		content string
		isError bool
		want    session.ToolStatus
	}{
		{"ok", false, session.StatusOK},
		{"boom", true, session.StatusError},
		{"The user doesn't want to proceed with this tool use. The tool use was rejected.", true, session.StatusDenied},
		{"Permission to use Bash denied by a rule", true, session.StatusDenied},
		{"Bash needs approval (asked by a hook)", true, session.StatusDenied},
		{"[Request interrupted by user for tool use]", true, session.StatusInterrupted},
		{"# Releases\\nA release needs approval from two maintainers.", false, session.StatusOK},
		{"grep: The user doesn't want to proceed with this tool use", false, session.StatusOK},
	} {
		flag := ""
		if c.isError {
			flag = `,"is_error":true`
		}
		in := `{"parentUuid":null,"type":"assistant","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/p/RELEASING.md"}}]},"uuid":"a1","timestamp":"2026-11-20T10:00:01.000Z","sessionId":"` + hugeSession + `"}` + "\n" +
			`{"parentUuid":"a1","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"` + c.content + `"` + flag + `}]},"uuid":"u2","timestamp":"2026-11-20T10:00:02.000Z","sessionId":"` + hugeSession + `"}` + "\n"
		s, err := Read(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		var got session.ToolStatus
		for _, e := range s.Timeline {
			if e.Type == session.ToolResult {
				got = e.Status
			}
		}
		if got != c.want {
			t.Errorf("%q (is_error %v): status %q, want %q", c.content, c.isError, got, c.want)
		}
	}
}
