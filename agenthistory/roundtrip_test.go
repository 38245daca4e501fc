package agenthistory_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"testing"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/agenthistory"
	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

var exportTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// export writes sessions as one export.
func export(t testing.TB, ss []*session.Session) []byte {
	t.Helper()
	h := agenthistory.Header{ExportTimestamp: exportTime}
	for _, s := range ss {
		h.Add(s, names)
	}
	var buf bytes.Buffer
	w, err := agenthistory.NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	w.Names = names
	for _, s := range ss {
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// importAll reads every session of an export, and its warnings.
func importAll(t testing.TB, data []byte, name string) ([]*session.Session, []error) {
	t.Helper()
	r, err := agenthistory.NewReader(bytes.NewReader(data), name)
	if err != nil {
		t.Fatal(err)
	}
	r.Names = names
	var ss []*session.Session
	for {
		s, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
	}
	return ss, r.Warnings()
}

// sameSession reports how got differs from want as USF: the canonical
// JSON of the session and of each entry, and the raw JSON values byte for
// byte (the canonical encoding compacts them).
func sameSession(want, got *session.Session) error {
	if len(want.Timeline) != len(got.Timeline) {
		return fmt.Errorf("%d entries, want %d", len(got.Timeline), len(want.Timeline))
	}
	for i := range want.Timeline {
		w, g := want.Timeline[i], got.Timeline[i]
		if !bytes.Equal(w.Input, g.Input) {
			return fmt.Errorf("entry %d input: %q, want %q", i, g.Input, w.Input)
		}
		w.Input, g.Input = nil, nil // USF cannot hold an input that is not JSON
		wb, err := json.Marshal(w)
		if err != nil {
			return err
		}
		gb, err := json.Marshal(g)
		if err != nil {
			return err
		}
		if !bytes.Equal(wb, gb) {
			return fmt.Errorf("entry %d:\nwant %s\ngot  %s", i, wb, gb)
		}
		if (w.Native == nil) != (g.Native == nil) || w.Native != nil && !bytes.Equal(w.Native.Record, g.Native.Record) {
			return fmt.Errorf("entry %d native differs", i)
		}
	}
	if len(want.Records) != len(got.Records) {
		return fmt.Errorf("%d records, want %d", len(got.Records), len(want.Records))
	}
	for i := range want.Records {
		if !bytes.Equal(want.Records[i].Record, got.Records[i].Record) || want.Records[i].Line != got.Records[i].Line {
			return fmt.Errorf("record %d: %q, want %q", i, got.Records[i].Record, want.Records[i].Record)
		}
	}
	if !bytes.Equal(want.Model.Config, got.Model.Config) {
		return fmt.Errorf("model config %q, want %q", got.Model.Config, want.Model.Config)
	}
	wb, err := session.Marshal(withoutInputs(want))
	if err != nil {
		return err
	}
	gb, err := session.Marshal(withoutInputs(got))
	if err != nil {
		return err
	}
	if !bytes.Equal(wb, gb) {
		return fmt.Errorf("session differs:\n%s", firstDiff(wb, gb))
	}
	return nil
}

func withoutInputs(s *session.Session) *session.Session {
	c := *s
	c.Timeline = append([]session.Entry(nil), s.Timeline...)
	for i := range c.Timeline {
		c.Timeline[i].Input = nil
	}
	return &c
}

func firstDiff(want, got []byte) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(0, i-120)
	return fmt.Sprintf("want …%s\ngot  …%s", clip(want[from:], 300), clip(got[from:], 300))
}

func clip(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// TestRoundTripEveryCLI exports every testdata session of every CLI into
// one file, imports it, and checks each session comes back as it was and
// that exporting the imported sessions gives the same bytes.
func TestRoundTripEveryCLI(t *testing.T) {
	all := loadAll(t)
	clis := map[string]int{}
	var ss []*session.Session
	for _, l := range all {
		clis[l.s.Source.CLI]++
		ss = append(ss, l.s)
	}
	for _, a := range adapters.All {
		if a.Reads() && clis[a.Name] == 0 {
			t.Errorf("no %s session loaded", a.Name)
		}
	}
	data := export(t, ss)
	back, warns := importAll(t, data, "all.ndjson")
	for _, w := range warns {
		t.Errorf("warning: %v", w)
	}
	if len(back) != len(ss) {
		t.Fatalf("read %d sessions, wrote %d", len(back), len(ss))
	}
	for i, l := range all {
		usftest.ValidateSession(t, back[i])
		if err := sameSession(l.s, back[i]); err != nil {
			t.Errorf("%s: %v", l.name, err)
		}
	}
	again := export(t, back)
	if !bytes.Equal(data, again) {
		t.Errorf("export → import → export differs:\n%s", firstDiff(data, again))
	}
	t.Logf("%d sessions (%v), %d bytes", len(ss), clis, len(data))
}

// TestEmptyAndOddValues exports sessions whose values sit at the edges of
// what the format writes (empty lists that are not nil, zero usage, no
// times, entries without ids, an unknown CLI, a cost that is not a
// number) and checks export → import → export gives the same bytes.
func TestEmptyAndOddValues(t *testing.T) {
	zero := 0.0
	s := &session.Session{
		ID: "edge", Source: session.Source{CLI: "aider"},
		Warnings: []session.Warning{}, Subagents: []session.Link{}, Records: []session.Record{},
		Metadata: session.Metadata{Cost: &zero, Tokens: &session.Usage{}},
		Timeline: []session.Entry{
			{Type: session.User},
			{Type: session.Assistant, MessageID: "m", Usage: &session.Usage{}, Reasoning: []session.Reasoning{}, Attachments: []session.Attachment{}},
			{Type: session.ToolCall, MessageID: "m", Usage: &session.Usage{}, Native: &session.Native{}},
			{Type: session.ToolCall, MessageID: "m", ID: "c", Input: json.RawMessage(`[1, 2]`), Native: &session.Native{Part: 1}},
			{Type: session.ToolResult, CallID: "c"},
			{Type: session.ToolResult, CallID: "missing", Success: true},
			{Type: session.System, Kind: session.KindMeta, Timestamp: t0},
		},
	}
	once := export(t, []*session.Session{s, forkedSession()})
	back, warns := importAll(t, once, "once.ndjson")
	if len(warns) > 0 {
		t.Errorf("warnings: %v", warns)
	}
	if again := export(t, back); !bytes.Equal(once, again) {
		t.Errorf("export → import → export differs:\n%s", firstDiff(once, again))
	}
	if back[0].Source.CLI != "aider" {
		t.Errorf("CLI %q, want aider", back[0].Source.CLI)
	}

	var buf bytes.Buffer
	w, _ := agenthistory.NewWriter(&buf, agenthistory.Header{SessionCount: 1})
	nan := math.NaN()
	if err := w.Write(&session.Session{ID: "nan", Metadata: session.Metadata{Cost: &nan}}); err == nil {
		t.Error("a NaN cost was written")
	}
	if err := w.Write(s); err != nil {
		t.Errorf("the Writer did not go on after a refused session: %v", err)
	}
}
