package kimi

import (
	"reflect"

	"github.com/stead-dev/stead/adapters/internal/jsonread"
)

// How each record type reads its members with a jsonread.Parser:
// the same names and types as their json tags.

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
)

func (r *record) Names() map[string]bool { return recordNames }

func (r *record) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "type":
		p.Str(&r.Type)
		return 1
	case "kind":
		p.Str(&r.Kind)
		return 2
	case "time":
		p.Float(&r.Time)
		return 3
	case "created_at":
		p.Float(&r.CreatedAt)
		return 4
	case "protocol_version":
		p.Str(&r.ProtocolVersion)
		return 5
	case "timestamp":
		p.Float(&r.Timestamp)
		return 6
	case "message":
		p.Raw(&r.Message)
		return 7
	case "role":
		p.StrPtr(&r.Role)
		return 8
	case "event":
		jsonread.ObjectPtr(p, &r.Event)
		return 9
	case "usage":
		jsonread.ObjectPtr(p, &r.Usage)
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
		p.Str(&r.Reason)
		return 20
	case "error":
		p.Raw(&r.Error)
		return 21
	case "durationMs":
		p.Float(&r.DurationMs)
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
		p.Str(&m.Role)
		return 1
	case "content":
		p.Raw(&m.Content)
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
		p.Str(&e.Type)
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
		p.Str(&e.FinishReason)
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
		p.Str(&pt.Type)
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
		p.Str(&m.Type)
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
