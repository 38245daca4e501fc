package kimi

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/stead-dev/stead/adapters/internal/history"
	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// TitleMax is the most bytes of a first prompt a summary keeps as title.
const TitleMax = 200

// argsMax is the most bytes of a legacy tool call's arguments (a JSON
// string) read to find the file a write or edit names.
const argsMax = 64 << 10

// Summarize scans a Kimi session file (any of the three formats) for
// listing and statistics. It walks each record's structure but copies only
// the few small values it needs, so its memory does not depend on record or
// file size. It counts what the decoder makes entries of, by the same
// rules: user prompts, assistant text parts, tool calls and failed
// results, and each model response's usage once (a Kimi Code step's
// step.end, or its usage.record when step.end has none; a legacy
// StatusUpdate). Lines it cannot parse are counted in Summary.Skipped.
//
// With session.DetailList it leaves usage, tools, errors and files out.
func Summarize(r io.Reader, detail session.Detail) (session.Summary, error) {
	s := jsonl.GetScanner(r)
	defer jsonl.PutScanner(s)
	z := summarizer{list: detail == session.DetailList}
	return z.run(s, "")
}

type summarizer struct {
	list bool
	sum  session.Summary
	l    line

	model, alias string
	inStep       bool
	at           time.Time // when the record being counted was written; zero when it does not say
	stepRec      session.Usage
	origin       string // a fork's source, for usage before the forks-th "forked"
	forks        int
	forked       int
	titled       bool
	scratch      []byte
	done         bool          // the rest of the line counts for nothing
	history      history.Split // of a session stead wrote
}

// line is what a record holds that a summary needs, gathered whatever the
// order of its fields (the derived event records put "type" after
// "message").
type line struct {
	typ, kind, role []byte
	time, create    int64
	ts              float64 // a legacy record's, in seconds
	raw             []byte  // scratch: ts as written
	model, alias    []byte
	cwd             []byte
	usage           tokenUsage
	hasUsage        bool
	msg             msgInfo // "message", or a legacy context row's own fields
	hasMsg          bool
	ev              msgInfo // "event" of a loop record
	// a legacy metadata record's stead_origin: the provenance of a
	// session stead wrote
	hasOrigin bool
	prov      history.Origin // stead's provenance, on a session it wrote
}

// msgInfo is what a message, a legacy wire message or a loop event holds.
type msgInfo struct {
	typ, role           []byte // type: the legacy wire type or the loop event type
	kind, name, trigger []byte // the origin
	first               []byte // the first non-empty text part
	ptype               []byte // a content part's type
	calls               []call // a message's tool calls, a legacy ToolCall
	tool                call   // a loop event's tool call
	isError             bool
	usage               tokenUsage
	hasUsage            bool
	payloadFirst        []byte // a legacy payload's user input or text
	used                bool   // something was read into it
}

type call struct{ name, path []byte }

func (m *msgInfo) reset() {
	calls := m.calls[:0]
	for i := range m.calls {
		calls = append(calls, call{name: m.calls[i].name[:0], path: m.calls[i].path[:0]})
	}
	*m = msgInfo{
		typ: m.typ[:0], role: m.role[:0], kind: m.kind[:0], name: m.name[:0], trigger: m.trigger[:0],
		first: m.first[:0], ptype: m.ptype[:0], calls: calls[:0], payloadFirst: m.payloadFirst[:0],
		tool: call{name: m.tool.name[:0], path: m.tool.path[:0]},
	}
}

func (l *line) reset() {
	msg, ev := l.msg, l.ev
	if msg.used {
		msg.reset()
	}
	if ev.used {
		ev.reset()
	}
	*l = line{typ: l.typ[:0], kind: l.kind[:0], role: l.role[:0], model: l.model[:0], alias: l.alias[:0], cwd: l.cwd[:0], msg: msg, ev: ev, raw: l.raw[:0],
		prov: l.prov.Empty()}
}

