package agenthistory_test

import (
	"encoding/json"
	"time"

	"github.com/stead-dev/stead/session"
)

var t0 = time.Date(2025, 12, 27, 9, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

// forkedSession is a Claude Code session the user rewound and branched:
// after message 5 ("There are two files.") a first prompt (message 6,
// answered by 7) and then a second one (message 8, answered by 9, the
// active branch).
//
//	1 s0 ─ 2 u1 ─ 3 a1+toolu_1 ─ 4 r1 ─ 5 a2 ─┬─ 6 u2 ─ 7 a3
//	                                          └─ 8 u3 ─ 9 a4
func forkedSession() *session.Session {
	usage := &session.Usage{Input: 1500, Output: 350, CacheRead: 1200, Reasoning: 40}
	return &session.Session{
		ID:      "c7e6fbcb-0000-4000-8000-000000000001",
		Version: session.Version,
		Source:  session.Source{CLI: session.Claude, OriginalID: "c7e6fbcb-0000-4000-8000-000000000001", Path: "/home/user/.claude/projects/-home-user-myproject/c7e6fbcb-0000-4000-8000-000000000001.jsonl", Version: "2.1.3", Format: "claude-jsonl"},
		Project: session.Project{Path: "/home/user/myproject", Name: "myproject", Git: &session.Git{Branch: "main", Commit: "0123456789abcdef0123456789abcdef01234567"}},
		Model:   session.Model{Provider: "anthropic", Model: "claude-sonnet-4-5-20250929"},
		Title:   "List and tidy files",
		Metadata: session.Metadata{Created: at(0), LastModified: at(60),
			Tokens: &session.Usage{Input: 3000, Output: 700, CacheRead: 2400}},
		Timeline: []session.Entry{
			{ID: "s0", Timestamp: at(0), Type: session.System, Kind: session.KindInstructions, Content: "You are a careful assistant."},
			{ID: "u1", ParentID: "s0", Timestamp: at(1), Type: session.User, Content: "List files <and> tell me what's there",
				Attachments: []session.Attachment{{Type: "image", MediaType: "image/png", Data: "iVBORw0KGgo="}}},
			{ID: "a1", ParentID: "u1", Timestamp: at(5), Type: session.Assistant, Content: "I'll list the files.",
				Thinking: "The user wants a listing.", MessageID: "msg_01", Model: "claude-sonnet-4-5-20250929", Usage: usage,
				Reasoning: []session.Reasoning{{Format: "anthropic", Text: "The user wants a listing.", Signature: "EqQBsig=="}}},
			{ID: "toolu_1", ParentID: "a1", Timestamp: at(6), Type: session.ToolCall, Tool: session.ToolBash, OriginalTool: "Bash",
				Input: json.RawMessage(`{"command":"ls -la","description":"List files"}`), MessageID: "msg_01",
				Model: "claude-sonnet-4-5-20250929", Status: session.StatusOK},
			{ID: "r1", ParentID: "toolu_1", Timestamp: at(7), Type: session.ToolResult, CallID: "toolu_1", Success: true,
				Status: session.StatusOK, Output: "a.txt\nb.txt\n"},
			{ID: "a2", ParentID: "r1", Timestamp: at(9), Type: session.Assistant, Content: "There are two files.",
				MessageID: "msg_02", Model: "claude-sonnet-4-5-20250929", Usage: &session.Usage{Input: 10, Output: 6}},
			{ID: "u2", ParentID: "a2", Timestamp: at(20), Type: session.User, Content: "Delete a.txt"},
			{ID: "a3", ParentID: "u2", Timestamp: at(22), Type: session.Assistant, Content: "Deleted.", MessageID: "msg_03",
				Model: "claude-sonnet-4-5-20250929"},
			{ID: "u3", ParentID: "a2", Timestamp: at(40), Type: session.User, Content: "No, rename a.txt to c.txt instead"},
			{ID: "m1", ParentID: "u3", Timestamp: at(40), Type: session.User, Kind: session.KindMeta, Content: "<system-reminder>be brief</system-reminder>"},
			{ID: "a4", ParentID: "m1", Timestamp: at(45), Type: session.Assistant, Content: "Renamed.", MessageID: "msg_04",
				Model: "claude-sonnet-4-5-20250929"},
		},
	}
}

// linearSession is a Codex subagent run without a conversation tree,
// with what only stead's extensions carry: an indented tool input, one
// that is not JSON, a failed and an interrupted call, native records, a
// warning, several entries of one response, and a cross-CLI entry.
func linearSession() *session.Session {
	cost := 0.0125
	return &session.Session{
		ID:       "0193a000-0000-7000-8000-00000000abcd",
		Version:  session.Version,
		Source:   session.Source{CLI: session.Codex, Path: "/home/user/.codex/sessions/2025/12/27/rollout-2025-12-27T10-00-00-0193a000-0000-7000-8000-00000000abcd.jsonl", Version: "0.80.0"},
		Project:  session.Project{Path: "/home/user/other project"},
		Model:    session.Model{Provider: "openai", Model: "gpt-5-codex", Config: json.RawMessage(`{"effort": "high"}`)},
		Parent:   &session.Link{Kind: session.LinkSubagent, CLI: session.Codex, ID: "0193a000-0000-7000-8000-00000000c0de", AgentID: "worker-1", CallID: "call_spawn"},
		Metadata: session.Metadata{Created: at(3600), LastModified: at(3700), Cost: &cost},
		Records: []session.Record{
			{Line: 1, Record: json.RawMessage(`{"type":"session_meta","payload":{"id":"0193a000-0000-7000-8000-00000000abcd"}}`)},
			{Line: 9, Record: json.RawMessage(`{"type": "event_msg", "payload": {"type": "token_count"}}`)},
		},
		Warnings: []session.Warning{{Path: "rollout.jsonl", Line: 12, Message: "unknown record type \"x\""}},
		Timeline: []session.Entry{
			{ID: "L2", Timestamp: at(3600), Type: session.User, Content: "Run the tests",
				Native: &session.Native{Line: 2, Record: json.RawMessage(`{"type":"response_item","payload":{"type":"message","role":"user"}}`)}},
			{ID: "rs_1", Timestamp: at(3601).Add(123456789), Type: session.Assistant, Thinking: "**Running tests**", MessageID: "resp_1",
				Reasoning: []session.Reasoning{{Format: "openai", ID: "rs_1", Encrypted: "gAAAAB..."}}},
			{ID: "call_1", Timestamp: at(3602), Type: session.ToolCall, Tool: session.ToolBash, OriginalTool: "exec_command",
				Input: json.RawMessage("{\n  \"cmd\": \"go test ./...\"\n}"), MessageID: "resp_1", Model: "gpt-5-codex",
				Usage: &session.Usage{Input: 900, Output: 40, CacheRead: 100}},
			{ID: "call_2", Timestamp: at(3602), Type: session.ToolCall, Tool: session.ToolEdit, OriginalTool: "apply_patch",
				Input: json.RawMessage(`*** Begin Patch`), MessageID: "resp_1", Model: "gpt-5-codex"},
			{ID: "call_1:output", Timestamp: at(3610), Type: session.ToolResult, CallID: "call_1", Output: "FAIL\texample.com/x", Error: "exit status 1", Status: session.StatusError},
			{ID: "call_2:output", Timestamp: at(3611), Type: session.ToolResult, CallID: "call_2", Status: session.StatusInterrupted, Kind: session.KindPlaceholder},
			{ID: "call_3", Type: session.ToolCall, Tool: session.ToolTodo},
			{ID: "L9", Timestamp: at(3620), Type: session.System, Kind: session.KindInterrupt, Content: "Turn aborted: interrupted"},
			{ID: "L10", Timestamp: at(3630), Type: session.Assistant, Content: "", CLI: session.Gemini, Origin: "other-session", Sidechain: true},
		},
	}
}
