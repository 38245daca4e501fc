package gemini

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/stead-dev/stead/adapters/internal/jsonread"
)

// How each record type reads its members with a jsonread.Parser:
// the same names and types as their json tags.

var (
	recordNames    = jsonread.Names(reflect.TypeFor[record]())
	setNames       = jsonread.Names(reflect.TypeFor[setRecord]())
	msgRecordNames = jsonread.Names(reflect.TypeFor[msgRecord]())
	thoughtNames   = jsonread.Names(reflect.TypeFor[thought]())
	tokensNames    = jsonread.Names(reflect.TypeFor[tokens]())
	toolCallNames  = jsonread.Names(reflect.TypeFor[toolCall]())
	partNames      = jsonread.Names(reflect.TypeFor[part]())
	inlineNames    = jsonread.Names(reflect.TypeFor[inlineData]())
	fileNames      = jsonread.Names(reflect.TypeFor[fileData]())
	callNames      = jsonread.Names(reflect.TypeFor[functionCall]())
	responseNames  = jsonread.Names(reflect.TypeFor[functionResponse]())
	respNames      = jsonread.Names(reflect.TypeFor[response]())
)

func (r *record) Names() map[string]bool { return recordNames }

func (r *record) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "$set":
		r.sc.setRecord(p, &r.Set)
		return 9
	case "$rewindTo":
		p.Raw(&r.RewindTo)
		return 10
	case "sessionId":
		p.Raw(&r.SessionID)
		return 11
	case "projectHash":
		p.Raw(&r.ProjectHash)
		return 12
	case "startTime":
		p.Str(&r.StartTime)
		return 13
	case "lastUpdated":
		p.Str(&r.LastUpdated)
		return 14
	case "directories":
		p.Raw(&r.Directories)
		return 15
	case "summary":
		p.Raw(&r.Summary)
		return 16
	case "messages":
		r.sc.messages(p, &r.Messages)
		return 17
	default:
		return r.msgRecord.Member(p, key) // 1 to 8
	}
}

func (s *setRecord) Names() map[string]bool { return setNames }

func (s *setRecord) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "sessionId":
		p.Raw(&s.SessionID)
		return 1
	case "summary":
		p.Raw(&s.Summary)
		return 2
	case "directories":
		p.Raw(&s.Directories)
		return 3
	case "messages":
		s.sc.messages(p, &s.Messages)
		return 4
	default:
		return 0
	}
}

func (m *msgRecord) Names() map[string]bool { return msgRecordNames }

func (m *msgRecord) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "id":
		p.Raw(&m.RawID)
		return 1
	case "timestamp":
		p.Str(&m.Timestamp)
		return 2
	case "type":
		word(p, &m.Type)
		return 3
	case "content":
		start := p.Begin()
		m.parts, m.parsed = content(p, m.sc), true
		m.Content = p.Since(start)
		return 4
	case "thoughts":
		if m.sc == nil {
			jsonread.Objects(p, &m.Thoughts)
		} else {
			objects(p, &m.Thoughts, &m.sc.thoughts, nil)
		}
		return 5
	case "tokens":
		if m.sc == nil {
			jsonread.ObjectPtr(p, &m.Tokens)
		} else {
			objectPtr(p, &m.Tokens, &m.sc.tokens, nil)
		}
		return 6
	case "model":
		m.sc.model(p, &m.Model)
		return 7
	case "toolCalls":
		if m.sc == nil {
			jsonread.Objects(p, &m.ToolCalls)
		} else {
			objects(p, &m.ToolCalls, &m.sc.toolCalls, func(c *toolCall) { c.sc = m.sc })
		}
		return 8
	default:
		return 0
	}
}

func (t *thought) Names() map[string]bool { return thoughtNames }

func (t *thought) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "subject":
		p.Str(&t.Subject)
		return 1
	case "description":
		p.Str(&t.Description)
		return 2
	default:
		return 0
	}
}

func (t *tokens) Names() map[string]bool { return tokensNames }

func (t *tokens) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "input":
		p.Int64(&t.Input)
		return 1
	case "output":
		p.Int64(&t.Output)
		return 2
	case "cached":
		p.Int64(&t.Cached)
		return 3
	case "thoughts":
		p.Int64(&t.Thoughts)
		return 4
	case "tool":
		p.Int64(&t.Tool)
		return 5
	case "total":
		p.Int64(&t.Total)
		return 6
	default:
		return 0
	}
}

func (c *toolCall) Names() map[string]bool { return toolCallNames }

func (c *toolCall) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "id":
		p.Str(&c.ID)
		return 1
	case "name":
		word(p, &c.Name)
		return 2
	case "args":
		p.Raw(&c.Args)
		return 3
	case "result":
		if c.sc == nil {
			p.Raw(&c.Result)
		} else {
			// Read now what readResult reads: declining the line when
			// jsonread cannot leaves the record to encoding/json, which
			// reads it as without this.
			start := p.Begin()
			c.resultParts, c.resultRead = content(p, c.sc), true
			c.Result = p.Since(start)
		}
		return 4
	case "status":
		word(p, &c.Status)
		return 5
	case "timestamp":
		p.Str(&c.Timestamp)
		return 6
	case "agentId":
		p.Str(&c.AgentID)
		return 7
	default:
		return 0
	}
}

