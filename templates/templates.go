package templates

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/stead-dev/stead/session"
)

// Template is a session starter.
type Template struct {
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description" json:"description,omitempty"`
	// Prompt is the prompt typed into the CLI, with {{name}}
	// placeholders.
	Prompt string `yaml:"prompt" json:"prompt"`
	// Vars are the placeholders' default values.
	Vars map[string]string `yaml:"vars" json:"vars,omitempty"`
	// History is the conversation the session starts with, if any.
	History []Turn `yaml:"history" json:"history,omitempty"`
	// To is the CLI the template runs in by default.
	To string `yaml:"to" json:"to,omitempty"`
	// Source is where the template was read from ("built-in" or a
	// path).
	Source string `yaml:"-" json:"source"`
}

// Turn is one message of a template's starting conversation: a user or
// an assistant message.
type Turn struct {
	User      string `yaml:"user,omitempty" json:"user,omitempty"`
	Assistant string `yaml:"assistant,omitempty" json:"assistant,omitempty"`
}

//go:embed builtin/*.yaml
var builtin embed.FS

var (
	validName   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`) })
	placeholder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}`) })
)

// Parse reads a template from YAML; source says where it came from.
// Unknown fields are an error, so that a typo does not go unnoticed.
func Parse(data []byte, source string) (Template, error) {
	var t Template
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&t); err != nil {
		return t, fmt.Errorf("%s: %w", source, err)
	}
	t.Source = source
	switch {
	case !validName().MatchString(t.Name):
		return t, fmt.Errorf("%s: name %q: use lower-case letters, digits, '.', '_' and '-'", source, t.Name)
	case strings.TrimSpace(t.Prompt) == "":
		return t, fmt.Errorf("%s: the template has no prompt", source)
	}
	for i, turn := range t.History {
		if (turn.User == "") == (turn.Assistant == "") {
			return t, fmt.Errorf("%s: history item %d: give exactly one of user or assistant", source, i+1)
		}
	}
	return t, nil
}

// Load returns the built-in templates and those in dir (which may not
// exist), by name; one in dir replaces a built-in one of the same name.
// A file that cannot be read is reported and skipped.
func Load(dir string) ([]Template, []error) {
	byName := map[string]Template{}
	var errs []error
	add := func(data []byte, source string) {
		t, err := Parse(data, source)
		if err != nil {
			errs = append(errs, err)
			return
		}
		byName[t.Name] = t
	}
	entries, _ := fs.ReadDir(builtin, "builtin")
	for _, e := range entries {
		data, _ := builtin.ReadFile("builtin/" + e.Name())
		add(data, "built-in")
	}
	if dir != "" {
		files, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		for _, e := range files {
			if e.IsDir() || !(strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
				continue
			}
			path := filepath.Join(dir, e.Name())
			data, err := os.ReadFile(path)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			add(data, path)
		}
	}
	out := make([]Template, 0, len(byName))
	for _, t := range byName {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Template) int { return strings.Compare(a.Name, b.Name) })
	return out, errs
}

// Placeholders lists the names the prompt uses, in order, each once.
func (t Template) Placeholders() []string {
	var names []string
	for _, m := range placeholder().FindAllStringSubmatch(t.Prompt, -1) {
		if !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	return names
}

// Render fills the prompt's placeholders from vars, then from the
// template's defaults. A placeholder with neither is an error.
func (t Template) Render(vars map[string]string) (string, error) {
	var missing []string
	out := placeholder().ReplaceAllStringFunc(t.Prompt, func(m string) string {
		name := placeholder().FindStringSubmatch(m)[1]
		if v, ok := vars[name]; ok {
			return v
		}
		if v, ok := t.Vars[name]; ok {
			return v
		}
		if !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
		return m
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("template %s needs a value for %s (--var %s=...)", t.Name, strings.Join(missing, ", "), missing[0])
	}
	return strings.TrimSpace(out), nil
}

// Session is the template's starting conversation as a universal session
// in project dir, or nil when it has none.
func (t Template) Session(dir string, now time.Time) *session.Session {
	if len(t.History) == 0 {
		return nil
	}
	s := &session.Session{ID: "template-" + t.Name, Source: session.Source{CLI: "stead", Format: "template"},
		Project: session.Project{Path: dir}, Title: t.Description}
	for i, turn := range t.History {
		e := session.Entry{ID: fmt.Sprintf("template-%s-%d", t.Name, i+1), Timestamp: now, Type: session.User,
			Content: strings.TrimSpace(turn.User)}
		if turn.Assistant != "" {
			e.Type, e.Content = session.Assistant, strings.TrimSpace(turn.Assistant)
		}
		s.Timeline = append(s.Timeline, e)
	}
	s.Metadata.Created = now
	return s
}
