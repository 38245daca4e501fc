package kimi

import "reflect"

// How each record type reads its members with jsonParser (fastjson.go):
// the same names and types as their json tags.

var (
	recordNames         = jsonNames(reflect.TypeFor[record]())
	envDisclosureNames  = jsonNames(reflect.TypeFor[envDisclosure]())
	tokenUsageNames     = jsonNames(reflect.TypeFor[tokenUsage]())
	contextMessageNames = jsonNames(reflect.TypeFor[contextMessage]())
	toolCallNames       = jsonNames(reflect.TypeFor[toolCall]())
	toolFunctionNames   = jsonNames(reflect.TypeFor[toolFunction]())
	loopEventNames      = jsonNames(reflect.TypeFor[loopEvent]())
	toolOutcomeNames    = jsonNames(reflect.TypeFor[toolOutcome]())
	partNames           = jsonNames(reflect.TypeFor[part]())
	mediaNames          = jsonNames(reflect.TypeFor[media]())
	wireMessageNames    = jsonNames(reflect.TypeFor[wireMessage]())
	wirePayloadNames    = jsonNames(reflect.TypeFor[wirePayload]())
	returnValueNames    = jsonNames(reflect.TypeFor[returnValue]())
)

func (r *record) names() map[string]bool { return recordNames }

func (r *record) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "type":
		p.str(&r.Type)
		return 1
	case "kind":
		p.str(&r.Kind)
		return 2
	case "time":
		p.float(&r.Time)
		return 3
	case "created_at":
		p.float(&r.CreatedAt)
		return 4
	case "protocol_version":
		p.str(&r.ProtocolVersion)
		return 5
	case "timestamp":
		p.float(&r.Timestamp)
		return 6
	case "message":
		p.raw(&r.Message)
		return 7
	case "role":
		p.strPtr(&r.Role)
		return 8
	case "event":
		objectPtr(p, &r.Event)
		return 9
	case "usage":
		objectPtr(p, &r.Usage)
		return 10
	case "model":
		p.str(&r.Model)
		return 11
	case "modelAlias":
		p.str(&r.ModelAlias)
		return 12
	case "systemPrompt":
		p.str(&r.SystemPrompt)
		return 13
	case "environmentDisclosure":
		objectPtr(p, &r.EnvironmentDisclosure)
		return 14
	case "summary":
		p.raw(&r.Summary)
		return 15
	case "contextSummary":
		p.str(&r.ContextSummary)
		return 16
	case "count":
		p.int(&r.Count)
		return 17
	case "turns":
		p.raw(&r.Turns)
		return 18
	case "fromTurnId":
		p.raw(&r.FromTurnID)
		return 19
	case "reason":
		p.str(&r.Reason)
		return 20
	case "error":
		p.raw(&r.Error)
		return 21
	case "durationMs":
		p.float(&r.DurationMs)
		return 22
	case "step":
		p.int(&r.Step)
		return 23
	case "nextAttempt":
		p.int(&r.NextAttempt)
		return 24
	case "maxAttempts":
		p.int(&r.MaxAttempts)
		return 25
	case "errorName":
		p.str(&r.ErrorName)
		return 26
	case "errorMessage":
		p.str(&r.ErrorMessage)
		return 27
	case "subagentId":
		p.str(&r.SubagentID)
		return 28
	case "parentToolCallId":
		p.str(&r.ParentToolCallID)
		return 29
	case "info":
		p.raw(&r.Info)
		return 30
	case "toolCallId":
		p.str(&r.ToolCallID)
		return 31
	case "result":
		p.raw(&r.Result)
		return 32
	}
	return 0
}

func (e *envDisclosure) names() map[string]bool { return envDisclosureNames }

func (e *envDisclosure) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "cwd":
		p.str(&e.Cwd)
		return 1
	}
	return 0
}

func (t *tokenUsage) names() map[string]bool { return tokenUsageNames }

func (t *tokenUsage) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "inputOther":
		p.integer(&t.InputOther)
		return 1
	case "output":
		p.integer(&t.Output)
		return 2
	case "inputCacheRead":
		p.integer(&t.InputCacheRead)
		return 3
	case "inputCacheCreation":
		p.integer(&t.InputCacheCreation)
		return 4
	case "input_other":
		p.integer(&t.InputOtherL)
		return 5
	case "input_cache_read":
		p.integer(&t.InputCacheReadL)
		return 6
	case "input_cache_creation":
		p.integer(&t.InputCacheCreationL)
		return 7
	}
	return 0
}

func (m *contextMessage) names() map[string]bool { return contextMessageNames }

func (m *contextMessage) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "role":
		p.str(&m.Role)
		return 1
	case "content":
		p.raw(&m.Content)
		return 2
	case "toolCalls":
		objects(p, &m.ToolCalls)
		return 3
	case "tool_calls":
		objects(p, &m.ToolCallsL)
		return 4
	case "toolCallId":
		p.str(&m.ToolCallID)
		return 5
	case "tool_call_id":
		p.str(&m.ToolCallIDL)
		return 6
	case "id":
		p.str(&m.ID)
		return 7
	case "origin":
		p.raw(&m.Origin)
		return 8
	case "isError":
		p.boolean(&m.IsError)
		return 9
	case "usage":
		objectPtr(p, &m.Usage)
		return 10
	}
	return 0
}

