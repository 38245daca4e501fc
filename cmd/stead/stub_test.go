package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/session"
)

// startStub runs `stead stub` in-process and returns its base URL, its
// output so far, and a function that stops it and returns its exit code.
func startStub(t *testing.T, args ...string) (url string, out *strings.Builder, stop func() ExitCode) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var errOut strings.Builder
	done := make(chan ExitCode, 1)
	go func() {
		done <- MainContext(ctx, append([]string{"stub"}, args...), &IOStreams{In: strings.NewReader(""), Out: pw, ErrOut: &errOut}, session.Env{})
		pw.Close()
	}()
	out = &strings.Builder{}
	serving := regexp.MustCompile(`serving \d+ scripted turns on (http://127\.0\.0\.1:\d+)`)
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timeout := time.After(10 * time.Second)
	for url == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("stead stub stopped: %s", errOut.String())
			}
			out.WriteString(line + "\n")
			if m := serving.FindStringSubmatch(line); m != nil {
				url = m[1]
			}
		case <-timeout:
			t.Fatal("stead stub printed no URL in 10 s")
		}
	}
	// Collect the rest of the help in the background.
	collected := make(chan struct{})
	go func() {
		for line := range lines {
			out.WriteString(line + "\n")
		}
		close(collected)
	}()
	stopped := false
	var code ExitCode
	stop = func() ExitCode {
		if !stopped {
			stopped = true
			cancel()
			code = <-done
			<-collected
		}
		return code
	}
	t.Cleanup(func() { stop() })
	return url, out, stop
}

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s: %s", url, resp.Status, b)
	}
	return string(b)
}

// TestStubServesAllAPIs plays the example script over the four APIs, one
// turn each (requests declaring tools, as the CLIs' main requests do), as
// the README shows.
func TestStubServesAllAPIs(t *testing.T) {
	script := filepath.Join("..", "..", "examples", "stub", "two-turns.json")
	dir := t.TempDir()
	logPath := filepath.Join(t.TempDir(), "requests.jsonl")
	url, out, stop := startStub(t, "--script", script, "--dir", dir, "--log", logPath)

	answers := []struct{ path, body, want string }{
		{"/v1/messages", `{"model":"claude-x","stream":true,"messages":[{"role":"user","content":"hi"}],
			"tools":[{"name":"Bash","input_schema":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}]}`,
			`"name":"Bash"`},
		{"/v1/responses", `{"model":"gpt-x","stream":true,"input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]}],
			"tools":[{"type":"function","name":"read_file","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}]}`,
			`read_file`},
		{"/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],
			"tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object"}}}]}`,
			`"finish_reason":"stop"`},
		{"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],
			"tools":[{"functionDeclarations":[{"name":"read_file","parameters":{"type":"object"}}]}]}`,
			`"finishReason":"STOP"`},
	}
	for _, a := range answers {
		if got := post(t, url+a.path, a.body); !strings.Contains(got, a.want) {
			t.Errorf("POST %s: the answer lacks %s:\n%s", a.path, a.want, got)
		}
	}
	// A structured-output request is answered on the side.
	if got := post(t, url+"/v1/responses", `{"model":"gpt-x","input":"count","text":{"format":{"type":"json_schema","schema":{"type":"object"}}}}`); got == "" {
		t.Error("empty answer to a side request")
	}
	if code := stop(); code != ExitOK {
		t.Errorf("stopped stub exited %d", code)
	}

	help := out.String()
	for _, want := range []string{"/v1/messages", "/v1/responses", "/v1/chat/completions", "streamGenerateContent",
		"ANTHROPIC_BASE_URL=" + url, "CODEX_HOME=", "GOOGLE_GEMINI_BASE_URL=" + url, "opencode.json", "KIMI_MODEL_BASE_URL=" + url + "/v1",
		"Run the greeting command"} {
		if !strings.Contains(help, want) {
			t.Errorf("the help lacks %q:\n%s", want, help)
		}
	}
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var turns []int
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r struct {
			Turn int  `json:"turn"`
			Side bool `json:"side"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if !r.Side {
			turns = append(turns, r.Turn)
		}
	}
	if want := []int{1, 2, 3, 4}; !equalInts(turns, want) {
		t.Errorf("the log shows turns %v, want %v", turns, want)
	}
	if !strings.Contains(string(data), filepath.Join(dir, "greeting.txt")) {
		t.Errorf("the read of greeting.txt was not made absolute against --dir %s", dir)
	}
}

// TestStubHomes seeds a home per CLI and prints commands that use them.
func TestStubHomes(t *testing.T) {
	homes := t.TempDir()
	_, out, stop := startStub(t, "--script", filepath.Join("..", "..", "examples", "stub", "two-turns.json"), "--homes", homes)
	stop()
	for _, f := range []string{"claude/.claude/.claude.json", "codex/.codex/config.toml", "gemini/.gemini/settings.json", "opencode/.config/opencode/opencode.json"} {
		if _, err := os.Stat(filepath.Join(homes, f)); err != nil {
			t.Errorf("not seeded: %v", err)
		}
	}
	if !strings.Contains(out.String(), "export CLAUDE_CONFIG_DIR="+filepath.Join(homes, "claude", ".claude")) {
		t.Errorf("the help does not point Claude at its seeded home:\n%s", out)
	}
}

func TestStubErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	write(t, bad, []byte(`{"turns":[{"text":"x","fault":"boom"}]}`))
	for _, tc := range []struct {
		args []string
		code ExitCode
		msg  string
	}{
		{[]string{"stub"}, ExitUsage, "--script is required"},
		{[]string{"stub", "--script", bad, "--port", "70000"}, ExitUsage, "--port"},
		{[]string{"stub", "--script", bad}, ExitError, `unknown fault "boom"`},
		{[]string{"stub", "--script", filepath.Join(t.TempDir(), "none.json")}, ExitError, "none.json"},
	} {
		_, errOut, code := run(t, session.Env{}, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("stead %s: exit %d, %q; want exit %d mentioning %q", strings.Join(tc.args, " "), code, errOut, tc.code, tc.msg)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestStubStrict: stead stub refuses a model of another provider as the
// real API does, logging why; with --permissive it answers.
func TestStubStrict(t *testing.T) {
	script := filepath.Join("..", "..", "examples", "stub", "two-turns.json")
	body := `{"model":"gpt-5.5","stream":true,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"Bash","input_schema":{"type":"object"}}]}`
	logPath := filepath.Join(t.TempDir(), "requests.jsonl")
	url, out, stop := startStub(t, "--script", script, "--log", logPath)
	resp, err := http.Post(url+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(b), `"not_found_error"`) {
		t.Errorf("a GPT model asked of the Messages API: %s %s", resp.Status, b)
	}
	stop()
	if data, _ := os.ReadFile(logPath); !strings.Contains(string(data), `"refused":"a model of another provider: model: gpt-5.5"`) {
		t.Errorf("the log does not say why it refused:\n%s", data)
	}
	if !strings.Contains(out.String(), "--permissive") {
		t.Errorf("the help does not say the stub is strict:\n%s", out)
	}
	url, _, _ = startStub(t, "--script", script, "--permissive")
	post(t, url+"/v1/messages", body)
}
