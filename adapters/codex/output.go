package codex

import (
	"encoding/json"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
)

// SessionID returns the id of the session a headless run (Argv) printed on
// its standard output: the thread.started event's thread_id. It is "" when
// the output names none.
func SessionID(out []byte) string {
	return jsonl.FirstString(out, "thread.started", "thread_id")
}

// Failure returns the error a failed headless run reported: the message of
// its turn.failed or error event, else the last line on standard error.
func Failure(stdout, stderr []byte) (msg string) {
	jsonl.Objects(stdout, func(o map[string]json.RawMessage) bool {
		switch jsonl.StringField(o, "type") {
		case "turn.failed":
			var m string
			json.Unmarshal(jsonl.Field(o, "error", "message"), &m)
			if m != "" {
				msg = m
			}
		case "error":
			if m := jsonl.StringField(o, "message"); m != "" && msg == "" {
				msg = m
			}
		}
		return true
	})
	if msg == "" {
		msg = jsonl.LastLine(stderr)
	}
	return msg
}
