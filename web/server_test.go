package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/bus"
	"github.com/stead-dev/stead/live"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

const testToken = "secret-token"

// examplesEnv points at the example stores of the repository (Claude
// Code and Codex), with an index and state of the test's own.
func examplesEnv(t testing.TB) session.Env {
	t.Helper()
	ex, err := filepath.Abs("../examples")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	return session.Env{Home: home, Vars: map[string]string{
		"CLAUDE_CONFIG_DIR": filepath.Join(ex, "claude"), "CODEX_HOME": filepath.Join(ex, "codex"),
		"XDG_CACHE_HOME": filepath.Join(home, "cache"), "XDG_DATA_HOME": filepath.Join(home, "data"),
		"XDG_STATE_HOME": filepath.Join(home, "state"),
	}}
}

// newTestServer serves the examples with a real embedded bus behind the
// runs' endpoints.
func newTestServer(t testing.TB, readOnly bool) (*Server, *httptest.Server) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	b, err := bus.New(ctx, bus.Options{StoreDir: t.TempDir(), Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	s := &Server{Env: examplesEnv(t), Token: testToken, ReadOnly: readOnly, Host: "test-host",
		Supervisor: &runs.Supervisor{Bus: b}, Version: "test"}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return s, hs
}

type request struct {
	method, path string
	header       map[string]string
	body         string
}

func do(t *testing.T, hs *httptest.Server, r request) (*http.Response, []byte) {
	t.Helper()
	method := r.method
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequest(method, hs.URL+r.path, strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range r.header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	c := *hs.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

func bearer(extra ...string) map[string]string {
	h := map[string]string{"Authorization": "Bearer " + testToken}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return h
}

// TestRefusals: no data without the token, nothing for another host or
// origin, nothing changed on a read-only server, no path for a session.
func TestRefusals(t *testing.T) {
	_, hs := newTestServer(t, false)
	u, _ := url.Parse(hs.URL)
	cases := []struct {
		name string
		req  request
		code int
	}{
		{"no token", request{path: "/api/v1/sessions"}, 401},
		{"wrong token", request{path: "/api/v1/sessions", header: map[string]string{"Authorization": "Bearer nope"}}, 401},
		{"wrong cookie", request{path: "/api/v1/sessions", header: map[string]string{"Cookie": Cookie + "=nope"}}, 401},
		{"token as a query", request{path: "/api/v1/sessions?token=" + testToken}, 401},
		{"another host (DNS rebinding)", request{path: "/api/v1/sessions", header: bearer("Host", "evil.example:"+u.Port())}, 421},
		{"another host, a page", request{path: "/", header: map[string]string{"Host": "evil.example"}}, 421},
		{"another origin", request{path: "/api/v1/sessions", header: bearer("Origin", "http://evil.example")}, 403},
		{"another port's origin", request{path: "/api/v1/sessions", header: bearer("Origin", "http://127.0.0.1:1")}, 403},
		{"another site's fetch", request{path: "/api/v1/sessions", header: bearer("Sec-Fetch-Site", "cross-site")}, 403},
		{"a sibling site's fetch", request{path: "/api/v1/sessions", header: bearer("Sec-Fetch-Site", "same-site")}, 403},
		{"a change with the cookie and no origin", request{method: "POST", path: "/api/v1/runs/x/stop",
			header: map[string]string{"Cookie": Cookie + "=" + testToken}}, 403},
		{"a change from another origin", request{method: "POST", path: "/api/v1/runs/x/stop",
			header: map[string]string{"Cookie": Cookie + "=" + testToken, "Origin": "http://evil.example"}}, 403},
		{"a path for a session", request{path: "/api/v1/sessions/" + url.PathEscape("/etc/passwd"), header: bearer()}, 400},
		{"a path in an id", request{path: "/api/v1/sessions/" + url.PathEscape("claude:../../x"), header: bearer()}, 400},
		{"an unknown CLI", request{path: "/api/v1/sessions/" + url.PathEscape("nope:abc"), header: bearer()}, 400},
		{"a session that is not there", request{path: "/api/v1/sessions/claude:00000000-0000-0000-0000-000000000000", header: bearer()}, 404},
		{"an unknown API", request{path: "/api/v1/nothing", header: bearer()}, 404},
		{"a used sign-in code", request{path: "/signin?code=nope"}, 401},
		{"a page's POST", request{method: "POST", path: "/", header: bearer()}, 405},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := do(t, hs, c.req)
			if resp.StatusCode != c.code {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.code, body)
			}
			refused := c.code == 401 || c.code == 403 || c.code == 421
			if refused && (strings.Contains(string(body), "examples") || strings.Contains(string(body), "claude-opus")) {
				t.Errorf("a refused request was answered with data: %s", body)
			}
			if resp.Header.Get("Content-Security-Policy") == "" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("headers: %v", resp.Header)
			}
			var e struct{ Error string }
			if c.code != 405 && (json.Unmarshal(body, &e) != nil || e.Error == "") {
				t.Errorf("the refusal says nothing: %s", body)
			}
		})
	}
}