// run summarises what s reads of the file at path ("" for a stream).
func (z *summarizer) run(s *jsonl.Scanner, path string) (session.Summary, error) {
	z.sum.CLI = session.Kimi
	for s.NextLine() {
		z.l.reset()
		z.done = false
		z.parseLine(s)
		s.Finish()
		if s.Failed() {
			jsonl.SkipFailed(&z.sum, s, path)
			continue
		}
		z.commit()
	}
	z.history.Finish(&z.sum)
	return z.sum, s.Err()
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
			if !l.hasMsg && !summarized(string(l.typ)) {
				// Kimi Code writes the type first and the time last: for
				// a record that counts for nothing, read the time off
				// its tail instead of walking it.
				if rest, ok := s.Rest(); ok {
					l.time = tailTime(rest)
					return
				}
			}
		case "kind":
			l.kind = append(l.kind, s.String(64)...)
		case "time":
			l.time = s.Int()
		case "created_at":
			l.create = s.Int()
		case "timestamp":
			// Seconds with a fraction: to the millisecond, the fraction
			// tells a copy's own records from its history written in the
			// same second.
			l.raw = s.AppendRaw(l.raw[:0])
			l.ts, _ = strconv.ParseFloat(string(l.raw), 64)
		case "model":
			l.model = append(l.model, s.String(256)...)
		case "modelAlias":
			l.alias = append(l.alias, s.String(256)...)
		case "environmentDisclosure":
			l.cwd = readKey(s, "cwd", l.cwd, 4096)
		case "stead_origin":
			z.parseOrigin(s)
		case "usage":
			l.hasUsage = z.readUsage(s, &l.usage)
		case "message":
			l.hasMsg = true
			if s.Kind() == '{' {
				z.parseMessage(s, &l.msg, len(l.typ) == 0)
				if z.done {
					return
				}
			} else {
				s.Skip()
			}
		case "event":
			if s.Kind() == '{' {
				z.parseMessage(s, &l.ev, false)
			} else {
				s.Skip()
			}
		case "role":
			l.msg.used = true
			if s.Kind() == '"' {
				l.role = append(l.role, s.String(64)...)
				l.msg.role = append(l.msg.role[:0], l.role...)
			} else {
				s.Skip()
			}
		case "content":
			l.msg.used = true
			l.msg.first = z.readFirstText(s, l.msg.first)
		case "tool_calls":
			l.msg.used = true
			z.readCalls(s, &l.msg)
		default:
			s.Skip()
		}
	}
}

// parseOrigin reads a legacy metadata record's stead_origin: {"cli",
// "id", "tool", "written"}.
func (z *summarizer) parseOrigin(s *jsonl.Scanner) { z.l.hasOrigin = z.l.prov.Parse(s) }

// parseMessage walks a Kimi Code context message, a legacy wire message
// ({type, payload}) or a loop event into m. wire says the message may be a
// legacy wire message: one of a type that counts for nothing ends the
// record's walk (its timestamp came first).
func (z *summarizer) parseMessage(s *jsonl.Scanner, m *msgInfo, wire bool) {
	m.used = true
	s.BeginObject()
	for s.NextKey() {
		switch string(s.Key()) {
		case "type":
			m.typ = append(m.typ, s.String(64)...)
			if wire && !summarizedWire(string(m.typ)) {
				z.done = true
				return
			}
		case "role":
			m.role = append(m.role, s.String(64)...)
		case "content":
			m.first = z.readFirstText(s, m.first)
		case "toolCalls", "tool_calls":
			z.readCalls(s, m)
		case "origin":
			z.readOrigin(s, m)
		case "isError":
			m.isError = s.Bool()
		case "usage":
			m.hasUsage = z.readUsage(s, &m.usage)
		case "part":
			z.readPart(s, m)
		case "name":
			m.tool.name = append(m.tool.name[:0], s.String(256)...)
		case "args":
			z.readArgsObject(s, m)
		case "result":
			z.readResult(s, m)
		case "payload":
			z.readPayload(s, m)
		default:
			s.Skip()
		}
	}
}

