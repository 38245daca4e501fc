package gemini

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/stead-dev/stead/session"
)

// This file holds what the full decoder and the fast summarizer share: the
// facts read from one version of a message (view), and the tracker that
// decides which of them are new. Both readers feed it the same views, so
// they agree on what the timeline holds without the summarizer building
// one.

// Limits both readers apply to the same bytes, so that they classify alike.
const (
	// textMax is how much of a user message's text decides its kind, its
	// title and the workspace a <session_context> names.
	textMax = 4 << 10
	// TitleMax is the most bytes of a first prompt a summary keeps as
	// title.
	TitleMax = 200
	// probeMax is the longest shell output whose exit code is read: the
	// CLI keeps at most 40,000 characters of an output in the session.
	probeMax = 256 << 10
	// maxOpen bounds the calls remembered for pairing a result that
	// names no call id.
	maxOpen = 64
)

// Message types of Gemini CLI's chat recording.
const (
	typeUser    = "user"
	typeGemini  = "gemini"
	typeInfo    = "info"
	typeError   = "error"
	typeWarning = "warning"
)

// view is what one version of a message says, as far as the timeline is
// concerned. The summarizer fills the light fields only; the decoder also
// keeps the message it came from to build entries.
type view struct {
	id  string
	typ string
	// user, info, error and warning: how the text reads (classify)
	cls    class
	attach bool // images or files
	// gemini
	hasText     bool
	hasThinking bool
	usage       session.Usage
	hasUsage    bool
	model       string
	calls       []callView
	// user: tool results sent as functionResponse parts
	results []resultView
}

// callView is one tool call of a gemini message.
type callView struct {
	id        string // the call id as written; may be empty
	key       string // the call id, or one made up from the message's
	name      string
	hasResult bool
	status    session.ToolStatus // of the result, or of the call when there is none
	agentID   string
	path      string // file_path of a tool that modifies files
}

// resultView is one functionResponse part of a user message.
type resultView struct {
	callID string // as written; may be empty
	name   string
	status session.ToolStatus
}

// class is how a user or system text reads.
type class struct {
	typ   session.EntryType
	kind  string
	empty bool // only whitespace: no text entry
}

// classify decides the entry a user message's text makes from its first
// textMax bytes (prefix) and whether there is more (trunc). The prefixes
// are the ones Gemini CLI itself leaves out of the model history (slash
// commands, "?" and injected context) plus its compression summary.
func classify(prefix []byte, trunc bool) class {
	t := bytes.TrimLeft(prefix, " \t\r\n")
	switch {
	case len(t) == 0:
		return class{typ: session.User, empty: !trunc}
	case bytes.HasPrefix(t, []byte("<session_context>")), bytes.HasPrefix(t, []byte("<hook_context>")):
		return class{typ: session.System, kind: session.KindContext}
	case bytes.HasPrefix(t, []byte("<state_snapshot>")):
		return class{typ: session.System, kind: session.KindSummary}
	case t[0] == '/' || t[0] == '?':
		return class{typ: session.User, kind: session.KindCommand}
	}
	return class{typ: session.User}
}

// workspaceDir returns the first workspace directory a <session_context>
// text lists ("- **Workspace Directories:**\n  - /path"), or "".
func workspaceDir(prefix []byte) string {
	t := bytes.TrimLeft(prefix, " \t\r\n")
	if !bytes.HasPrefix(t, []byte("<session_context>")) {
		return ""
	}
	_, rest, ok := bytes.Cut(t, []byte("**Workspace Directories:**\n"))
	if !ok {
		return ""
	}
	line, _, ok := bytes.Cut(rest, []byte("\n"))
	if !ok {
		return "" // the line may be cut short
	}
	line = bytes.TrimRight(line, "\r")
	if !bytes.HasPrefix(line, []byte("  - ")) {
		return ""
	}
	return string(line[4:])
}

