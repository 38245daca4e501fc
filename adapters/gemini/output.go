package gemini

import (
	"encoding/json"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
)

// SessionID returns the id of the session a headless run (Argv) printed on
// its standard output: session_id of the json output or the stream-json init
// event. It is "" when the output names none.
func SessionID(out []byte) string {
	return jsonl.FirstString(out, "", "session_id")
}

// Failure returns the error a failed headless run reported: with JSON
// output Gemini CLI prints {"session_id","error":{"message","code"}} on
// standard error, after any stack traces.
func Failure(stdout, stderr []byte) string {
	for _, out := range [][]byte{stderr, stdout} {
		obj := jsonl.LastDocument(out)
		var m string
		if json.Unmarshal(jsonl.Field(obj, "error", "message"), &m) == nil && m != "" {
			return jsonl.ErrorMessage(m)
		}
	}
	return jsonl.LastLine(stderr)
}
