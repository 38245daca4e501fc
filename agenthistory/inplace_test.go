package agenthistory_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stead-dev/stead/agenthistory"
	"github.com/stead-dev/stead/session"
)

// readAll reads every session of an export and its warnings.
func readAll(t *testing.T, data string) ([]*session.Session, []error) {
	t.Helper()
	r, err := agenthistory.NewReader(strings.NewReader(data), "x.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	var ss []*session.Session
	for {
		s, err := r.Next()
		if errors.Is(err, io.EOF) {
			return ss, r.Warnings()
		}
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
	}
}

// TestReaderMessagesInPlace: the messages of a line, read where they are
// in it, read as encoding/json reads them: spaced out, under a key in
// another case, given twice (the last wins), null, or of the wrong type
// (skipped with encoding/json's words); a line that is not read says
// it was skipped.
func TestReaderMessagesInPlace(t *testing.T) {
	g := goldenLines(t)
	linear := g[2]
	want, _ := readAll(t, header(1)+"\n"+linear+"\n")
	if len(want) != 1 || len(want[0].Timeline) == 0 {
		t.Fatalf("the golden line reads as %d sessions", len(want))
	}
	var spaced bytes.Buffer
	if err := json.Indent(&spaced, []byte(linear), "", " "); err != nil {
		t.Fatal(err)
	}
	for name, line := range map[string]string{
		"spaced":   strings.ReplaceAll(spaced.String(), "\n", " "),
		"key case": strings.Replace(linear, `"messages":`, `"Messages":`, 1),
		"twice":    strings.Replace(linear, `"messages":`, `"messages":[7],"messages":`, 1),
	} {
		got, warns := readAll(t, header(1)+"\n"+line+"\n")
		if len(got) != 1 {
			t.Errorf("%s: %d sessions, warnings %v", name, len(got), warns)
			continue
		}
		a, _ := session.Marshal(want[0])
		b, _ := session.Marshal(got[0])
		// The line itself is kept as a record when it is not as stead writes it.
		got[0].Records = nil
		b2, _ := session.Marshal(got[0])
		if !bytes.Equal(a, b) && !bytes.Equal(a, b2) {
			t.Errorf("%s: read as\n%s\nwant\n%s", name, b, a)
		}
	}
	line := `{"type":"session","session":{"id":"s","agent":"claude-code"},"messages":%s}`
	for v, warn := range map[string]string{
		`null`: "", `[]`: "", `[ ]`: "", `"x"`: "messages: unexpected JSON string", `7`: "messages: unexpected JSON number",
		`{"a":1}`: "messages: unexpected JSON object", `true`: "messages: unexpected JSON bool",
	} {
		got, warns := readAll(t, header(1)+"\n"+strings.Replace(line, "%s", v, 1)+"\n")
		switch {
		case warn == "" && (len(got) != 1 || len(got[0].Timeline) != 0):
			t.Errorf("messages %s: %d sessions, warnings %v", v, len(got), warns)
		case warn != "" && (len(got) != 0 || len(warns) != 1 || !strings.Contains(warns[0].Error(), "x.ndjson:2: "+warn)):
			t.Errorf("messages %s: %d sessions, warnings %v; want %q", v, len(got), warns, warn)
		case warn != "":
			var le *agenthistory.LineError
			if !errors.As(warns[0], &le) || !le.Skipped {
				t.Errorf("messages %s: the warning does not say its session was skipped: %#v", v, warns[0])
			}
		}
	}
}
