package agenthistory

import (
	"bytes"
	"fmt"
	"io"

	"github.com/stead-dev/stead/session"
)

// sessionObject is the session object of s's line without its records
// and warnings, which follow it (see sessionHead); hasRecords says whether
// s has records.
func sessionObject(s *session.Session, names Names, strict, hasRecords bool) *sessionJSON {
	o := &sessionJSON{
		ID:               s.ID,
		Agent:            names.Agent(s.Source.CLI),
		Workspace:        s.Project.Path,
		WorkspaceEncoded: encodeWorkspace(s.Project.Path),
		StartedAt:        timePtr(s.Metadata.Created),
		EndedAt:          timePtr(s.Metadata.LastModified),
		Source:           sourceJSON{Type: "local", Path: s.Source.Path},
		IsAgentSession:   isAgentSession(s),
	}
	if s.Parent != nil {
		o.ParentSessionID = strPtr(&s.Parent.ID)
		o.AgentID = strPtr(&s.Parent.AgentID)
	}
	x := &sessionExt{
		OriginalID:  s.Source.OriginalID,
		CLIVersion:  s.Source.Version,
		Format:      s.Source.Format,
		ProjectName: s.Project.Name,
		Git:         s.Project.Git,
		Title:       s.Title,
		Tokens:      s.Metadata.Tokens,
		Cost:        s.Metadata.Cost,
		Parent:      s.Parent,
		Subagents:   s.Subagents,
	}
	if s.Version != "" && s.Version != session.Version {
		x.Version = s.Version
	}
	if names.CLI(o.Agent) != s.Source.CLI {
		x.CLI = s.Source.CLI
	}
	if m := s.Model; m.Provider != "" || m.Model != "" || len(m.Config) > 0 {
		x.Model = &modelJSON{Provider: m.Provider, Model: m.Model}
		x.Model.Config, x.Model.ConfigText = raw(m.Config, strict)
	}
	if x.Version != "" || x.CLI != "" || x.OriginalID != "" || x.CLIVersion != "" || x.Format != "" ||
		x.ProjectName != "" || x.Git != nil || x.Model != nil || x.Title != "" || x.Tokens != nil ||
		x.Cost != nil || x.Parent != nil || len(x.Subagents) > 0 || hasRecords || len(s.Warnings) > 0 {
		o.Stead = x
	}
	return o
}

// Records gives a session's native records one at a time, in order, for
// WriteStream; Next returns io.EOF after the last. The record it returns
// may be reused by the next call.
type Records interface {
	Next() (*session.Record, error)
}

// sliceRecords gives the records of a slice.
type sliceRecords struct {
	rs []session.Record
	i  int
}

func (s *sliceRecords) Next() (*session.Record, error) {
	if s.i >= len(s.rs) {
		return nil, io.EOF
	}
	s.i++
	return &s.rs[s.i-1], nil
}

// encodeSession encodes s's session object with enc, as encodeMessage
// encodes a message: the bytes writeSession writes.
func encodeSession(enc func(any) ([]byte, error), s *session.Session, names Names) ([]byte, error) {
	var buf bytes.Buffer
	err := writeSession(&buf, enc, s, names, nil, func() error { return nil })
	return buf.Bytes(), err
}

// writeSession writes s's session object to out, its records read from
// recs (s.Records when recs is nil) and each encoded on its own with enc,
// so that they need not be held, nor encoded, at once. The object is the
// one json encodes, field for field.
//
// The object's head (all but the records and warnings, which come last in
// session.stead) is encoded first; only then is started called, and
// anything written: a session the format cannot hold (a cost that is not
// a number) is refused with nothing written. An error after that leaves
// the object half written.
func writeSession(out io.Writer, enc func(any) ([]byte, error), s *session.Session, names Names, recs Records, started func() error) error {
	if recs == nil {
		recs = &sliceRecords{rs: s.Records}
	}
	first, err := recs.Next()
	if err != nil && err != io.EOF {
		return err
	}
	var one session.Record // the first record, kept while the head is encoded
	if first != nil {
		one = *first
	}
	hasRecords := first != nil
	o := sessionObject(s, names, false, hasRecords)
	head, err := enc(o)
	if err != nil {
		o = sessionObject(s, names, true, hasRecords)
		if head, err = enc(o); err != nil {
			return err
		}
	}
	if o.Stead == nil || (!hasRecords && len(s.Warnings) == 0) {
		if err := started(); err != nil {
			return err
		}
		_, err := out.Write(head)
		return err
	}
	head = head[:len(head)-2] // the closing braces of stead and the object
	sep := ","
	if head[len(head)-1] == '{' {
		sep = "" // stead holds nothing else
	}
	if err := started(); err != nil {
		return err
	}
	if _, err := out.Write(head); err != nil {
		return err
	}
	if hasRecords {
		io.WriteString(out, sep+`"records":[`)
		sep = ","
		for r, i := &one, 0; ; i++ {
			if i > 0 {
				io.WriteString(out, ",")
			}
			if err := writeRecord(out, enc, r); err != nil {
				return err
			}
			if r, err = recs.Next(); err == io.EOF {
				break
			} else if err != nil {
				return err
			}
		}
		io.WriteString(out, "]")
	}
	if len(s.Warnings) > 0 {
		b, err := enc(s.Warnings)
		if err != nil {
			return err
		}
		io.WriteString(out, sep+`"warnings":`)
		if _, err := out.Write(b); err != nil {
			return err
		}
	}
	_, err = io.WriteString(out, "}}")
	return err
}

