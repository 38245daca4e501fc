package modelstub_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

// The paths each API is served on, as the CLIs call them.
const (
	anthropicPath   = "/v1/messages?beta=true"
	countTokensPath = "/v1/messages/count_tokens?beta=true"
	responsesPath   = "/v1/responses"
	chatPath        = "/v1/chat/completions"
	geminiStream    = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
	geminiGenerate  = "/v1beta/models/gemini-2.5-flash:generateContent"
	geminiRouter    = "/v1beta/models/gemini-3.5-flash-lite:generateContent"
	geminiCount     = "/v1beta/models/gemini-2.5-flash:countTokens"
)

// workDir is the Options.Dir the tool-mapping tests use; nothing is read
// from it.
const workDir = "/home/dev/proj"

// start starts a stub and closes it when the test ends.
func start(t *testing.T, opts modelstub.Options) *modelstub.Stub {
	t.Helper()
	s, err := modelstub.Start(opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// script builds a script from turns.
func script(turns ...modelstub.Turn) *modelstub.Script {
	return &modelstub.Script{Turns: turns}
}

// reply is an HTTP answer read to the end.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// post sends body to the stub and reads the whole answer.
func post(t *testing.T, s *modelstub.Stub, path string, body []byte) reply {
	t.Helper()
	return send(t, http.MethodPost, s.URL()+path, body)
}

// send makes a request and reads the whole answer.
func send(t *testing.T, method, url string, body []byte) reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, url, err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// postOK is post that insists on a 200.
func postOK(t *testing.T, s *modelstub.Stub, path string, body []byte) reply {
	t.Helper()
	r := post(t, s, path, body)
	if r.status != http.StatusOK {
		t.Fatalf("POST %s: status %d, body %s", path, r.status, r.body)
	}
	return r
}

// load reads a request body from testdata.
func load(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// with returns body with top-level fields set to new values.
func with(t *testing.T, body []byte, kv ...any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// event is one server-sent event.
type event struct {
	name string // the event: line, if any
	data string
}

// parseSSE splits a text/event-stream body into events, skipping comments.
// It fails the test on a line that is neither a field nor a comment.
func parseSSE(t *testing.T, body []byte) []event {
	t.Helper()
	var out []event
	var cur event
	hasData := false
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if hasData {
				out = append(out, cur)
			}
			cur, hasData = event{}, false
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if hasData {
				cur.data += "\n"
			}
			cur.data += strings.TrimPrefix(line, "data: ")
			hasData = true
		default:
			t.Fatalf("not an SSE line: %q", line)
		}
	}
	if hasData {
		t.Fatalf("the stream ends inside an event: %+v", cur)
	}
	return out
}

// obj decodes a JSON object.
func obj(t *testing.T, data string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, data)
	}
	return m
}

// get walks a decoded JSON value by object keys and array indexes.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// str is get for a string value.
func str(v any, path ...any) string {
	s, _ := get(v, path...).(string)
	return s
}

// num is get for a number value.
func num(v any, path ...any) float64 {
	n, _ := get(v, path...).(float64)
	return n
}

// args decodes a JSON object of tool arguments; a JSON string holding an
// object is decoded too.
func args(t *testing.T, v any) map[string]any {
	t.Helper()
	switch a := v.(type) {
	case map[string]any:
		return a
	case string:
		return obj(t, a)
	case json.RawMessage:
		return obj(t, string(a))
	}
	t.Fatalf("tool arguments of type %T: %v", v, v)
	return nil
}

// sameArgs fails the test unless got (a JSON object, decoded or not) equals
// want.
func sameArgs(t *testing.T, what string, got any, want map[string]any) {
	t.Helper()
	g := args(t, got)
	wb, _ := json.Marshal(want)
	var w map[string]any
	json.Unmarshal(wb, &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s arguments = %v, want %v", what, g, w)
	}
}

// nativeTools is what adapters.NativeTools knows, for the tools the test
// bodies declare: modelstub may not import the adapters.
var nativeTools = map[string]session.Tool{
	// Claude Code, Kimi Code
	"Bash": session.ToolBash, "Read": session.ToolRead, "Write": session.ToolWrite, "Edit": session.ToolEdit,
	"Agent": session.ToolTask,
	// Codex
	"exec_command": session.ToolBash, "write_stdin": session.ToolBash, "shell": session.ToolBash,
	"apply_patch": session.ToolEdit, "view_image": session.ToolImage, "spawn_agent": session.ToolTask,
	"web_search": session.ToolWebSearch,
	// Gemini CLI
	"run_shell_command": session.ToolBash, "read_file": session.ToolRead, "read_many_files": session.ToolRead,
	"write_file": session.ToolWrite, "replace": session.ToolEdit, "list_directory": session.ToolList,
	"glob": session.ToolGlob, "grep_search": session.ToolSearch,
	// OpenCode
	"bash": session.ToolBash, "read": session.ToolRead, "write": session.ToolWrite, "edit": session.ToolEdit,
	"grep": session.ToolSearch, "webfetch": session.ToolWebFetch,
}

// toolNames returns the native names of a universal tool, sorted, the way
// adapters.NativeTools does.
func toolNames(u session.Tool) []string {
	var names []string
	for name, t := range nativeTools {
		if t == u {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// only returns the one request the stub recorded.
func only(t *testing.T, s *modelstub.Stub) modelstub.Request {
	t.Helper()
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the stub recorded %d requests, want 1", len(reqs))
	}
	return reqs[0]
}

// last returns the last request the stub recorded.
func last(t *testing.T, s *modelstub.Stub) modelstub.Request {
	t.Helper()
	reqs := s.Requests()
	if len(reqs) == 0 {
		t.Fatal("the stub recorded no request")
	}
	return reqs[len(reqs)-1]
}

// toolNamesOf lists the names of declared tools.
func toolNamesOf(ts []modelstub.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// roles lists the roles of messages.
func roles(ms []modelstub.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Role)
	}
	return out
}
