package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/internal/corpusgen"
	"github.com/stead-dev/stead/session"
)

// watchedCorpus is a corpus of 10,000 sessions of all five CLIs
// (generated, 256 MB; or the corpus in $STEAD_WEB_CORPUS) with a search
// index that a watcher keeps fresh, as the daemon does: its environment.
func watchedCorpus(b *testing.B) session.Env {
	b.Helper()
	dir := os.Getenv("STEAD_WEB_CORPUS")
	if dir == "" {
		dir = b.TempDir()
		if _, err := corpusgen.Generate(dir, corpusgen.Options{Seed: 7, Files: 10_000, TotalBytes: 256 << 20, Mix: corpusgen.EqualMix()}); err != nil {
			b.Fatal(err)
		}
	}
	home := b.TempDir()
	env := session.Env{Home: home, Vars: map[string]string{"XDG_CACHE_HOME": filepath.Join(home, "cache")}}
	for _, kv := range corpusgen.Env(dir) {
		k, v, _ := strings.Cut(kv, "=")
		env.Vars[k] = v
	}
	ctx := context.Background()
	ix, err := index.Open(ctx, index.DefaultPath(env), nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ix.Refresh(ctx, env, nil); err != nil {
		b.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	watched := make(chan struct{})
	done := make(chan error, 1)
	var once sync.Once
	go func() { done <- ix.Watch(wctx, env, func(index.Refreshed) { once.Do(func() { close(watched) }) }) }()
	b.Cleanup(func() { stop(); <-done; ix.Close() })
	select {
	case <-watched:
	case err := <-done:
		b.Fatalf("watch: %v", err)
	}
	return env
}

// BenchmarkSessionsAPI measures GET /api/v1/sessions over 10,000
// sessions (watchedCorpus): what the sessions page asks for when it
// opens.
func BenchmarkSessionsAPI(b *testing.B) {
	env := watchedCorpus(b)
	h := (&Server{Env: env, Token: testToken}).Handler()
	var last []byte
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/api/v1/sessions", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%d %s", rec.Code, rec.Body.String())
		}
		last = rec.Body.Bytes()
		b.SetBytes(int64(len(last)))
	}
	var body struct{ Total int }
	if err := json.Unmarshal(last, &body); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(body.Total), "sessions")
}

// BenchmarkSessionFirstPage measures GET /api/v1/sessions/{ref}: the
// first 200 entries of a 100,000-entry Claude Code session (47 MB), what
// its page asks for first.
func BenchmarkSessionFirstPage(b *testing.B) {
	s, _ := newTestServer(b, false)
	s.Env.Vars["CLAUDE_CONFIG_DIR"] = b.TempDir()
	ref := writeLongSession(b, s.Env, 100_000)
	h := s.Handler()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/api/v1/sessions/"+ref+"?limit=200", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%d %s", rec.Code, rec.Body.String())
		}
	}
}
