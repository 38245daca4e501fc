package session

import (
	"sort"
	"time"
)

// MaxSummaryFiles and MaxSummaryWarnings cap Summary.Files and
// Summary.Warnings so a summary's size never depends on how long a session
// is.
const (
	MaxSummaryFiles    = 1000
	MaxSummaryWarnings = 10
)

// Detail says how much a summary reads of a file.
type Detail int

const (
	// DetailFull reads everything a summary holds: usage by model, tool
	// calls, errors and files, as statistics need.
	DetailFull Detail = iota
	// DetailList reads only what a listing needs (ids, project, times,
	// title, message and turn counts), skipping most of every record
	// once its kind is known. Usage, tools, errors and files stay empty.
	DetailList
)

// Summary is what a fast scan of one native session file yields: enough to
// list sessions and total their usage without building a timeline. Its size
// does not grow with the session (Files is capped at MaxSummaryFiles).
type Summary struct {
	CLI  string `json:"cli"`
	ID   string `json:"id"`
	Path string `json:"path"`
	// Size is the file's size in bytes.
	Size int64 `json:"size"`
	// Project is the working directory.
	Project string `json:"project"`
	// Title is the session's title, or the start of its first prompt.
	Title string    `json:"title,omitempty"`
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
	// Messages counts user prompts and assistant text replies (tool
	// calls, results, thinking and injected context are not messages):
	// every one the file holds, copied history included (History).
	Messages int `json:"messages"`
	// Turns counts user prompts.
	Turns int `json:"turns"`
	// History describes the history a session stead wrote (a
	// conversion, fork, A/B arm, chain step or template) copied from
	// another session; nil for any other session. For such a session
	// Start is when stead wrote it and End its last record since (or
	// Start), and Turns, Usage, Tools, ToolErrors and Files count only
	// what happened in it: the history's usage is in Borrowed under
	// History.From, and its turns, tool calls, errors and files are
	// not counted.
	History *History `json:"history,omitempty"`
	// Parent links a fork or subagent to its parent session.
	Parent *Link `json:"parent,omitempty"`

	// Usage totals tokens of model responses recorded in this file,
	// each response counted once, excluding those copied from another
	// session (see Borrowed).
	Usage Usage `json:"usage"`
	// Models splits Usage by model.
	Models map[string]Usage `json:"models,omitempty"`
	// Borrowed holds usage of responses this file copied from other
	// sessions (forks), keyed by the id of the session that made them,
	// or by OriginKey(cli, id) when that session is another CLI's or
	// stead copied it. A caller that also scans that session should drop
	// it; otherwise it belongs to this file.
	Borrowed map[string]BorrowedUsage `json:"borrowed,omitempty"`
	// Responses lists the responses whose usage Usage counts, by a hash
	// of their ids, so that a caller scanning several files counts a
	// response copied into several of them once: Claude Code 1.0 copied
	// a session's history, ids and usage, into the new file of a
	// --continue. It is not encoded.
	Responses []ResponseUsage `json:"-"`
	// LastUsage is the usage of the last model response: its context
	// size is the session's current context.
	LastUsage Usage `json:"lastUsage"`
	// Tools counts tool calls by universal tool name.
	Tools map[Tool]int `json:"tools,omitempty"`
	// ToolErrors counts tool results that reported an error.
	ToolErrors int `json:"toolErrors"`
	// Files lists files the session wrote or edited, as named in tool
	// calls, in first-seen order.
	Files []string `json:"files,omitempty"`
	// Skipped counts lines that could not be parsed.
	Skipped int `json:"skipped"`
	// Warnings describes the first skipped lines.
	Warnings []Warning `json:"warnings,omitempty"`
}

// Skip counts a line that could not be parsed.
func (s *Summary) Skip(line int, msg string) {
	s.Skipped++
	if len(s.Warnings) < MaxSummaryWarnings {
		s.Warnings = append(s.Warnings, Warning{Line: line, Message: msg})
	}
}

// History is the part of a session that stead copied from another
// session when it wrote it.
type History struct {
	// From names the session the history was copied from, as
	// OriginKey gives it: the key of its usage in Summary.Borrowed.
	From string `json:"from"`
	// Written is when stead wrote the session: its records timed at or
	// before Written are the history.
	Written time.Time `json:"written"`
	// Start and End span the history's own records, as timed in the
	// session they were copied from.
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
	// Messages counts the history's messages, which Summary.Messages
	// includes.
	Messages int `json:"messages"`
	// Adopted is the history's usage that Summary.Usage counts after
	// all, because the session it was copied from is not known to the
	// caller (see Adopt); AdoptedModels splits it by model.
	Adopted       Usage            `json:"adopted,omitzero"`
	AdoptedModels map[string]Usage `json:"adoptedModels,omitempty"`
}