// readFirstText reads content (a string, or an array of parts) and keeps
// the first non-empty text in dst.
func (z *summarizer) readFirstText(s *jsonl.Scanner, dst []byte) []byte {
	switch s.Kind() {
	case '"':
		v := s.String(TitleMax)
		if len(dst) == 0 {
			dst = append(dst, v...)
		}
		return dst
	case '[':
	default:
		s.Skip()
		return dst
	}
	s.BeginArray()
	for s.NextElem() {
		if s.Kind() != '{' {
			s.Skip()
			continue
		}
		s.BeginObject()
		isText := false
		z.scratch = z.scratch[:0]
		for s.NextKey() {
			switch string(s.Key()) {
			case "type":
				isText = string(s.String(16)) == "text"
			case "text":
				if len(dst) == 0 {
					z.scratch = append(z.scratch, s.String(TitleMax)...)
				} else {
					s.Skip()
				}
			default:
				s.Skip()
			}
		}
		if isText && len(dst) == 0 {
			dst = append(dst, z.scratch...)
		}
	}
	return dst
}

// readPart reads a content part of a loop event.
func (z *summarizer) readPart(s *jsonl.Scanner, m *msgInfo) {
	if s.Kind() != '{' {
		s.Skip()
		return
	}
	s.BeginObject()
	for s.NextKey() {
		switch string(s.Key()) {
		case "type":
			m.ptype = append(m.ptype, s.String(16)...)
		case "text":
			if len(m.first) == 0 {
				m.first = append(m.first, s.String(TitleMax)...)
			} else {
				s.Skip()
			}
		default:
			s.Skip()
		}
	}
}

// readOrigin reads a PromptOrigin: an object, or a bare kind.
func (z *summarizer) readOrigin(s *jsonl.Scanner, m *msgInfo) {
	switch s.Kind() {
	case '"':
		m.kind = append(m.kind, s.String(64)...)
		return
	case '{':
	default:
		s.Skip()
		return
	}
	s.BeginObject()
	for s.NextKey() {
		switch string(s.Key()) {
		case "kind":
			m.kind = append(m.kind, s.String(64)...)
		case "name":
			m.name = append(m.name, s.String(64)...)
		case "trigger":
			m.trigger = append(m.trigger, s.String(64)...)
		default:
			s.Skip()
		}
	}
}

func (z *summarizer) readUsage(s *jsonl.Scanner, u *tokenUsage) bool {
	if z.list || s.Kind() != '{' {
		s.Skip()
		return false
	}
	s.BeginObject()
	for s.NextKey() {
		switch string(s.Key()) {
		case "inputOther":
			u.InputOther = s.Int()
		case "output":
			u.Output = s.Int()
		case "inputCacheRead":
			u.InputCacheRead = s.Int()
		case "inputCacheCreation":
			u.InputCacheCreation = s.Int()
		case "input_other":
			u.InputOtherL = s.Int()
		case "input_cache_read":
			u.InputCacheReadL = s.Int()
		case "input_cache_creation":
			u.InputCacheCreationL = s.Int()
		default:
			s.Skip()
		}
	}
	return true
}

// readCalls reads a message's tool calls: flat, or with a nested function
// (protocol 1.0, legacy).
func (z *summarizer) readCalls(s *jsonl.Scanner, m *msgInfo) {
	if z.list || s.Kind() != '[' {
		s.Skip()
		return
	}
	s.BeginArray()
	for s.NextElem() {
		if s.Kind() != '{' {
			s.Skip()
			continue
		}
		m.calls = append(m.calls, call{})
		c := &m.calls[len(m.calls)-1]
		s.BeginObject()
		for s.NextKey() {
			switch string(s.Key()) {
			case "name":
				c.name = append(c.name[:0], s.String(256)...)
			case "arguments":
				c.path = z.argsPath(s, c.name, c.path)
			case "function":
				if s.Kind() != '{' {
					s.Skip()
					continue
				}
				s.BeginObject()
				for s.NextKey() {
					switch string(s.Key()) {
					case "name":
						c.name = append(c.name[:0], s.String(256)...)
					case "arguments":
						c.path = z.argsPath(s, c.name, c.path)
					default:
						s.Skip()
					}
				}
			default:
				s.Skip()
			}
		}
	}
}

