package gemini

import (
	"bytes"
	"io"
	"strconv"
	"time"

	"github.com/stead-dev/stead/adapters/internal/history"
	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// Summarize scans a Gemini CLI session for listing and statistics. It
// walks each record's structure with the fixed-window scanner, copies only
// the few small values it needs (at most textMax bytes of a prompt, and of
// a shell command's output the part that holds its exit code), and feeds
// the same tracker as the full decoder, so both agree on what is new in a
// rewritten message or a "$set" of the whole list. Its memory does not
// depend on record or file size; the tracker keeps a few dozen bytes per
// message and tool call id. Lines it cannot parse are counted in
// Summary.Skipped.
//
// With session.DetailList it skips token usage, tool calls' arguments and
// results and tool results in prompts: usage, tools, errors and files stay
// empty.
func Summarize(r io.Reader, detail session.Detail) (session.Summary, error) {
	return summarize(r, "", detail)
}

// summarize is Summarize of the file at path ("" for a stream).
func summarize(r io.Reader, path string, detail session.Detail) (session.Summary, error) {
	head, first, err := peekFirstLine(r)
	if err != nil {
		return session.Summary{CLI: session.Gemini}, err
	}
	r = io.MultiReader(bytes.NewReader(head), r)
	switch first {
	case "{":
		return summarizeDocument(r, detail, modeLegacy, "")
	case "[":
		return summarizeDocument(r, detail, modeLogs, "")
	}
	s := jsonl.GetScanner(r)
	defer jsonl.PutScanner(s)
	z := newSummarizer(detail)
	for s.NextLine() {
		z.l.reset()
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

type summarizer struct {
	full      bool // session.DetailFull
	sum       session.Summary
	t         tracker
	idKnown   bool
	projKnown bool
	titleFrom int // 0 none, 1 first prompt, 2 the CLI's summary
	l         line
	probe     []byte            // scratch for a shell command's output
	part      []byte            // scratch for a text part
	strs      map[string]string // interned types, models and tool names
	listText  []byte            // scratch for the prompt of a message in a list
	history   history.Split     // of a session stead wrote
	origin    bool              // its steadOrigin was read
	// counted is when each message whose usage is counted was first
	// read: where a later version's takes it back from.
	counted map[*msgState]time.Time
}

func newSummarizer(detail session.Detail) *summarizer {
	z := &summarizer{full: detail == session.DetailFull, t: newTracker(), strs: make(map[string]string)}
	z.sum.CLI = session.Gemini
	return z
}

// line is what one record said.
type line struct {
	hasID, rewind, isSet, projectHash, sidString bool
	sessionID, setSessionID                      []byte
	summary, dir                                 []byte
	times                                        []time.Time
	self                                         sview   // the record as a message
	setList, metaList                            []sview // $set.messages, metadata messages
	selfText                                     []byte  // scratch for self's prompt
	// the metadata line's steadOrigin: the provenance of a session stead
	// wrote
	hasOrigin bool
	prov      history.Origin // stead's provenance, on a session it wrote
}

func (l *line) reset() {
	*l = line{
		sessionID: l.sessionID[:0], setSessionID: l.setSessionID[:0], summary: l.summary[:0], dir: l.dir[:0],
		times: l.times[:0], setList: l.setList[:0], metaList: l.metaList[:0], self: sview{text: l.selfText[:0]},
		selfText: l.selfText, prov: l.prov.Empty(),
	}
}

// sview is a message as the summarizer reads it: its view plus what only
// a summary needs.
type sview struct {
	view
	ts     time.Time
	title  string // the first TitleMax bytes of a prompt, as a title
	ctxDir string // the workspace a <session_context> names
	text   []byte // scratch: the prompt's first textMax bytes
	trunc  bool
	// gemini, decided when the message ends
	thoughts, thoughtText, partThought bool
	responses                          bool // a functionResponse part
	toolCalls                          []callView
	funcCalls                          []callView
}

func (z *summarizer) see(b []byte) {
	if t := jsonl.Time(b); !t.IsZero() {
		z.l.times = append(z.l.times, t)
	}
}

func (z *summarizer) parseLine(s *jsonl.Scanner) {
	l := &z.l
	if !s.BeginObject() {
		return
	}
	for s.NextKey() {
		switch string(s.Key()) {
		case "id":
			if s.Kind() == '"' {
				l.hasID = true
				l.self.id = string(s.String(1 << 10))
			} else {
				s.Skip()
			}
		case "$rewindTo":
			l.rewind = s.Kind() == '"'
			s.Skip()
		case "$set":
			z.parseSet(s)
		case "sessionId":
			l.sidString = s.Kind() == '"'
			if l.sidString {
				l.sessionID = append(l.sessionID[:0], s.String(1<<10)...)
			} else {
				s.Skip()
			}
		case "projectHash":
			l.projectHash = s.Kind() == '"'
			s.Skip()
		case "startTime", "lastUpdated":
			z.see(s.String(64))
		case "summary":
			l.summary = append(l.summary[:0], s.String(TitleMax)...)
		case "directories":
			l.dir = z.firstDir(s, l.dir)
		case "messages":
			l.metaList = z.parseList(s, l.metaList[:0])
		case "steadOrigin":
			z.parseOrigin(s)
		default:
			z.messageField(s, &l.self)
		}
	}
}

// parseOrigin reads the metadata line's steadOrigin: {"cli", "id",
// "tool", "geminiVersion", "written"}.
func (z *summarizer) parseOrigin(s *jsonl.Scanner) { z.l.hasOrigin = z.l.prov.Parse(s) }

// intern returns b as a string, without allocating for the few strings a
// session repeats (message types, models, tool names).
func (z *summarizer) intern(b []byte) string {
	if s, ok := z.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(z.strs) < 512 {
		z.strs[s] = s
	}
	return s
}

// firstDir reads the first string of a directories list.
func (z *summarizer) firstDir(s *jsonl.Scanner, dst []byte) []byte {
	dst = dst[:0]
	if s.Kind() != '[' {
		s.Skip()
		return dst
	}
	s.BeginArray()
	for n := 0; s.NextElem(); n++ {
		if n == 0 && s.Kind() == '"' {
			dst = append(dst, s.String(4096)...)
		} else {
			s.Skip()
		}
	}
	return dst
}

func (z *summarizer) parseSet(s *jsonl.Scanner) {
	l := &z.l
	if s.Kind() != '{' {
		s.Skip()
		return
	}
	s.BeginObject()
	l.isSet = true
	for s.NextKey() {
		switch string(s.Key()) {
		case "sessionId":
			if s.Kind() == '"' {
				l.setSessionID = append(l.setSessionID[:0], s.String(1<<10)...)
			} else {
				s.Skip()
			}
		case "summary":
			l.summary = append(l.summary[:0], s.String(TitleMax)...)
		case "lastUpdated":
			z.see(s.String(64))
		case "directories":
			l.dir = z.firstDir(s, l.dir)
		case "messages":
			l.setList = z.parseList(s, l.setList[:0])
		default:
			s.Skip()
		}
	}
}

// parseList reads a list of messages; elements that are not message
// records are ignored, as the CLI ignores them.
func (z *summarizer) parseList(s *jsonl.Scanner, list []sview) []sview {
	if s.Kind() != '[' {
		s.Skip()
		return list
	}
	s.BeginArray()
	for s.NextElem() {
		if s.Kind() != '{' {
			s.Skip()
			continue
		}
		s.BeginObject()
		v := sview{text: z.listText[:0]}
		isMsg := false
		for s.NextKey() {
			if string(s.Key()) == "id" {
				if s.Kind() == '"' {
					isMsg = true
					v.id = string(s.String(1 << 10))
				} else {
					s.Skip()
				}
				continue
			}
			z.messageField(s, &v)
		}
		z.listText = v.text[:0]
		if isMsg {
			z.finish(&v)
			list = append(list, v)
		}
	}
	return list
}

// messageField reads one field of a message.
func (z *summarizer) messageField(s *jsonl.Scanner, v *sview) {
	switch string(s.Key()) {
	case "type":
		v.typ = z.intern(s.String(64))
	case "timestamp":
		v.ts = jsonl.Time(s.String(64))
	case "model":
		v.model = z.intern(s.String(256))
	case "content":
		z.parseContent(s, v)
	case "thoughts":
		z.parseThoughts(s, v)
	case "tokens":
		if z.full && s.Kind() == '{' {
			z.parseTokens(s, v)
		} else {
			s.Skip()
		}
	case "toolCalls":
		z.parseToolCalls(s, v)
	default:
		s.Skip()
	}
}

func (z *summarizer) parseTokens(s *jsonl.Scanner, v *sview) {
	var t tokens
	s.BeginObject()
	for s.NextKey() {
		switch string(s.Key()) {
		case "input":
			t.Input = s.Int()
		case "output":
			t.Output = s.Int()
		case "cached":
			t.Cached = s.Int()
		case "thoughts":
			t.Thoughts = s.Int()
		case "tool":
			t.Tool = s.Int()
		default:
			s.Skip()
		}
	}
	v.usage, v.hasUsage = t.universal(), true
}

func (z *summarizer) parseThoughts(s *jsonl.Scanner, v *sview) {
	if s.Kind() != '[' {
		s.Skip()
		return
	}
	s.BeginArray()
	for s.NextElem() {
		v.thoughts = true
		if s.Kind() != '{' {
			s.Skip()
			continue
		}
		s.BeginObject()
		for s.NextKey() {
			switch string(s.Key()) {
			case "subject", "description":
				if len(s.RawString(1)) > 0 {
					v.thoughtText = true
				}
			default:
				s.Skip()
			}
		}
	}
}

// parseContent reads a content: a string, one part or a list of parts.
func (z *summarizer) parseContent(s *jsonl.Scanner, v *sview) {
	switch s.Kind() {
	case '"':
		z.addText(s, v)
	case '{':
		z.parsePart(s, v)
	case '[':
		s.BeginArray()
		for s.NextElem() {
			switch s.Kind() {
			case '"':
				z.addText(s, v)
			case '{':
				z.parsePart(s, v)
			default:
				s.Skip()
			}
		}
	default:
		s.Skip()
	}
}

// addText reads a text part that is not a thought.
func (z *summarizer) addText(s *jsonl.Scanner, v *sview) {
	if v.typ == typeGemini {
		if len(s.RawString(1)) > 0 {
			v.hasText = true
		}
		return
	}
	room := textMax - len(v.text)
	if room <= 0 {
		if len(s.RawString(1)) > 0 {
			v.trunc = true
		}
		return
	}
	b := s.String(room)
	v.trunc = v.trunc || s.Truncated()
	v.text = append(v.text, b...)
	if len(b) > 0 {
		v.hasText = true
	}
}

// parsePart reads one part of a content.
func (z *summarizer) parsePart(s *jsonl.Scanner, v *sview) {
	s.BeginObject()
	text := z.part[:0]
	defer func() { z.part = text[:0] }()
	hasText, thought, textTrunc := false, false, false
	for s.NextKey() {
		switch string(s.Key()) {
		case "text":
			if s.Kind() != '"' {
				s.Skip()
				continue
			}
			hasText = true
			if v.typ == typeGemini {
				text = append(text[:0], s.RawString(1)...)
			} else {
				room := max(textMax-len(v.text), 1)
				text = append(text[:0], s.String(room)...)
				textTrunc = s.Truncated()
			}
		case "thought":
			thought = s.Bool()
		case "inlineData", "fileData":
			v.attach = true
			s.Skip()
		case "functionCall":
			z.parseFunctionCall(s, v)
		case "functionResponse":
			v.responses = true
			z.parseFunctionResponse(s, v)
		default:
			s.Skip()
		}
	}
	if !hasText {
		return
	}
	switch {
	case thought:
		if len(text) > 0 {
			v.partThought = true
		}
	case v.typ == typeGemini:
		if len(text) > 0 {
			v.hasText = true
		}
	default:
		room := textMax - len(v.text)
		if room <= 0 {
			v.trunc = v.trunc || len(text) > 0
			return
		}
		if len(text) > room {
			text, textTrunc = text[:room], true
		}
		v.text = append(v.text, text...)
		v.trunc = v.trunc || textTrunc
		if len(text) > 0 {
			v.hasText = true
		}
	}
}

func (z *summarizer) parseFunctionCall(s *jsonl.Scanner, v *sview) {
	if s.Kind() != '{' {
		s.Skip()
		return
	}
	s.BeginObject()
	var c callView
	for s.NextKey() {
		switch string(s.Key()) {
		case "id":
			c.id = string(s.String(1 << 10))
		case "name":
			c.name = z.intern(s.String(256))
		case "args":
			c.path = z.argsPath(s, c.name)
		default:
			s.Skip()
		}
	}
	c.key = c.id
	c.status = session.StatusPending
	v.funcCalls = append(v.funcCalls, c)
}

// argsPath reads the file_path argument of a tool that modifies files.
func (z *summarizer) argsPath(s *jsonl.Scanner, name string) string {
	if !z.full || !modifiesFiles(name) || s.Kind() != '{' {
		s.Skip()
		return ""
	}
	s.BeginObject()
	p := ""
	for s.NextKey() {
		if string(s.Key()) == "file_path" && s.Kind() == '"' {
			p = string(s.String(4096))
		} else {
			s.Skip()
		}
	}
	return p
}

func (z *summarizer) parseFunctionResponse(s *jsonl.Scanner, v *sview) {
	if !z.full || s.Kind() != '{' {
		s.Skip()
		return
	}
	s.BeginObject()
	var r resultView
	var probe []byte
	errKey, trunc := false, false
	for s.NextKey() {
		switch string(s.Key()) {
		case "id":
			r.callID = string(s.String(1 << 10))
		case "name":
			r.name = z.intern(s.String(256))
		case "response":
			probe, errKey, trunc = z.parseResponse(s, r.name == "run_shell_command")
		default:
			s.Skip()
		}
	}
	r.status = resultStatus("", r.name, errKey, probe, trunc, "")
	v.results = append(v.results, r)
}

// parseResponse reads a functionResponse's response: whether it has a
// non-null error, and for the shell its output (the probe).
func (z *summarizer) parseResponse(s *jsonl.Scanner, shell bool) (probe []byte, errKey, trunc bool) {
	if s.Kind() != '{' {
		s.Skip()
		return nil, false, false
	}
	s.BeginObject()
	for s.NextKey() {
		switch string(s.Key()) {
		case "output":
			if shell && s.Kind() == '"' {
				probe = append(z.probe[:0], s.String(probeMax)...)
				z.probe = probe
				trunc = s.Truncated()
			} else {
				s.Skip()
			}
		case "error":
			if !s.IsNull() {
				errKey = true
				s.Skip()
			}
		default:
			s.Skip()
		}
	}
	return probe, errKey, trunc
}

func (z *summarizer) parseToolCalls(s *jsonl.Scanner, v *sview) {
	if s.Kind() != '[' {
		s.Skip()
		return
	}
	s.BeginArray()
	for s.NextElem() {
		var c callView
		if s.Kind() != '{' || !z.full {
			s.Skip()
			c.status = session.StatusPending
			v.toolCalls = append(v.toolCalls, c)
			continue
		}
		s.BeginObject()
		var status string
		var probe []byte
		errKey, trunc := false, false
		for s.NextKey() {
			switch string(s.Key()) {
			case "id":
				c.id = string(s.String(1 << 10))
				c.key = c.id
			case "name":
				c.name = z.intern(s.String(256))
			case "args":
				c.path = z.argsPath(s, c.name)
			case "result":
				c.hasResult, probe, errKey, trunc = z.parseResult(s, c.name == "run_shell_command")
			case "status":
				status = string(s.String(64))
			case "agentId":
				c.agentID = string(s.String(1 << 10))
			default:
				s.Skip()
			}
		}
		if c.hasResult {
			c.status = resultStatus(status, c.name, errKey, probe, trunc, "")
		} else {
			c.status = callStatus(status)
		}
		v.toolCalls = append(v.toolCalls, c)
	}
}

// parseResult reads a toolCalls[].result: whether it is set, whether a
// response in it has an error, and for the shell the probe (the result
// when it is a string, or the first response's output).
func (z *summarizer) parseResult(s *jsonl.Scanner, shell bool) (set bool, probe []byte, errKey, trunc bool) {
	first := true
	part := func() {
		s.BeginObject()
		for s.NextKey() {
			if string(s.Key()) != "functionResponse" || s.Kind() != '{' {
				s.Skip()
				continue
			}
			s.BeginObject()
			for s.NextKey() {
				if string(s.Key()) != "response" {
					s.Skip()
					continue
				}
				p, e, t := z.parseResponse(s, shell && first)
				if first {
					probe, trunc = p, t
				}
				first = false
				errKey = errKey || e
			}
		}
	}
	switch s.Kind() {
	case '"':
		if shell {
			probe = append(z.probe[:0], s.String(probeMax)...)
			z.probe = probe
			trunc = s.Truncated()
			return len(probe) > 0, probe, false, trunc
		}
		return len(s.RawString(1)) > 0, nil, false, false
	case '{':
		part()
		return true, probe, errKey, trunc
	case '[':
		s.BeginArray()
		for s.NextElem() {
			set = true
			if s.Kind() == '{' {
				part()
			} else {
				s.Skip()
			}
		}
		return set, probe, errKey, trunc
	}
	s.Skip()
	return false, nil, false, false
}

// finish settles what a message said once all its fields are read, as
// the decoder's view does.
func (z *summarizer) finish(v *sview) {
	switch v.typ {
	case typeGemini:
		if v.thoughts {
			v.hasThinking = v.thoughtText
		} else {
			v.hasThinking = v.partThought
		}
		v.calls = v.toolCalls
		for i := range v.calls {
			if v.calls[i].key == "" {
				v.calls[i].key = v.id + "#call" + strconv.Itoa(i+1)
			}
		}
		n := len(v.toolCalls)
	parts:
		for _, c := range v.funcCalls {
			for _, tc := range v.toolCalls[:n] {
				if c.id != "" && tc.id == c.id || c.id == "" && tc.id == "" && tc.name == c.name {
					continue parts
				}
			}
			if c.id == "" {
				c.key = v.id + "#call" + strconv.Itoa(len(v.calls)+1)
			}
			v.calls = append(v.calls, c)
		}
		v.toolCalls, v.funcCalls = nil, nil
		v.text = nil
	default:
		v.hasText = false
		if v.responses && v.typ == typeUser {
			v.attach = false // images beside a response are the result's
		}
		v.cls = classify(v.text, v.trunc)
		if v.typ == typeUser {
			if v.cls.typ == session.User && v.cls.kind == "" && !v.cls.empty && z.titleFrom == 0 {
				v.title = jsonl.Title(v.text[:min(len(v.text), TitleMax)])
			}
			if !z.projKnown {
				v.ctxDir = workspaceDir(v.text)
			}
		}
		v.text = nil
	}
}

// commit folds a line that parsed cleanly into the summary.
func (z *summarizer) commit() {
	l, sum := &z.l, &z.sum
	for _, t := range l.times {
		sum.See(t)
	}
	switch {
	case l.rewind:
		return
	case l.hasID:
		l.selfText = l.self.text[:0]
		z.finish(&l.self)
		z.message(&l.self, "")
		return
	}
	var list []sview
	switch {
	case l.isSet:
		z.info(l.setSessionID)
		list = l.setList
	case l.sidString && l.projectHash:
		z.info(l.sessionID)
		if l.hasOrigin && !z.origin {
			z.origin = true
			l.prov.Mark(&z.history, jsonl.Time)
		}
		list = l.metaList
	default:
		return
	}
	dir := string(l.dir)
	for i := range list {
		z.message(&list[i], dir)
		dir = ""
	}
	if dir != "" && !z.projKnown {
		sum.Project, z.projKnown = dir, true
	}
}

// info takes a metadata or "$set" record's id, title and directory.
func (z *summarizer) info(id []byte) {
	l, sum := &z.l, &z.sum
	if !z.idKnown && len(id) > 0 {
		sum.ID, z.idKnown = string(id), true
	}
	if len(l.summary) > 0 {
		sum.Title, z.titleFrom = jsonl.Title(l.summary), 2
	}
}

// message counts what one version of a message adds. dir is the line's
// own directory, which comes before a <session_context>'s.
func (z *summarizer) message(v *sview, dir string) {
	sum := &z.sum
	z.history.Record(sum, v.ts)
	sum.See(v.ts)
	if !z.projKnown {
		if dir == "" {
			dir = v.ctxDir
		}
		if dir != "" {
			sum.Project, z.projKnown = dir, true
		}
	}
	p := z.t.apply(&v.view)
	if p.text && v.typ == typeUser && v.cls.typ == session.User && v.cls.kind == "" && !v.cls.empty {
		sum.Turns++
		sum.Messages++
		if z.titleFrom == 0 && v.title != "" {
			sum.Title, z.titleFrom = v.title, 1
		}
	}
	if p.assist && v.hasText {
		sum.Messages++
	}
	if !z.full {
		return
	}
	for _, rp := range p.results {
		if v.results[rp.i].status != session.StatusOK {
			sum.ToolErrors++
		}
	}
	for _, cp := range p.calls {
		c := &v.calls[cp.i]
		if cp.call {
			sum.AddTool(UniversalTool(c.name))
			if c.path != "" {
				sum.AddFile(c.path)
			}
		}
		if cp.result && c.status != session.StatusOK {
			sum.ToolErrors++
		}
	}
	if !p.st.entries {
		return
	}
	switch {
	case p.usage == usageNew:
		z.count(p.st, v.ts)
	case p.usage == usageChanged:
		z.uncount(p.st, p.prevModel, p.oldUsage)
		z.count(p.st, v.ts)
	case p.st.hasUsage && p.prevModel != p.st.model:
		// The same usage, now under the model a later version named.
		last := sum.LastUsage
		z.uncount(p.st, p.prevModel, p.st.usage)
		z.count(p.st, v.ts)
		sum.LastUsage = last
	}
}

// count counts a message's usage under its model, at the time it was
// first counted (a later version restates the message), or at t.
func (z *summarizer) count(st *msgState, t time.Time) {
	if at, ok := z.counted[st]; ok {
		t = at
	} else {
		if z.counted == nil {
			z.counted = make(map[*msgState]time.Time)
		}
		z.counted[st] = t
	}
	z.sum.AddUsage(t, st.model, st.usage)
}

// uncount takes back usage u counted for a message under model.
func (z *summarizer) uncount(st *msgState, model string, u session.Usage) {
	z.sum.Uncount(session.ResponseUsage{Model: model, Usage: u, Bucket: z.sum.BucketOf(z.counted[st])})
}

// summarizeDocument summarises the two whole-document formats (a legacy
// session, a logs.json history) from the full decoder's events: they are
// small and rare, and hold their records in one JSON value.
func summarizeDocument(r io.Reader, detail session.Detail, mode int, logsFor string) (session.Summary, error) {
	dec := NewDecoder(r)
	dec.logsFor = logsFor
	s, err := read(dec)
	if err != nil {
		return session.Summary{CLI: session.Gemini}, err
	}
	return summaryOf(s, detail), nil
}

// summaryOf derives a summary from a decoded session.
func summaryOf(s *session.Session, detail session.Detail) session.Summary {
	sum := session.Summary{CLI: session.Gemini, ID: s.ID, Project: s.Project.Path, Title: s.Title}
	sum.See(s.Metadata.Created)
	sum.See(s.Metadata.LastModified)
	for _, e := range s.Timeline {
		switch e.Type {
		case session.User:
			if e.Kind == "" && e.Content != "" {
				sum.Turns++
				sum.Messages++
				if sum.Title == "" {
					p, _ := clip(e.Content, TitleMax)
					sum.Title = jsonl.Title([]byte(p))
				}
			}
		case session.Assistant:
			if e.Content != "" {
				sum.Messages++
			}
		}
		if detail != session.DetailFull {
			continue
		}
		switch e.Type {
		case session.ToolCall:
			sum.AddTool(e.Tool)
			if modifiesFiles(e.OriginalTool) {
				sum.AddFile(filePath(e.Input))
			}
		case session.ToolResult:
			if e.Status != session.StatusOK {
				sum.ToolErrors++
			}
		}
		if e.Usage != nil {
			sum.AddUsage(e.Timestamp, e.Model, *e.Usage)
		}
	}
	for _, w := range s.Warnings {
		if bytes.Contains([]byte(w.Message), []byte("skipped")) {
			sum.Skip(w.Line, w.Message)
		}
	}
	return sum
}

// SummarizeFile summarises the file ref names. The session's id is the
// one its records carry (the file name holds only its first 8
// characters), or ref.ID when they carry none; its project is the one the
// store's layout names (tmp/<slug>/.project_root, projects.json) when it
// names one. A logs.json ref summarises the prompts of the session ref.ID
// names.
func SummarizeFile(ref session.Ref, detail session.Detail) (session.Summary, error) {
	f, err := storefile.Open(ref.Path)
	if err != nil {
		return session.Summary{}, err
	}
	defer f.Close()
	var sum session.Summary
	pl := placeOf(ref.Path)
	if pl.logs {
		sum, err = summarizeDocument(f, detail, modeLogs, ref.ID)
	} else {
		sum, err = summarize(f, ref.Path, detail)
	}
	if err != nil {
		return sum, err
	}
	sum.CLI, sum.Path, sum.Size = session.Gemini, ref.Path, ref.Size
	if sum.Size == 0 {
		if info, err := f.Stat(); err == nil {
			sum.Size = info.Size()
		}
	}
	if ref.ID != "" && (sum.ID == "" || pl.logs) {
		sum.ID = ref.ID
	}
	if p := ProjectOf(ref.Path); p != "" {
		sum.Project = p
	}
	if pl.parent != "" {
		sum.Parent = &session.Link{Kind: session.LinkSubagent, CLI: session.Gemini, ID: pl.parent}
	}
	return sum, nil
}
