package web_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stead-dev/stead/session"
	"github.com/stead-dev/stead/web"
)

// TestDevServer serves the control room on the examples, for working on
// the pages: WEBDEV=1 go test ./web -run TestDevServer -v, then open
// http://127.0.0.1:8765/ with the token "dev" (curl -H 'Authorization:
// Bearer dev'), or sign in at the URL it prints.
func TestDevServer(t *testing.T) {
	if os.Getenv("WEBDEV") == "" {
		t.Skip("WEBDEV is not set: this is a server for working on the pages, not a test")
	}
	ex, _ := filepath.Abs("../examples")
	home := t.TempDir()
	env := session.Env{Home: home, Vars: map[string]string{
		"CLAUDE_CONFIG_DIR": filepath.Join(ex, "claude"), "CODEX_HOME": filepath.Join(ex, "codex"),
		"XDG_CACHE_HOME": filepath.Join(home, "cache"), "XDG_DATA_HOME": filepath.Join(home, "data"),
	}}
	if d := os.Getenv("WEBDEV_ENV"); d != "" {
		env.Vars["CLAUDE_CONFIG_DIR"] = filepath.Join(d, "claude")
	}
	s := &web.Server{Env: env, Token: "dev"}
	t.Logf("sign in: http://127.0.0.1:8765/signin?code=%s", s.SignIn())
	t.Fatal(http.ListenAndServe("127.0.0.1:8765", s.Handler()))
}
