package templates_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/session"
	"github.com/stead-dev/stead/templates"
)

func TestBuiltinsParseAndRender(t *testing.T) {
	all, errs := templates.Load("")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(all) < 3 {
		t.Fatalf("%d built-in templates", len(all))
	}
	for _, tp := range all {
		vars := map[string]string{}
		for _, name := range tp.Placeholders() {
			if _, ok := tp.Vars[name]; !ok {
				vars[name] = "VALUE"
			}
		}
		p, err := tp.Render(vars)
		if err != nil || p == "" || strings.Contains(p, "{{") {
			t.Errorf("%s renders %q (%v)", tp.Name, p, err)
		}
	}
}

func TestRenderVars(t *testing.T) {
	tp, err := templates.Parse([]byte("name: t\nprompt: Fix {{ what }} in {{where}}, then {{what}} again.\nvars:\n  where: main.go\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := tp.Placeholders(); strings.Join(got, ",") != "what,where" {
		t.Errorf("placeholders %q", got)
	}
	if _, err := tp.Render(nil); err == nil || !strings.Contains(err.Error(), "--var what=") {
		t.Errorf("a missing value: %v", err)
	}
	p, err := tp.Render(map[string]string{"what": "the bug", "where": "x.go"})
	if err != nil || p != "Fix the bug in x.go, then the bug again." {
		t.Errorf("%q, %v", p, err)
	}
	if p, _ := tp.Render(map[string]string{"what": "it"}); p != "Fix it in main.go, then it again." {
		t.Errorf("the default is not used: %q", p)
	}
}

func TestParseErrors(t *testing.T) {
	for yaml, want := range map[string]string{
		"name: t\nprompt: p\npromt: typo\n": "promt",
		"name: Bad Name\nprompt: p\n":       "name",
		"name: t\n":                         "no prompt",
		"name: t\nprompt: p\nhistory:\n  - user: a\n    assistant: b\n": "exactly one",
		"name: [\n": "t.yaml",
	} {
		if _, err := templates.Parse([]byte(yaml), "t.yaml"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error about %q", yaml, err, want)
		}
	}
}

func TestUserTemplatesReplaceBuiltins(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "review.yaml"), []byte("name: review\nprompt: my own review\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "mine.yml"), []byte("name: mine\nprompt: hello\nhistory:\n  - user: hi\n  - assistant: hey\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte("name: [\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a template"), 0o644)
	all, errs := templates.Load(dir)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "broken.yaml") {
		t.Errorf("errors %v, want one naming broken.yaml", errs)
	}
	byName := map[string]templates.Template{}
	for _, tp := range all {
		byName[tp.Name] = tp
	}
	if r := byName["review"]; r.Prompt != "my own review" || r.Source != filepath.Join(dir, "review.yaml") {
		t.Errorf("review is %+v, want the user's", r)
	}
	s := byName["mine"].Session("/p", time.Unix(0, 0))
	if s == nil || len(s.Timeline) != 2 || s.Timeline[0].Type != session.User || s.Timeline[1].Content != "hey" || s.Project.Path != "/p" {
		t.Errorf("session %+v", s)
	}
	if byName["explain"].Session("/p", time.Now()) != nil {
		t.Error("a template with no history has a session")
	}
}