func (pt *part) Names() map[string]bool { return partNames }

func (pt *part) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "text":
		p.Str(&pt.Text)
		return 1
	case "thought":
		p.Bool(&pt.Thought)
		return 2
	case "functionCall":
		if pt.sc == nil {
			jsonread.ObjectPtr(p, &pt.FunctionCall)
		} else {
			objectPtr(p, &pt.FunctionCall, &pt.sc.calls, nil)
		}
		return 3
	case "functionResponse":
		if pt.sc == nil {
			jsonread.ObjectPtr(p, &pt.FunctionResponse)
		} else {
			objectPtr(p, &pt.FunctionResponse, &pt.sc.responses, func(r *functionResponse) { r.sc = pt.sc })
		}
		return 4
	case "inlineData":
		jsonread.ObjectPtr(p, &pt.InlineData)
		return 5
	case "fileData":
		jsonread.ObjectPtr(p, &pt.FileData)
		return 6
	case "executableCode":
		p.Raw(&pt.ExecutableCode)
		return 7
	case "codeExecutionResult":
		p.Raw(&pt.CodeExecutionResult)
		return 8
	default:
		return 0
	}
}

func (d *inlineData) Names() map[string]bool { return inlineNames }

func (d *inlineData) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "mimeType":
		word(p, &d.MimeType)
		return 1
	case "data":
		p.Str(&d.Data)
		return 2
	default:
		return 0
	}
}

func (d *fileData) Names() map[string]bool { return fileNames }

func (d *fileData) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "mimeType":
		word(p, &d.MimeType)
		return 1
	case "fileUri":
		p.Str(&d.FileURI)
		return 2
	case "displayName":
		p.Str(&d.DisplayName)
		return 3
	default:
		return 0
	}
}

func (c *functionCall) Names() map[string]bool { return callNames }

func (c *functionCall) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "id":
		p.Str(&c.ID)
		return 1
	case "name":
		word(p, &c.Name)
		return 2
	case "args":
		p.Raw(&c.Args)
		return 3
	default:
		return 0
	}
}

func (r *functionResponse) Names() map[string]bool { return responseNames }

func (r *functionResponse) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "id":
		p.Str(&r.ID)
		return 1
	case "name":
		word(p, &r.Name)
		return 2
	case "response":
		if r.sc == nil || p.Peek() != '{' {
			p.Raw(&r.Response)
		} else {
			// Read now what responseText reads, as toolCall reads its
			// result.
			start := p.Begin()
			p.Object(&r.resp)
			r.respRead = true
			r.Response = p.Since(start)
		}
		return 3
	default:
		return 0
	}
}

func (r *response) Names() map[string]bool { return respNames }

func (r *response) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "output":
		r.Output, r.out, r.outRead = rawString(p)
		return 1
	case "error":
		r.Error, r.err, r.errRead = rawString(p)
		return 2
	default:
		return 0
	}
}

var fileArgsNames = jsonread.Names(reflect.TypeFor[fileArgs]())

func (a *fileArgs) Names() map[string]bool { return fileArgsNames }

func (a *fileArgs) Member(p *jsonread.Parser, key []byte) int {
	if string(key) != "file_path" {
		return 0
	}
	p.Raw(&a.FilePath)
	return 1
}

// scratch is where a Decoder's records keep the lists and objects they
// read, reused from one line to the next: a record is done with once it is converted (the entries hold
// strings and slices of the line, never the record's own lists), and
// allocating them afresh for every line was a good part of the decoder's
// work. The lists of one line are taken one after another from the same
// pools, so they never overlap. A nil *scratch, as records read outside a
// Decoder have, allocates as jsonread.Objects and jsonread.ObjectPtr do.
//
// With a scratch, records also read with the line what the decoder would
// otherwise read again from the raw JSON: a tool call's result as parts
// (toolCall.resultParts) and a function response's output
// (functionResponse.resp). Where jsonread cannot read those, it gives up
// on the whole line, which encoding/json then reads as before: the
// decoder only ever uses them when they are what a second read would
// give. scratch_test.go holds the records read so to the ones read
// without.
type scratch struct {
	msgs      []msgRecord
	toolCalls []toolCall
	thoughts  []thought
	parts     []part
	tokens    []tokens
	calls     []functionCall
	responses []functionResponse
	sets      []setRecord
	// models holds one copy of each model name read.
	models map[string]string
}

// Bounds on what a scratch keeps between lines, so that one huge line
// does not hold on to its memory for the rest of the file.
const (
	scratchMax = 1 << 12 // elements of a pool
	modelsMax  = 64      // model names
)

// reset makes the pools ready for the next line, or batch of lines.
func (sc *scratch) reset() {
	sc.msgs = reuse(sc.msgs)
	sc.toolCalls = reuse(sc.toolCalls)
	sc.thoughts = reuse(sc.thoughts)
	sc.parts = reuse(sc.parts)
	sc.tokens = reuse(sc.tokens)
	sc.calls = reuse(sc.calls)
	sc.responses = reuse(sc.responses)
	sc.sets = reuse(sc.sets)
}

