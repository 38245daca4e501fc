package scenarios

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/stead-dev/stead/modelstub"
	"github.com/stead-dev/stead/session"
)

// Expect is what a step must have done. Every step also expects to
// finish: a step that fails to run fails its scenario whatever else
// holds. In an A/B step each expectation holds for every variant that is
// not expected to fail; {cli} names the variant's CLI.
type Expect struct {
	// Answer: the step's final answer holds each text.
	Answer []string `json:"answer,omitempty"`
	// ModelSaw: the last request each target's model got in the step
	// held each text (in a message, a tool call or a tool result);
	// ModelNotSaw: it held none of them.
	ModelSaw    []string `json:"modelSaw,omitempty"`
	ModelNotSaw []string `json:"modelNotSaw,omitempty"`
	// Entries: the session the step ends with holds entries matching
	// these, in this order (others may come between).
	Entries []Match `json:"entries,omitempty"`
	// HistoryEnds: the history the CLI was given (what came before the
	// step's prompt) ends with an entry matching it; History: it holds
	// exactly that many entries.
	HistoryEnds *Match `json:"historyEnds,omitempty"`
	History     *int   `json:"history,omitempty"`
	// Files: the project (each variant's worktree) has each file,
	// holding the text given ("" for any content).
	Files map[string]string `json:"files,omitempty"`
	// Tools: the step's tool calls, by kind.
	Tools map[string]int `json:"tools,omitempty"`
	// TokensNative: the tokens reported for the step are those the
	// target's native session records for it; Tokens: they are these
	// (fields left zero are not checked).
	TokensNative bool           `json:"tokensNative,omitempty"`
	Tokens       *session.Usage `json:"tokens,omitempty"`
	// Failed are the A/B variants expected to fail (and be reported as
	// failed); every other variant must finish.
	Failed []string `json:"failed,omitempty"`
}

func (p *parser) expect(y *expectYAML, st Step, where string) Expect {
	e := Expect{
		Answer:      p.strings(&y.Answer, where+": answer"),
		ModelSaw:    p.strings(&y.ModelSaw, where+": model_saw"),
		ModelNotSaw: p.strings(&y.ModelNotSaw, where+": model_did_not_see"),
		Entries:     y.Entries, HistoryEnds: y.HistoryEnds, History: y.HistoryCount,
		Tools: y.Tools, Failed: y.Failed,
	}
	line := st.Line
	switch {
	case y.Files.IsZero():
	case y.Files.Kind == yaml.SequenceNode:
		var names []string
		if err := y.Files.Decode(&names); err != nil {
			p.failf(y.Files.Line, "%s: files: want a list of paths or a map of path to text", where)
		}
		e.Files = map[string]string{}
		for _, n := range names {
			e.Files[n] = ""
		}
	default:
		if err := y.Files.Decode(&e.Files); err != nil {
			p.failf(y.Files.Line, "%s: files: want a list of paths or a map of path to text", where)
		}
	}
	for name := range e.Files {
		if !fs.ValidPath(name) || name == "." {
			p.failf(line, "%s: files: %q: give a relative path inside the project, with forward slashes", where, name)
		}
	}
	switch {
	case y.Tokens.IsZero():
	case y.Tokens.Kind == yaml.ScalarNode && y.Tokens.Value == "native":
		e.TokensNative = true
	case y.Tokens.Kind == yaml.MappingNode:
		var u struct {
			Input      int64 `yaml:"input"`
			Output     int64 `yaml:"output"`
			CacheRead  int64 `yaml:"cacheRead"`
			CacheWrite int64 `yaml:"cacheWrite"`
		}
		if err := y.Tokens.Decode(&u); err != nil {
			p.failf(y.Tokens.Line, "%s: tokens: %v", where, err)
		}
		e.Tokens = &session.Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}
	default:
		p.failf(y.Tokens.Line, "%s: tokens: want native, or {input, output, cacheRead, cacheWrite}", where)
	}
	for _, f := range e.Failed {
		if st.Kind != AB {
			p.failf(line, "%s: failed: only the variants of an A/B step can be expected to fail", where)
			break
		}
		if !slices.Contains(st.To, f) {
			p.failf(line, "%s: failed: %s is not a variant of the step", where, f)
		}
	}
	if (e.History != nil || e.HistoryEnds != nil) && st.Kind == Chain {
		p.failf(line, "%s: history: a chain's history is each link's; check entries instead", where)
	}
	for _, m := range e.Entries {
		if m == (Match{}) {
			p.failf(line, "%s: entries: an empty match", where)
		}
	}
	return e
}

// Check is one expectation, checked.
type Check struct {
	What string `json:"what"`
	Pass bool   `json:"pass"`
	// Got says what was found instead, when the check failed.
	Got string `json:"got,omitempty"`
}

// checker collects the checks of one step.
type checker struct{ checks []Check }

func (c *checker) add(pass bool, what, got string) {
	ck := Check{What: what, Pass: pass}
	if !pass {
		ck.Got = got
	}
	c.checks = append(c.checks, ck)
}

// subject is one thing the expectations are checked on: the step's
// outcome, or one variant of an A/B step.
type subject struct {
	label   string // "" or "codex: "
	cli     string
	answer  string
	session *session.Session
	history int
	tools   map[string]int
	tokens  session.Usage
	native  *session.Usage
	dir     string
	request *modelstub.Request // the last main request the model got
}