// OriginKey names session id of CLI cli as a key of Summary.Borrowed.
func OriginKey(cli, id string) string { return cli + ":" + id }

// OwnMessages counts the messages of the session itself, not those of
// copied history.
func (s *Summary) OwnMessages() int {
	if s.History == nil {
		return s.Messages
	}
	return s.Messages - s.History.Messages
}

// BorrowedUsage is usage copied from another session, split by model.
type BorrowedUsage struct {
	Usage  Usage            `json:"usage"`
	Models map[string]Usage `json:"models,omitempty"`
}

// AddUsage counts a model response's usage under model.
func (s *Summary) AddUsage(model string, u Usage) {
	s.Usage.Add(u)
	addModel(&s.Models, model, u)
	s.LastUsage = u
}

// ResponseUsage is one model response counted in a Summary.
type ResponseUsage struct {
	// Key hashes the ids that name the response across files.
	Key   uint64
	Model string
	Usage Usage
}

// Uncount takes back a response counted here that is counted in another
// file.
func (s *Summary) Uncount(r ResponseUsage) {
	s.Usage.Sub(r.Usage)
	if m, ok := s.Models[r.Model]; ok {
		m.Sub(r.Usage)
		if m.IsZero() {
			delete(s.Models, r.Model)
		} else {
			s.Models[r.Model] = m
		}
	}
}

// AddBorrowed counts usage copied from session origin.
func (s *Summary) AddBorrowed(origin, model string, u Usage) {
	if s.Borrowed == nil {
		s.Borrowed = make(map[string]BorrowedUsage)
	}
	b := s.Borrowed[origin]
	b.Usage.Add(u)
	addModel(&b.Models, model, u)
	s.Borrowed[origin] = b
}

// Adopt moves usage borrowed from origin into the summary's own usage, for
// when the session it came from is not known.
func (s *Summary) Adopt(origin string) {
	b, ok := s.Borrowed[origin]
	if !ok {
		return
	}
	s.Usage.Add(b.Usage)
	for m, u := range b.Models {
		addModel(&s.Models, m, u)
	}
	if h := s.History; h != nil && h.From == origin {
		h.Adopted.Add(b.Usage)
		for m, u := range b.Models {
			addModel(&h.AdoptedModels, m, u)
		}
	}
	delete(s.Borrowed, origin)
}

func addModel(m *map[string]Usage, model string, u Usage) {
	if *m == nil {
		*m = make(map[string]Usage)
	}
	cur := (*m)[model]
	cur.Add(u)
	(*m)[model] = cur
}

// AddTool counts a tool call.
func (s *Summary) AddTool(t Tool) {
	if s.Tools == nil {
		s.Tools = make(map[Tool]int)
	}
	s.Tools[t]++
}

// AddFile records a file the session modified.
func (s *Summary) AddFile(p string) {
	if p == "" || len(s.Files) >= MaxSummaryFiles {
		return
	}
	for _, f := range s.Files {
		if f == p {
			return
		}
	}
	s.Files = append(s.Files, p)
}

// See records a timestamp.
func (s *Summary) See(t time.Time) { widen(&s.Start, &s.End, t) }

// widen makes first and last span t too, unless t is unknown (zero).
func widen(first, last *time.Time, t time.Time) {
	if t.IsZero() {
		return
	}
	if first.IsZero() || t.Before(*first) {
		*first = t
	}
	if t.After(*last) {
		*last = t
	}
}

// Duration is the time from the first to the last record.
func (s *Summary) Duration() time.Duration {
	if s.Start.IsZero() || s.End.IsZero() {
		return 0
	}
	return s.End.Sub(s.Start)
}

// CacheHitRate is cache reads over cache reads plus cache writes, as seed
// 002 defines it, or 0 when there were neither.
func (u Usage) CacheHitRate() float64 {
	d := u.CacheRead + u.CacheWrite
	if d == 0 {
		return 0
	}
	return float64(u.CacheRead) / float64(d)
}

// ModelNames returns the models in m, sorted.
func ModelNames(m map[string]Usage) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
