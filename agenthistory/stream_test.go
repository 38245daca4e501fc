package agenthistory_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/stead-dev/stead/agenthistory"
	"github.com/stead-dev/stead/session"
)

// reusing gives a timeline's entries as an Entries that reuses one entry,
// and the bytes of its input and native record, from call to call: a
// WriteStream that kept them without copying would write the wrong ones.
type reusing struct {
	tl     []session.Entry
	i      int
	e      session.Entry
	native session.Native
	input  []byte
	record []byte
}

func (r *reusing) Next() (*session.Entry, error) {
	if r.i == len(r.tl) {
		return nil, io.EOF
	}
	for _, b := range [][]byte{r.input, r.record} {
		for k := range b {
			b[k] = '#' // clobber what the last call gave
		}
	}
	r.e = r.tl[r.i]
	r.i++
	if r.e.Input != nil {
		r.input = append(r.input[:0], r.e.Input...)
		r.e.Input = r.input
	}
	if r.e.Native != nil {
		r.native = *r.e.Native
		if r.native.Record != nil {
			r.record = append(r.record[:0], r.native.Record...)
			r.native.Record = r.record
		}
		r.e.Native = &r.native
	}
	return &r.e, nil
}

// reusingRecords gives records one at a time in one reused Record.
type reusingRecords struct {
	rs  []session.Record
	r   session.Record
	buf []byte
}

func (r *reusingRecords) Next() (*session.Record, error) {
	if len(r.rs) == 0 {
		return nil, io.EOF
	}
	r.buf = append(r.buf[:0], r.rs[0].Record...)
	r.r = session.Record{Line: r.rs[0].Line, Record: r.buf}
	r.rs = r.rs[1:]
	return &r.r, nil
}