func (c *checker) expect(e Expect, s subject) {
	sub := func(t string) string { return strings.ReplaceAll(t, "{cli}", s.cli) }
	for _, a := range e.Answer {
		a = sub(a)
		c.add(strings.Contains(s.answer, a), fmt.Sprintf("%sthe answer says %q", s.label, a), "the answer: "+quote(s.answer))
	}
	if len(e.ModelSaw)+len(e.ModelNotSaw) > 0 {
		seen := ""
		if s.request != nil {
			seen = requestText(s.request)
		}
		for _, t := range e.ModelSaw {
			t = sub(t)
			got := "its model got no request in the step"
			if s.request != nil {
				got = fmt.Sprintf("not in its last request (%d messages)", len(s.request.Messages))
			}
			c.add(s.request != nil && strings.Contains(seen, t), fmt.Sprintf("%sthe model saw %q", s.label, t), got)
		}
		for _, t := range e.ModelNotSaw {
			t = sub(t)
			c.add(s.request != nil && !strings.Contains(seen, t), fmt.Sprintf("%sthe model did not see %q", s.label, t), "it did")
		}
	}
	if len(e.Entries) > 0 {
		c.entries(e.Entries, s, sub)
	}
	if e.History != nil {
		c.add(s.history == *e.History, fmt.Sprintf("%sthe history given to %s holds %d entries", s.label, s.cli, *e.History), fmt.Sprintf("%d entries", s.history))
	}
	if m := e.HistoryEnds; m != nil {
		got := "no history"
		pass := false
		if s.session != nil && s.history > 0 && s.history <= len(s.session.Timeline) {
			last := s.session.Timeline[s.history-1]
			pass, got = matches(*m, last, s.session, sub), describe(last, s.session)
		}
		c.add(pass, fmt.Sprintf("%sthe history ends with %s", s.label, m), "it ends with "+got)
	}
	for _, name := range sortedKeys(e.Files) {
		want := sub(e.Files[name])
		what := fmt.Sprintf("%s%s exists", s.label, sub(name))
		if want != "" {
			what = fmt.Sprintf("%s%s holds %q", s.label, sub(name), want)
		}
		data, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(sub(name))))
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = "it holds " + quote(string(data))
		}
		c.add(err == nil && strings.Contains(string(data), want), what, got)
	}
	for _, kind := range sortedKeys(e.Tools) {
		n := e.Tools[kind]
		c.add(s.tools[kind] == n, fmt.Sprintf("%s%d %s tool call(s)", s.label, n, kind), fmt.Sprintf("%d; all calls: %v", s.tools[kind], s.tools))
	}
	if e.TokensNative {
		got := fmt.Sprintf("reported %s; %s's native session was not read", usageString(s.tokens), s.cli)
		pass := false
		if s.native != nil {
			pass = *s.native == s.tokens && s.tokens != (session.Usage{})
			got = fmt.Sprintf("reported %s; the native session records %s", usageString(s.tokens), usageString(*s.native))
		}
		c.add(pass, s.label+"the tokens reported are those the native session records", got)
	}
	if w := e.Tokens; w != nil {
		pass := (w.Input == 0 || w.Input == s.tokens.Input) && (w.Output == 0 || w.Output == s.tokens.Output) &&
			(w.CacheRead == 0 || w.CacheRead == s.tokens.CacheRead) && (w.CacheWrite == 0 || w.CacheWrite == s.tokens.CacheWrite)
		c.add(pass, s.label+"the tokens are "+usageString(*w), "reported "+usageString(s.tokens))
	}
}

// entries checks that the session holds the matches in order.
func (c *checker) entries(ms []Match, s subject, sub func(string) string) {
	if s.session == nil {
		c.add(false, s.label+"the session holds the entries expected", "no session")
		return
	}
	tl := s.session.Timeline
	at := 0
	for _, m := range ms {
		found := -1
		for i := at; i < len(tl); i++ {
			if matches(m, tl[i], s.session, sub) {
				found = i
				break
			}
		}
		what := fmt.Sprintf("%sthe session holds %s", s.label, m)
		if found < 0 {
			got := fmt.Sprintf("none at or after entry %d of %d", at+1, len(tl))
			if at < len(tl) {
				got += "; the next is " + describe(tl[at], s.session)
			}
			c.add(false, what, got)
			continue
		}
		c.add(true, what, "")
		at = found + 1
	}
}

func matches(m Match, e session.Entry, s *session.Session, sub func(string) string) bool {
	cli := e.CLI
	if cli == "" {
		cli = s.Source.CLI
	}
	switch {
	case m.ID != "" && !strings.HasPrefix(e.ID, m.ID),
		m.CLI != "" && sub(m.CLI) != cli,
		m.Type != "" && m.Type != e.Type,
		m.Tool != "" && m.Tool != e.Tool:
		return false
	}
	return m.Text == "" || strings.Contains(entryText(e), sub(m.Text))
}

func entryText(e session.Entry) string {
	return strings.Join([]string{e.Content, e.Thinking, e.InputText(), e.Output, e.Error}, "\n")
}

func describe(e session.Entry, s *session.Session) string {
	cli := e.CLI
	if cli == "" {
		cli = s.Source.CLI
	}
	text := strings.TrimSpace(entryText(e))
	return fmt.Sprintf("%s %s %s", cli, e.Type, quote(text))
}

// requestText is everything a request carried, as text to search.
func requestText(r *modelstub.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Text + "\n" + m.Thinking + "\n")
		for _, tc := range m.ToolCalls {
			b.WriteString(tc.Name + " " + session.PlainJSON(tc.Args) + "\n")
		}
		for _, tr := range m.ToolResults {
			b.WriteString(tr.Output + "\n")
		}
	}
	return b.String()
}

func usageString(u session.Usage) string {
	return fmt.Sprintf("%d in, %d out, %d cache read, %d cache write", u.Input, u.Output, u.CacheRead, u.CacheWrite)
}

// quote is s on one line, clipped to 160 characters, quoted.
func quote(s string) string { return fmt.Sprintf("%q", clipN(s, 160)) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
