package session

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Event is what an adapter's decoder yields for one native record: the
// timeline entries the record produced, or the record itself when it
// produced none, plus any session-wide facts it revealed and changes to
// entries yielded earlier (a tool call's outcome is only known when its
// result arrives). Events are small and self-contained, so they can be
// folded into a Session by a Builder or published one by one.
type Event struct {
	// Line is the record's 1-based line in its file.
	Line int `json:"line"`
	// Entries are the timeline entries the record produced.
	Entries []Entry `json:"entries,omitempty"`
	// Record is the native record when it produced no entry.
	Record *Record `json:"record,omitempty"`
	// Info holds session-wide facts the record revealed.
	Info *Info `json:"info,omitempty"`
	// Updates change entries yielded by earlier events.
	Updates []Update `json:"updates,omitempty"`
	// Warning is set when the record was skipped or only partly
	// understood.
	Warning *Warning `json:"warning,omitempty"`
}

// Info is a set of session-wide facts. Empty fields say nothing; a later
// non-empty value replaces an earlier one, except ID, Path and Created,
// where the first value wins.
type Info struct {
	ID       string    `json:"id,omitempty"`
	Path     string    `json:"path,omitempty"`
	Git      *Git      `json:"git,omitempty"`
	Provider string    `json:"provider,omitempty"`
	Model    string    `json:"model,omitempty"`
	Title    string    `json:"title,omitempty"`
	Version  string    `json:"version,omitempty"`
	Format   string    `json:"format,omitempty"`
	Created  time.Time `json:"created,omitzero"`
	Parent   *Link     `json:"parent,omitempty"`
}

// Update changes an entry yielded earlier. Empty fields change nothing.
type Update struct {
	EntryID  string     `json:"entryId"`
	Status   ToolStatus `json:"status,omitempty"`
	Usage    *Usage     `json:"usage,omitempty"`
	Model    string     `json:"model,omitempty"`
	Subagent *Link      `json:"subagent,omitempty"`
}

// Apply makes the update's changes to e, the entry it names.
func (u Update) Apply(e *Entry) {
	if u.Status != "" {
		e.SetStatus(u.Status)
	}
	if u.Usage != nil {
		e.Usage = u.Usage
	}
	if u.Model != "" {
		e.Model = u.Model
	}
	if u.Subagent != nil {
		e.Subagent = u.Subagent
	}
}

// Builder folds events into a Session.
type Builder struct {
	s     Session
	index map[string]int
	opts  ReadOptions
	// suffix is the last suffix uniqueID gave each id, so that an id
	// repeated n times costs n, not n² lookups.
	suffix map[string]int
}

// NewBuilder starts a session read from cli's native store at path.
func NewBuilder(cli, path string) *Builder {
	return &Builder{
		s:     Session{Version: Version, Source: Source{CLI: cli, Path: path}},
		index: make(map[string]int),
	}
}

// With makes the Builder keep what it folds as o says, and returns it.
func (b *Builder) With(o ReadOptions) *Builder {
	b.opts = o
	return b
}

// Add folds one event into the session.
func (b *Builder) Add(ev Event) {
	if ev.Info != nil {
		b.addInfo(ev.Info)
	}
	o := b.opts.Outline
	for _, e := range ev.Entries {
		decoded := e.ID
		if e.ID == "" || b.has(e.ID) {
			e.ID = b.uniqueID(e.ID, ev.Line)
		}
		if o != nil {
			o.add(&e, decoded)
			continue
		}
		if e.Type == ToolCall && len(e.Input) == 0 {
			e.Input = emptyObject
		}
		b.index[e.ID] = len(b.s.Timeline)
		b.s.Timeline = append(double(b.s.Timeline), e)
	}
	if ev.Record != nil {
		if b.opts.Records != nil {
			b.opts.Records(*ev.Record)
		} else {
			b.s.Records = append(double(b.s.Records), *ev.Record)
		}
	}
	for _, u := range ev.Updates {
		if o != nil {
			o.update(u)
			continue
		}
		i, ok := b.index[u.EntryID]
		if !ok {
			continue
		}
		u.Apply(&b.s.Timeline[i])
	}
	if ev.Warning != nil {
		b.s.Warnings = append(b.s.Warnings, *ev.Warning)
	}
}

// double makes room in a full s for as many again. append grows a long
// slice by a quarter at a time, so a timeline of 400-byte entries was
// copied about five times over as it grew; doubled, about twice.
func double[T any](s []T) []T {
	if len(s) < cap(s) || len(s) < 256 {
		return s
	}
	return slices.Grow(s, len(s))
}

// Warn records a warning that belongs to no event.
func (b *Builder) Warn(w Warning) { b.s.Warnings = append(b.s.Warnings, w) }

func (b *Builder) has(id string) bool {
	if o := b.opts.Outline; o != nil {
		return o.has(id)
	}
	_, ok := b.index[id]
	return ok
}

