package kimi

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/stead-dev/stead/adapters/internal/jsonread"
)

// How each record type reads its members with a jsonread.Parser:
// the same names and types as their json tags. Type-like strings are read
// with strCommon, which shares the values most records repeat.

var (
	recordNames         = jsonread.Names(reflect.TypeFor[record]())
	envDisclosureNames  = jsonread.Names(reflect.TypeFor[envDisclosure]())
	tokenUsageNames     = jsonread.Names(reflect.TypeFor[tokenUsage]())
	contextMessageNames = jsonread.Names(reflect.TypeFor[contextMessage]())
	toolCallNames       = jsonread.Names(reflect.TypeFor[toolCall]())
	toolFunctionNames   = jsonread.Names(reflect.TypeFor[toolFunction]())
	loopEventNames      = jsonread.Names(reflect.TypeFor[loopEvent]())
	toolOutcomeNames    = jsonread.Names(reflect.TypeFor[toolOutcome]())
	partNames           = jsonread.Names(reflect.TypeFor[part]())
	mediaNames          = jsonread.Names(reflect.TypeFor[media]())
	wireMessageNames    = jsonread.Names(reflect.TypeFor[wireMessage]())
	wirePayloadNames    = jsonread.Names(reflect.TypeFor[wirePayload]())
	returnValueNames    = jsonread.Names(reflect.TypeFor[returnValue]())
	promptOriginNames   = jsonread.Names(reflect.TypeFor[promptOrigin]())
)

func (r *record) Names() map[string]bool { return recordNames }

func (r *record) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "type":
		strCommon(p, &r.Type)
		return 1
	case "kind":
		strCommon(p, &r.Kind)
		return 2
	case "time":
		floatValue(p, &r.Time)
		return 3
	case "created_at":
		floatValue(p, &r.CreatedAt)
		return 4
	case "protocol_version":
		p.Str(&r.ProtocolVersion)
		return 5
	case "timestamp":
		floatValue(p, &r.Timestamp)
		return 6
	case "message":
		if r.in != nil {
			r.in.readMessage(p, r)
		} else {
			p.Raw(&r.Message)
		}
		return 7
	case "role":
		if r.in != nil && p.Peek() == '"' {
			// The role, event and usage live in r.in, not in
			// allocations of their own: the record is converted
			// before the next one is read, and nothing keeps a
			// pointer to them.
			strCommon(p, &r.in.role)
			r.Role = &r.in.role
		} else {
			strPtrCommon(p, &r.Role)
		}
		return 8
	case "event":
		if r.in != nil && p.Peek() == '{' {
			r.in.event = loopEvent{}
			r.Event = &r.in.event
			p.Object(r.Event)
		} else {
			jsonread.ObjectPtr(p, &r.Event)
		}
		return 9
	case "usage":
		if r.in != nil && p.Peek() == '{' {
			r.in.usage = tokenUsage{}
			r.Usage = &r.in.usage
			p.Object(r.Usage)
		} else {
			jsonread.ObjectPtr(p, &r.Usage)
		}
		return 10
	case "model":
		p.Str(&r.Model)
		return 11
	case "modelAlias":
		p.Str(&r.ModelAlias)
		return 12
	case "systemPrompt":
		p.Str(&r.SystemPrompt)
		return 13
	case "environmentDisclosure":
		jsonread.ObjectPtr(p, &r.EnvironmentDisclosure)
		return 14
	case "summary":
		p.Raw(&r.Summary)
		return 15
	case "contextSummary":
		p.Str(&r.ContextSummary)
		return 16
	case "count":
		p.Int(&r.Count)
		return 17
	case "turns":
		p.Raw(&r.Turns)
		return 18
	case "fromTurnId":
		p.Raw(&r.FromTurnID)
		return 19
	case "reason":
		strCommon(p, &r.Reason)
		return 20
	case "error":
		p.Raw(&r.Error)
		return 21
	case "durationMs":
		floatValue(p, &r.DurationMs)
		return 22
	case "step":
		p.Int(&r.Step)
		return 23
	case "nextAttempt":
		p.Int(&r.NextAttempt)
		return 24
	case "maxAttempts":
		p.Int(&r.MaxAttempts)
		return 25
	case "errorName":
		p.Str(&r.ErrorName)
		return 26
	case "errorMessage":
		p.Str(&r.ErrorMessage)
		return 27
	case "subagentId":
		p.Str(&r.SubagentID)
		return 28
	case "parentToolCallId":
		p.Str(&r.ParentToolCallID)
		return 29
	case "info":
		p.Raw(&r.Info)
		return 30
	case "toolCallId":
		p.Str(&r.ToolCallID)
		return 31
	case "result":
		p.Raw(&r.Result)
		return 32
	}
	return 0
}

