package kimi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// maxForkDepth bounds how many forks back a fork's ancestry is followed.
const maxForkDepth = 16

// meta is what a session's sidecar files say about it: Kimi Code's
// state.json and session_index.jsonl, or the legacy kimi-cli's kimi.json,
// state.json and a subagent's meta.json. Open and SummarizeFile read the
// same meta, so a listing and a full read agree.
type meta struct {
	id      string
	project string
	title   string
	// model is a legacy subagent's model (launch_spec.effective_model),
	// the only place kimi-cli stores a model name.
	model  string
	parent *session.Link
	// origin is the session a fork's journal was copied from; the copy
	// ends at the forks-th "forked" record (a fork of a fork carries its
	// parent's marker too).
	origin string
	forks  int
	// stead is the provenance of a Kimi Code session stead wrote
	// (state.json's custom.stead_origin); a legacy one's is in its
	// journal.
	stead *session.Origin
	// subagents are the subagent files of a main session's own
	// subagents.
	subagents []session.Link
	warnings  []session.Warning
}

// codeState is the part of Kimi Code's state.json stead reads (kimi.md
// §3.4): the v2 shape, or the v1 shape with workDir.
type codeState struct {
	ID         string `json:"id"`
	Cwd        string `json:"cwd"`
	WorkDir    string `json:"workDir"`
	Title      string `json:"title"`
	ForkedFrom string `json:"forkedFrom"`
	Agents     map[string]struct {
		Type          string `json:"type"`
		ParentAgentID string `json:"parentAgentId"`
	} `json:"agents"`
	Custom struct {
		Cwd         string          `json:"cwd"`
		SteadOrigin json.RawMessage `json:"stead_origin"`
	} `json:"custom"`
}

// legacyState is the part of kimi-cli's state.json stead reads.
type legacyState struct {
	CustomTitle string `json:"custom_title"`
	Title       string `json:"title"` // metadata.json, before state.json
}

// readMeta reads the sidecars of the session file at path. links asks for
// the main session's subagent files too.
func readMeta(path string, links bool) meta {
	p := placeOf(path)
	m := meta{id: p.id()}
	switch p.store {
	case storeCode:
		m.readCode(p, links)
	case storeLegacy:
		m.readLegacy(p, links)
	}
	return m
}

// readJSON decodes the JSON file at path into v. A missing file is not an
// error; an unreadable one is a warning.
func (m *meta) readJSON(path string, v any) bool {
	b, err := storefile.ReadFile(path)
	if err != nil {
		if !os.IsNotExist(err) {
			m.warnings = append(m.warnings, session.Warning{Path: path, Message: "cannot read: " + unwrapPathError(err)})
		}
		return false
	}
	if err := json.Unmarshal(b, v); err != nil {
		m.warnings = append(m.warnings, session.Warning{Path: path, Message: "unreadable JSON: " + err.Error()})
		return false
	}
	return true
}

func (m *meta) readCode(p place, links bool) {
	var st codeState
	if !m.readJSON(filepath.Join(p.dir, "state.json"), &st) {
		m.readJSON(filepath.Join(p.dir, "session-meta", "state.json"), &st)
	}
	m.project = firstNonEmpty(st.Cwd, st.WorkDir, st.Custom.Cwd)
	if p.agent == "" && len(st.Custom.SteadOrigin) > 0 {
		var o session.Origin
		if json.Unmarshal(st.Custom.SteadOrigin, &o) == nil {
			m.stead = &o
		}
	}
	if m.project == "" && p.root != "" {
		m.project = indexWorkDir(filepath.Join(p.root, "session_index.jsonl"), p.sid)
	}
	if p.agent != "" {
		parent := p.sid
		if a := st.Agents[p.agent].ParentAgentID; a != "" && a != "main" && validName(a) {
			parent += "/" + a
		}
		m.parent = &session.Link{Kind: session.LinkSubagent, CLI: session.Kimi, ID: parent, AgentID: p.agent}
	} else {
		m.title = st.Title
		if st.ForkedFrom != "" {
			m.parent = &session.Link{Kind: session.LinkFork, CLI: session.Kimi, ID: st.ForkedFrom}
		}
	}
	if st.ForkedFrom != "" {
		// Every agent's journal of a fork is a copy of the source's.
		m.origin = st.ForkedFrom
		if p.agent != "" {
			m.origin += "/" + p.agent
		}
		m.forks = codeForkDepth(p.root, st.ForkedFrom)
	}
	if !links || p.agent != "" {
		return
	}
	seen := map[string]bool{}
	add := func(agent string) {
		if agent == "main" || seen[agent] || !validName(agent) {
			return
		}
		seen[agent] = true
		l := session.Link{Kind: session.LinkSubagent, CLI: session.Kimi, ID: p.sid + "/" + agent, AgentID: agent}
		if f := filepath.Join(p.dir, "agents", agent, "wire.jsonl"); isFile(f) {
			l.Path = f
		}
		m.subagents = append(m.subagents, l)
	}
	names := make([]string, 0, len(st.Agents))
	for a := range st.Agents {
		names = append(names, a)
	}
	sort.Strings(names)
	for _, a := range names {
		if pa := st.Agents[a].ParentAgentID; pa != "" && pa != "main" {
			seen[a] = true // a subagent's subagent: linked from its parent
			continue
		}
		add(a)
	}
	entries, _ := os.ReadDir(filepath.Join(p.dir, "agents"))
	for _, e := range entries {
		if e.IsDir() {
			add(e.Name())
		}
	}
}

