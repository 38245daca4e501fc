package opencode

import (
	"encoding/json"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
)

// SessionID returns the id of the session a headless run (Argv) printed on
// its standard output: the sessionID every json event carries. It is "" when
// the output names none.
func SessionID(out []byte) string {
	return jsonl.FirstString(out, "", "sessionID")
}

// Failure returns the error a failed headless run reported: the message of
// its error event (error.data.message, else error.name).
func Failure(stdout, stderr []byte) (msg string) {
	jsonl.Objects(stdout, func(o map[string]json.RawMessage) bool {
		if jsonl.StringField(o, "type") != "error" {
			return true
		}
		var m string
		json.Unmarshal(jsonl.Field(o, "error", "data", "message"), &m)
		if m == "" {
			json.Unmarshal(jsonl.Field(o, "error", "name"), &m)
		}
		if m != "" {
			msg = m
		}
		return true
	})
	if msg == "" {
		msg = jsonl.LastLine(stderr)
	}
	return msg
}