func (e *envDisclosure) Names() map[string]bool { return envDisclosureNames }

func (e *envDisclosure) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "cwd":
		p.Str(&e.Cwd)
		return 1
	}
	return 0
}

func (t *tokenUsage) Names() map[string]bool { return tokenUsageNames }

func (t *tokenUsage) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "inputOther":
		p.Int64(&t.InputOther)
		return 1
	case "output":
		p.Int64(&t.Output)
		return 2
	case "inputCacheRead":
		p.Int64(&t.InputCacheRead)
		return 3
	case "inputCacheCreation":
		p.Int64(&t.InputCacheCreation)
		return 4
	case "input_other":
		p.Int64(&t.InputOtherL)
		return 5
	case "input_cache_read":
		p.Int64(&t.InputCacheReadL)
		return 6
	case "input_cache_creation":
		p.Int64(&t.InputCacheCreationL)
		return 7
	}
	return 0
}

func (m *contextMessage) Names() map[string]bool { return contextMessageNames }

func (m *contextMessage) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "role":
		strCommon(p, &m.Role)
		return 1
	case "content":
		if m.in != nil {
			m.in.readContent(p, m)
		} else {
			p.Raw(&m.Content)
		}
		return 2
	case "toolCalls":
		jsonread.Objects(p, &m.ToolCalls)
		return 3
	case "tool_calls":
		jsonread.Objects(p, &m.ToolCallsL)
		return 4
	case "toolCallId":
		p.Str(&m.ToolCallID)
		return 5
	case "tool_call_id":
		p.Str(&m.ToolCallIDL)
		return 6
	case "id":
		p.Str(&m.ID)
		return 7
	case "origin":
		p.Raw(&m.Origin)
		return 8
	case "isError":
		p.Bool(&m.IsError)
		return 9
	case "usage":
		jsonread.ObjectPtr(p, &m.Usage)
		return 10
	}
	return 0
}

func (c *toolCall) Names() map[string]bool { return toolCallNames }

func (c *toolCall) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "id":
		p.Str(&c.ID)
		return 1
	case "name":
		p.Str(&c.Name)
		return 2
	case "arguments":
		p.Raw(&c.Arguments)
		return 3
	case "function":
		jsonread.ObjectPtr(p, &c.Function)
		return 4
	}
	return 0
}

func (f *toolFunction) Names() map[string]bool { return toolFunctionNames }

func (f *toolFunction) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "name":
		p.Str(&f.Name)
		return 1
	case "arguments":
		p.Raw(&f.Arguments)
		return 2
	}
	return 0
}

func (e *loopEvent) Names() map[string]bool { return loopEventNames }

func (e *loopEvent) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "type":
		strCommon(p, &e.Type)
		return 1
	case "uuid":
		p.Str(&e.UUID)
		return 2
	case "part":
		jsonread.ObjectPtr(p, &e.Part)
		return 3
	case "toolCallId":
		p.Str(&e.ToolCallID)
		return 4
	case "name":
		p.Str(&e.Name)
		return 5
	case "args":
		p.Raw(&e.Args)
		return 6
	case "result":
		jsonread.ObjectPtr(p, &e.Result)
		return 7
	case "finishReason":
		strCommon(p, &e.FinishReason)
		return 8
	case "usage":
		jsonread.ObjectPtr(p, &e.Usage)
		return 9
	}
	return 0
}