// codeForkDepth counts the forks from a fork's source back to a session
// that is no fork, following state.json's forkedFrom through the store.
func codeForkDepth(root, from string) int {
	depth := 1
	seen := map[string]bool{from: true}
	for root != "" && depth < maxForkDepth && validName(from) {
		states, _ := filepath.Glob(filepath.Join(root, "sessions", "*", from, "state.json"))
		if len(states) != 1 {
			break
		}
		b, err := storefile.ReadFile(states[0])
		if err != nil {
			break
		}
		var st codeState
		if json.Unmarshal(b, &st) != nil || st.ForkedFrom == "" || seen[st.ForkedFrom] {
			break
		}
		from = st.ForkedFrom
		seen[from] = true
		depth++
	}
	return depth
}

// indexWorkDir returns the workDir session_index.jsonl records for the
// session sid: the last line naming it wins.
func indexWorkDir(path, sid string) string {
	f, err := storefile.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var dir string
	r := jsonl.NewReader(f)
	for {
		var e struct {
			SessionID string `json:"sessionId"`
			WorkDir   string `json:"workDir"`
			Deleted   bool   `json:"deleted"`
		}
		rec, err := r.Decode(&e)
		if err != nil {
			break
		}
		if !rec.Skipped && e.SessionID == sid {
			dir = e.WorkDir
			if e.Deleted {
				dir = ""
			}
		}
	}
	return dir
}

func (m *meta) readLegacy(p place, links bool) {
	if p.root != "" {
		var idx struct {
			WorkDirs []struct {
				Path string `json:"path"`
				Kaos string `json:"kaos"`
			} `json:"work_dirs"`
		}
		if m.readJSON(filepath.Join(p.root, "kimi.json"), &idx) {
			for _, w := range idx.WorkDirs {
				if LegacyBucket(w.Path, w.Kaos) == p.bucket {
					m.project = w.Path
				}
			}
		}
	}
	if p.dir == "" {
		return // a flat context file has no sidecars
	}
	if p.agent != "" {
		var sm struct {
			Description string `json:"description"`
			LaunchSpec  struct {
				EffectiveModel string `json:"effective_model"`
			} `json:"launch_spec"`
		}
		m.readJSON(filepath.Join(p.dir, "subagents", p.agent, "meta.json"), &sm)
		m.title, m.model = sm.Description, sm.LaunchSpec.EffectiveModel
		m.parent = &session.Link{Kind: session.LinkSubagent, CLI: session.Kimi, ID: p.sid, AgentID: p.agent}
		return
	}
	var st legacyState
	if m.readJSON(filepath.Join(p.dir, "state.json"), &st) {
		m.title = firstNonEmpty(st.CustomTitle, st.Title)
	}
	if !links {
		return
	}
	entries, _ := os.ReadDir(filepath.Join(p.dir, "subagents"))
	for _, e := range entries {
		if !e.IsDir() || !validName(e.Name()) {
			continue
		}
		l := session.Link{Kind: session.LinkSubagent, CLI: session.Kimi, ID: p.sid + "/" + e.Name(), AgentID: e.Name()}
		l.Path = legacyFile(filepath.Join(p.dir, "subagents", e.Name()))
		m.subagents = append(m.subagents, l)
	}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