// resultStatus decides a tool result's status from the call's recorded
// status, whether a response carried a non-null "error", and the output of
// its first response (probe, cut at probeMax when trunc). A shell command
// that failed is recorded with status "success": only its output's "Exit
// Code:" line says so. A cancelled call was denied when its text (which
// only the full decoder reads) says so, and interrupted otherwise; both
// readers count either as an error.
func resultStatus(status, name string, errKey bool, probe []byte, trunc bool, text string) session.ToolStatus {
	switch status {
	case "error":
		return session.StatusError
	case "cancelled":
		if strings.Contains(text, "denied") {
			return session.StatusDenied
		}
		return session.StatusInterrupted
	}
	if errKey {
		return session.StatusError
	}
	if name == "run_shell_command" && !trunc && shellFailed(probe) {
		return session.StatusError
	}
	return session.StatusOK
}

// callStatus is the status of a call that has no result yet.
func callStatus(status string) session.ToolStatus {
	switch status {
	case "error":
		return session.StatusError
	case "cancelled":
		return session.StatusInterrupted
	}
	return session.StatusPending
}

// shellFailed reports whether the shell tool's output ends with a non-zero
// "Exit Code: N" line, followed only by the lines the tool writes after it.
// It walks the lines from the end, so an output without the line (most
// tools' outputs are not the shell's) is not searched whole: a search of
// every output for its last "Exit Code: " was 1 % of a cold index build.
func shellFailed(out []byte) bool {
	for rest := out; ; {
		i := bytes.LastIndexByte(rest, '\n')
		line := bytes.TrimRight(rest[i+1:], "\r")
		if num, ok := bytes.CutPrefix(line, []byte("Exit Code: ")); ok {
			n, err := strconv.Atoi(string(num))
			return err == nil && n != 0
		}
		switch {
		case len(line) == 0,
			bytes.HasPrefix(line, []byte("Signal: ")),
			bytes.HasPrefix(line, []byte("Background PIDs: ")),
			bytes.HasPrefix(line, []byte("Process Group PGID: ")),
			bytes.HasPrefix(line, []byte("</untrusted_context>")):
		default:
			return false
		}
		if i < 0 {
			return false
		}
		rest = rest[:i]
	}
}

// tokens is a message's usage as Gemini CLI records it: the API's
// usageMetadata with promptTokenCount as input (cached tokens included),
// candidatesTokenCount as output (thoughts not included) and
// toolUsePromptTokenCount as tool.
type tokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
	Tool     int64 `json:"tool"`
	Total    int64 `json:"total"`
}

// universal converts to stead's usage: input without cache reads (plus
// tool-use prompt tokens), output with thoughts (reasoning is part of
// output).
func (t tokens) universal() session.Usage {
	return session.Usage{
		Input:     max(t.Input-t.Cached, 0) + max(t.Tool, 0),
		Output:    max(t.Output, 0) + max(t.Thoughts, 0),
		CacheRead: max(t.Cached, 0),
		Reasoning: max(t.Thoughts, 0),
	}
}

// tracker remembers what the timeline holds of each message and tool call,
// so that a later version of a message adds only what is new.
type tracker struct {
	msgs  map[string]*msgState
	calls map[string]*callState
	open  []openCall // calls still waiting for a result, oldest first
}

type openCall struct{ key, name string }

type msgState struct {
	entries  bool // has entries
	assist   bool // has an assistant entry (gemini)
	hasUsage bool
	usage    session.Usage
	model    string
	// decoder only: the message's first and last entries, and those
	// that carry its model
	first, last string
	modelled    []string
}

type callState struct {
	msg    string // the message that made the call; "" for a result seen first
	call   bool   // the call has an entry
	result bool   // the result has an entry
	status session.ToolStatus
	entry  string // decoder only: the call's entry id
}

func newTracker() tracker {
	return tracker{msgs: make(map[string]*msgState), calls: make(map[string]*callState)}
}

// plan says what one version of a message adds to the timeline.
type plan struct {
	st    *msgState
	isNew bool
	// text is a user, info, error or warning text entry; assist an
	// assistant entry.
	text, assist bool
	unknown      bool // a new message of a type stead does not know
	calls        []callPlan
	results      []resultPlan
	// usage: usageNew when the message had none, usageChanged when it
	// replaces old.
	usage     int
	oldUsage  session.Usage
	prevModel string // the message's model before this version
	// modelChanged is set when a message that has entries names a new
	// model.
	modelChanged bool
}

const (
	usageNone = iota
	usageNew
	usageChanged
)

// callPlan is what a call of the view adds: the call, its result, or a
// new status for a call without one.
type callPlan struct {
	i            int
	call, result bool
	status       bool // the call's status changed
}