// argsPath reads a tool call's arguments (a JSON string) for the "path" a
// write or edit names.
func (z *summarizer) argsPath(s *jsonl.Scanner, name, dst []byte) []byte {
	if !modifiesFiles(string(name)) || s.Kind() != '"' {
		s.Skip()
		return dst
	}
	args := s.String(argsMax)
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(args, &a) == nil {
		return append(dst[:0], a.Path...)
	}
	return dst
}

// readArgsObject reads a Kimi Code tool.call's args for the "path" a write
// or edit names (the call's name comes first).
func (z *summarizer) readArgsObject(s *jsonl.Scanner, m *msgInfo) {
	if z.list || !modifiesFiles(string(m.tool.name)) {
		s.Skip()
		return
	}
	m.tool.path = readKey(s, "path", m.tool.path, 4096)
}

// readKey reads the string at key of an object into dst, skipping the
// rest.
func readKey(s *jsonl.Scanner, key string, dst []byte, max int) []byte {
	if s.Kind() != '{' {
		s.Skip()
		return dst
	}
	s.BeginObject()
	for s.NextKey() {
		if string(s.Key()) == key {
			dst = append(dst[:0], s.String(max)...)
		} else {
			s.Skip()
		}
	}
	return dst
}

// readResult reads a tool.result's result: its output and error flag.
func (z *summarizer) readResult(s *jsonl.Scanner, m *msgInfo) {
	if z.list || s.Kind() != '{' {
		s.Skip()
		return
	}
	s.BeginObject()
	for s.NextKey() {
		if string(s.Key()) == "isError" {
			m.isError = s.Bool()
		} else {
			s.Skip()
		}
	}
}

// readPayload reads the payload of a legacy wire message whose type was
// read before it (kimi-cli writes type first).
func (z *summarizer) readPayload(s *jsonl.Scanner, m *msgInfo) {
	if s.Kind() != '{' {
		s.Skip()
		return
	}
	typ := string(m.typ)
	s.BeginObject()
	for s.NextKey() {
		k := string(s.Key())
		switch {
		case k == "user_input" && (typ == "TurnBegin" || typ == "SteerInput"):
			m.payloadFirst = z.readFirstText(s, m.payloadFirst)
		case k == "token_usage" && typ == "StatusUpdate":
			m.hasUsage = z.readUsage(s, &m.usage)
		case k == "type" && typ == "ContentPart":
			m.ptype = append(m.ptype, s.String(16)...)
		case k == "text" && typ == "ContentPart":
			m.payloadFirst = append(m.payloadFirst, s.String(TitleMax)...)
		case k == "function" && typ == "ToolCall":
			if z.list || s.Kind() != '{' {
				s.Skip()
				continue
			}
			m.calls = append(m.calls, call{})
			c := &m.calls[len(m.calls)-1]
			s.BeginObject()
			for s.NextKey() {
				switch string(s.Key()) {
				case "name":
					c.name = append(c.name[:0], s.String(256)...)
				case "arguments":
					c.path = z.argsPath(s, c.name, c.path)
				default:
					s.Skip()
				}
			}
		case k == "return_value" && typ == "ToolResult":
			if z.list || s.Kind() != '{' {
				s.Skip()
				continue
			}
			s.BeginObject()
			for s.NextKey() {
				if string(s.Key()) == "is_error" {
					m.isError = s.Bool()
				} else {
					s.Skip()
				}
			}
		default:
			s.Skip()
		}
	}
}

// summarized reports whether a Kimi Code record type counts for anything
// in a summary; the others' fields but time are not read.
func summarized(typ string) bool {
	switch typ {
	case "metadata", "context.append_message", "context.append_loop_event", "profile.bind", "config.update",
		"llm.request", "usage.record", "turn.ended", "forked":
		return true
	}
	return false
}

// summarizedWire reports whether a legacy wire type counts for anything.
func summarizedWire(typ string) bool {
	switch typ {
	case "TurnBegin", "SteerInput", "TurnEnd", "StepBegin", "StatusUpdate", "ContentPart", "ToolCall", "ToolResult":
		return true
	}
	return false
}

