package templates_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stead-dev/stead/session"
	"github.com/stead-dev/stead/templates"
)

// FuzzParse parses template files, seeded with the ones stead ships. An
// error names the file; a template it accepts has a valid name and a
// prompt, renders once every placeholder has a value (and otherwise names
// one that has none), and its history makes a universal session that
// reads back as itself. (Not one that matches the USF schema: its source
// CLI is "stead", which the schema does not list.)
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("builtin", "*.yaml"))
	if len(files) == 0 {
		f.Fatal("no built-in templates")
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("name: t\nprompt: Fix {{ what }} in {{where}}, {{what}}\nvars: {where: x}\nhistory:\n  - user: hi\n  - assistant: \"\\e[31m\"\nto: codex\n"))
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		tp, err := templates.Parse(data, "fuzz.yaml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml: ") {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		if tp.Name == "" || strings.TrimSpace(tp.Prompt) == "" || tp.Source != "fuzz.yaml" {
			t.Fatalf("accepted name %q, prompt %q, source %q", tp.Name, tp.Prompt, tp.Source)
		}
		names := tp.Placeholders()
		if _, err := tp.Render(nil); err != nil {
			missing := false
			for _, n := range names {
				if _, ok := tp.Vars[n]; !ok && strings.Contains(err.Error(), n) {
					missing = true
				}
			}
			if !missing {
				t.Fatalf("render failed without naming a placeholder that has no value: %v", err)
			}
		}
		vars := map[string]string{}
		for _, n := range names {
			vars[n] = "V"
		}
		if _, err := tp.Render(vars); err != nil {
			t.Fatalf("render with every placeholder %q given: %v", names, err)
		}
		s := tp.Session("/home/dev/proj", now)
		if (s == nil) != (len(tp.History) == 0) {
			t.Fatalf("%d history items give session %v", len(tp.History), s)
		}
		if s == nil {
			return
		}
		if len(s.Timeline) != len(tp.History) || slices.ContainsFunc(s.Timeline, func(e session.Entry) bool { return e.Content == "" && e.Type == session.User }) {
			t.Fatalf("%d history items make %d entries", len(tp.History), len(s.Timeline))
		}
		// It goes to the bus as JSON and is read back from there.
		b, err := session.Marshal(s)
		if err != nil {
			t.Fatalf("the template's session does not encode: %v", err)
		}
		back, err := session.Unmarshal(b)
		if err != nil {
			t.Fatalf("the template's session does not decode: %v", err)
		}
		if again, err := session.Marshal(back); err != nil || !bytes.Equal(again, b) {
			t.Fatalf("the template's session reads back differently (%v):\n%s\n%s", err, b, again)
		}
	})
}
