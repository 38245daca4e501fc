package opencode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/stead-dev/stead/inject"
	"github.com/stead-dev/stead/internal/usftest"
	"github.com/stead-dev/stead/session"
)

// writer is OpenCode's side of a conversion, as cmd/stead wires it.
func writer() inject.Writer {
	return inject.Writer{CLI: session.OpenCode, Place: Place, ToolCall: ToolCall, Commit: Commit,
		NewEncoder: func(w io.Writer, t session.Target, lost func(session.Loss)) inject.Encoder {
			return NewEncoder(w, t, lost)
		}}
}

func reader() inject.Reader { return inject.Reader{CLI: session.OpenCode, ToolArgs: ToolArgs} }

// collector keeps the entries the normaliser hands an encoder.
type collector struct{ entries []session.Entry }

func (c *collector) Encode(e *session.Entry) error { c.entries = append(c.entries, *e); return nil }
func (c *collector) Close() error                  { return nil }

// normalised returns what a conversion of s to OpenCode carries.
func normalised(t *testing.T, s *session.Session) []session.Entry {
	t.Helper()
	c := &collector{}
	w := writer()
	w.NewEncoder = func(io.Writer, session.Target, func(session.Loss)) inject.Encoder { return c }
	if _, err := inject.Convert(s, reader(), w, inject.Options{Dir: "/p", Env: session.Env{Home: t.TempDir()}}, io.Discard); err != nil {
		t.Fatal(err)
	}
	return c.entries
}

// canon is what a same-CLI round trip keeps of an entry: all but ids,
// the status of a call (its result's), and a model the source did not
// name (the writer fills one in).
func canon(e session.Entry, model bool) string {
	if !model {
		e.Model = ""
	}
	if e.Type == session.ToolCall {
		e.Status = ""
	}
	var in any
	json.Unmarshal(e.Input, &in)
	input, _ := json.Marshal(in)
	u := ""
	if e.Usage != nil {
		u = fmt.Sprintf("%+v", *e.Usage)
	}
	var reasoning []string
	for _, r := range e.Reasoning {
		reasoning = append(reasoning, r.Format+":"+r.Signature+r.Encrypted)
	}
	return fmt.Sprintf("%s|%s|content=%q|thinking=%q %v|tool=%s %s %s|out=%q err=%q ok=%v status=%s|model=%s|usage=%s|atts=%d",
		e.Type, e.Kind, e.Content, e.Thinking, reasoning, e.Tool, e.OriginalTool, input, e.Output, e.Error, e.Success, e.Status, e.Model, u, len(e.Attachments))
}

// callOrder moves each tool result right after its call: OpenCode keeps
// a call and its result in one part, so results of calls made together
// read back in the order of the calls.
func callOrder(entries []session.Entry) []session.Entry {
	results := map[string]session.Entry{}
	for _, e := range entries {
		if e.Type == session.ToolResult {
			results[e.CallID] = e
		}
	}
	var out []session.Entry
	for _, e := range entries {
		if e.Type == session.ToolResult {
			continue
		}
		out = append(out, e)
		if r, ok := results[e.ID]; ok && e.Type == session.ToolCall {
			out = append(out, r)
		}
	}
	return out
}

// sessionsOf opens every session a testdata case holds.
func sessionsOf(t *testing.T, path string) []*session.Session {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	env := envFor(dir, data)
	var refs []session.Ref
	for _, f := range ar.Files {
		switch {
		case f.Name == "native/opencode.db.sql":
			buildDB(t, filepath.Join(data, "opencode"), string(f.Data), asLeft)
		case strings.HasPrefix(f.Name, "native/storage/"):
			writeFile(t, filepath.Join(data, "opencode", filepath.FromSlash(strings.TrimPrefix(f.Name, "native/"))), f.Data)
		case strings.HasPrefix(f.Name, "native/"):
			p := filepath.Join(dir, filepath.FromSlash(f.Name))
			writeFile(t, p, f.Data)
			refs = append(refs, session.Ref{CLI: session.OpenCode, Path: p})
		}
	}
	found, _ := Discover(env)
	var out []*session.Session
	for _, ref := range append(found, refs...) {
		s, err := Open(env, ref)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// TestSameCLIRoundTrip reads each testdata session, writes it as a new
// OpenCode session, installs that into a new database, and checks both
// the export and the installed session read back as the same
// conversation, ids aside; a same-CLI conversion loses nothing OpenCode
// holds.
func TestSameCLIRoundTrip(t *testing.T) {
	cases, _ := filepath.Glob("testdata/*.txtar")
	n := 0
	for _, path := range cases {
		for _, s := range sessionsOf(t, path) {
			name := strings.TrimSuffix(filepath.Base(path), ".txtar") + "/" + s.ID
			t.Run(name, func(t *testing.T) {
				home := t.TempDir()
				env := envFor(home, filepath.Join(home, "data"))
				var buf bytes.Buffer
				rep, err := inject.Convert(s, reader(), writer(), inject.Options{Dir: "/p", Env: env}, &buf)
				if err == inject.ErrEmpty {
					t.Skip("nothing to resume")
				}
				if err != nil {
					t.Fatal(err)
				}
				n++
				for _, l := range rep.Losses {
					if l.What != session.LostBranch && l.What != session.LostEntry && l.What != session.LostResult {
						t.Errorf("a same-CLI conversion lost %s (%s): %s", l.What, l.How, l.Detail)
					}
				}
				export := filepath.Join(t.TempDir(), "export.json")
				if err := os.WriteFile(export, buf.Bytes(), 0o600); err != nil {
					t.Fatal(err)
				}
				fromExport, err := Read(bytes.NewReader(buf.Bytes()))
				if err != nil {
					t.Fatal(err)
				}
				if err := Commit(env, rep.Placement, rep.Target, export); err != nil {
					t.Fatal(err)
				}
				installed, err := Open(env, session.Ref{CLI: session.OpenCode, ID: rep.Target.ID})
				if err != nil {
					t.Fatal(err)
				}
				want := callOrder(normalised(t, s))
				for what, back := range map[string]*session.Session{"export": fromExport, "database": installed} {
					usftest.ValidateSession(t, back)
					for _, w := range back.Warnings {
						t.Errorf("%s: reading the written session: %v", what, w)
					}
					got := callOrder(normalised(t, back))
					for i := 0; i < len(want) || i < len(got); i++ {
						var w, g string
						model := i < len(want) && want[i].Model != ""
						if i < len(want) && i < len(got) && want[i].Kind == session.KindPlaceholder &&
							got[i].Type == session.ToolResult && got[i].Status == session.StatusInterrupted {
							continue // the source's unfinished call now has OpenCode's own "aborted" result
						}
						if i < len(want) {
							w = canon(want[i], model)
						}
						if i < len(got) {
							g = canon(got[i], model)
						}
						if w != g {
							t.Errorf("%s: entry %d differs after the round trip:\nwant %s\ngot  %s", what, i, w, g)
						}
					}
				}
			})
		}
	}
	if n == 0 {
		t.Fatal("no session was round-tripped")
	}
}