func TestReadOnly(t *testing.T) {
	_, hs := newTestServer(t, true)
	resp, body := do(t, hs, request{method: "POST", path: "/api/v1/runs/x/input", header: bearer(), body: `{"data":"y"}`})
	if resp.StatusCode != 403 || !strings.Contains(string(body), "read-only") {
		t.Fatalf("a read-only server took input: %d %s", resp.StatusCode, body)
	}
	resp, body = do(t, hs, request{path: "/api/v1/sessions", header: bearer()})
	if resp.StatusCode != 200 {
		t.Fatalf("a read-only server refused to read: %d %s", resp.StatusCode, body)
	}
	resp, body = do(t, hs, request{path: "/api/v1/info", header: bearer()})
	if !strings.Contains(string(body), `"readOnly":true`) {
		t.Errorf("info: %d %s", resp.StatusCode, body)
	}
}

// TestSignIn: a code signs a browser in once, with a cookie scripts
// cannot read and other sites do not send, and leaves the address bar.
func TestSignIn(t *testing.T) {
	_, hs := newTestServer(t, false)
	resp, body := do(t, hs, request{method: "POST", path: "/api/v1/signin", header: bearer()})
	var got struct{ Code, Path string }
	if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != 200 || got.Code == "" {
		t.Fatalf("sign-in code: %d %s", resp.StatusCode, body)
	}
	resp, body = do(t, hs, request{path: got.Path})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("sign-in: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	cookies := resp.Cookies()
	if len(cookies) != 1 || cookies[0].Name != Cookie || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie: %+v", cookies)
	}
	resp, body = do(t, hs, request{path: "/api/v1/sessions?limit=1", header: map[string]string{"Cookie": cookies[0].String()}})
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"sessions"`) {
		t.Fatalf("the cookie does not sign in: %d %s", resp.StatusCode, body)
	}
	if resp, _ := do(t, hs, request{path: got.Path}); resp.StatusCode != 401 {
		t.Fatalf("a sign-in code worked twice: %d", resp.StatusCode)
	}
	// Without the token, no code is given.
	if resp, _ := do(t, hs, request{method: "POST", path: "/api/v1/signin", header: map[string]string{"Origin": hs.URL}}); resp.StatusCode != 401 {
		t.Fatalf("a sign-in code without the token: %d", resp.StatusCode)
	}
}

// TestExport: a session exported in each format, as a file to keep; the
// page escapes every text of the session and runs no script.
func TestExport(t *testing.T) {
	_, hs := newTestServer(t, false)
	ref := url.PathEscape("claude:742233ee-d311-4040-bf40-f490e4667f65")
	for _, format := range []string{"usf", "cusf", "ndjson", "html"} {
		resp, body := do(t, hs, request{path: "/api/v1/sessions/" + ref + "/export?format=" + format, header: bearer()})
		if resp.StatusCode != 200 || !strings.Contains(string(body), "Please run a command for me") {
			t.Errorf("%s: %d %.300s", format, resp.StatusCode, body)
			continue
		}
		if cd := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="claude-742233ee`) {
			t.Errorf("%s: Content-Disposition %q", format, cd)
		}
		switch format {
		case "usf":
			if !json.Valid(body) {
				t.Errorf("%s: not JSON", format)
			}
		case "cusf":
			for i, line := range strings.Split(strings.TrimSpace(string(body)), "\n") {
				if !json.Valid([]byte(line)) {
					t.Errorf("cusf: line %d is not JSON", i+1)
				}
			}
		case "ndjson":
			if lines := strings.Split(strings.TrimSpace(string(body)), "\n"); len(lines) != 2 || !json.Valid([]byte(lines[1])) {
				t.Errorf("ndjson: %d lines", len(lines))
			}
		case "html":
			page := string(body)
			if strings.Contains(page, "<system-reminder>") || !strings.Contains(page, "&lt;system-reminder&gt;") {
				t.Error("the page does not escape the session's text")
			}
			if strings.Contains(strings.ToLower(page), "<script") || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
				t.Error("the page may run script")
			}
		}
	}
	if resp, _ := do(t, hs, request{path: "/api/v1/sessions/" + ref + "/export?format=pdf", header: bearer()}); resp.StatusCode != 400 {
		t.Errorf("format pdf: %d", resp.StatusCode)
	}
}

