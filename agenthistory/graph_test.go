package agenthistory_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/session"
)

// line is the parts of a session line the graph tests look at.
type line struct {
	Session struct {
		ID              string  `json:"id"`
		IsAgentSession  bool    `json:"is_agent_session"`
		ParentSessionID *string `json:"parent_session_id"`
		AgentID         *string `json:"agent_id"`
	} `json:"session"`
	Messages []struct {
		Index      int     `json:"index"`
		UUID       *string `json:"uuid"`
		ParentUUID *string `json:"parent_uuid"`
	} `json:"messages"`
	Graph *struct {
		IsLinear   bool `json:"is_linear"`
		ForkPoints []struct {
			UUID     string `json:"uuid"`
			Index    int    `json:"index"`
			Branches []struct {
				UUID  string `json:"uuid"`
				Index int    `json:"index"`
			} `json:"branches"`
		} `json:"fork_points"`
		ActivePath []string `json:"active_path"`
	} `json:"graph"`
}

// lineOf exports s alone and decodes its session line.
func lineOf(t *testing.T, s *session.Session) line {
	t.Helper()
	data := export(t, []*session.Session{s})
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2", len(lines))
	}
	var l line
	if err := json.Unmarshal(lines[1], &l); err != nil {
		t.Fatal(err)
	}
	return l
}

// forks lists the fork points as "uuid@index: branch@index branch@index".
func forks(l line) []string {
	var out []string
	if l.Graph == nil {
		return nil
	}
	for _, f := range l.Graph.ForkPoints {
		s := f.UUID + "@" + strconv.Itoa(f.Index) + ":"
		for _, b := range f.Branches {
			s += " " + b.UUID + "@" + strconv.Itoa(b.Index)
		}
		out = append(out, s)
	}
	return out
}

func openClaude(t *testing.T, path string) *session.Session {
	t.Helper()
	a, ok := adapters.Lookup(session.Claude)
	if !ok {
		t.Fatal("no claude adapter")
	}
	s, err := a.Open(session.Env{Home: t.TempDir()}, session.Ref{CLI: session.Claude, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func loaded1(t *testing.T, name string) *session.Session {
	t.Helper()
	for _, l := range loadAll(t) {
		if l.name == name {
			return l.s
		}
	}
	t.Fatalf("no testdata session %s", name)
	return nil
}

func TestGraph(t *testing.T) {
	const examples = "../examples/claude/projects/-home-dev-lab-claude-work-alpha/"
	tests := []struct {
		name   string
		s      func(t *testing.T) *session.Session
		forks  []string
		active string // the active path, space-separated; "" for a linear session
	}{
		{
			name:   "hand-built fork",
			s:      func(*testing.T) *session.Session { return forkedSession() },
			forks:  []string{"a2@5: u2@6 u3@8"},
			active: "s0 u1 a1 r1 a2 u3 m1 a4",
		},
		{
			name: "linear without a tree",
			s:    func(*testing.T) *session.Session { return linearSession() },
		},
		{
			// A fork Claude Code made with --fork-session: the new file
			// copies the parent's history, so its own tree is a line.
			name: "claude fork of another session",
			s: func(t *testing.T) *session.Session {
				return openClaude(t, examples+"8813597d-1f67-46cb-b39d-f39796dcad32.jsonl")
			},
		},
		{
			// A sidechain record and the main reply both follow t6#2.
			name:   "claude sidechain branch",
			s:      func(t *testing.T) *session.Session { return loaded1(t, "claude/synthetic-features") },
			forks:  []string{"t6#2@21: s1@22 a11@23"},
			active: "u1 a1 t1 toolu_exit t2 toolu_task t3 toolu_mcp t4 toolu_sleep t5 e1 a9 c1 c2 m1 m2 u2 a10 t6 t6#2 a11",
		},
		{
			// Gemini's rewinds: a second prompt after u3, and a summary
			// restarting from the root.
			name: "gemini rewinds",
			s:    func(t *testing.T) *session.Session { return loaded1(t, "gemini/synthetic-features") },
			forks: []string{"d04923d38bb0f6017037e74183378ef4@1: u1@2 s1@20",
				"u3@14: u4@15 u5@17"},
			active: "d04923d38bb0f6017037e74183378ef4 u1 g1 c_build:result c_write c_write:result c_rm c_rm:result c_read c_read:result w1 e1 i1 u3 u5 g4 c_edit:result u7 g6 c_push",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := lineOf(t, tt.s(t))
			if got := forks(l); !reflect.DeepEqual(got, tt.forks) {
				t.Errorf("fork points %q, want %q", got, tt.forks)
			}
			if tt.active == "" {
				if l.Graph != nil {
					t.Errorf("a linear session has a graph")
				}
				return
			}
			if l.Graph == nil || l.Graph.IsLinear {
				t.Fatalf("graph %+v, want a non-linear one", l.Graph)
			}
			if got := strings.Join(l.Graph.ActivePath, " "); got != tt.active {
				t.Errorf("active path\n%s\nwant\n%s", got, tt.active)
			}
		})
	}
}

// TestForkAndSubagentLinks checks the session fields of Claude's real fork
// and subagent files: a fork names its parent but is no agent session, it
// carries the parent's history with the same uuids, and a subagent's file
// is an agent session with its agent id.
func TestForkAndSubagentLinks(t *testing.T) {
	const examples = "../examples/claude/projects/-home-dev-lab-claude-work-alpha/"
	fork := lineOf(t, openClaude(t, examples+"8813597d-1f67-46cb-b39d-f39796dcad32.jsonl"))
	parent := lineOf(t, openClaude(t, examples+"6cccbe0a-a5b6-4c51-bd4c-d322261e2887.jsonl"))
	if fork.Session.IsAgentSession || fork.Session.ParentSessionID == nil || *fork.Session.ParentSessionID != parent.Session.ID {
		t.Errorf("fork: is_agent_session %v, parent_session_id %v, want false and %s", fork.Session.IsAgentSession, fork.Session.ParentSessionID, parent.Session.ID)
	}
	if len(fork.Messages) <= len(parent.Messages) {
		t.Fatalf("the fork has %d messages, its parent %d", len(fork.Messages), len(parent.Messages))
	}
	for i, m := range parent.Messages {
		if *m.UUID != *fork.Messages[i].UUID {
			t.Errorf("message %d: fork uuid %s, parent %s", i+1, *fork.Messages[i].UUID, *m.UUID)
		}
	}
	next := fork.Messages[len(parent.Messages)]
	if last := parent.Messages[len(parent.Messages)-1]; *next.ParentUUID != *last.UUID {
		t.Errorf("the fork's first own message follows %s, want the parent's last, %s", *next.ParentUUID, *last.UUID)
	}

	ar := filepath.Join("..", "adapters", "claude", "testdata", "synthetic-features.txtar")
	a, _ := adapters.Lookup(session.Claude)
	var sub *session.Session
	for _, l := range loadCase(t, a, ar, "claude/synthetic-features") {
		dir := filepath.Dir(l.s.Source.Path)
		sub = openClaude(t, filepath.Join(dir, strings.TrimSuffix(filepath.Base(l.s.Source.Path), ".jsonl"), "subagents", "agent-a9211ce.jsonl"))
	}
	sl := lineOf(t, sub)
	if !sl.Session.IsAgentSession || sl.Session.AgentID == nil || *sl.Session.AgentID != "a9211ce" || sl.Session.ParentSessionID == nil {
		t.Errorf("subagent: is_agent_session %v, agent_id %v, parent_session_id %v", sl.Session.IsAgentSession, sl.Session.AgentID, sl.Session.ParentSessionID)
	}
}
