package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/stead-dev/stead/session"
)

// Open decodes the session file at path and links the subagent sessions
// stored beside it in <session id>/subagents/.
func Open(_ session.Env, path string) (*session.Session, error) {
	return OpenWith(path, session.ReadOptions{})
}

// OpenWith is Open reading the file as o says. A session file holds its
// whole conversation, in order: NewDecoder reads the same entries again
// from the same bytes (o.Limit of them).
func OpenWith(path string, o session.ReadOptions) (*session.Session, error) {
	s, err := readFile(path, o)
	if err != nil {
		return nil, err
	}
	// Claude Code names a session by its file (a subagent by its agent).
	if s.Parent == nil || s.Parent.Kind != session.LinkSubagent {
		if stem := strings.TrimSuffix(filepath.Base(path), ".jsonl"); ValidID(stem) {
			s.ID = stem
		}
	}
	dir := filepath.Join(filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), ".jsonl"), "subagents")
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		id := strings.TrimSuffix(name, ".jsonl")
		p := filepath.Join(dir, name)
		found := false
		for i := range s.Subagents {
			if s.Subagents[i].ID == id {
				s.Subagents[i].Path, found = p, true
			}
		}
		if !found {
			s.Subagents = append(s.Subagents, session.Link{
				Kind: session.LinkSubagent, CLI: session.Claude, ID: id,
				AgentID: strings.TrimPrefix(id, "agent-"), Path: p,
			})
		}
	}
	return s, nil
}

// Sniff reports whether a line looks like a Claude Code session record.
func Sniff(line []byte) bool {
	if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")) {
		return false
	}
	for _, k := range []string{`"parentUuid"`, `"sessionId"`, `"leafUuid"`, `"isSidechain"`} {
		if bytes.Contains(line, []byte(k)) {
			return true
		}
	}
	return bytes.Contains(line, []byte(`"type":"user"`)) && bytes.Contains(line, []byte(`"message"`))
}
