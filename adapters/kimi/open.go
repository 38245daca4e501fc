package kimi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// Open decodes the session file ref names and what its store keeps beside
// it: the id (the session folder's name, <session>/<agent> for a subagent),
// the working directory, title and fork or subagent parent from
// state.json, session_index.jsonl or kimi.json, the subagent files under
// agents/ or subagents/ as Session.Subagents, and for a legacy wire.jsonl
// the frozen system prompt, which only context.jsonl keeps. A Ref with no
// path is located by its id.
func Open(env session.Env, ref session.Ref) (*session.Session, error) {
	p := ref.Path
	if p == "" {
		r, err := Locate(env, ref.ID)
		if err != nil {
			return nil, err
		}
		p = r.Path
	}
	m := readMeta(p, true)
	f, err := storefile.Open(p)
	if err != nil {
		return nil, fmt.Errorf("kimi: %w", err)
	}
	defer f.Close()
	pl := placeOf(p)
	dec := NewDecoder(f)
	dec.Path, dec.SessionID = p, pl.sid
	dec.Origin, dec.Forks = m.origin, m.forks
	s, err := read(dec)
	if err != nil {
		return nil, err
	}
	s.ID = ref.ID
	if s.ID == "" {
		s.ID = m.id
	}
	s.Source.OriginalID = s.ID
	if m.project != "" {
		s.Project.Path = m.project
		s.Project.Name = path.Base(strings.ReplaceAll(m.project, `\`, "/"))
	}
	if m.title != "" {
		s.Title = m.title
	}
	if m.parent != nil {
		s.Parent = m.parent
	}
	if m.model != "" && s.Model.Model == "" {
		s.Model.Model = m.model
		s.Model.Provider = session.ProviderOf(m.model)
	}
	for _, l := range m.subagents {
		found := false
		for i := range s.Subagents {
			if s.Subagents[i].ID == l.ID {
				s.Subagents[i].Path, found = l.Path, true
			}
		}
		if !found {
			s.Subagents = append(s.Subagents, l)
		}
	}
	if pl.store == storeLegacy && filepath.Base(p) == "wire.jsonl" {
		prependSystemPrompt(s, filepath.Join(filepath.Dir(p), "context.jsonl"))
	}
	s.Warnings = append(s.Warnings, m.warnings...)
	return s, nil
}

// prependSystemPrompt puts the system prompt a legacy context.jsonl starts
// with (the _system_prompt row) at the head of a session read from its
// wire.jsonl, which has none.
func prependSystemPrompt(s *session.Session, ctx string) {
	f, err := storefile.Open(ctx)
	if err != nil {
		return
	}
	defer f.Close()
	r := jsonl.NewReader(f)
	if !r.Next() {
		return
	}
	var row struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	line := bytes.Clone(r.Line())
	if json.Unmarshal(line, &row) != nil || row.Role != "_system_prompt" {
		return
	}
	var d Decoder
	text := d.content(row.Content).text
	if text == "" {
		return
	}
	e := session.Entry{
		ID: "system-prompt", Type: session.System, Kind: session.KindInstructions, Content: text,
		Native: &session.Native{Line: r.LineNo(), Record: line, Path: ctx},
	}
	s.Timeline = session.Join([]session.Entry{e}, s.Timeline)
	if len(s.Timeline) > 1 && s.Timeline[1].ParentID == "" {
		s.Timeline[1].ParentID = e.ID
	}
}

// Sniff reports whether a line looks like a record of a Kimi session
// file: Kimi Code's wire header or flat dotted records, the legacy wire's
// {"timestamp": <seconds>, "message": {"type", "payload"}}, or the legacy
// context's marker rows.
func Sniff(line []byte) bool {
	t := bytes.TrimSpace(line)
	if !bytes.HasPrefix(t, []byte("{")) {
		return false
	}
	if bytes.Contains(t, []byte(`"protocol_version"`)) && bytes.Contains(t, []byte(`"metadata"`)) {
		return true
	}
	if bytes.Contains(t, []byte(`"agentId":`)) || bytes.Contains(t, []byte(`"kind":"event"`)) {
		for _, ty := range []string{`"type":"context.`, `"type":"turn.`, `"type":"llm.`, `"type":"profile.bind"`,
			`"type":"usage.record"`, `"type":"runtime.set_binding"`, `"type":"permission.`, `"type":"token_counting.`,
			`"type":"agent.`, `"type":"prompt.`, `"type":"plugin.session_start"`} {
			if bytes.Contains(t, []byte(ty)) {
				return true
			}
		}
	}
	if numberAfter(t, `"timestamp":`) && bytes.Contains(t, []byte(`"payload"`)) &&
		(bytes.Contains(t, []byte(`"message": {"type": "`)) || bytes.Contains(t, []byte(`"message":{"type":"`))) {
		return true
	}
	for _, r := range []string{"_system_prompt", "_checkpoint", "_usage"} {
		if bytes.Contains(t, []byte(`"role": "`+r+`"`)) || bytes.Contains(t, []byte(`"role":"`+r+`"`)) {
			return true
		}
	}
	return false
}

// numberAfter reports whether key is followed by a number in b.
func numberAfter(b []byte, key string) bool {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return false
	}
	rest := bytes.TrimLeft(b[i+len(key):], " ")
	return len(rest) > 0 && rest[0] >= '0' && rest[0] <= '9'
}