func reuse[T any](pool []T) []T {
	if cap(pool) > scratchMax {
		return nil
	}
	return pool[:0]
}

// objects reads an array of objects, or null, into *s as jsonread.Objects
// does, taking the elements from the end of *pool. init, when not nil,
// readies each element before it is read.
func objects[T any, P interface {
	*T
	jsonread.Object
}](p *jsonread.Parser, s *[]T, pool *[]T, init func(*T)) {
	if p.Peek() == 'n' {
		skipNull(p)
		*s = nil
		return
	}
	start := len(*pool)
	for more := p.OpenArray(); more; more = p.More() {
		var zero T
		*pool = append(*pool, zero)
		e := &(*pool)[len(*pool)-1]
		if init != nil {
			init(e)
		}
		if c := p.Peek(); c != '{' && c != 'n' {
			p.Fail()
		}
		p.Object(P(e))
	}
	if len(*pool) == start {
		*s = []T{} // an empty array reads as an empty slice, not nil
		return
	}
	*s = (*pool)[start:len(*pool):len(*pool)]
}

// objectPtr reads an object, or null, into *v as jsonread.ObjectPtr does,
// taking the object from the end of *pool. The pointer stays good when the
// pool grows: it points into the array the pool had.
func objectPtr[T any, P interface {
	*T
	jsonread.Object
}](p *jsonread.Parser, v **T, pool *[]T, init func(*T)) {
	switch p.Peek() {
	case 'n':
		skipNull(p)
		*v = nil
		return
	case '{':
	default:
		p.Fail()
	}
	if *v == nil {
		var zero T
		*pool = append(*pool, zero)
		*v = &(*pool)[len(*pool)-1]
		if init != nil {
			init(*v)
		}
	}
	p.Object(P(*v))
}

// skipNull reads a null, once Peek has seen its 'n', or gives up as
// jsonread does on anything else.
func skipNull(p *jsonread.Parser) {
	var raw json.RawMessage
	p.Raw(&raw)
}

// messages reads a list of message records.
func (sc *scratch) messages(p *jsonread.Parser, s *[]msgRecord) {
	if sc == nil {
		jsonread.Objects(p, s)
		return
	}
	objects(p, s, &sc.msgs, func(m *msgRecord) { m.sc = sc })
}

// setRecord reads the object of a "$set" line.
func (sc *scratch) setRecord(p *jsonread.Parser, s **setRecord) {
	if sc == nil {
		jsonread.ObjectPtr(p, s)
		return
	}
	objectPtr(p, s, &sc.sets, func(s *setRecord) { s.sc = sc })
}

// model reads a model name as p.Str does, keeping one copy of each name:
// every gemini message names its model.
func (sc *scratch) model(p *jsonread.Parser, s *string) {
	if sc == nil {
		p.Str(s)
		return
	}
	raw := readString(p, s)
	if raw == nil {
		return
	}
	if m, ok := sc.models[string(raw)]; ok {
		*s = m
		return
	}
	*s = string(raw)
	if sc.models == nil {
		sc.models = make(map[string]string)
	}
	if len(sc.models) < modelsMax {
		sc.models[*s] = *s
	}
}

// words are the values of the fields word reads that recur in every
// session: message types, call statuses, tool names and common media
// types.
var words = func() map[string]string {
	m := map[string]string{}
	for _, w := range []string{
		typeUser, typeGemini, typeInfo, typeError, typeWarning,
		"success", "error", "cancelled", "scheduled", "validating",
		"awaiting_approval", "executing",
		"image/png", "image/jpeg", "image/webp", "image/gif",
		"application/pdf", "text/plain",
	} {
		m[w] = w
	}
	for name := range Tools {
		m[name] = name
	}
	return m
}()

// word reads a string as p.Str does, with no copy of the common values
// words holds.
func word(p *jsonread.Parser, s *string) {
	raw := readString(p, s)
	if raw == nil {
		return
	}
	if w, ok := words[string(raw)]; ok {
		*s = w
		return
	}
	*s = string(raw)
}

// readString reads a string, or a null that leaves s as it is, as p.Str
// does. It returns the string's bytes when they need no unescaping (as
// slice of the line, for the caller to copy or look up), or sets *s and
// returns nil.
func readString(p *jsonread.Parser, s *string) []byte {
	switch p.Peek() {
	case '"':
	case 'n':
		skipNull(p)
		return nil
	default:
		p.Fail()
	}
	var raw json.RawMessage
	p.Raw(&raw)
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return body
	}
	v, ok := jsonread.QuickString(raw)
	if !ok {
		p.Fail()
	}
	*s = v
	return nil
}

// rawString reads any value as p.Raw does and, when it is a string, its
// text too (read is set then), as str would read the raw value.
func rawString(p *jsonread.Parser) (raw json.RawMessage, text string, read bool) {
	start := p.Begin()
	if p.Peek() == '"' {
		text, read = p.StringValue(), true
	} else {
		p.Skip()
	}
	return p.Since(start), text, read
}