// keepAB keeps an A/B run of two variants in the server's A/B folder, their
// runs' records on its bus naming two example sessions; its id.
func keepAB(t *testing.T, s *Server) string {
	t.Helper()
	s.ABDir = t.TempDir()
	ctx := context.Background()
	ab := runs.AB{ID: runs.NewID(), Prompt: "add a flag", Project: "/tmp/p", Started: time.Now().UTC()}
	for _, v := range []struct{ cli, sid string }{
		{"claude", "742233ee-d311-4040-bf40-f490e4667f65"}, {"codex", "01a1ff87-612f-7d81-a969-d7b8bb66e562"},
	} {
		run := runs.NewID()
		if err := s.Supervisor.Bus.PutRun(ctx, live.Run{ID: run, CLI: v.cli, SessionID: v.sid, State: live.RunExited, Started: time.Now()}); err != nil {
			t.Fatal(err)
		}
		ab.Variants = append(ab.Variants, runs.Variant{Name: v.cli, CLI: v.cli, Run: run, State: "exited"})
	}
	if err := runs.SaveAB(s.ABDir, &ab); err != nil {
		t.Fatal(err)
	}
	return ab.ID
}

// TestAB: an A/B run's report names its variants' sessions, which the
// compare page shows side by side.
func TestAB(t *testing.T) {
	s, hs := newTestServer(t, false)
	id := keepAB(t, s)
	resp, body := do(t, hs, request{path: "/api/v1/ab/" + id[:len(id)-2], header: bearer()})
	var got struct {
		AB   runs.AB
		Refs []string
	}
	if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	want := []string{"claude:742233ee-d311-4040-bf40-f490e4667f65", "codex:01a1ff87-612f-7d81-a969-d7b8bb66e562"}
	if got.AB.ID != id || strings.Join(got.Refs, " ") != strings.Join(want, " ") {
		t.Errorf("A/B %s: %s, sessions %v", id, got.AB.ID, got.Refs)
	}
	_, body = do(t, hs, request{path: "/api/v1/ab", header: bearer()})
	if !strings.Contains(string(body), id) {
		t.Errorf("the A/B runs do not list %s: %s", id, body)
	}
}

// TestStartRefusals: a run or an A/B run that cannot start says why,
// before anything starts.
func TestStartRefusals(t *testing.T) {
	s, hs := newTestServer(t, false)
	s.ABDir = t.TempDir()
	dir := t.TempDir()
	ref := "claude:742233ee-d311-4040-bf40-f490e4667f65"
	for _, c := range []struct {
		path, body, want string
	}{
		{"/api/v1/runs", `{"from":"` + ref + `","to":"nope"}`, "not a CLI stead runs"},
		{"/api/v1/runs", `{"from":"/etc/passwd","to":"codex"}`, "not a session reference"},
		{"/api/v1/runs", `{"from":"` + ref + `","to":"codex","dir":"relative"}`, "not an absolute path"},
		{"/api/v1/runs", `{"from":"` + ref + `","to":"codex","at":"nope"}`, "no such entry"},
		{"/api/v1/runs", `{"from":"` + ref + `","to":"codex","bogus":1}`, "unknown field"},
		{"/api/v1/runs/nope/resize", `{"rows":2,"cols":80}`, "5 to 1000 rows"},
		{"/api/v1/chains", `{"steps":[],"dir":"` + dir + `"}`, "give 1 to 20 steps"},
		{"/api/v1/chains", `{"steps":[{"cli":"nope","prompt":"p"}],"dir":"` + dir + `"}`, "not a CLI stead runs"},
		{"/api/v1/chains", `{"steps":[{"cli":"codex","prompt":" "}],"dir":"` + dir + `"}`, "give its prompt"},
		{"/api/v1/chains", `{"steps":[{"cli":"codex","prompt":"p"}],"dir":"relative"}`, "not an absolute path"},
		{"/api/v1/chains", `{"steps":[{"cli":"codex","prompt":"p"}],"dir":"` + dir + `","from":"claude:../x"}`, "not a session reference"},
		{"/api/v1/ab", `{"prompt":"p","to":["codex"],"project":"relative"}`, "not an absolute path"},
		{"/api/v1/ab", `{"prompt":"","to":["codex"],"project":"` + dir + `"}`, "give the prompt"},
		{"/api/v1/ab", `{"prompt":"p","to":[],"project":"` + dir + `"}`, "name the CLIs"},
		{"/api/v1/ab", `{"prompt":"p","to":["nope"],"project":"` + dir + `"}`, "not a CLI stead runs"},
		{"/api/v1/ab", `{"prompt":"p","to":["codex"],"project":"` + dir + `/missing"}`, "not a folder"},
	} {
		resp, body := do(t, hs, request{method: "POST", path: c.path, header: bearer(), body: c.body})
		if resp.StatusCode != 400 || !strings.Contains(string(body), c.want) {
			t.Errorf("POST %s %s: %d %s, want 400 saying %q", c.path, c.body, resp.StatusCode, body, c.want)
		}
	}
}
