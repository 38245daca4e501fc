package modelstub_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

// fuzzPaths are the endpoints a fuzz input can post to, one per API and
// kind of request.
var fuzzPaths = []string{anthropicPath, countTokensPath, responsesPath, chatPath, geminiStream, geminiGenerate, geminiCount}

// fuzzScript answers with thinking, text and a call of each common tool,
// so that the answer is fitted to whatever tools the request declares.
func fuzzScript() *modelstub.Script {
	return &modelstub.Script{Title: "Fuzz", Turns: []modelstub.Turn{
		{Thinking: "think", Text: "text", Tools: []modelstub.ToolUse{
			{Tool: session.ToolBash, Args: map[string]any{"command": "echo hi"}},
			{Tool: session.ToolWrite, Args: map[string]any{"path": "a.txt", "content": "x"}},
			{Tool: session.ToolEdit, Args: map[string]any{"path": "a.txt", "old": "x", "new": "y"}},
			{Tool: session.ToolRead, Args: map[string]any{"path": "a.txt"}},
			{Tool: "made_up", Name: "custom", Args: map[string]any{"input": "free text"}},
		}},
	}}
}

// FuzzServe posts request bodies, seeded with the real ones in testdata,
// to the stub as its clients do, with the adapters' tool mapping. Whatever
// the body, the stub answers 200 or 400 in its API's form (JSON, or
// server-sent events whose data is JSON), or, refusing a model of another
// provider as the real API does, 404 with the refusal in its log; and
// records the request as one JSON line of its log.
func FuzzServe(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, p := range files {
		body, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		name := filepath.Base(p)
		for i, path := range fuzzPaths {
			api := strings.Split(name, "_")[0]
			if strings.Contains(path, api) || api == "anthropic" && strings.Contains(path, "messages") ||
				api == "chat" && strings.Contains(path, "chat") {
				f.Add(uint8(i), body)
			}
		}
	}
	// A stub keeps every request it was sent: a new one every 1000
	// inputs bounds the memory, where one per input took a fifth of the
	// time.
	var log bytes.Buffer
	var s *modelstub.Stub
	served := 0
	f.Cleanup(func() {
		if s != nil {
			s.Close()
		}
	})
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		path := fuzzPaths[int(which)%len(fuzzPaths)]
		if served%1000 == 0 {
			if s != nil {
				s.Close()
			}
			var err error
			s, err = modelstub.Start(modelstub.Options{Script: fuzzScript(), Dir: workDir, Log: &log,
				ToolNames: adapters.NativeTools, ToolCall: adapters.NativeCall})
			if err != nil {
				t.Fatal(err)
			}
		}
		served++
		if err := s.Play(fuzzScript()); err != nil {
			t.Fatal(err)
		}
		log.Reset()
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body)))
		res := w.Result()
		refused := func() bool { reqs := s.Requests(); return len(reqs) > 0 && reqs[len(reqs)-1].Refused != "" }
		if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusBadRequest &&
			!(res.StatusCode == http.StatusNotFound && refused()) {
			t.Fatalf("status %d: %s", res.StatusCode, w.Body.Bytes())
		}
		if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
			sc := bufio.NewScanner(bytes.NewReader(w.Body.Bytes()))
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				data, ok := strings.CutPrefix(sc.Text(), "data: ")
				if ok && data != "[DONE]" && !json.Valid([]byte(data)) {
					t.Fatalf("an event's data is not JSON: %q", data)
				}
			}
		} else if !json.Valid(w.Body.Bytes()) {
			t.Fatalf("the answer is not JSON: %q", w.Body.Bytes())
		}
		if err := s.LogErr(); err != nil {
			t.Fatalf("the request log stopped: %v", err)
		}
		line, rest, _ := bytes.Cut(log.Bytes(), []byte("\n"))
		if len(rest) > 0 || !json.Valid(line) {
			t.Fatalf("the request was not logged as one JSON line: %q", log.Bytes())
		}
	})
}
