package agenthistory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/stead-dev/stead/session"
)

// SchemaVersion is the version of the format this package writes. Reading
// accepts any 1.x.
const SchemaVersion = "1.0"

// Header is the first line of an export. Its fields are the caller's to
// fill: the format wants the session count and the lists up front, and a
// Writer streams, so it cannot count for the caller (Add helps when the
// sessions are at hand).
type Header struct {
	// SchemaVersion is "1.0" when empty.
	SchemaVersion string
	// ExportTimestamp is when the export was made; zero means now.
	ExportTimestamp time.Time
	// AgentTypes are the agent names of the sessions (see Agent).
	AgentTypes []string
	// Homes are the source homes, e.g. "local".
	Homes []string
	// Workspaces are the workspace names.
	Workspaces []string
	// SessionCount is the number of session lines that follow.
	SessionCount int
	// Extra keeps the header fields this package does not know, as read,
	// and writes them back after the known ones, sorted by name.
	Extra map[string]json.RawMessage
}

// Add counts s in h: one more session, and its agent (as names calls its
// CLI), home ("local") and workspace name in the lists, each once.
func (h *Header) Add(s *session.Session, names Names) {
	h.SessionCount++
	h.AgentTypes = addOnce(h.AgentTypes, names.Agent(s.Source.CLI))
	h.Homes = addOnce(h.Homes, "local")
	name := s.Project.Name
	if name == "" && s.Project.Path != "" {
		name = path.Base(strings.ReplaceAll(s.Project.Path, `\`, "/"))
	}
	if name != "" {
		h.Workspaces = addOnce(h.Workspaces, name)
	}
}

func addOnce(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

// headerJSON is the wire form of Header.
type headerJSON struct {
	Type            string   `json:"type"`
	SchemaVersion   string   `json:"schema_version"`
	ExportTimestamp string   `json:"export_timestamp"`
	AgentTypes      []string `json:"agent_types"`
	Homes           []string `json:"homes"`
	Workspaces      []string `json:"workspaces"`
	SessionCount    int      `json:"session_count"`
}

var headerKeys = map[string]bool{"type": true, "schema_version": true, "export_timestamp": true,
	"agent_types": true, "homes": true, "workspaces": true, "session_count": true}

// marshalHeader returns h's line, without the newline.
func marshalHeader(h Header) ([]byte, error) {
	w := headerJSON{
		Type:            "header",
		SchemaVersion:   h.SchemaVersion,
		ExportTimestamp: formatExportTime(h.ExportTimestamp),
		AgentTypes:      nonNil(h.AgentTypes),
		Homes:           nonNil(h.Homes),
		Workspaces:      nonNil(h.Workspaces),
		SessionCount:    h.SessionCount,
	}
	if w.SchemaVersion == "" {
		w.SchemaVersion = SchemaVersion
	}
	b, err := session.MarshalCompact(w)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(h.Extra))
	for k := range h.Extra {
		if !headerKeys[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return b, nil
	}
	b = b[:len(b)-1]
	for _, k := range keys {
		var v bytes.Buffer
		if err := json.Compact(&v, h.Extra[k]); err != nil {
			return nil, fmt.Errorf("header field %q: %w", k, err)
		}
		kb, _ := session.MarshalCompact(k)
		b = append(b, ',')
		b = append(b, kb...)
		b = append(b, ':')
		b = append(b, v.Bytes()...)
	}
	return append(b, '}'), nil
}

// formatExportTime writes the export time in UTC, to the second unless it
// has a fraction.
func formatExportTime(t time.Time) string {
	if t.IsZero() {
		t = time.Now()
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// parseHeader reads a header line.
func parseHeader(line []byte) (Header, []string, error) {
	var w headerJSON
	if err := json.Unmarshal(line, &w); err != nil {
		return Header{}, nil, fmt.Errorf("not a header: %w", err)
	}
	if w.Type != "header" {
		return Header{}, nil, fmt.Errorf("not a header: the first line's type is %q", w.Type)
	}
	major, _, _ := strings.Cut(w.SchemaVersion, ".")
	if major != "1" {
		return Header{}, nil, fmt.Errorf("schema_version %q is not supported (want 1.x)", w.SchemaVersion)
	}
	h := Header{SchemaVersion: w.SchemaVersion, AgentTypes: w.AgentTypes, Homes: w.Homes,
		Workspaces: w.Workspaces, SessionCount: w.SessionCount}
	var problems []string
	if w.ExportTimestamp != "" {
		t, err := session.ParseTime(w.ExportTimestamp)
		if err != nil {
			problems = append(problems, "export_timestamp: "+err.Error())
		}
		h.ExportTimestamp = t
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(line, &all); err == nil {
		for k, v := range all {
			if !headerKeys[k] {
				if h.Extra == nil {
					h.Extra = map[string]json.RawMessage{}
				}
				h.Extra[k] = v
			}
		}
	}
	return h, problems, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Names says what the format calls stead's CLIs: the agent name written
// for each, and the agent names read as each. The package knows no CLI:
// its caller says which there are (stead adds those of its adapters).
//
// The zero Names knows none: a CLI is written under its own name, and an
// agent name is read as session.Universal. A session still reads back as
// the CLI it was written for, which a Writer keeps in stead's extension
// whenever the agent name does not say it.
type Names struct {
	agent map[string]string // CLI → the agent name written
	cli   map[string]string // agent name → CLI
}

// Add makes cli known: it is written as agent (as cli when agent is ""),
// and cli, agent and each alias are read as cli.
func (n *Names) Add(cli, agent string, aliases ...string) {
	if n.agent == nil {
		n.agent, n.cli = map[string]string{}, map[string]string{}
	}
	if agent == "" {
		agent = cli
	}
	n.agent[cli] = agent
	for _, name := range append([]string{cli, agent}, aliases...) {
		n.cli[name] = cli
	}
}

// Agent returns the agent name for one of stead's CLI names; a CLI n does
// not know keeps its name.
func (n Names) Agent(cli string) string {
	if a, ok := n.agent[cli]; ok {
		return a
	}
	return cli
}

// CLI returns stead's CLI name for an agent name: the inverse of Agent,
// also reading the aliases. The name of an agent n does not know is
// session.Universal; "" and session.Universal stay as they are.
func (n Names) CLI(agent string) string {
	if c, ok := n.cli[agent]; ok {
		return c
	}
	if agent == "" || agent == session.Universal {
		return agent
	}
	return session.Universal
}

// encodeWorkspace is Claude Code's name for a project directory: every
// character but an ASCII letter or digit becomes '-', per UTF-16 code unit
// as JavaScript counts them.
func encodeWorkspace(p string) string {
	var b strings.Builder
	b.Grow(len(p))
	for _, r := range p {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// LineError is a problem at one line of an export: a reader's warning, or
// the error of a header it cannot read.
type LineError struct {
	Name string // the name the Reader was given
	Line int    // 1-based
	Err  error
	// Skipped is set on the warning of a session line the Reader could
	// not read: that session is not in what it returned.
	Skipped bool
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Name, e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }
