package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// TestABPageEscapes: texts from sessions are untrusted; the page shows
// them as text, never as markup.
func TestABPageEscapes(t *testing.T) {
	cost := 0.0123
	ab := &runs.AB{ID: "ab-x", Prompt: "<script>alert(1)</script>", Project: "/p", Started: time.Now(),
		Variants: []runs.Variant{
			{Name: "claude", CLI: "claude", State: "exited", Took: 2 * time.Second, Tokens: session.Usage{Input: 10, Output: 5},
				Cost: &cost, Tools: map[string]int{"bash": 2}, Answer: `</div><img src=x onerror=alert(1)>`,
				Changes: runs.Changes{Files: 1, Insertions: 3, Diff: "+<b>bold</b>"}},
			{Name: "codex", CLI: "codex", State: "failed", Error: "boom", Tools: map[string]int{}},
		}}
	path := filepath.Join(t.TempDir(), "ab.html")
	if err := writeABHTML(path, ab); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	page := string(data)
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("the page (session text) can be read by others: %v", fi.Mode())
	}
	for _, bad := range []string{"<script>", "<img", "<b>bold"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;", "$0.0123", "bash:2", `<svg class="bars"`, "boom"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
