package samples

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// LongSID is a session id for ClaudeSession.
const LongSID = "5e55a000-0000-4000-8000-000000100000"

// ClaudeSessionPath is where ClaudeSession writes session sid in the
// Claude Code config folder dir, and its reference.
func ClaudeSessionPath(dir, sid string) (path, ref string) {
	return filepath.Join(dir, "projects", "-tmp-long", sid+".jsonl"), "claude:" + sid
}

// ClaudeSession writes a Claude Code session sid of n entries (prompts,
// bash calls with their output, answers, in turn) into the config folder
// dir, as Claude Code lays it out, and returns its path and reference.
// ClaudeLine(sid, i) is its entry i, to append more.
func ClaudeSession(tb testing.TB, dir, sid string, n int) (path, ref string) {
	tb.Helper()
	path, ref = ClaudeSessionPath(dir, sid)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := 0; i < n; i++ {
		w.Write(ClaudeLine(sid, i))
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path, ref
}

// ClaudeLine is the record of entry i of ClaudeSession's session sid.
func ClaudeLine(sid string, i int) []byte {
	start := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	uuid := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
	ts := start.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano)
	rec := map[string]any{"uuid": uuid, "sessionId": sid, "timestamp": ts, "cwd": "/tmp/long", "version": "2.1.330",
		"userType": "external", "isSidechain": false}
	if i > 0 {
		rec["parentUuid"] = fmt.Sprintf("00000000-0000-4000-8000-%012d", i-1)
	}
	switch i % 4 {
	case 0:
		rec["type"] = "user"
		rec["message"] = map[string]any{"role": "user", "content": fmt.Sprintf("Step %d: run the next check and tell me what it printed.", i/4)}
	case 1:
		rec["type"] = "assistant"
		rec["message"] = map[string]any{"id": fmt.Sprintf("msg_%d", i), "type": "message", "role": "assistant", "model": "claude-opus-5-5",
			"content": []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", i), "name": "Bash",
				"input": map[string]any{"command": fmt.Sprintf("echo check-%d && ls -la", i/4)}}},
			"usage": map[string]any{"input_tokens": 1200, "output_tokens": 40}}
	case 2:
		rec["type"] = "user"
		rec["message"] = map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result",
			"tool_use_id": fmt.Sprintf("toolu_%d", i-1), "content": fmt.Sprintf("check-%d\ntotal 8\ndrwxr-xr-x 2 dev dev 4096 .\n", i/4), "is_error": false}}}
	case 3:
		rec["type"] = "assistant"
		rec["message"] = map[string]any{"id": fmt.Sprintf("msg_%d", i), "type": "message", "role": "assistant", "model": "claude-opus-5-5",
			"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("The check printed `check-%d` and the folder is **empty**.", i/4)}},
			"usage":   map[string]any{"input_tokens": 1300, "output_tokens": 30}}
	}
	data, _ := json.Marshal(rec)
	return append(data, '\n')
}
