package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

// Scenario is a parsed scenario file.
type Scenario struct {
	Name  string `json:"name"`
	About string `json:"about,omitempty"`
	// File is where the scenario was read from, and Dir the file system
	// its relative paths resolve in.
	File string `json:"file"`
	Dir  fs.FS  `json:"-"`
	path string // the file's name in Dir

	Start   Start   `json:"start"`
	Project Project `json:"project"`
	Steps   []Step  `json:"steps"`
}

// Start is the session a scenario starts from: a session file, a session
// in the user's own stores (read, never written), or a new one the CLI
// makes headless from a prompt, in the scenario's sandbox.
type Start struct {
	// File is a session file, relative to the scenario file.
	File string `json:"file,omitempty"`
	// Ref is a session in the user's stores: <cli>:<id>, <id> or a path.
	Ref string `json:"ref,omitempty"`
	// CLI is the CLI that wrote File or Ref, or that runs Prompt.
	CLI    string `json:"cli,omitempty"`
	Prompt string `json:"prompt,omitempty"`
	// Model is what the model answers Prompt.
	Model []modelstub.Turn `json:"model,omitempty"`
	Line  int              `json:"line"`
}

// Project is the project directory the CLIs work in. It is a git
// repository with one commit unless Git is false (an A/B step then
// copies it instead of making worktrees).
type Project struct {
	Git   bool              `json:"git"`
	Files map[string]string `json:"files,omitempty"`
}

// Kinds of steps.
const (
	Resume = "resume"
	Fork   = "fork"
	AB     = "ab"
	Chain  = "chain"
)

// Step is one thing a scenario does, and what it expects of it.
type Step struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Line int    `json:"line"`
	// To are the target CLIs: one for resume and fork, the variants of
	// an A/B step, each link's CLI for a chain.
	To     []string `json:"to"`
	Prompt string   `json:"prompt,omitempty"`
	// At is where a fork ends.
	At *Match `json:"at,omitempty"`
	// Links are a chain's steps.
	Links []Link `json:"links,omitempty"`
	// FromStart makes the step start from the scenario's starting
	// session instead of the session the step before ended with.
	FromStart bool `json:"fromStart,omitempty"`
	// Model is what each target's model answers in this step ({cli} in
	// it names the target); ModelFor replaces it for some targets.
	Model    []modelstub.Turn            `json:"model,omitempty"`
	ModelFor map[string][]modelstub.Turn `json:"modelFor,omitempty"`
	Expect   Expect                      `json:"expect"`
}

// Link is one step of a chain.
type Link struct {
	CLI    string           `json:"cli"`
	Prompt string           `json:"prompt"`
	Model  []modelstub.Turn `json:"model,omitempty"`
}

// Match picks out entries of a session. Every field set must hold; Text
// is looked for in the entry's text, thinking, tool input and output.
type Match struct {
	ID   string            `yaml:"id" json:"id,omitempty"`
	CLI  string            `yaml:"cli" json:"cli,omitempty"`
	Type session.EntryType `yaml:"type" json:"type,omitempty"`
	Tool session.Tool      `yaml:"tool" json:"tool,omitempty"`
	Text string            `yaml:"text" json:"text,omitempty"`
}