// tailTime reads the time off the tail of a Kimi Code record
// (`…,"time":1795290344152}`), the last top-level member JSON.stringify
// writes; when the record does not end so, it looks for a top-level
// "time" member. Like Scanner.Int, a fraction is dropped.
func tailTime(rest []byte) int64 {
	if i := bytes.LastIndex(rest, []byte(`"time":`)); i >= 0 {
		t := bytes.TrimLeft(rest[i+len(`"time":`):], " ")
		j := 0
		for j < len(t) && t[j] >= '0' && t[j] <= '9' {
			j++
		}
		k := j
		for k < len(t) && (t[k] >= '0' && t[k] <= '9' || t[k] == '.' || t[k] == 'e' || t[k] == 'E' || t[k] == '+' || t[k] == '-') {
			k++
		}
		if j > 0 && string(bytes.TrimRight(t[k:], " \t\r")) == "}" {
			n, _ := strconv.ParseInt(string(t[:j]), 10, 64)
			return n
		}
	}
	var n int64
	jsonl.EachField(rest, func(key, value []byte) bool {
		if string(key) == "time" {
			n = 0
			for _, c := range value {
				if c < '0' || c > '9' {
					break
				}
				n = n*10 + int64(c-'0')
			}
		}
		return true
	})
	return n
}

func (z *summarizer) commit() {
	l := &z.l
	typ := string(l.typ)
	switch {
	case typ == "metadata":
		if l.hasOrigin {
			l.prov.Mark(&z.history, jsonl.Time)
		}
		z.sum.See(msTime(float64(l.create)))
	case typ != "" && string(l.kind) == "event":
		z.sum.See(msTime(float64(l.time)))
	case typ != "":
		t := msTime(float64(l.time))
		z.history.Record(&z.sum, t)
		z.sum.See(t)
		z.at = t
		z.code(typ)
	case l.hasMsg && len(l.role) == 0:
		t := secTime(l.ts)
		z.history.Record(&z.sum, t)
		z.sum.See(t)
		z.at = t
		z.wire(&l.msg)
	case len(l.role) > 0:
		z.history.Record(&z.sum, time.Time{}) // a context row has no time
		z.at = time.Time{}
		if l.role[0] != '_' {
			z.message(&l.msg, false)
		}
	}
}

func (z *summarizer) currentModel() string {
	if z.model != "" {
		return z.model
	}
	return z.alias
}

func (z *summarizer) addUsage(u session.Usage) {
	if z.list || u.IsZero() {
		return
	}
	if z.origin != "" && z.forked < z.forks {
		z.sum.AddBorrowed(z.origin, z.at, z.currentModel(), u)
		return
	}
	z.sum.AddUsage(z.at, z.currentModel(), u)
}

func (z *summarizer) prompt(text []byte) {
	if len(text) == 0 {
		return
	}
	z.sum.Turns++
	z.sum.Messages++
	if !z.titled {
		z.sum.Title, z.titled = jsonl.Title(text), true
	}
}

func (z *summarizer) tool(c *call) {
	if z.list {
		return
	}
	name := string(c.name)
	z.sum.AddTool(UniversalTool(name))
	if modifiesFiles(name) {
		z.sum.AddFile(string(c.path))
	}
}

func (z *summarizer) code(typ string) {
	l := &z.l
	switch typ {
	case "context.append_message":
		z.message(&l.msg, true)
	case "context.append_loop_event":
		z.loop(&l.ev)
	case "profile.bind", "config.update":
		if len(l.alias) > 0 {
			z.alias = string(l.alias)
		}
		if len(l.cwd) > 0 && z.sum.Project == "" {
			z.sum.Project = string(l.cwd)
		}
	case "llm.request":
		if len(l.alias) > 0 {
			z.alias = string(l.alias)
		}
		if len(l.model) > 0 {
			z.model = string(l.model)
		}
	case "usage.record":
		var u session.Usage
		if l.hasUsage {
			u = l.usage.universal()
		}
		if z.inStep {
			z.stepRec.Add(u)
		} else {
			z.addUsage(u)
		}
	case "turn.ended":
		z.inStep, z.stepRec = false, session.Usage{}
	case "forked":
		z.forked++
	}
}