func (c *toolCall) names() map[string]bool { return toolCallNames }

func (c *toolCall) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "id":
		p.str(&c.ID)
		return 1
	case "name":
		p.str(&c.Name)
		return 2
	case "arguments":
		p.raw(&c.Arguments)
		return 3
	case "function":
		objectPtr(p, &c.Function)
		return 4
	}
	return 0
}

func (f *toolFunction) names() map[string]bool { return toolFunctionNames }

func (f *toolFunction) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "name":
		p.str(&f.Name)
		return 1
	case "arguments":
		p.raw(&f.Arguments)
		return 2
	}
	return 0
}

func (e *loopEvent) names() map[string]bool { return loopEventNames }

func (e *loopEvent) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "type":
		p.str(&e.Type)
		return 1
	case "uuid":
		p.str(&e.UUID)
		return 2
	case "part":
		objectPtr(p, &e.Part)
		return 3
	case "toolCallId":
		p.str(&e.ToolCallID)
		return 4
	case "name":
		p.str(&e.Name)
		return 5
	case "args":
		p.raw(&e.Args)
		return 6
	case "result":
		objectPtr(p, &e.Result)
		return 7
	case "finishReason":
		p.str(&e.FinishReason)
		return 8
	case "usage":
		objectPtr(p, &e.Usage)
		return 9
	}
	return 0
}

func (o *toolOutcome) names() map[string]bool { return toolOutcomeNames }

func (o *toolOutcome) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "output":
		p.raw(&o.Output)
		return 1
	case "isError":
		p.boolean(&o.IsError)
		return 2
	case "note":
		p.str(&o.Note)
		return 3
	}
	return 0
}

func (pt *part) names() map[string]bool { return partNames }

func (pt *part) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "type":
		p.str(&pt.Type)
		return 1
	case "text":
		p.str(&pt.Text)
		return 2
	case "think":
		p.str(&pt.Think)
		return 3
	case "encrypted":
		p.strPtr(&pt.Encrypted)
		return 4
	case "imageUrl":
		objectPtr(p, &pt.ImageURL)
		return 5
	case "audioUrl":
		objectPtr(p, &pt.AudioURL)
		return 6
	case "videoUrl":
		objectPtr(p, &pt.VideoURL)
		return 7
	case "image_url":
		objectPtr(p, &pt.ImageURLL)
		return 8
	case "audio_url":
		objectPtr(p, &pt.AudioURLL)
		return 9
	case "video_url":
		objectPtr(p, &pt.VideoURLL)
		return 10
	}
	return 0
}

func (m *media) names() map[string]bool { return mediaNames }

func (m *media) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "url":
		p.str(&m.URL)
		return 1
	}
	return 0
}

func (m *wireMessage) names() map[string]bool { return wireMessageNames }

func (m *wireMessage) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "type":
		p.str(&m.Type)
		return 1
	case "payload":
		p.object(&m.Payload)
		return 2
	}
	return 0
}

func (w *wirePayload) names() map[string]bool { return wirePayloadNames }

func (w *wirePayload) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "user_input":
		p.raw(&w.UserInput)
		return 11
	case "n":
		p.int(&w.N)
		return 12
	case "next_attempt":
		p.int(&w.NextAttempt)
		return 13
	case "max_attempts":
		p.int(&w.MaxAttempts)
		return 14
	case "error_type":
		p.str(&w.ErrorType)
		return 15
	case "status_code":
		p.intPtr(&w.StatusCode)
		return 16
	case "token_usage":
		objectPtr(p, &w.TokenUsage)
		return 17
	case "id":
		p.str(&w.ID)
		return 18
	case "function":
		objectPtr(p, &w.Function)
		return 19
	case "tool_call_id":
		p.str(&w.ToolCallID)
		return 20
	case "return_value":
		objectPtr(p, &w.ReturnValue)
		return 21
	case "request_id":
		p.str(&w.RequestID)
		return 22
	case "response":
		p.str(&w.Response)
		return 23
	case "parent_tool_call_id":
		p.str(&w.ParentToolCallID)
		return 24
	case "task_tool_call_id":
		p.str(&w.TaskToolCallID)
		return 25
	case "agent_id":
		p.str(&w.AgentID)
		return 26
	}
	return w.part.member(p, key) // 1 to 10
}

func (r *returnValue) names() map[string]bool { return returnValueNames }

func (r *returnValue) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "is_error":
		p.boolean(&r.IsError)
		return 1
	case "output":
		p.raw(&r.Output)
		return 2
	case "message":
		p.str(&r.Message)
		return 3
	}
	return 0
}