// resultPlan is a functionResponse part that adds a result.
type resultPlan struct {
	i   int
	key string // the call it answers
}

// apply works out what v adds and records it.
func (t *tracker) apply(v *view) plan {
	st := t.msgs[v.id]
	p := plan{st: st, isNew: st == nil}
	if p.isNew {
		st = &msgState{}
		p.st = st
		t.msgs[v.id] = st
	}
	switch v.typ {
	case typeUser:
		p.text = p.isNew && (!v.cls.empty || v.attach)
		for i := range v.results {
			r := &v.results[i]
			key := t.resultKey(v, r, i)
			cs := t.calls[key]
			if cs != nil && cs.result {
				continue // the CLI's second copy of a result
			}
			if cs == nil {
				cs = &callState{}
				t.calls[key] = cs
			}
			cs.result = true
			t.close(key)
			p.results = append(p.results, resultPlan{i: i, key: key})
		}
	case typeGemini:
		if p.isNew {
			p.assist = v.hasText || v.hasThinking || v.attach || len(v.calls) == 0
		} else {
			p.assist = !st.assist && (v.hasText || v.hasThinking)
		}
		st.assist = st.assist || p.assist
		for i := range v.calls {
			c := &v.calls[i]
			cs := t.calls[c.key]
			cp := callPlan{i: i}
			switch {
			case cs == nil || (cs.call && cs.msg != v.id):
				// New, or an id another message's call already had.
				cs = &callState{msg: v.id}
				t.calls[c.key] = cs
				cp.call, cs.call = true, true
				cp.result = c.hasResult
				cs.result = c.hasResult
				if !c.hasResult {
					cs.status = c.status
					t.opened(c.key, c.name)
				}
			case !cs.call: // its result came first
				cs.msg, cs.call = v.id, true
				cp.call = true
			case c.hasResult && !cs.result:
				cs.result, cp.result = true, true
				t.close(c.key)
			case !c.hasResult && !cs.result && c.status != session.StatusPending && c.status != cs.status:
				cs.status, cp.status = c.status, true
			default:
				continue
			}
			p.calls = append(p.calls, cp)
		}
	case typeInfo, typeError, typeWarning:
		p.text = p.isNew && !v.cls.empty
	default:
		p.unknown = p.isNew
	}
	st.entries = st.entries || p.emits()
	p.prevModel = st.model
	if v.typ == typeGemini {
		if v.hasUsage {
			switch {
			case !st.hasUsage:
				p.usage = usageNew
			case v.usage != st.usage:
				p.usage, p.oldUsage = usageChanged, st.usage
			}
			st.usage, st.hasUsage = v.usage, true
		}
		if v.model != "" && v.model != st.model {
			p.modelChanged = !p.isNew
			st.model = v.model
		}
	}
	return p
}

// emits reports whether the plan adds entries.
func (p *plan) emits() bool {
	if p.text || p.assist || len(p.results) > 0 {
		return true
	}
	for _, c := range p.calls {
		if c.call || c.result {
			return true
		}
	}
	return false
}

// entries returns how many entries the plan adds.
func (p *plan) entries() int {
	n := len(p.results)
	if p.text {
		n++
	}
	if p.assist {
		n++
	}
	for _, c := range p.calls {
		if c.call {
			n++
		}
		if c.result {
			n++
		}
	}
	return n
}

// resultKey finds the call a functionResponse answers: by id, or, when it
// names none, the latest call of the same tool still waiting for a result
// (as Gemini CLI pairs them).
func (t *tracker) resultKey(v *view, r *resultView, i int) string {
	if r.callID != "" {
		return r.callID
	}
	for j := len(t.open) - 1; j >= 0; j-- {
		if o := t.open[j]; o.name == r.name {
			return o.key
		}
	}
	return v.id + "#result" + strconv.Itoa(i+1)
}

func (t *tracker) opened(key, name string) {
	if len(t.open) == maxOpen {
		t.open = append(t.open[:0], t.open[1:]...)
	}
	t.open = append(t.open, openCall{key, name})
}

func (t *tracker) close(key string) {
	for j, o := range t.open {
		if o.key == key {
			t.open = append(t.open[:j], t.open[j+1:]...)
			return
		}
	}
}