// streamExport writes sessions as export does, with WriteStream, the
// records given one at a time.
func streamExport(t testing.TB, ss []*session.Session) []byte {
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
		meta := *s
		meta.Timeline, meta.Records = nil, nil
		if err := w.WriteStream(&meta, &reusingRecords{rs: s.Records}, &reusing{tl: s.Timeline}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestWriteStreamSameAsWrite checks that WriteStream writes every
// testdata session, and the hand-built ones, as Write does, byte for
// byte, session by session.
func TestWriteStreamSameAsWrite(t *testing.T) {
	type named struct {
		name string
		s    *session.Session
	}
	var all []named
	for _, l := range loadAll(t) {
		all = append(all, named{l.name, l.s})
	}
	all = append(all, named{"forked", forkedSession()}, named{"linear", linearSession()},
		named{"big", bigSession(7, 500)}, named{"empty", &session.Session{ID: "empty"}})
	graphs := 0
	for _, n := range all {
		ss := []*session.Session{n.s}
		want, got := export(t, ss), streamExport(t, ss)
		if !bytes.Equal(want, got) {
			t.Errorf("%s: WriteStream differs from Write:\n%s", n.name, firstDiff(want, got))
		}
		if bytes.Contains(want, []byte(`"graph":{`)) {
			graphs++
		}
	}
	if graphs == 0 {
		t.Error("no session with a graph")
	}
	t.Logf("%d sessions, %d with a graph", len(all), graphs)
}

// failing gives n entries of tl, then err.
type failing struct {
	reusing
	n   int
	err error
}

func (f *failing) Next() (*session.Entry, error) {
	if f.i == f.n {
		return nil, f.err
	}
	return f.reusing.Next()
}

// TestWriteStreamErrors checks what WriteStream refuses before writing
// (the Writer goes on) and what fails the Writer mid-line.
func TestWriteStreamErrors(t *testing.T) {
	s := forkedSession()
	meta := *s
	meta.Timeline = nil
	var buf bytes.Buffer
	w, _ := agenthistory.NewWriter(&buf, agenthistory.Header{SessionCount: 1})
	nan, cost := meta, math.NaN()
	nan.Metadata.Cost = &cost
	if err := w.WriteStream(&nan, nil, &reusing{tl: s.Timeline}); err == nil {
		t.Error("a NaN cost was written")
	}
	if err := w.WriteStream(nil, nil, &reusing{}); err == nil {
		t.Error("a nil session was written")
	}
	if err := w.WriteStream(&meta, nil, &reusing{tl: s.Timeline}); err != nil {
		t.Fatalf("the Writer did not go on after a refused session: %v", err)
	}
	w.Close()
	if n := strings.Count(buf.String(), "\n"); n != 2 {
		t.Errorf("%d lines, want a header and one session", n)
	}

	boom := errors.New("boom")
	w, _ = agenthistory.NewWriter(io.Discard, agenthistory.Header{})
	if err := w.WriteStream(&meta, nil, &failing{reusing{tl: s.Timeline}, 4, boom}); !errors.Is(err, boom) {
		t.Errorf("error %v, want boom", err)
	}
	if err := w.Write(s); !errors.Is(err, boom) {
		t.Errorf("after a failed stream: %v, want the Writer failed", err)
	}

	bad := append([]session.Entry(nil), s.Timeline...)
	bad[5].Type = "bogus"
	w, _ = agenthistory.NewWriter(io.Discard, agenthistory.Header{})
	if err := w.WriteStream(&meta, nil, &reusing{tl: bad}); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("an invalid entry type: %v", err)
	}
}

// generated is a Claude Code-like session of n entries made as they are
// read, never held: turns of a prompt, a reply with a shell call, its
// result and a closing reply, every 50th prompt rewinding one turn (so
// the session branches and has a graph). Ids are UUIDs, as Claude Code's
// are, tool ids Anthropic's; meta is the session without its timeline.
type generated struct {
	n, i   int
	e      session.Entry
	native session.Native
	record []byte
	usage  session.Usage
	msg    string
	parent string
	last   [2]string // the closing reply of the last two turns
	step   func(i int)
}

func newGenerated(n int) (*session.Session, *generated) {
	meta := &session.Session{
		ID:       "00000000-0000-4000-8000-0000000a11ce",
		Version:  session.Version,
		Source:   session.Source{CLI: session.Claude, Path: "/home/u/.claude/projects/-home-u-p/big.jsonl", Version: "2.1.3"},
		Project:  session.Project{Path: "/home/u/p", Git: &session.Git{Branch: "main"}},
		Model:    session.Model{Provider: "anthropic", Model: "claude-sonnet-4-5-20250929"},
		Metadata: session.Metadata{Created: t0, LastModified: at(n)},
	}
	return meta, &generated{n: n}
}

var (
	genPrompt = strings.Repeat("Please look at the parser and fix the failing test. ", 3)
	genReply  = strings.Repeat("I will run the tests first to see what fails, then read the code. ", 4)
	genOutput = strings.Repeat("--- FAIL: TestParse (0.00s)\n    parse_test.go:42: got 3, want 4\n", 10)
)

func (g *generated) Next() (*session.Entry, error) {
	if g.i == g.n {
		return nil, io.EOF
	}
	i := g.i
	g.i++
	k, step := i/5, i%5
	id := fmt.Sprintf("%08x-%04x-4%03x-8000-00000000%04x", k, step, k%4096, i%65536)
	g.e = session.Entry{ID: id, ParentID: g.parent, Timestamp: at(i), Native: &g.native}
	g.native = session.Native{Line: i + 1}
	e := &g.e
	switch step {
	case 0:
		if k%50 == 49 {
			e.ParentID = g.last[0] // rewind: a second child of an earlier reply
		}
		e.Type, e.Content = session.User, genPrompt
		g.record = fmt.Appendf(g.record[:0], `{"type":"user","uuid":%q,"message":{"role":"user","content":%q}}`, id, genPrompt)
	case 1:
		g.msg = fmt.Sprintf("msg_01%022d", k)
		g.usage = session.Usage{Input: 12, Output: 300, CacheRead: 20000, CacheWrite: 500}
		e.Type, e.Content, e.MessageID, e.Model, e.Usage = session.Assistant, genReply, g.msg, "claude-sonnet-4-5-20250929", &g.usage
		g.record = fmt.Appendf(g.record[:0], `{"type":"assistant","uuid":%q,"message":{"id":%q,"content":[{"type":"text","text":%q}]}}`, id, g.msg, genReply)
	case 2:
		e.ID = fmt.Sprintf("toolu_01%022d", k)
		e.Type, e.Tool, e.OriginalTool, e.MessageID, e.Model = session.ToolCall, session.ToolBash, "Bash", g.msg, "claude-sonnet-4-5-20250929"
		g.record = fmt.Appendf(g.record[:0], `{"command":"go test ./parser/... -count=%d","description":"Run the parser tests"}`, k)
		e.Input = json.RawMessage(g.record)
		e.Native = nil
	case 3:
		e.Type, e.CallID, e.Output, e.Status = session.ToolResult, g.parent, genOutput, session.StatusError
		g.record = fmt.Appendf(g.record[:0], `{"type":"user","uuid":%q,"message":{"content":[{"type":"tool_result","tool_use_id":%q}]}}`, id, g.parent)
	case 4:
		g.usage = session.Usage{Input: 3, Output: 20, CacheRead: 21000}
		e.Type, e.Content, e.MessageID, e.Model, e.Usage = session.Assistant, "The test fails on line 42.", g.msg+"f", "claude-sonnet-4-5-20250929", &g.usage
		g.record = fmt.Appendf(g.record[:0], `{"type":"assistant","uuid":%q,"message":{"id":"%sf","content":"The test fails on line 42."}}`, id, g.msg)
		g.last = [2]string{g.last[1], e.ID}
	}
	if e.Native != nil {
		g.native.Record = g.record
	}
	g.parent = e.ID
	if g.step != nil {
		g.step(i)
	}
	return e, nil
}

// TestWriteStreamGenerated checks that a generated session streams as
// Write writes it once held whole, graph included.
func TestWriteStreamGenerated(t *testing.T) {
	meta, g := newGenerated(2000)
	var tl []session.Entry
	for {
		e, err := g.Next()
		if err == io.EOF {
			break
		}
		c := *e
		c.Input = bytes.Clone(e.Input)
		if e.Native != nil {
			nv := *e.Native
			nv.Record = bytes.Clone(nv.Record)
			c.Native = &nv
		}
		if e.Usage != nil {
			u := *e.Usage
			c.Usage = &u
		}
		tl = append(tl, c)
	}
	s := *meta
	s.Timeline = tl
	want := export(t, []*session.Session{&s})
	_, g = newGenerated(2000)
	var buf bytes.Buffer
	w, _ := agenthistory.NewWriter(&buf, agenthistory.Header{ExportTimestamp: exportTime, SessionCount: 1,
		AgentTypes: []string{"claude-code"}, Homes: []string{"local"}, Workspaces: []string{"p"}})
	w.Names = names
	if err := w.WriteStream(meta, nil, g); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if !bytes.Equal(want, buf.Bytes()) {
		t.Fatalf("WriteStream differs from Write:\n%s", firstDiff(want, buf.Bytes()))
	}
	if !bytes.Contains(want, []byte(`"graph":{"is_linear":false,"fork_points":[{`)) {
		t.Error("no graph")
	}
	back, warns := importAll(t, want, "gen.ndjson")
	if len(warns) > 0 || len(back) != 1 {
		t.Fatalf("%d sessions, warnings %v", len(back), warns)
	}
	if again := export(t, back); !bytes.Equal(want, again) {
		t.Errorf("export → import → export differs:\n%s", firstDiff(want, again))
	}
}