func (m Match) String() string {
	var parts []string
	for _, p := range [][2]string{{"id", m.ID}, {"cli", m.CLI}, {"type", string(m.Type)}, {"tool", string(m.Tool)}, {"text", m.Text}} {
		if p[1] != "" {
			parts = append(parts, p[0]+" "+fmt.Sprintf("%q", p[1]))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// Source is the scenario file's text.
func (sc *Scenario) Source() ([]byte, error) { return fs.ReadFile(sc.Dir, sc.path) }

// The YAML form. Scalars that may be one value or a list, and model
// turns (modelstub's JSON form), are read as nodes.
type fileYAML struct {
	Name    string      `yaml:"name"`
	About   string      `yaml:"about"`
	Start   startYAML   `yaml:"start"`
	Project projectYAML `yaml:"project"`
	Steps   []stepYAML  `yaml:"steps"`
}

type startYAML struct {
	File   string    `yaml:"file"`
	Ref    string    `yaml:"ref"`
	CLI    string    `yaml:"cli"`
	Prompt string    `yaml:"prompt"`
	Model  yaml.Node `yaml:"model"`
}

type projectYAML struct {
	Git   *bool             `yaml:"git"`
	Files map[string]string `yaml:"files"`
}

type stepYAML struct {
	Name     string               `yaml:"name"`
	Resume   string               `yaml:"resume"`
	Fork     string               `yaml:"fork"`
	AB       []string             `yaml:"ab"`
	Chain    []linkYAML           `yaml:"chain"`
	Prompt   string               `yaml:"prompt"`
	At       yaml.Node            `yaml:"at"`
	From     string               `yaml:"from"`
	Model    yaml.Node            `yaml:"model"`
	ModelFor map[string]yaml.Node `yaml:"model_for"`
	Expect   expectYAML           `yaml:"expect"`
}

type linkYAML struct {
	CLI    string    `yaml:"cli"`
	Prompt string    `yaml:"prompt"`
	Model  yaml.Node `yaml:"model"`
}

type expectYAML struct {
	Answer       yaml.Node      `yaml:"answer"`
	ModelSaw     yaml.Node      `yaml:"model_saw"`
	ModelNotSaw  yaml.Node      `yaml:"model_did_not_see"`
	Entries      []Match        `yaml:"entries"`
	HistoryEnds  *Match         `yaml:"history_ends"`
	HistoryCount *int           `yaml:"history"`
	Files        yaml.Node      `yaml:"files"`
	Tools        map[string]int `yaml:"tools"`
	Tokens       yaml.Node      `yaml:"tokens"`
	Failed       []string       `yaml:"failed"`
}

// Parse reads a scenario. name is the file's name in dir, which relative
// paths in it resolve against. Unknown fields are an error, so that a
// typo does not pass unnoticed; errors name the file and line.
func Parse(dir fs.FS, name string) (*Scenario, error) {
	data, err := fs.ReadFile(dir, name)
	if err != nil {
		return nil, err
	}
	var y fileYAML
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&y); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	lines := stepLines(data)
	sc := &Scenario{Name: y.Name, About: strings.TrimSpace(y.About), File: name, Dir: dir, path: name,
		Start:   Start{File: y.Start.File, Ref: y.Start.Ref, CLI: y.Start.CLI, Prompt: y.Start.Prompt},
		Project: Project{Git: y.Project.Git == nil || *y.Project.Git, Files: y.Project.Files}}
	p := parser{file: name}
	if sc.Name == "" {
		p.failf(1, "the scenario has no name")
	}
	sc.Start.Model = p.turns(&y.Start.Model)
	p.start(&sc.Start)
	for rel := range sc.Project.Files {
		if !fs.ValidPath(rel) || rel == "." {
			p.failf(1, "project file %q: give a relative path inside the project, with forward slashes", rel)
		}
	}
	if len(y.Steps) == 0 {
		p.failf(1, "the scenario has no steps")
	}
	// The line a step starts on, or 1 when stepLines could not tell
	// (steps brought in by a merge key: "<<: {steps: ...}").
	lineOf := func(i int) int {
		if i < len(lines) {
			return lines[i]
		}
		return 1
	}
	for i := range y.Steps {
		st := p.step(&y.Steps[i], lineOf(i), i)
		if st.Kind == AB && i+1 < len(y.Steps) && y.Steps[i+1].From != "start" {
			p.failf(lineOf(i+1), "an A/B step ends in several sessions: the step after it needs from: start")
		}
		sc.Steps = append(sc.Steps, st)
	}
	if err := errors.Join(p.errs...); err != nil {
		return nil, err
	}
	return sc, nil
}

// parser collects every error of a file, each with its line.
type parser struct {
	file string
	errs []error
}

func (p *parser) failf(line int, format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("%s:%d: %s", p.file, line, fmt.Sprintf(format, args...)))
}

func (p *parser) cli(line int, name, what string) {
	a, ok := adapters.Lookup(name)
	switch {
	case name == "":
		p.failf(line, "%s: name a CLI (%s)", what, strings.Join(adapters.Names(), ", "))
	case !ok:
		p.failf(line, "%s: unknown CLI %q (known: %s)", what, name, strings.Join(adapters.Names(), ", "))
	case !a.Runs() || a.Setup == nil:
		p.failf(line, "%s: stead cannot run %s", what, name)
	}
}

func (p *parser) start(s *Start) {
	n := 0
	for _, v := range []string{s.File, s.Ref, s.Prompt} {
		if v != "" {
			n++
		}
	}
	switch {
	case n != 1:
		p.failf(1, "start: give exactly one of file, ref or prompt")
	case s.File != "":
		if !fs.ValidPath(path.Clean(s.File)) && !path.IsAbs(s.File) {
			p.failf(1, "start: file %q: give a path relative to the scenario, inside its folder", s.File)
		}
	case s.Prompt != "":
		p.cli(1, s.CLI, "start")
		if len(s.Model) == 0 {
			p.failf(1, "start: a prompt needs the model's answer (model:)")
		}
	}
	if s.CLI != "" {
		if _, ok := adapters.Lookup(s.CLI); !ok {
			p.failf(1, "start: unknown CLI %q", s.CLI)
		}
	}
}

// stepLines finds the line each step starts on.
func stepLines(data []byte) []int {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 {
		return nil
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "steps" {
			steps := m.Content[i+1]
			if steps.Kind == yaml.AliasNode && steps.Alias != nil {
				steps = steps.Alias // steps: *anchor
			}
			var out []int
			for _, s := range steps.Content {
				out = append(out, s.Line)
			}
			return out
		}
	}
	return nil
}

func (p *parser) step(y *stepYAML, line, i int) Step {
	n := &yaml.Node{Line: line}
	st := Step{Line: line}
	st.Name, st.Prompt = y.Name, y.Prompt
	kinds := 0
	if y.Resume != "" {
		st.Kind, st.To = Resume, []string{y.Resume}
		kinds++
	}
	if y.Fork != "" {
		st.Kind, st.To = Fork, []string{y.Fork}
		kinds++
	}
	if y.AB != nil {
		st.Kind, st.To = AB, y.AB
		kinds++
	}
	if y.Chain != nil {
		st.Kind = Chain
		for j, l := range y.Chain {
			link := Link{CLI: l.CLI, Prompt: l.Prompt, Model: p.turns(&l.Model)}
			p.cli(n.Line, l.CLI, fmt.Sprintf("step %d, link %d", i+1, j+1))
			if strings.TrimSpace(l.Prompt) == "" {
				p.failf(n.Line, "step %d, link %d: no prompt", i+1, j+1)
			}
			if len(link.Model) == 0 {
				p.failf(n.Line, "step %d, link %d: no model answer (model:)", i+1, j+1)
			}
			st.Links = append(st.Links, link)
			st.To = append(st.To, l.CLI)
		}
		kinds++
	}
	if kinds != 1 {
		p.failf(n.Line, "step %d: give exactly one of resume, fork, ab or chain", i+1)
		return st
	}
	if st.Name == "" {
		st.Name = fmt.Sprintf("%s %s", st.Kind, strings.Join(st.To, ","))
	}
	where := fmt.Sprintf("step %d (%s)", i+1, st.Name)
	switch y.From {
	case "", "previous":
	case "start":
		st.FromStart = true
	default:
		p.failf(n.Line, "%s: from: %q: want start or previous", where, y.From)
	}
	if i == 0 {
		st.FromStart = true
	}
	if st.Kind != Chain {
		for _, to := range st.To {
			p.cli(n.Line, to, where)
		}
		if strings.TrimSpace(st.Prompt) == "" {
			p.failf(n.Line, "%s: no prompt", where)
		}
		st.Model = p.turns(&y.Model)
		st.ModelFor = map[string][]modelstub.Turn{}
		for cli, m := range y.ModelFor {
			if !slices.Contains(st.To, cli) {
				p.failf(m.Line, "%s: model_for %s: %s is not a target of the step", where, cli, cli)
			}
			st.ModelFor[cli] = p.turns(&m)
		}
		for _, to := range st.To {
			if len(st.ModelFor[to]) == 0 && len(st.Model) == 0 {
				p.failf(n.Line, "%s: no model answer for %s (model: or model_for:)", where, to)
			}
		}
	} else if st.Prompt != "" || !y.Model.IsZero() {
		p.failf(n.Line, "%s: a chain's prompts and model answers go in its links", where)
	}
	if st.Kind == AB && len(st.To) < 1 {
		p.failf(n.Line, "%s: name the CLIs to compare", where)
	}
	if st.Kind == Chain && len(st.Links) == 0 {
		// chain: with an empty list, or a list of nothing ("-").
		p.failf(n.Line, "%s: a chain needs at least one link (cli:, prompt:, model:)", where)
	}
	if st.Kind == AB {
		seen := map[string]bool{}
		for _, to := range st.To {
			if seen[to] {
				// Each CLI has one model stub in a sandbox; two variants
				// of one CLI would take each other's turns.
				p.failf(n.Line, "%s: %s is named twice: a scenario's A/B runs each CLI once", where, to)
			}
			seen[to] = true
		}
	}
	if !y.At.IsZero() {
		if st.Kind != Fork {
			p.failf(y.At.Line, "%s: at: only a fork step has one", where)
		}
		m := p.match(&y.At, where+": at")
		st.At = &m
	}
	st.Expect = p.expect(&y.Expect, st, where)
	return st
}

// match reads a Match, or a bare string as an entry id (or its prefix).
func (p *parser) match(n *yaml.Node, where string) Match {
	var m Match
	if n.Kind == yaml.ScalarNode {
		m.ID = n.Value
	} else if err := n.Decode(&m); err != nil {
		p.failf(n.Line, "%s: %v", where, err)
	}
	if m == (Match{}) {
		p.failf(n.Line, "%s: an empty match", where)
	}
	return m
}

// turns reads model turns: a list in modelstub's script form.
func (p *parser) turns(n *yaml.Node) []modelstub.Turn {
	if n.IsZero() {
		return nil
	}
	var raw any
	if err := n.Decode(&raw); err != nil {
		p.failf(n.Line, "model: %v", err)
		return nil
	}
	data, err := json.Marshal(raw)
	if err != nil {
		p.failf(n.Line, "model: %v", err)
		return nil
	}
	var turns []modelstub.Turn
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&turns); err != nil {
		p.failf(n.Line, "model: want a list of turns (text, thinking, tools, usage, fault, ...): %v", err)
		return nil
	}
	if err := (&modelstub.Script{Turns: turns}).Check(); err != nil {
		p.failf(n.Line, "model: %v", err)
	}
	return turns
}

// strings reads one string or a list of them.
func (p *parser) strings(n *yaml.Node, where string) []string {
	switch {
	case n.IsZero():
		return nil
	case n.Kind == yaml.ScalarNode:
		return []string{n.Value}
	}
	var out []string
	if err := n.Decode(&out); err != nil {
		p.failf(n.Line, "%s: want a string or a list of strings", where)
	}
	return out
}
