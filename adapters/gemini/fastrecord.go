package gemini

import "reflect"

// How each record type reads its members with jsonParser (fastjson.go):
// the same names and types as their json tags.

var (
	recordNames    = jsonNames(reflect.TypeFor[record]())
	setNames       = jsonNames(reflect.TypeFor[setRecord]())
	msgRecordNames = jsonNames(reflect.TypeFor[msgRecord]())
	thoughtNames   = jsonNames(reflect.TypeFor[thought]())
	tokensNames    = jsonNames(reflect.TypeFor[tokens]())
	toolCallNames  = jsonNames(reflect.TypeFor[toolCall]())
	partNames      = jsonNames(reflect.TypeFor[part]())
	inlineNames    = jsonNames(reflect.TypeFor[inlineData]())
	fileNames      = jsonNames(reflect.TypeFor[fileData]())
	callNames      = jsonNames(reflect.TypeFor[functionCall]())
	responseNames  = jsonNames(reflect.TypeFor[functionResponse]())
	respNames      = jsonNames(reflect.TypeFor[response]())
)

func (r *record) names() map[string]bool { return recordNames }

func (r *record) member(p *jsonParser, key []byte) bool {
	switch string(key) {
	case "$set":
		objectPtr(p, &r.Set)
	case "$rewindTo":
		p.raw(&r.RewindTo)
	case "sessionId":
		p.raw(&r.SessionID)
	case "projectHash":
		p.raw(&r.ProjectHash)
	case "startTime":
		p.str(&r.StartTime)
	case "lastUpdated":
		p.str(&r.LastUpdated)
	case "directories":
		p.raw(&r.Directories)
	case "summary":
		p.raw(&r.Summary)
	case "messages":
		objects(p, &r.Messages)
	default:
		return r.msgRecord.member(p, key)
	}
	return true
}

func (s *setRecord) names() map[string]bool { return setNames }

func (s *setRecord) member(p *jsonParser, key []byte) bool {
	switch string(key) {
	case "sessionId":
		p.raw(&s.SessionID)
	case "summary":
		p.raw(&s.Summary)
	case "directories":
		p.raw(&s.Directories)
	case "messages":
		objects(p, &s.Messages)
	default:
		return false
	}
	return true
}

func (m *msgRecord) names() map[string]bool { return msgRecordNames }

func (m *msgRecord) member(p *jsonParser, key []byte) bool {
	switch string(key) {
	case "id":
		p.raw(&m.RawID)
	case "timestamp":
		p.str(&m.Timestamp)
	case "type":
		p.str(&m.Type)
	case "content":
		p.ws()
		start := p.i
		m.parts, m.parsed = p.content(), true
		m.Content = p.b[start:p.i:p.i]
	case "thoughts":
		objects(p, &m.Thoughts)
	case "tokens":
		objectPtr(p, &m.Tokens)
	case "model":
		p.str(&m.Model)
	case "toolCalls":
		objects(p, &m.ToolCalls)
	default:
		return false
	}
	return true
}

func (t *thought) names() map[string]bool { return thoughtNames }

func (t *thought) member(p *jsonParser, key []byte) bool {
	switch string(key) {
	case "subject":
		p.str(&t.Subject)
	case "description":
		p.str(&t.Description)
	default:
		return false
	}
	return true
}

func (t *tokens) names() map[string]bool { return tokensNames }

func (t *tokens) member(p *jsonParser, key []byte) bool {
	switch string(key) {
	case "input":
		p.integer(&t.Input)
	case "output":
		p.integer(&t.Output)
	case "cached":
		p.integer(&t.Cached)
	case "thoughts":
		p.integer(&t.Thoughts)
	case "tool":
		p.integer(&t.Tool)
	case "total":
		p.integer(&t.Total)
	default:
		return false
	}
	return true
}

func (c *toolCall) names() map[string]bool { return toolCallNames }

func (c *toolCall) member(p *jsonParser, key []byte) bool {
	switch string(key) {
	case "id":
		p.str(&c.ID)
	case "name":
		p.str(&c.Name)
	case "args":
		p.raw(&c.Args)
	case "result":
		p.raw(&c.Result)
	case "status":
		p.str(&c.Status)
	case "timestamp":
		p.str(&c.Timestamp)
	case "agentId":
		p.str(&c.AgentID)
	default:
		return false
	}
	return true
}

func (pt *part) names() map[string]bool { return partNames }

func (pt *part) member(p *jsonParser, key []byte) bool {
	switch string(key) {
	case "text":
		p.str(&pt.Text)
	case "thought":
		p.boolean(&pt.Thought)
	case "functionCall":
		objectPtr(p, &pt.FunctionCall)
	case "functionResponse":
		objectPtr(p, &pt.FunctionResponse)
	case "inlineData":
		objectPtr(p, &pt.InlineData)
	case "fileData":
		objectPtr(p, &pt.FileData)
	case "executableCode":
		p.raw(&pt.ExecutableCode)
	case "codeExecutionResult":
		p.raw(&pt.CodeExecutionResult)
	default:
		return false
	}
	return true
}

func (d *inlineData) names() map[string]bool { return inlineNames }

func (d *inlineData) member(p *jsonParser, key []byte) bool {
	switch string(key) {
	case "mimeType":
		p.str(&d.MimeType)
	case "data":
		p.str(&d.Data)
	default:
		return false
	}
	return true
}

func (d *fileData) names() map[string]bool { return fileNames }

func (d *fileData) member(p *jsonParser, key []byte) bool {
	switch string(key) {
	case "mimeType":
		p.str(&d.MimeType)
	case "fileUri":
		p.str(&d.FileURI)
	case "displayName":
		p.str(&d.DisplayName)
	default:
		return false
	}
	return true
}

func (c *functionCall) names() map[string]bool { return callNames }

func (c *functionCall) member(p *jsonParser, key []byte) bool {
	switch string(key) {
	case "id":
		p.str(&c.ID)
	case "name":
		p.str(&c.Name)
	case "args":
		p.raw(&c.Args)
	default:
		return false
	}
	return true
}

func (r *functionResponse) names() map[string]bool { return responseNames }

func (r *functionResponse) member(p *jsonParser, key []byte) bool {
	switch string(key) {
	case "id":
		p.str(&r.ID)
	case "name":
		p.str(&r.Name)
	case "response":
		p.raw(&r.Response)
	default:
		return false
	}
	return true
}

func (r *response) names() map[string]bool { return respNames }

func (r *response) member(p *jsonParser, key []byte) bool {
	switch string(key) {
	case "output":
		p.raw(&r.Output)
	case "error":
		p.raw(&r.Error)
	default:
		return false
	}
	return true
}

var fileArgsNames = jsonNames(reflect.TypeFor[fileArgs]())

func (a *fileArgs) names() map[string]bool { return fileArgsNames }

func (a *fileArgs) member(p *jsonParser, key []byte) bool {
	if string(key) != "file_path" {
		return false
	}
	p.raw(&a.FilePath)
	return true
}
