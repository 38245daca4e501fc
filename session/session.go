package session

import (
	"encoding/json"
	"strconv"
	"time"
)

// Version is the USF version stead writes. stead's extensions are optional
// and additive, so documents stay readable as USF 1.0.
const Version = "1.0"

// The names of the first CLIs stead knew, for the code and tests that
// name them. Source.CLI holds a CLI's name (these, or that of any adapter
// in adapters.All, whose package names itself), or Universal for a session
// that was authored in the universal format itself.
const (
	Claude    = "claude"
	Codex     = "codex"
	Gemini    = "gemini"
	OpenCode  = "opencode"
	Kimi      = "kimi"
	Universal = "universal"
)

// Session is one conversation in the universal format.
type Session struct {
	ID       string   `json:"id"`
	Version  string   `json:"version"`
	Source   Source   `json:"source"`
	Project  Project  `json:"project"`
	Model    Model    `json:"model"`
	Timeline []Entry  `json:"timeline"`
	Metadata Metadata `json:"metadata"`

	// Title is the session's name: a title the user or CLI gave it, or
	// empty (callers fall back to the first prompt).
	Title string `json:"title,omitempty"`
	// Parent links a fork to the session it was forked from, or a
	// subagent session to the session that spawned it.
	Parent *Link `json:"parent,omitempty"`
	// Subagents lists the subagent sessions this session spawned.
	Subagents []Link `json:"subagents,omitempty"`
	// Records holds the native records that produced no timeline entry
	// (bookkeeping, snapshots, request logs), in file order, so that a
	// same-CLI round trip loses nothing.
	Records []Record `json:"records,omitempty"`
	// Warnings lists what the reader skipped or could not understand.
	Warnings []Warning `json:"warnings,omitempty"`
}

// Source says where a session came from.
type Source struct {
	CLI        string `json:"cli"`
	OriginalID string `json:"originalId,omitempty"`

	// Path is the native file or store the session was read from.
	Path string `json:"path,omitempty"`
	// Version is the version of the CLI that wrote the session, if known.
	Version string `json:"version,omitempty"`
	// Format names the native format variant, e.g. "codex-paginated".
	Format string `json:"format,omitempty"`
}

// Project is the working directory a session ran in.
type Project struct {
	Path string `json:"path"`
	Name string `json:"name,omitempty"`
	Git  *Git   `json:"git,omitempty"`
}

// Git is the repository state a session started from.
type Git struct {
	Branch string `json:"branch"`
	Commit string `json:"commit"`
	Remote string `json:"remote,omitempty"`
}

// Model is the session's main model.
type Model struct {
	Provider string          `json:"provider"`
	Model    string          `json:"model"`
	Config   json.RawMessage `json:"config,omitempty"`
}

// Metadata holds session-wide times and totals.
type Metadata struct {
	Created      time.Time `json:"-"`
	LastModified time.Time `json:"-"`
	// Tokens totals the usage of every entry, each API response counted
	// once.
	Tokens *Usage `json:"tokens,omitempty"`
	// Cost is an estimate in US dollars, when one was computed.
	Cost *float64 `json:"cost,omitempty"`
}

// Usage counts tokens. Input excludes cached input: prompt tokens read from
// the cache are in CacheRead and tokens written to it in CacheWrite, so the
// four fields add up to everything the model processed. Reasoning is the
// part of Output spent on reasoning, when the provider reports it.
type Usage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead,omitempty"`
	CacheWrite int64 `json:"cacheWrite,omitempty"`
	Reasoning  int64 `json:"reasoning,omitempty"`
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.Input += o.Input
	u.Output += o.Output
	u.CacheRead += o.CacheRead
	u.CacheWrite += o.CacheWrite
	u.Reasoning += o.Reasoning
}

// Sub takes o from u.
func (u *Usage) Sub(o Usage) {
	u.Input -= o.Input
	u.Output -= o.Output
	u.CacheRead -= o.CacheRead
	u.CacheWrite -= o.CacheWrite
	u.Reasoning -= o.Reasoning
}

// Total is every token the model read or wrote.
func (u Usage) Total() int64 { return u.Input + u.Output + u.CacheRead + u.CacheWrite }

// Context is the size of the prompt: input plus cache reads and writes.
func (u Usage) Context() int64 { return u.Input + u.CacheRead + u.CacheWrite }

// IsZero reports whether no tokens are counted.
func (u Usage) IsZero() bool { return u == Usage{} }

// Link points at another session.
type Link struct {
	// Kind is LinkFork or LinkSubagent.
	Kind string `json:"kind"`
	CLI  string `json:"cli,omitempty"`
	ID   string `json:"id"`
	// Path is the other session's native file, when known.
	Path string `json:"path,omitempty"`
	// AgentID is the CLI's id for a subagent.
	AgentID string `json:"agentId,omitempty"`
	// CallID is the tool call that spawned a subagent.
	CallID string `json:"callId,omitempty"`
	// EntryID is where a fork branched off, when known.
	EntryID string `json:"entryId,omitempty"`
}

// Link kinds.
const (
	LinkFork     = "fork"
	LinkSubagent = "subagent"
)

// Record is a native record kept verbatim.
type Record struct {
	// Line is the record's 1-based line in Source.Path.
	Line   int             `json:"line"`
	Record json.RawMessage `json:"record"`
}

// Warning reports input the reader skipped or could not understand.
type Warning struct {
	Path    string `json:"path,omitempty"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

func (w Warning) String() string {
	switch {
	case w.Path != "" && w.Line > 0:
		return w.Path + ":" + strconv.Itoa(w.Line) + ": " + w.Message
	case w.Path != "":
		return w.Path + ": " + w.Message
	case w.Line > 0:
		return "line " + strconv.Itoa(w.Line) + ": " + w.Message
	}
	return w.Message
}

// WithoutNative returns a copy of s without native records: no Records and
// no Native on entries. s is not changed.
func (s *Session) WithoutNative() *Session {
	c := *s
	c.Records = nil
	c.Timeline = append([]Entry(nil), s.Timeline...)
	for i := range c.Timeline {
		c.Timeline[i].Native = nil
	}
	return &c
}