func (o *toolOutcome) Names() map[string]bool { return toolOutcomeNames }

func (o *toolOutcome) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "output":
		p.Raw(&o.Output)
		return 1
	case "isError":
		p.Bool(&o.IsError)
		return 2
	case "note":
		p.Str(&o.Note)
		return 3
	}
	return 0
}

func (pt *part) Names() map[string]bool { return partNames }

func (pt *part) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "type":
		strCommon(p, &pt.Type)
		return 1
	case "text":
		p.Str(&pt.Text)
		return 2
	case "think":
		p.Str(&pt.Think)
		return 3
	case "encrypted":
		p.StrPtr(&pt.Encrypted)
		return 4
	case "imageUrl":
		jsonread.ObjectPtr(p, &pt.ImageURL)
		return 5
	case "audioUrl":
		jsonread.ObjectPtr(p, &pt.AudioURL)
		return 6
	case "videoUrl":
		jsonread.ObjectPtr(p, &pt.VideoURL)
		return 7
	case "image_url":
		jsonread.ObjectPtr(p, &pt.ImageURLL)
		return 8
	case "audio_url":
		jsonread.ObjectPtr(p, &pt.AudioURLL)
		return 9
	case "video_url":
		jsonread.ObjectPtr(p, &pt.VideoURLL)
		return 10
	}
	return 0
}

func (m *media) Names() map[string]bool { return mediaNames }

func (m *media) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "url":
		p.Str(&m.URL)
		return 1
	}
	return 0
}

func (m *wireMessage) Names() map[string]bool { return wireMessageNames }

func (m *wireMessage) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "type":
		strCommon(p, &m.Type)
		return 1
	case "payload":
		p.Object(&m.Payload)
		return 2
	}
	return 0
}

func (w *wirePayload) Names() map[string]bool { return wirePayloadNames }

func (w *wirePayload) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "user_input":
		p.Raw(&w.UserInput)
		return 11
	case "n":
		p.Int(&w.N)
		return 12
	case "next_attempt":
		p.Int(&w.NextAttempt)
		return 13
	case "max_attempts":
		p.Int(&w.MaxAttempts)
		return 14
	case "error_type":
		p.Str(&w.ErrorType)
		return 15
	case "status_code":
		p.IntPtr(&w.StatusCode)
		return 16
	case "token_usage":
		jsonread.ObjectPtr(p, &w.TokenUsage)
		return 17
	case "id":
		p.Str(&w.ID)
		return 18
	case "function":
		jsonread.ObjectPtr(p, &w.Function)
		return 19
	case "tool_call_id":
		p.Str(&w.ToolCallID)
		return 20
	case "return_value":
		jsonread.ObjectPtr(p, &w.ReturnValue)
		return 21
	case "request_id":
		p.Str(&w.RequestID)
		return 22
	case "response":
		p.Str(&w.Response)
		return 23
	case "parent_tool_call_id":
		p.Str(&w.ParentToolCallID)
		return 24
	case "task_tool_call_id":
		p.Str(&w.TaskToolCallID)
		return 25
	case "agent_id":
		p.Str(&w.AgentID)
		return 26
	}
	return w.part.Member(p, key) // 1 to 10
}

func (r *returnValue) Names() map[string]bool { return returnValueNames }

func (r *returnValue) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "is_error":
		p.Bool(&r.IsError)
		return 1
	case "output":
		p.Raw(&r.Output)
		return 2
	case "message":
		p.Str(&r.Message)
		return 3
	}
	return 0
}

func (o *promptOrigin) Names() map[string]bool { return promptOriginNames }

func (o *promptOrigin) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "kind":
		strCommon(p, &o.Kind)
		return 1
	case "name":
		p.Str(&o.Name)
		return 2
	case "trigger":
		p.Str(&o.Trigger)
		return 3
	}
	return 0
}

