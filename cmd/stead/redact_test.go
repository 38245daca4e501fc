package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stead-dev/stead/adapters/claude"
	"github.com/stead-dev/stead/session"
)

// TestRedact: with --redact, show and every export format leave out the
// secrets a session holds, and still write what reads back; without it,
// the secrets are there as they were.
func TestRedact(t *testing.T) {
	env := homes(t)
	id := "0b5c0000-0000-4000-8000-00000000ac1d"
	cwd := "/tmp/redact"
	apiKey := "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcd"
	pem := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----"
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	lines := []string{
		`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"` + id + `","cwd":"` + cwd + `","timestamp":"2026-11-20T10:00:00.000Z","message":{"role":"user","content":` + q("use ANTHROPIC_API_KEY="+apiKey+" and deploy") + `}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"` + id + `","cwd":"` + cwd + `","timestamp":"2026-11-20T10:00:01.000Z","message":{"id":"m1","role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cat ~/.ssh/id_ed25519"}}],"usage":{"input_tokens":5,"output_tokens":5}}}`,
		`{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"` + id + `","cwd":"` + cwd + `","timestamp":"2026-11-20T10:00:02.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":` + q(pem) + `}]}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"` + id + `","cwd":"` + cwd + `","timestamp":"2026-11-20T10:00:03.000Z","message":{"id":"m2","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":5,"output_tokens":5}}}`,
	}
	write(t, filepath.Join(env.Vars["CLAUDE_CONFIG_DIR"], "projects", claude.EncodeProjectDir(cwd), id+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"))
	ref := "claude:" + id
	leaks := func(what, out string) {
		t.Helper()
		for _, s := range []string{apiKey, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU"} {
			if strings.Contains(out, s) {
				t.Errorf("%s holds %q", what, s)
			}
		}
		if !strings.Contains(out, "[REDACTED:") {
			t.Errorf("%s says nothing was redacted", what)
		}
	}
	// Without --redact the secrets are there: the test can fail.
	if out := mustRun(t, env, "session", "show", ref, "--full"); !strings.Contains(out, apiKey) {
		t.Fatalf("show without --redact lost the key:\n%s", out)
	}
	leaks("show --redact", mustRun(t, env, "session", "show", ref, "--full", "--redact"))
	js := mustRun(t, env, "session", "show", ref, "--json", "--redact")
	leaks("show --json --redact", js)
	if !json.Valid([]byte(js)) {
		t.Errorf("show --json --redact is not JSON")
	}
	dir := t.TempDir()
	for _, format := range []string{"cusf", "usf", "ndjson"} {
		out := filepath.Join(dir, "export."+format)
		mustRun(t, env, "session", "export", ref, "--format", format, "-o", out, "--redact")
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		leaks("export --format "+format+" --redact", string(data))
		if format != "usf" {
			if o, e, code := run(t, env, "session", "validate", out); code != ExitOK {
				t.Errorf("validate %s: exit %d\n%s%s", format, code, o, e)
			}
		}
	}
	gz := filepath.Join(dir, "all.ndjson.gz")
	mustRun(t, env, "session", "export", ref, "--format", "ndjson", "-o", gz, "--redact")
	if _, _, err := readInterchange(gz, func(s *session.Session) error {
		b, _ := json.Marshal(s)
		leaks("export .ndjson.gz --redact", string(b))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
