package modelstub

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// apis are the APIs in a fixed order, so that a fuzz input picks one by
// index.
var apis = []API{Anthropic, Responses, Chat, Gemini}

// FuzzParse reads request bodies, seeded with the real ones in testdata,
// as each API. A body it reads must give a Request the stub can record:
// it encodes as JSON (a Request that does not stops the request log for
// good), every tool call's arguments are JSON, and the record reads back
// as a request that encodes the same every time. An error names the API.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	if len(files) == 0 {
		f.Fatal("no request bodies in testdata")
	}
	for _, p := range files {
		body, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		api := map[string]uint8{"anthropic": 0, "responses": 1, "chat": 2, "gemini": 3}[strings.Split(filepath.Base(p), "_")[0]]
		f.Add(api, body)
	}
	f.Add(uint8(1), []byte(`{"input":[{"type":"function_call","arguments":"{\"a\":"},{"type":"custom_tool_call","input":"\xff"},{"type":"function_call_output","output":[{"text":"x"}]}],"tools":[{"type":"web_search"}]}`))
	f.Add(uint8(3), []byte(`{"contents":[{"role":"user","parts":[{"functionCall":{"args":null}},{"functionResponse":{"response":{"output":""}}}]}]}`))
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		api := apis[int(which)%len(apis)]
		req, err := parse(api, body)
		if err != nil {
			if !strings.HasPrefix(err.Error(), string(api)+" request: ") {
				t.Fatalf("error %q does not name the API", err)
			}
			return
		}
		if req.Messages == nil {
			t.Fatal("nil Messages (the log would say null)")
		}
		for _, m := range req.Messages {
			for _, c := range m.ToolCalls {
				if len(c.Args) > 0 && !json.Valid(c.Args) {
					t.Fatalf("tool call %q has arguments that are not JSON: %q", c.Name, c.Args)
				}
			}
		}
		rec, err := json.Marshal(req)
		if err != nil {
			t.Fatalf("the request cannot be recorded: %v", err)
		}
		// Read back, the record encodes the same from then on. (Not
		// the same as the first time: invalid UTF-8 in the body is kept
		// as the client sent it, and reads back as U+FFFD.)
		once := readBack(t, rec)
		if twice := readBack(t, once); !bytes.Equal(once, twice) {
			t.Fatalf("the record reads back differently:\n%s\n%s", once, twice)
		}
	})
}

// readBack decodes a recorded request and encodes it again.
func readBack(t *testing.T, rec []byte) []byte {
	t.Helper()
	var r Request
	if err := json.Unmarshal(rec, &r); err != nil {
		t.Fatalf("the record does not read back: %v\n%s", err, rec)
	}
	b, err := json.Marshal(&r)
	if err != nil {
		t.Fatalf("the record read back does not encode: %v", err)
	}
	return b
}