// writeRecord writes a native record of the session object, encoded with
// enc; a long one is written as it is encoded (see bigValues).
func writeRecord(out io.Writer, enc func(any) ([]byte, error), r *session.Record) error {
	rj := recordJSON{Line: r.Line}
	rj.Record, rj.Text = raw(r.Record, false)
	var big bigValues
	if big.raw(&rj.Record) {
		big.str(&rj.Text)
		if len(big.vals) > 0 {
			if small, err := enc(&rj); err == nil {
				if done, err := big.splice(out, small); done || err != nil {
					return err
				}
			}
		}
	}
	rj = recordJSON{Line: r.Line}
	rj.Record, rj.Text = raw(r.Record, false)
	b, err := enc(&rj)
	if err != nil {
		rj.Record, rj.Text = raw(r.Record, true)
		if b, err = enc(&rj); err != nil {
			return fmt.Errorf("record of line %d: %w", r.Line, err)
		}
	}
	_, err = out.Write(b)
	return err
}

// isAgentSession reports whether s is a subagent's run: linked to the
// session that spawned it. A fork is not an agent session, though its
// parent_session_id is set. It looks at the link only, not the timeline,
// so that the session object, first in its line, can be written before
// the entries are read (see WriteStream).
func isAgentSession(s *session.Session) bool {
	return s.Parent != nil && s.Parent.Kind == session.LinkSubagent
}

// role is the role of the message an entry goes in. Tool results are user
// messages, as in the Claude API (the seed's "Questions for Review" 1).
func role(t session.EntryType) string {
	switch t {
	case session.Assistant, session.ToolCall:
		return "assistant"
	case session.System:
		return "system"
	}
	return "user"
}

// messageEnd returns where the message starting at tl[i] ends. The
// entries of one model response (consecutive assistant and tool_call
// entries sharing a MessageID) make one message; any other entry is a
// message of its own.
func messageEnd(tl []session.Entry, i int) int {
	for i++; i < len(tl) && sameResponse(&tl[i-1], &tl[i]); i++ {
	}
	return i
}

func sameResponse(a, b *session.Entry) bool {
	return a.MessageID != "" && a.MessageID == b.MessageID && groupable(a.Type) && groupable(b.Type)
}

func groupable(t session.EntryType) bool { return t == session.Assistant || t == session.ToolCall }

// checkEntries reports the first entry a session line cannot hold.
func checkEntries(s *session.Session) error {
	for i := range s.Timeline {
		if !s.Timeline[i].Type.Valid() {
			return fmt.Errorf("agenthistory: session %q entry %q has invalid type %q", s.ID, s.Timeline[i].ID, s.Timeline[i].Type)
		}
	}
	return nil
}

// msgCtx is what encoding a message needs to know of its session, and
// the scratch space it encodes messages in: the value message returns is
// valid until the next call.
type msgCtx struct {
	cwd, branch, version string
	// ids gives a tool result the tool_name of its call: the first call
	// with its id in the same or an earlier message (a call further on
	// is not known yet when a stream's result is written). The caller
	// adds each message to it before encoding the message.
	ids *lineIndex
	// strict makes raw JSON values checked in full rather than trusted to
	// be valid when they look compact (see encodeMessage).
	strict bool

	m     messageJSON
	meta  metadataJSON
	model modelInfoJSON
	usage tokenUsageJSON
	exts  []entryExt
	rest  []*entryExt
	ts    string
}

// newMsgCtx returns the context of a session's messages; it looks at the
// session's project and source only, not its timeline.
func newMsgCtx(s *session.Session, ids *lineIndex) *msgCtx {
	c := &msgCtx{cwd: s.Project.Path, version: s.Source.Version, ids: ids}
	if s.Project.Git != nil {
		c.branch = s.Project.Git.Branch
	}
	return c
}

// toolName is a call's tool_name: the CLI's name, or the universal one
// when the entry has none.
func toolName(e *session.Entry) *string {
	if e.OriginalTool != "" {
		return &e.OriginalTool
	}
	return (*string)(&e.Tool)
}

var emptyString string