// message counts a context message as the decoder makes entries of it.
func (z *summarizer) message(m *msgInfo, code bool) {
	switch string(m.role) {
	case "user":
		var typ session.EntryType
		var kind string
		if code {
			typ, kind = codeKind(string(m.kind), string(m.name), string(m.trigger))
		} else {
			typ, kind = legacyUserKind(string(m.first))
		}
		if typ == session.User && kind == "" {
			z.prompt(m.first)
		}
	case "assistant":
		if len(m.first) > 0 {
			z.sum.Messages++
		}
		for i := range m.calls {
			z.tool(&m.calls[i])
		}
		if m.hasUsage {
			z.addUsage(m.usage.universal())
		}
	case "tool":
		if !z.list && (m.isError || isErrorText(string(m.first))) {
			z.sum.ToolErrors++
		}
	}
}

func (z *summarizer) loop(ev *msgInfo) {
	switch string(ev.typ) {
	case "step.begin":
		z.inStep, z.stepRec = true, session.Usage{}
	case "content.part":
		if string(ev.ptype) == "text" && len(ev.first) > 0 {
			z.sum.Messages++
		}
	case "tool.call":
		z.tool(&ev.tool)
	case "tool.result":
		if !z.list && ev.isError {
			z.sum.ToolErrors++
		}
	case "step.end":
		var u session.Usage
		if ev.hasUsage {
			u = ev.usage.universal()
		}
		if u.IsZero() {
			u = z.stepRec
		}
		z.addUsage(u)
		z.inStep, z.stepRec = false, session.Usage{}
	}
}

// wire counts a legacy wire message.
func (z *summarizer) wire(m *msgInfo) {
	switch string(m.typ) {
	case "TurnBegin":
		z.inStep = false
		if !isSlashCommand(string(m.payloadFirst)) {
			z.prompt(m.payloadFirst)
		}
	case "SteerInput":
		z.prompt(m.payloadFirst)
	case "TurnEnd":
		z.inStep = false
	case "StepBegin":
		z.inStep = true
	case "StatusUpdate":
		if m.hasUsage {
			z.addUsage(m.usage.universal())
		}
	case "ContentPart":
		if z.inStep && string(m.ptype) == "text" && len(m.payloadFirst) > 0 {
			z.sum.Messages++
		}
	case "ToolCall":
		if len(m.calls) > 0 {
			z.tool(&m.calls[0])
		} else {
			z.tool(&call{})
		}
	case "ToolResult":
		if !z.list && m.isError {
			z.sum.ToolErrors++
		}
	}
}

// SummarizeFile summarises the session file ref names, with the id,
// working directory, title and parent Open gives it (see readMeta).
func SummarizeFile(ref session.Ref, detail session.Detail) (session.Summary, error) {
	m := readMeta(ref.Path, false)
	f, err := storefile.Open(ref.Path)
	if err != nil {
		return session.Summary{}, err
	}
	defer f.Close()
	s := jsonl.GetScanner(f)
	defer jsonl.PutScanner(s)
	z := summarizer{list: detail == session.DetailList, origin: m.origin, forks: m.forks}
	if m.stead != nil {
		z.history.From(m.stead.CLI, m.stead.ID, m.stead.Written)
	}
	sum, err := z.run(s, ref.Path)
	if err != nil {
		return sum, err
	}
	sum.CLI, sum.Path, sum.Size = session.Kimi, ref.Path, ref.Size
	if sum.Size == 0 {
		if info, err := f.Stat(); err == nil {
			sum.Size = info.Size()
		}
	}
	sum.ID = ref.ID
	if sum.ID == "" {
		sum.ID = m.id
	}
	if m.project != "" {
		sum.Project = m.project
	}
	if m.title != "" {
		sum.Title = jsonl.Title([]byte(m.title))
	}
	sum.Parent = m.parent
	return sum, nil
}
