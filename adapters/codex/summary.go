package codex

import (
	"bytes"
	"io"
	"time"

	"github.com/stead-dev/stead/adapters/internal/history"
	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// TitleMax is the most bytes of a first prompt a summary keeps as title.
const TitleMax = 200

// patchMax is the most bytes of an apply_patch input read to find the files
// it touches.
const patchMax = 256 << 10

// contextMax is the most bytes of a message read while the project is
// unknown: an <environment_context> states the working directory near its
// start.
const contextMax = 8 << 10

// Summarize scans a Codex rollout for listing and statistics. It walks each
// record's structure but copies only the few small values it needs and
// skips record types that cannot matter after reading their type, so its
// memory does not depend on record or file size. Lines it cannot parse are
// counted in Summary.Skipped. A paginated fork's parent history is not
// read: its usage belongs to the parent.
//
// With session.DetailList it reads only what a listing needs: it stops at
// the type of every record but session metadata, user and assistant
// messages and thread names.
func Summarize(r io.Reader, detail session.Detail) (session.Summary, error) {
	return summarize(r, "", detail)
}

// summarize is Summarize of the file at path ("" for a stream).
func summarize(r io.Reader, path string, detail session.Detail) (session.Summary, error) {
	s := jsonl.GetScanner(r)
	defer jsonl.PutScanner(s)
	return summarizeWith(s, path, detail)
}

func summarizeWith(s *jsonl.Scanner, path string, detail session.Detail) (session.Summary, error) {
	z := summarizer{list: detail == session.DetailList}
	z.sum.CLI = session.Codex
	for s.NextLine() {
		z.l.reset()
		z.done = false
		z.parseLine(s)
		s.Finish()
		if s.Failed() {
			jsonl.SkipFailed(&z.sum, s, path)
			continue
		}
		z.history.Record(&z.sum, z.l.ts)
		z.commit()
	}
	z.history.Finish(&z.sum)
	return z.sum, s.Err()
}

type summarizer struct {
	list    bool // session.DetailList
	sum     session.Summary
	l       line
	id      string
	started bool
	origin  string // thread whose copied lines are being read (legacy fork)
	model   string
	tokens  usageCounter
	titled  bool
	done    bool          // a listing needs nothing more from this record
	calls   calls         // tool calls by id, from items and events (as the decoder pairs them)
	history history.Split // of a rollout stead wrote
}

type line struct {
	ts                                       time.Time
	typ, ptype, role, id, cwd, model, thread []byte
	forkedFrom, parent, name, text, title    []byte
	args                                     []byte
	hasTotal, hasLast, hasInfo               bool
	total, last                              tokenUsage
	bare                                     bool // oldest format: no envelope

	// Tool calls: an item's call_id, id, namespace and status, and what
	// an event says of its call.
	callID, itemID, namespace, status []byte
	end                               toolEnd
	files                             [][]byte // a patch_apply_end's files

	// a session_meta's stead_origin: the provenance of a rollout stead
	// wrote
	prov history.Origin // stead's provenance, on a session it wrote
}

func (l *line) reset() {
	*l = line{
		typ: l.typ[:0], ptype: l.ptype[:0], role: l.role[:0], id: l.id[:0], cwd: l.cwd[:0],
		model: l.model[:0], thread: l.thread[:0], forkedFrom: l.forkedFrom[:0], parent: l.parent[:0],
		name: l.name[:0], text: l.text[:0], title: l.title[:0], args: l.args[:0],
		callID: l.callID[:0], itemID: l.itemID[:0], namespace: l.namespace[:0], status: l.status[:0],
		files: l.files[:0], prov: l.prov.Empty(),
	}
}

func (z *summarizer) parseLine(s *jsonl.Scanner) {
	l := &z.l
	if !s.BeginObject() {
		return
	}
	for s.NextKey() {
		switch string(s.Key()) {
		case "timestamp":
			l.ts = jsonl.Time(s.String(64))
		case "type":
			l.typ = append(l.typ, s.String(64)...)
			switch string(l.typ) {
			case "session_meta", "response_item", "event_msg":
			case "turn_context":
				if z.list && z.sum.Project != "" {
					return // models are not listed (its cwd is, when the meta had none)
				}
			case "token_usage_record":
				if z.list {
					return // usage is not listed
				}
			case "compacted":
			default:
				if isItemType(string(l.typ)) {
					// The oldest format: this line is a bare item.
					l.bare = true
					l.ptype = append(l.ptype, l.typ...)
					z.parseItemFields(s)
				}
				return
			}
		case "payload":
			z.parsePayload(s)
		case "id":
			// The oldest format's first line is a bare meta.
			l.id = append(l.id, s.String(256)...)
		default:
			s.Skip()
		}
	}
}

func (z *summarizer) parsePayload(s *jsonl.Scanner) {
	l := &z.l
	if !s.BeginObject() {
		return
	}
	typ := string(l.typ)
	for s.NextKey() {
		k := string(s.Key())
		switch typ {
		case "session_meta":
			switch k {
			case "id":
				l.id = append(l.id, s.String(256)...)
			case "cwd":
				l.cwd = append(l.cwd, s.String(4096)...)
			case "forked_from_id":
				l.forkedFrom = append(l.forkedFrom, s.String(256)...)
			case "model":
				l.model = append(l.model, s.String(256)...)
			case "source":
				l.parent = readSubagentParent(s, l.parent)
			case "stead_origin":
				z.parseOrigin(s)
			default:
				s.Skip()
			}
			continue
		case "turn_context":
			switch k {
			case "model":
				l.model = append(l.model, s.String(256)...)
			case "cwd":
				l.cwd = append(l.cwd, s.String(4096)...)
			default:
				s.Skip()
			}
			continue
		case "token_usage_record":
			if k == "thread_id" {
				l.thread = append(l.thread, s.String(256)...)
			} else {
				s.Skip()
			}
			continue
		case "event_msg":
			switch k {
			case "type":
				l.ptype = append(l.ptype, s.String(64)...)
				switch string(l.ptype) {
				case "thread_name_updated":
				case "token_count", "item_completed", "thread_settings_applied",
					"task_started", "task_complete", "turn_aborted":
					if z.list {
						return
					}
				default:
					kind, ok := eventKinds[string(l.ptype)]
					if !ok || z.list {
						return // nothing else in events matters here
					}
					l.end.kind = kind
				}
			case "thread_id":
				l.thread = append(l.thread, s.String(256)...)
			case "info":
				z.parseInfo(s)
				if string(l.ptype) == "token_count" {
					return // the rest is rate limits
				}
			case "thread_name":
				l.title = append(l.title, s.String(TitleMax)...)
			case "item":
				if string(l.ptype) == "item_completed" && !z.list {
					z.parseCompletedItem(s)
				} else {
					s.Skip()
				}
			default:
				if l.end.kind != "" {
					z.toolEventField(s, k)
				} else {
					s.Skip()
				}
			}
			continue
		case "response_item":
			z.itemField(s, k)
			if z.done {
				return
			}
			continue
		}
		s.Skip()
	}
}

// parseItemFields walks the rest of a bare item (oldest format) whose type
// was already read.
func (z *summarizer) parseItemFields(s *jsonl.Scanner) {
	for s.NextKey() {
		z.itemField(s, string(s.Key()))
		if z.done {
			return
		}
	}
}

func (z *summarizer) itemField(s *jsonl.Scanner, k string) {
	l := &z.l
	switch k {
	case "type":
		l.ptype = append(l.ptype, s.String(64)...)
		switch string(l.ptype) {
		case "message":
		case "reasoning", "ghost_snapshot":
			z.done = true // nothing in these is counted
		default:
			z.done = z.list // a listing counts messages only
		}
	case "role":
		l.role = append(l.role, s.String(32)...)
	case "name":
		l.name = append(l.name, s.String(256)...)
	case "namespace":
		l.namespace = append(l.namespace, s.String(256)...)
	case "call_id":
		l.callID = append(l.callID, s.String(256)...)
	case "id":
		l.itemID = append(l.itemID, s.String(256)...)
	case "status":
		l.status = append(l.status, s.String(64)...)
	case "content":
		z.parseContent(s)
		z.done = len(l.role) > 0 // all a message holds that counts
	case "arguments", "input":
		// apply_patch names the files it changes in its input; other
		// tools' inputs are not needed (the name comes first).
		if len(l.name) == 0 || string(l.name) == "apply_patch" {
			l.args = append(l.args, s.String(patchMax)...)
		} else {
			s.Skip()
		}
	case "output":
		// The status markers need no unescaping: read the output's
		// head as it is.
		l.text = append(l.text, s.RawString(statusHead)...)
	default:
		s.Skip()
	}
}

// parseCompletedItem reads an item_completed's item: a finished command
// is what an exec_command_end says, under its call's id.
func (z *summarizer) parseCompletedItem(s *jsonl.Scanner) {
	if !s.BeginObject() {
		return
	}
	exec := false
	for s.NextKey() {
		switch k := string(s.Key()); k {
		case "type":
			exec = string(s.String(64)) == "CommandExecution"
			if !exec {
				return
			}
			z.l.end.kind = "exec_command_end"
		case "id":
			z.l.callID = append(z.l.callID[:0], s.String(256)...)
		case "status", "exit_code":
			if exec {
				z.toolEventField(s, k)
			} else {
				s.Skip()
			}
		default:
			s.Skip()
		}
	}
}

// toolEventField reads a field of an event that ends or starts a tool call.
func (z *summarizer) toolEventField(s *jsonl.Scanner, k string) {
	t := &z.l.end
	switch k {
	case "call_id":
		z.l.callID = append(z.l.callID, s.String(256)...)
	case "exit_code":
		if !s.IsNull() {
			t.hasExit, t.exit = true, s.Int()
		}
	case "success":
		switch s.Kind() {
		case 't':
			t.success = 1
		case 'f':
			t.success = -1
		}
		s.Skip()
	case "status":
		// A string, or a collab AgentStatus keyed by its state.
		switch s.Kind() {
		case '"':
			t.status = string(s.String(64))
		case '{':
			s.BeginObject()
			for s.NextKey() {
				if t.status == "" {
					t.status = string(s.Key())
				}
				s.Skip()
			}
		default:
			s.Skip()
		}
	case "result":
		if t.kind != "mcp_tool_call_end" || s.Kind() != '{' {
			s.Skip()
			return
		}
		s.BeginObject()
		for s.NextKey() {
			switch string(s.Key()) {
			case "Err":
				t.mcpError = true
				s.Skip()
			case "Ok":
				if s.Kind() != '{' {
					s.Skip()
					continue
				}
				s.BeginObject()
				for s.NextKey() {
					if string(s.Key()) == "isError" {
						t.mcpError = t.mcpError || s.Bool()
					} else {
						s.Skip()
					}
				}
			default:
				s.Skip()
			}
		}
	case "changes":
		if t.kind != "patch_apply_end" || s.Kind() != '{' {
			s.Skip()
			return
		}
		s.BeginObject()
		for s.NextKey() {
			if len(z.l.files) < session.MaxSummaryFiles {
				z.l.files = append(z.l.files, append([]byte(nil), s.Key()...))
			}
			s.Skip()
		}
	case "tool":
		z.l.name = append(z.l.name, s.String(256)...)
	default:
		s.Skip()
	}
}

// parseContent reads the first text part of a message: its start, or
// while the project is unknown enough of it to read an
// <environment_context>'s working directory.
func (z *summarizer) parseContent(s *jsonl.Scanner) {
	l := &z.l
	max := TitleMax
	if z.sum.Project == "" {
		max = contextMax
	}
	switch s.Kind() {
	case '"':
		l.text = append(l.text, s.String(max)...)
		return
	case '[':
	default:
		s.Skip()
		return
	}
	s.BeginArray()
	for s.NextElem() {
		if !s.BeginObject() {
			return
		}
		for s.NextKey() {
			if string(s.Key()) == "text" && len(l.text) == 0 {
				l.text = append(l.text, s.String(max)...)
			} else {
				s.Skip()
			}
		}
	}
}

func (z *summarizer) parseInfo(s *jsonl.Scanner) {
	l := &z.l
	if s.IsNull() {
		return
	}
	if !s.BeginObject() {
		return
	}
	l.hasInfo = true
	for s.NextKey() {
		switch string(s.Key()) {
		case "total_token_usage":
			l.hasTotal = readTokenUsage(s, &l.total)
		case "last_token_usage":
			l.hasLast = readTokenUsage(s, &l.last)
		default:
			s.Skip()
		}
	}
}

func readTokenUsage(s *jsonl.Scanner, t *tokenUsage) bool {
	if s.IsNull() || !s.BeginObject() {
		return false
	}
	for s.NextKey() {
		switch string(s.Key()) {
		case "input_tokens":
			t.InputTokens = s.Int()
		case "cached_input_tokens":
			t.CachedInputTokens = s.Int()
		case "cache_write_input_tokens":
			t.CacheWriteInputTokens = s.Int()
		case "output_tokens":
			t.OutputTokens = s.Int()
		case "reasoning_output_tokens":
			t.ReasoningOutputTokens = s.Int()
		case "total_tokens":
			t.TotalTokens = s.Int()
		default:
			s.Skip()
		}
	}
	return true
}

// parseOrigin reads a session_meta's stead_origin: {"cli", "id", "tool",
// "written"}.
func (z *summarizer) parseOrigin(s *jsonl.Scanner) { z.l.prov.Parse(s) }

func readSubagentParent(s *jsonl.Scanner, dst []byte) []byte {
	if s.Kind() != '{' {
		s.Skip()
		return dst
	}
	s.BeginObject()
	for s.NextKey() {
		if string(s.Key()) != "subagent" || s.Kind() != '{' {
			s.Skip()
			continue
		}
		s.BeginObject()
		for s.NextKey() {
			if string(s.Key()) != "thread_spawn" || s.Kind() != '{' {
				s.Skip()
				continue
			}
			s.BeginObject()
			for s.NextKey() {
				if string(s.Key()) == "parent_thread_id" {
					dst = append(dst, s.String(256)...)
				} else {
					s.Skip()
				}
			}
		}
	}
	return dst
}

func (z *summarizer) commit() {
	l, sum := &z.l, &z.sum
	sum.See(l.ts)
	typ := string(l.typ)
	if l.bare {
		typ = "response_item"
	} else if typ == "" && len(l.id) > 0 {
		typ = "session_meta" // oldest format's meta line
	}
	switch typ {
	case "session_meta":
		if z.started {
			if id := string(l.id); id != "" && id != z.id {
				z.origin = id
			}
			return
		}
		z.started = true
		z.id = string(l.id)
		sum.ID = z.id
		if len(l.prov.Written) > 0 {
			l.prov.Mark(&z.history, jsonl.Time)
		}
		sum.Project = string(l.cwd)
		if len(l.model) > 0 {
			z.model = string(l.model)
		}
		switch {
		case len(l.parent) > 0:
			sum.Parent = &session.Link{Kind: session.LinkSubagent, CLI: session.Codex, ID: string(l.parent)}
		case len(l.forkedFrom) > 0:
			sum.Parent = &session.Link{Kind: session.LinkFork, CLI: session.Codex, ID: string(l.forkedFrom)}
		}
	case "turn_context":
		if len(l.model) > 0 && string(l.model) != z.model {
			z.model = string(l.model)
		}
		if sum.Project == "" {
			sum.Project = string(l.cwd)
		}
	case "token_usage_record":
		if z.origin != "" && string(l.thread) == z.id {
			z.origin = ""
		}
	case "event_msg":
		if z.origin != "" && len(l.thread) > 0 && string(l.thread) == z.id {
			z.origin = ""
		}
		switch string(l.ptype) {
		case "token_count":
			if !l.hasInfo {
				return
			}
			var total, last *tokenUsage
			if l.hasTotal {
				total = &l.total
			}
			if l.hasLast {
				last = &l.last
			}
			if u, ok := z.tokens.add(total, last); ok {
				if z.origin != "" {
					sum.AddBorrowed(z.origin, l.ts, z.model, u.universal())
				} else {
					sum.AddUsage(l.ts, z.model, u.universal())
				}
			}
		case "thread_name_updated":
			if len(l.title) > 0 {
				sum.Title, z.titled = jsonl.Title(l.title), true
			}
		case "task_started", "task_complete", "turn_aborted":
			z.calls.turnEnd()
		default:
			if l.end.kind != "" {
				z.toolEvent()
			}
		}
	case "response_item":
		z.item()
	}
}

// toolEvent counts an event that ends or starts a tool call as the
// decoder reads it: a call of its own when no item holds it.
func (z *summarizer) toolEvent() {
	l, sum := &z.l, &z.sum
	t := &l.end
	t.callID = string(l.callID)
	if t.callID == "" {
		return
	}
	if t.kind == "web_search_end" {
		if _, isNew := z.calls.webEvent(t.callID); isNew {
			sum.AddTool(session.ToolWebSearch)
		}
		return
	}
	st, act, old := z.calls.event(t.callID, t.outcome(), t.ends())
	switch act {
	case eventNew:
		sum.AddTool(UniversalTool(eventTool(t.kind, "", string(l.name))))
		for _, f := range l.files {
			sum.AddFile(string(f))
		}
		if t.ends() {
			z.countResult(st.status)
		}
	case eventResult:
		z.countResult(st.status)
	case eventLate:
		z.recount(old, st.status)
	}
}

// countResult counts a tool result of status.
func (z *summarizer) countResult(status session.ToolStatus) {
	if status != session.StatusOK {
		z.sum.ToolErrors++
	}
}

// recount counts a result whose status changed from old to status.
func (z *summarizer) recount(old, status session.ToolStatus) {
	switch {
	case old == session.StatusOK && status != session.StatusOK:
		z.sum.ToolErrors++
	case old != session.StatusOK && status == session.StatusOK:
		z.sum.ToolErrors--
	}
}

// callItem counts a call known from an item, unless an event made it.
func (z *summarizer) callItem(id string, tool session.Tool) bool {
	if _, dup := z.calls.item(id); dup {
		return false
	}
	z.sum.AddTool(tool)
	return true
}

// pairedItem counts an item that is a call and its result at once (a web
// search, an image generation), or restates the outcome of one whose
// event came first.
func (z *summarizer) pairedItem(st *callState, dup bool, tool session.Tool) {
	status := itemStatus(string(z.l.status))
	if dup {
		if old, changed := z.calls.restate(st, status); changed {
			z.recount(old, status)
		}
		return
	}
	st.hasResult, st.status = true, status
	z.sum.AddTool(tool)
	z.countResult(status)
}

func (z *summarizer) item() {
	l, sum := &z.l, &z.sum
	if z.list && string(l.ptype) != "message" {
		return // a listing counts messages only
	}
	switch string(l.ptype) {
	case "message":
		switch string(l.role) {
		case "user":
			if len(l.text) == 0 {
				return
			}
			if IsContext(l.text) {
				if sum.Project == "" && bytes.HasPrefix(bytes.TrimLeft(l.text, " \n\t"), []byte("<environment_context>")) {
					sum.Project = contextCwd(l.text)
				}
				return
			}
			sum.Turns++
			sum.Messages++
			if !z.titled {
				sum.Title, z.titled = jsonl.Title(l.text[:min(len(l.text), TitleMax)]), true
			}
		case "assistant":
			if len(l.text) > 0 {
				sum.Messages++
			}
		}
	case "function_call", "custom_tool_call":
		name := qualifiedName(l.namespace, l.name)
		if z.callItem(string(l.callID), UniversalTool(name)) && name == "apply_patch" {
			for _, f := range PatchFiles(l.args) {
				sum.AddFile(f)
			}
		}
	case "local_shell_call":
		id := l.callID
		if len(id) == 0 {
			id = l.itemID
		}
		z.callItem(string(id), session.ToolBash)
	case "tool_search_call":
		if _, dup := z.calls.search(string(l.callID)); !dup {
			sum.AddTool(UniversalTool("tool_search"))
		}
	case "web_search_call":
		var st *callState
		var dup bool
		if len(l.itemID) > 0 {
			st, dup = z.calls.item(string(l.itemID))
		} else {
			st, dup = z.calls.webItem()
		}
		z.pairedItem(st, dup, session.ToolWebSearch)
	case "image_generation_call":
		st, dup := z.calls.item(string(l.itemID))
		z.pairedItem(st, dup, UniversalTool("image_generation"))
	case "tool_search_output":
		if _, status, dup := z.calls.searchOutput(string(l.callID), itemStatus(string(l.status))); !dup {
			z.countResult(status)
		}
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		if _, status, dup := z.calls.output(string(l.callID), outputStatus(l.text)); !dup {
			z.countResult(status)
		}
	}
}

// SummarizeFile summarises the rollout ref names. Codex names a thread by
// its session_meta id; the file name's id is used when the meta has none.
// A thread name from session_index.jsonl is the title.
func SummarizeFile(ref session.Ref, detail session.Detail) (session.Summary, error) {
	f, err := storefile.Open(ref.Path)
	if err != nil {
		return session.Summary{}, err
	}
	defer f.Close()
	sum, err := summarize(f, ref.Path, detail)
	if err != nil {
		return sum, err
	}
	sum.CLI, sum.Path, sum.Size = session.Codex, ref.Path, ref.Size
	if sum.ID == "" {
		sum.ID = ref.ID
	}
	if ref.Title != "" {
		sum.Title = ref.Title
	}
	return sum, nil
}
