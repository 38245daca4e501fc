package claude

import (
	"encoding/json"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
)

// SessionID returns the id of the session a headless run (Argv) printed on
// its standard output: the result object's session_id. It is "" when the
// output names none.
func SessionID(out []byte) string {
	return jsonl.FirstString(out, "", "session_id")
}

// Failure returns the error a failed headless run reported: the result
// text of a result object marked is_error. It is "" when the run printed
// none.
func Failure(stdout, stderr []byte) (msg string) {
	jsonl.Objects(stdout, func(o map[string]json.RawMessage) bool {
		if string(o["is_error"]) == "true" {
			msg = jsonl.StringField(o, "result")
			if msg == "" {
				msg = jsonl.StringField(o, "subtype")
			}
		}
		return true
	})
	if msg == "" {
		msg = jsonl.LastLine(stderr)
	}
	return msg
}