// common holds the string values that recur on most records: record,
// loop event, wire message and part types, roles, kinds and reasons.
// Reading one of them through strCommon costs a map lookup, not an
// allocation. It is only read after init, so decoders may share it.
var common = func() map[string]string {
	m := map[string]string{}
	add := func(w string) { m[w] = w }
	for w := range knownCode {
		add(w)
	}
	for w := range knownWire {
		add(w)
	}
	for _, w := range strings.Fields(`metadata event loop
		context.append_message context.append_loop_event llm.request usage.record turn.ended
		turn.step.interrupted turn.step.retrying subagent.spawned task.started task.terminated
		agent.message.appended agent.turn.started agent.turn.ended
		step.begin step.end content.part tool.call tool.result
		TurnBegin SteerInput TurnEnd StepBegin StepInterrupted StepRetry CompactionBegin
		StatusUpdate ContentPart ToolCall ToolResult
		user assistant tool system _system_prompt _checkpoint _usage
		text think image_url audio_url video_url
		completed cancelled error failed end_turn tool_calls tool_use stop
		system_trigger skill_activation plugin_command shell_command compaction_summary injection`) {
		add(w)
	}
	return m
}()

// strCommon reads a string as Parser.Str does, sharing it when it is one
// of the common values.
func strCommon(p *jsonread.Parser, s *string) {
	if p.Peek() != '"' {
		p.Str(s) // null, or not a string: Str reads or rejects it
		return
	}
	start := p.Begin()
	p.Skip()
	raw := p.Since(start)
	// No common value holds a backslash or a quote, so a string whose
	// bytes are one of them is one of them: it has no escapes. (The
	// conversion in the map index does not allocate.)
	if v, ok := common[string(raw[1:len(raw)-1])]; ok {
		*s = v
		return
	}
	v, ok := jsonread.QuickString(raw)
	if !ok {
		p.Fail()
	}
	*s = v
}

// strPtrCommon reads a string or null into a *string as Parser.StrPtr
// does, sharing the string as strCommon does.
func strPtrCommon(p *jsonread.Parser, s **string) {
	if p.Peek() == 'n' {
		p.StrPtr(s)
		return
	}
	v := ""
	strCommon(p, &v)
	*s = &v
}

// pow10 holds the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// floatValue reads a number or null as Parser.Float does, reading the
// numbers Kimi writes for times (epoch milliseconds, epoch seconds with a
// fraction) without strconv.
func floatValue(p *jsonread.Parser, v *float64) {
	if c := p.Peek(); c != '-' && (c < '0' || c > '9') {
		p.Float(v) // null, or not a number: Float reads or rejects it
		return
	}
	start := p.Begin()
	p.Skip() // checks the number's syntax
	t := p.Since(start)
	f, ok := exactFloat(t)
	if !ok {
		var err error
		if f, err = strconv.ParseFloat(string(t), 64); err != nil {
			p.Fail() // out of range
		}
	}
	*v = f
}

// exactFloat returns the value of t, a valid JSON number, when it has no
// exponent and at most 15 digits, or reports false. Such a number is
// m / 10^k with m and 10^k both held exactly by a float64, and a division
// of exact values is correctly rounded: the result is the float64 nearest
// the number, which is what strconv.ParseFloat returns (it takes the same
// shortcut).
func exactFloat(t []byte) (float64, bool) {
	neg := t[0] == '-'
	if neg {
		t = t[1:]
	}
	var m uint64
	digits, frac, point := 0, 0, false
	for _, c := range t {
		switch {
		case c == '.':
			point = true
		case '0' <= c && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
			if point {
				frac++
			}
		default:
			return 0, false // an exponent
		}
	}
	if digits >= len(pow10) {
		return 0, false
	}
	f := float64(m) / pow10[frac]
	if neg {
		f = -f
	}
	return f, true
}