func (b *Builder) uniqueID(id string, line int) string {
	if id == "" {
		id = "L" + strconv.Itoa(line)
	}
	if !b.has(id) {
		return id
	}
	if b.suffix == nil {
		b.suffix = make(map[string]int)
	}
	return nextFree(id, b.has, b.suffix)
}

func (b *Builder) addInfo(in *Info) {
	s := &b.s
	if in.ID != "" && s.ID == "" {
		s.ID = in.ID
	}
	if in.Path != "" && s.Project.Path == "" {
		s.Project.Path = in.Path
	}
	if !in.Created.IsZero() && s.Metadata.Created.IsZero() {
		s.Metadata.Created = in.Created
	}
	if in.Git != nil {
		s.Project.Git = in.Git
	}
	if in.Provider != "" {
		s.Model.Provider = in.Provider
	}
	if in.Model != "" {
		s.Model.Model = in.Model
	}
	if in.Title != "" {
		s.Title = in.Title
	}
	if in.Version != "" {
		s.Source.Version = in.Version
	}
	if in.Format != "" {
		s.Source.Format = in.Format
	}
	if in.Parent != nil {
		s.Parent = in.Parent
	}
}

// Session finishes the session: it pairs tool calls with their results,
// derives times, totals, the project name and the main model, and returns
// the result. The Builder must not be used afterwards.
func (b *Builder) Session() *Session {
	s := &b.s
	if s.Source.OriginalID == "" {
		s.Source.OriginalID = s.ID
	}
	if s.Project.Name == "" && s.Project.Path != "" {
		s.Project.Name = path.Base(strings.ReplaceAll(s.Project.Path, `\`, "/"))
	}
	if o := b.opts.Outline; o != nil {
		o.finish(s)
	} else {
		Pair(s.Timeline)
		var m summary
		for i := range s.Timeline {
			e := &s.Timeline[i]
			m.time(e.Timestamp)
			if e.Usage != nil && e.Origin == "" {
				m.tokens.Add(*e.Usage)
				m.counted = true
			}
			if e.Model != "" {
				m.model = e.Model
			}
			if e.Subagent != nil && e.Type == ToolCall {
				m.subagents = addLink(m.subagents, *e.Subagent)
			}
		}
		m.fold(s)
	}
	if s.Timeline == nil {
		s.Timeline = []Entry{}
	}
	return s
}

func addLink(links []Link, l Link) []Link {
	for i := range links {
		if links[i].ID == l.ID && links[i].Kind == l.Kind {
			if links[i].CallID == "" {
				links[i].CallID = l.CallID
			}
			return links
		}
	}
	return append(links, l)
}

// Pair sets the status of tool calls and results: a result's status comes
// from its own success flag unless the adapter set one, a call takes the
// status of its result, and a call with no result is pending unless the
// adapter already marked it (for example interrupted).
func Pair(timeline []Entry) {
	calls := make(map[string]int)
	for i := range timeline {
		e := &timeline[i]
		switch e.Type {
		case ToolCall:
			calls[e.ID] = i
		case ToolResult:
			if e.Status == "" {
				if e.Success {
					e.Status = StatusOK
				} else {
					e.Status = StatusError
				}
			}
			if j, ok := calls[e.CallID]; ok && timeline[j].Status == "" {
				timeline[j].Status = e.Status
			}
		}
	}
	for _, i := range calls {
		if timeline[i].Status == "" {
			timeline[i].Status = StatusPending
		}
	}
}

// ProviderOf guesses the provider of a model from its name, or returns "".
func ProviderOf(model string) string {
	m := strings.ToLower(model)
	switch {
	case m == "":
		return ""
	case strings.Contains(m, "claude"):
		return "anthropic"
	case strings.Contains(m, "gemini"):
		return "google"
	case strings.Contains(m, "kimi") || strings.Contains(m, "moonshot"):
		return "moonshot"
	case strings.HasPrefix(m, "gpt") || strings.HasPrefix(m, "o1") || strings.HasPrefix(m, "o3") ||
		strings.HasPrefix(m, "o4") || strings.Contains(m, "codex"):
		return "openai"
	case strings.Contains(m, "deepseek"):
		return "deepseek"
	}
	return ""
}

// Join returns the entries of a followed by those of b, renaming entries of
// b whose ids a already uses (and the references to them within b), so ids
// stay unique when two files' timelines are joined.
func Join(a, b []Entry) []Entry {
	var ids IDs
	for _, e := range a {
		ids.Add(e.ID)
	}
	renamed := map[string]string{}
	out := make([]Entry, 0, len(a)+len(b))
	out = append(out, a...)
	for _, e := range b {
		if c := ids.Unique(e.ID); c != e.ID {
			renamed[e.ID] = c
			e.ID = c
		}
		out = append(out, e)
	}
	if len(renamed) == 0 {
		return out
	}
	for i := len(a); i < len(out); i++ {
		e := &out[i]
		if r, ok := renamed[e.ParentID]; ok {
			e.ParentID = r
		}
		if r, ok := renamed[e.CallID]; ok && e.Type == ToolResult {
			e.CallID = r
		}
	}
	return out
}