// encodeMessage encodes the entries of one message with enc. Raw JSON
// values (tool inputs, native records) that look compact are first
// trusted to be valid, since enc checks them anyway; when enc finds one
// that is not, the message is encoded again with each checked, and the
// invalid ones written as strings.
func (c *msgCtx) encodeMessage(enc func(any) ([]byte, error), es []session.Entry, index int, first, all bool) ([]byte, error) {
	b, err := enc(c.message(es, index, first, all))
	if err != nil {
		c.strict = true
		b, err = enc(c.message(es, index, first, all))
		c.strict = false
	}
	return b, err
}

// message builds the entries of one message. The session-wide metadata
// (cwd, git_branch, agent_version) is written on the first message, or on
// every message when all is true.
func (c *msgCtx) message(es []session.Entry, index int, first, all bool) *messageJSON {
	n := len(es)
	content := c.m.Content
	if cap(content) < n {
		content = make(blocks, n)
	}
	content = content[:n]
	if cap(c.exts) < n {
		c.exts = make([]entryExt, n)
	}
	exts := c.exts[:n]
	e0 := &es[0]
	c.m = messageJSON{
		Index:      index,
		UUID:       strPtr(&e0.ID),
		ParentUUID: strPtr(&e0.ParentID),
		Role:       role(e0.Type),
		Content:    content,
	}
	if !e0.Timestamp.IsZero() {
		c.ts = session.FormatTime(e0.Timestamp)
		c.m.Timestamp = &c.ts
	}
	meta := &c.meta
	*meta = metadataJSON{}
	if first || all {
		meta.CWD, meta.GitBranch, meta.AgentVersion = c.cwd, c.branch, c.version
	}
	meta.IsMeta = e0.Kind == session.KindMeta
	if e0.Model != "" {
		c.model = modelInfoJSON{Name: e0.Model}
		meta.Model = &c.model
	}
	x := &exts[0]
	*x = entryExt{MessageID: e0.MessageID}
	if u := e0.Usage; u != nil {
		c.usage = tokenUsageJSON{InputTokens: u.Input, OutputTokens: u.Output,
			CacheCreationTokens: u.CacheWrite, CacheReadTokens: u.CacheRead}
		meta.TokenUsage = &c.usage
		x.ReasoningTokens = u.Reasoning
	}
	rest := c.rest[:0]
	for i := range es {
		e := &es[i]
		b := &content[i]
		*b = blockJSON{}
		y := &exts[i]
		if i > 0 {
			*y = entryExt{}
		}
		c.block(b, y, e)
		if i == 0 {
			if e.Kind != session.KindMeta {
				y.Kind = e.Kind
			}
			continue
		}
		y.Kind = e.Kind
		if b.Type == "text" || *b.ToolID != e.ID {
			y.ID = e.ID
		}
		if !e.Timestamp.Equal(e0.Timestamp) {
			t := session.FormatTime(e.Timestamp)
			y.Timestamp = &t
		}
		if e.ParentID != es[i-1].ID {
			y.ParentID = &e.ParentID
		}
		if e.Model != e0.Model {
			y.Model = &e.Model
		}
		y.Usage = e.Usage
		rest = append(rest, y)
	}
	for len(rest) > 0 && rest[len(rest)-1].empty() {
		rest = rest[:len(rest)-1]
	}
	c.rest = rest
	if len(rest) > 0 {
		x.Rest = rest
	}
	if !x.empty() {
		meta.Stead = x
	}
	if *meta != (metadataJSON{}) {
		c.m.Metadata = meta
	}
	return &c.m
}

// block fills b with e's content block and x with what the block cannot
// hold of e, bar the fields message sets.
func (c *msgCtx) block(b *blockJSON, x *entryExt, e *session.Entry) {
	switch e.Type {
	case session.ToolCall:
		b.Type = "tool_use"
		b.ToolID = &e.ID
		b.ToolName = toolName(e)
		x.Tool = string(e.Tool)
		if e.OriginalTool == "" && e.Tool != "" {
			x.OriginalTool = &e.OriginalTool
		}
		b.Input, x.InputText = inputValue(e.Input, c.strict)
	case session.ToolResult:
		b.Type = "tool_result"
		b.ToolID = &e.CallID
		b.ToolName = c.ids.toolName(e.CallID)
		if b.ToolName == nil {
			b.ToolName = &emptyString
		}
		b.Output = &e.Output
		b.IsError = &no
		if !e.Success {
			b.IsError = &yes
		}
		x.Error = e.Error
	default:
		b.Type = "text"
		b.Text = &e.Content
	}
	x.Status = string(e.Status)
	x.Thinking = e.Thinking
	x.Sidechain = e.Sidechain
	x.Reasoning = e.Reasoning
	x.Attachments = e.Attachments
	x.Subagent = e.Subagent
	x.Origin = e.Origin
	x.CLI = e.CLI
	if n := e.Native; n != nil {
		x.Native = &nativeJSON{Line: n.Line, Part: n.Part, Path: n.Path}
		x.Native.Record, x.Native.Text = raw(n.Record, c.strict)
	}
}
