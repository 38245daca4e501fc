package gemini

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// Open decodes the session ref names, with what the store keeps outside
// the file: the project directory of its folder (see ProjectOf), the
// parent of a subagent session (the folder chats/<parent id>/ it sits in)
// and the subagent sessions stored in chats/<session id>/. A logs.json ref
// reads the prompts of the session ref.ID names (all of them when it names
// none).
func Open(_ session.Env, ref session.Ref) (*session.Session, error) {
	pl := placeOf(ref.Path)
	var s *session.Session
	var err error
	if pl.logs {
		s, err = readLogsFile(ref.Path, ref.ID)
	} else {
		s, err = ReadFile(ref.Path)
	}
	if err != nil {
		return nil, err
	}
	if s.ID == "" {
		s.ID = ref.ID
		if s.ID == "" && !pl.logs {
			s.ID = IDOf(ref.Path)
		}
		s.Source.OriginalID = s.ID
	}
	if p := ProjectOf(ref.Path); p != "" {
		s.Project.Path = p
		s.Project.Name = filepath.Base(p)
	}
	if pl.parent != "" {
		s.Parent = &session.Link{Kind: session.LinkSubagent, CLI: session.Gemini, ID: pl.parent}
	}
	if pl.parent == "" && !pl.logs && s.ID != "" {
		linkSubagents(s, filepath.Join(filepath.Dir(ref.Path), sanitize(s.ID)))
	}
	return s, nil
}

// linkSubagents adds the subagent sessions stored in dir to s.Subagents,
// filling in the file of those its tool calls already name.
func linkSubagents(s *session.Session, dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !isChatFile(name) {
			continue
		}
		id := strings.TrimSuffix(strings.TrimSuffix(name, ".jsonl"), ".json")
		p := filepath.Join(dir, name)
		found := false
		for i := range s.Subagents {
			if s.Subagents[i].ID == id {
				s.Subagents[i].Path, found = p, true
			}
		}
		if !found {
			s.Subagents = append(s.Subagents, session.Link{Kind: session.LinkSubagent, CLI: session.Gemini, ID: id, AgentID: id, Path: p})
		}
	}
}

// readLogsFile decodes the prompts of session id (all when id is "") in a
// logs.json prompt history.
func readLogsFile(path, id string) (*session.Session, error) {
	f, err := storefile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	defer f.Close()
	dec := NewDecoder(f)
	dec.Path = path
	dec.logsFor = id
	s, err := read(dec)
	if err != nil {
		return nil, err
	}
	if id != "" {
		s.ID, s.Source.OriginalID = id, id
	}
	return s, nil
}

// Sniff reports whether a line looks like one of Gemini CLI's session
// records: metadata (projectHash), "$set" and "$rewindTo" updates, chat
// messages, or a line of an indented legacy session or logs.json.
func Sniff(line []byte) bool {
	t := bytes.TrimSpace(line)
	switch {
	case bytes.Contains(t, []byte(`"projectHash"`)),
		bytes.HasPrefix(t, []byte(`{"$set":`)),
		bytes.HasPrefix(t, []byte(`{"$rewindTo":`)),
		bytes.HasPrefix(t, []byte(`"messageId": `)):
		return true
	case bytes.HasPrefix(t, []byte(`{"id":`)):
		for _, typ := range []string{typeGemini, typeUser, typeInfo, typeError, typeWarning} {
			if bytes.Contains(t, []byte(`"type":"`+typ+`"`)) || bytes.Contains(t, []byte(`"type": "`+typ+`"`)) {
				return true
			}
		}
	}
	return false
}
