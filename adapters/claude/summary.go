package claude

import (
	"bytes"
	"hash/fnv"
	"io"
	"os"
	"time"

	"github.com/stead-dev/stead/adapters/internal/history"
	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// TitleMax is the most bytes of a first prompt a summary keeps as title.
const TitleMax = 200

// Summarize scans a Claude Code session file for listing and statistics.
// It walks each record's structure but copies only the few small values it
// needs, and stops reading a record as soon as the rest cannot matter, so
// its memory does not depend on record or file size. Lines it cannot parse
// are counted in Summary.Skipped.
//
// With session.DetailList it reads less: of an assistant record only the
// content's block types, of a tool result only that it is one. Those
// records' timestamps are then not read, so the end time can be early;
// SummarizeFile reads the file's tail to settle it.
func Summarize(r io.Reader, detail session.Detail) (session.Summary, error) {
	sum, _, err := summarize(r, "", detail)
	return sum, err
}

// summarize is Summarize of the file at path ("" for a stream), also
// returning the offset of the last record whose time a summary counts.
func summarize(r io.Reader, path string, detail session.Detail) (session.Summary, int64, error) {
	s := jsonl.GetScanner(r)
	defer jsonl.PutScanner(s)
	return summarizeWith(s, path, detail)
}

func summarizeWith(s *jsonl.Scanner, path string, detail session.Detail) (session.Summary, int64, error) {
	var z summarizer
	z.list = detail == session.DetailList
	z.sum.CLI = session.Claude
	for s.NextLine() {
		z.l.reset()
		z.parseLine(s)
		s.Finish()
		if s.Failed() {
			jsonl.SkipFailed(&z.sum, s, path)
			continue
		}
		z.origin()
		z.history.Record(&z.sum, z.l.ts)
		if z.commit() {
			z.lastTimed = s.LineOffset()
		}
	}
	z.history.Finish(&z.sum)
	return z.sum, z.lastTimed, s.Err()
}

type summarizer struct {
	list       bool  // session.DetailList
	assistants int   // assistant records read so far
	lastTimed  int64 // offset of the last record whose time counts
	sum        session.Summary
	l          line
	sessionID  string
	titleFrom  int // 0 none, 1 first prompt, 2 ai-title, 3 custom-title
	usageSeen  jsonl.Recent
	lastModel  string
	agent      bool
	forkLinked bool
	results    recentSet     // uuids of the tool result records read
	history    history.Split // of a session stead wrote
	provenance bool          // its steadOrigin was read
}

// line holds what one record said. Byte slices are reused between lines.
type line struct {
	typ, role, msgID, model, requestID, reqSession, sessionID, agentID, cwd, title, customTitle []byte
	ts                                                                                          time.Time
	usage                                                                                       session.Usage
	hasUsage, contentString, isMeta, isCompactSummary, isAPIError, sidechain                    bool
	uuid                                                                                        []byte
	textRuns, toolResults, toolErrors                                                           int
	done                                                                                        bool // a listing needs nothing more from this record
	// seed-era top-level tool records
	name    []byte
	isError bool
	// steadOrigin, on the first record of a session stead wrote
	origin bool
	prov   history.Origin // stead's provenance, on a session it wrote
}

func (l *line) reset() {
	*l = line{
		typ: l.typ[:0], role: l.role[:0], msgID: l.msgID[:0], model: l.model[:0],
		requestID: l.requestID[:0], reqSession: l.reqSession[:0], sessionID: l.sessionID[:0],
		agentID: l.agentID[:0], cwd: l.cwd[:0], title: l.title[:0], customTitle: l.customTitle[:0],
		name: l.name[:0], uuid: l.uuid[:0],
		prov: l.prov.Empty(),
	}
}

// relevant reports whether a record type can affect a summary.
func relevant(typ []byte) bool {
	switch string(typ) {
	case "user", "assistant", "system", "summary", "tool_use", "tool_result", "custom-title", "ai-title":
		return true
	}
	return false
}

func (z *summarizer) parseLine(s *jsonl.Scanner) {
	l := &z.l
	if !s.BeginObject() {
		return
	}
	for s.NextKey() {
		switch string(s.Key()) {
		case "type":
			l.typ = append(l.typ, s.String(64)...)
			if !relevant(l.typ) {
				return
			}
		case "message":
			z.parseMessage(s)
			if l.done {
				return
			}
			if string(l.role) == "assistant" {
				// What follows an assistant message is a flat run of small
				// fields; pick the few that count out of it rather than
				// walking it.
				if rest, ok := s.Rest(); ok {
					z.assistantTail(rest)
					return
				}
			}
		case "timestamp":
			l.ts = jsonl.Time(s.String(64))
		case "sessionId":
			l.sessionID = append(l.sessionID, s.String(256)...)
		case "agentId":
			l.agentID = append(l.agentID, s.String(256)...)
		case "cwd":
			if z.sum.Project == "" {
				l.cwd = append(l.cwd, s.String(4096)...)
			} else {
				s.Skip()
			}
		case "requestId":
			l.requestID = append(l.requestID, s.String(256)...)
		case "requestSessionId":
			l.reqSession = append(l.reqSession, s.String(256)...)
		case "isMeta":
			l.isMeta = s.Bool()
		case "isSidechain":
			l.sidechain = s.Bool()
		case "uuid":
			l.uuid = append(l.uuid, s.String(256)...)
		case "isCompactSummary":
			l.isCompactSummary = s.Bool()
		case "isApiErrorMessage":
			l.isAPIError = s.Bool()
		case "customTitle", "aiTitle":
			l.customTitle = append(l.customTitle, s.String(TitleMax)...)
		case "name":
			l.name = append(l.name, s.String(256)...)
		case "is_error":
			l.isError = s.Bool()
		case "steadOrigin":
			z.parseOrigin(s)
		case "attachment":
			return // injected context: nothing here counts
		case "toolUseResult":
			// The CLI's own copy of a tool's output, often large and
			// always after what a summary needs, once the file's id and
			// project are known.
			if len(l.typ) > 0 && z.sessionID != "" && z.sum.Project != "" {
				return
			}
			s.Skip()
		default:
			s.Skip()
		}
	}
}

func (z *summarizer) parseMessage(s *jsonl.Scanner) {
	l := &z.l
	if s.Kind() == '"' { // seed-era plain-string message
		z.text(s.String(TitleMax))
		l.contentString = true
		return
	}
	if !s.BeginObject() {
		return
	}
	for s.NextKey() {
		switch string(s.Key()) {
		case "id":
			l.msgID = append(l.msgID, s.String(256)...)
		case "role":
			l.role = append(l.role, s.String(32)...)
		case "model":
			l.model = append(l.model, s.String(256)...)
		case "usage":
			z.parseUsage(s)
		case "content":
			z.parseContent(s)
			// A listing needs only the content of an assistant record
			// (after the first few, which may say the file is a fork).
			if z.list && (string(l.role) == "assistant" && z.assistants >= forkProbe || l.toolResults > 0) {
				l.done = true
				if len(l.typ) == 0 {
					// The record's type comes after its message.
					l.typ = append(l.typ, l.role...)
				}
				return
			}
		default:
			s.Skip()
		}
	}
}

func (z *summarizer) parseUsage(s *jsonl.Scanner) {
	l := &z.l
	if !s.BeginObject() {
		return
	}
	l.hasUsage = true
	for s.NextKey() {
		switch string(s.Key()) {
		case "input_tokens":
			l.usage.Input = s.Int()
		case "output_tokens":
			l.usage.Output = s.Int()
		case "cache_read_input_tokens":
			l.usage.CacheRead = s.Int()
		case "cache_creation_input_tokens":
			l.usage.CacheWrite = s.Int()
		case "output_tokens_details":
			if !s.BeginObject() {
				return
			}
			for s.NextKey() {
				if string(s.Key()) == "thinking_tokens" {
					l.usage.Reasoning = s.Int()
				} else {
					s.Skip()
				}
			}
		default:
			s.Skip()
		}
	}
}

// assistantTail reads the fields a summary needs from what follows an
// assistant record's message.
func (z *summarizer) assistantTail(rest []byte) {
	l := &z.l
	if len(l.typ) == 0 {
		l.typ = append(l.typ, "assistant"...)
	}
	jsonl.EachField(rest, func(k, v []byte) bool {
		switch string(k) {
		case "requestId":
			l.requestID = append(l.requestID, v...)
		case "timestamp":
			l.ts = jsonl.Time(v)
		case "sessionId":
			l.sessionID = append(l.sessionID, v...)
		case "requestSessionId":
			l.reqSession = append(l.reqSession, v...)
		case "agentId":
			l.agentID = append(l.agentID, v...)
		case "isApiErrorMessage":
			l.isAPIError = string(v) == "true"
		case "steadOrigin":
			if !z.provenance {
				z.originFields(v)
			}
		case "cwd":
			if z.sum.Project == "" {
				if u, ok := jsonl.Unquote(v); ok {
					l.cwd = append(l.cwd, u...)
				}
			}
		}
		return true
	})
}

// parseOrigin reads the provenance stead puts on the first record of a
// session it writes: {"cli", "id", "tool", "written"}.
func (z *summarizer) parseOrigin(s *jsonl.Scanner) {
	if z.provenance {
		s.Skip()
		return
	}
	z.l.origin = z.l.prov.Parse(s)
}

// originFields reads the provenance from its raw JSON object, in what
// follows an assistant record's message.
func (z *summarizer) originFields(v []byte) {
	l := &z.l
	l.origin = true
	jsonl.EachField(v, func(k, v []byte) bool {
		u, ok := jsonl.Unquote(v)
		if !ok {
			return true
		}
		switch string(k) {
		case "cli":
			l.prov.CLI = append(l.prov.CLI, u...)
		case "id":
			l.prov.ID = append(l.prov.ID, u...)
		case "written":
			l.prov.Written = append(l.prov.Written, u...)
		}
		return true
	})
}

// origin takes the provenance of a session stead wrote, from its first
// record.
func (z *summarizer) origin() {
	l := &z.l
	if !l.origin || z.provenance {
		return
	}
	z.provenance = true
	l.prov.Mark(&z.history, jsonl.Time)
}

// text notes a text block: the first one of a user record may become the
// session's title.
func (z *summarizer) text(b []byte) {
	if len(z.l.title) == 0 && len(b) > 0 {
		z.l.title = append(z.l.title, b...)
	}
}

func (z *summarizer) parseContent(s *jsonl.Scanner) {
	l := &z.l
	switch s.Kind() {
	case '"':
		l.contentString = true
		z.text(s.String(TitleMax))
		return
	case '[':
	default:
		s.Skip()
		return
	}
	s.BeginArray()
	inText := false
	var typ, name, path []byte
	for s.NextElem() {
		if !s.BeginObject() {
			return
		}
		typ, name, path = typ[:0], name[:0], path[:0]
		isErr, hasText := false, false
		for s.NextKey() {
			switch string(s.Key()) {
			case "type":
				typ = append(typ, s.String(64)...)
				if z.list && string(typ) == "tool_result" {
					l.toolResults++
					return // a listing only needs to know it is a result
				}
			case "text":
				if string(l.role) == "assistant" {
					hasText = len(s.RawString(1)) > 0 // only whether it is empty
				} else {
					t := s.String(TitleMax)
					hasText = len(t) > 0
					z.text(t)
				}
			case "name":
				name = append(name, s.String(256)...)
			case "is_error":
				isErr = s.Bool()
			case "input":
				if z.list {
					s.Skip()
				} else {
					path = readInputPath(s, path)
				}
			default:
				s.Skip()
			}
		}
		switch string(typ) {
		case "text":
			if hasText && !inText {
				l.textRuns++
			}
			inText = inText || hasText
		case "thinking", "redacted_thinking":
			// Thinking after text starts a new reply in the timeline.
			if inText {
				inText = false
			}
		case "tool_use", "server_tool_use", "mcp_tool_use":
			inText = false
			n := string(name)
			z.sum.AddTool(UniversalTool(n))
			if modifiesFiles(n) != "" && len(path) > 0 {
				z.sum.AddFile(string(path))
			}
		case "tool_result":
			inText = false
			l.toolResults++
			if isErr {
				l.toolErrors++
			}
		}
	}
}

// forkProbe is how many assistant records a listing reads whole: a fork's
// copied records come first and say where they were copied from.
const forkProbe = 2

// readInputPath returns the file a tool input names (file_path or
// notebook_path), appended to dst.
func readInputPath(s *jsonl.Scanner, dst []byte) []byte {
	if s.Kind() != '{' {
		s.Skip()
		return dst
	}
	s.BeginObject()
	for s.NextKey() {
		switch string(s.Key()) {
		case "file_path", "notebook_path":
			if len(dst) == 0 {
				dst = append(dst, s.String(4096)...)
			} else {
				s.Skip()
			}
		default:
			s.Skip()
		}
	}
	return dst
}

// commit folds the record into the summary and reports whether it is one
// whose time counts.
func (z *summarizer) commit() bool {
	l, sum := &z.l, &z.sum
	if z.sessionID == "" && len(l.sessionID) > 0 {
		z.sessionID = string(l.sessionID)
		sum.ID = z.sessionID
		if len(l.agentID) > 0 {
			z.agent = true
			sum.ID = "agent-" + string(l.agentID)
			sum.Parent = &session.Link{Kind: session.LinkSubagent, CLI: session.Claude, ID: z.sessionID, AgentID: string(l.agentID)}
		}
	}
	if sum.Project == "" && len(l.cwd) > 0 {
		sum.Project = string(l.cwd)
	}
	switch string(l.typ) {
	case "user":
		sum.See(l.ts)
		if l.toolResults > 0 && len(l.uuid) > 0 && z.results.seen(l.uuid) {
			return true // a copy of a tool result already counted
		}
		sum.ToolErrors += l.toolErrors
		if l.toolResults > 0 || l.isMeta || l.isCompactSummary || len(l.title) == 0 {
			return true
		}
		if isCommandText(l.title) {
			// A slash command before any prompt names the session by
			// its arguments.
			if z.titleFrom == 0 {
				if t := commandTitle(l.title); t != "" {
					sum.Title, z.titleFrom = t, 1
				}
			}
			return true
		}
		if sidechain(l.sidechain, len(l.agentID) > 0) {
			return true // a Task subagent's prompt in the main file
		}
		sum.Turns++
		sum.Messages++
		if z.titleFrom == 0 {
			sum.Title = jsonl.Title(l.title)
			z.titleFrom = 1
		}
		return true
	case "assistant":
		z.assistants++
		sum.See(l.ts)
		if l.contentString {
			sum.Messages++
		} else {
			sum.Messages += l.textRuns
		}
		z.usage()
	case "system", "summary":
		sum.See(l.ts)
	case "tool_use":
		sum.See(l.ts)
		sum.AddTool(UniversalTool(string(l.name)))
	case "tool_result":
		sum.See(l.ts)
		if l.isError {
			sum.ToolErrors++
		}
	default:
		z.title()
		return false
	}
	return true
}

// title takes a title record.
func (z *summarizer) title() {
	l, sum := &z.l, &z.sum
	switch string(l.typ) {
	case "ai-title":
		if z.titleFrom < 2 && len(l.customTitle) > 0 {
			sum.Title, z.titleFrom = jsonl.Title(l.customTitle), 2
		}
	case "custom-title":
		if len(l.customTitle) > 0 {
			sum.Title, z.titleFrom = jsonl.Title(l.customTitle), 3
		}
	}
}

func (z *summarizer) usage() {
	l, sum := &z.l, &z.sum
	if !l.hasUsage || string(l.model) == "<synthetic>" {
		return
	}
	if len(l.msgID) > 0 && z.usageSeen.Seen(l.msgID, l.requestID) {
		return
	}
	if z.lastModel != string(l.model) {
		z.lastModel = string(l.model)
	}
	if len(l.reqSession) > 0 && !bytes.Equal(l.reqSession, l.sessionID) {
		origin := string(l.reqSession)
		sum.AddBorrowed(origin, l.ts, z.lastModel, l.usage)
		if !z.agent && !z.forkLinked {
			z.forkLinked = true
			sum.Parent = &session.Link{Kind: session.LinkFork, CLI: session.Claude, ID: origin}
		}
		return
	}
	sum.AddUsage(l.ts, z.lastModel, l.usage)
	if len(l.msgID) > 0 {
		sum.Responses = append(sum.Responses, session.ResponseUsage{Key: responseKey(l.msgID, l.requestID), Model: z.lastModel,
			Usage: l.usage, Bucket: sum.BucketOf(l.ts)})
	}
}

// responseKey names a response across files: its message and request
// ids, as ccusage counts a response once.
func responseKey(msgID, requestID []byte) uint64 {
	h := fnv.New64a()
	h.Write(msgID)
	h.Write([]byte{0})
	h.Write(requestID)
	return h.Sum64()
}

func isCommandText(b []byte) bool {
	for _, p := range []string{"<command-name>", "<command-message>", "<local-command-", "<bash-", "[Request interrupted by user"} {
		if bytes.HasPrefix(b, []byte(p)) {
			return true
		}
	}
	return false
}

// SummarizeFile summarises the session file ref names. Claude Code names a
// session by its file, so the file name is the id even when the records say
// otherwise; a subagent's file is named after its agent.
func SummarizeFile(ref session.Ref, detail session.Detail) (session.Summary, error) {
	f, err := storefile.Open(ref.Path)
	if err != nil {
		return session.Summary{}, err
	}
	defer f.Close()
	sum, lastTimed, err := summarize(f, ref.Path, detail)
	if err != nil {
		return sum, err
	}
	if detail == session.DetailList {
		seeTail(f, lastTimed, &sum)
	}
	sum.CLI, sum.Path, sum.Size = session.Claude, ref.Path, ref.Size
	if ref.ID != "" && (sum.Parent == nil || sum.Parent.Kind != session.LinkSubagent) {
		sum.ID = ref.ID
	}
	if sum.Parent == nil && ref.Parent != "" {
		sum.Parent = &session.Link{Kind: session.LinkSubagent, CLI: session.Claude, ID: ref.Parent}
	}
	return sum, nil
}

// tailSize is how much of a file's end seeTail reads for timestamps.
const tailSize = 256 << 10

// seeTail reads the timestamps of the records from the last one whose
// time counts (at offset lastTimed), or from tailSize bytes before the end
// if that is earlier, so a listing's end time is right although it did not
// read assistant records' timestamps.
func seeTail(f *os.File, lastTimed int64, sum *session.Summary) {
	info, err := f.Stat()
	if err != nil {
		return
	}
	off := min(info.Size()-tailSize, lastTimed)
	if off < 0 {
		off = 0
	}
	s := jsonl.GetScanner(io.NewSectionReader(f, off, info.Size()-off))
	defer jsonl.PutScanner(s)
	// The first line may be cut, unless it starts at lastTimed.
	first := off > 0 && off != lastTimed
	for s.NextLine() {
		if first {
			first = false
			continue
		}
		if !s.BeginObject() {
			continue
		}
		var ts time.Time
		var typ []byte
		for s.NextKey() {
			switch string(s.Key()) {
			case "timestamp":
				ts = jsonl.Time(s.String(64))
			case "type":
				typ = append(typ[:0], s.String(64)...)
			default:
				s.Skip()
			}
		}
		if h := sum.History; h != nil && !ts.After(h.Written) {
			continue // copied history: not the session's own time
		}
		// The same records whose times a full summary sees.
		switch string(typ) {
		case "user", "assistant", "system", "summary", "tool_use", "tool_result":
			if !s.Failed() {
				sum.See(ts)
			}
		}
	}
}
