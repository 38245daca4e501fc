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

func (r *record) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "$set":
		objectPtr(p, &r.Set)
		return 9
	case "$rewindTo":
		p.raw(&r.RewindTo)
		return 10
	case "sessionId":
		p.raw(&r.SessionID)
		return 11
	case "projectHash":
		p.raw(&r.ProjectHash)
		return 12
	case "startTime":
		p.str(&r.StartTime)
		return 13
	case "lastUpdated":
		p.str(&r.LastUpdated)
		return 14
	case "directories":
		p.raw(&r.Directories)
		return 15
	case "summary":
		p.raw(&r.Summary)
		return 16
	case "messages":
		objects(p, &r.Messages)
		return 17
	default:
		return r.msgRecord.member(p, key) // 1 to 8
	}
}

func (s *setRecord) names() map[string]bool { return setNames }

func (s *setRecord) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "sessionId":
		p.raw(&s.SessionID)
		return 1
	case "summary":
		p.raw(&s.Summary)
		return 2
	case "directories":
		p.raw(&s.Directories)
		return 3
	case "messages":
		objects(p, &s.Messages)
		return 4
	default:
		return 0
	}
}

func (m *msgRecord) names() map[string]bool { return msgRecordNames }

func (m *msgRecord) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "id":
		p.raw(&m.RawID)
		return 1
	case "timestamp":
		p.str(&m.Timestamp)
		return 2
	case "type":
		p.str(&m.Type)
		return 3
	case "content":
		p.ws()
		start := p.i
		m.parts, m.parsed = p.content(), true
		m.Content = p.b[start:p.i:p.i]
		return 4
	case "thoughts":
		objects(p, &m.Thoughts)
		return 5
	case "tokens":
		objectPtr(p, &m.Tokens)
		return 6
	case "model":
		p.str(&m.Model)
		return 7
	case "toolCalls":
		objects(p, &m.ToolCalls)
		return 8
	default:
		return 0
	}
}

func (t *thought) names() map[string]bool { return thoughtNames }

func (t *thought) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "subject":
		p.str(&t.Subject)
		return 1
	case "description":
		p.str(&t.Description)
		return 2
	default:
		return 0
	}
}

func (t *tokens) names() map[string]bool { return tokensNames }

func (t *tokens) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "input":
		p.integer(&t.Input)
		return 1
	case "output":
		p.integer(&t.Output)
		return 2
	case "cached":
		p.integer(&t.Cached)
		return 3
	case "thoughts":
		p.integer(&t.Thoughts)
		return 4
	case "tool":
		p.integer(&t.Tool)
		return 5
	case "total":
		p.integer(&t.Total)
		return 6
	default:
		return 0
	}
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
	case "args":
		p.raw(&c.Args)
		return 3
	case "result":
		p.raw(&c.Result)
		return 4
	case "status":
		p.str(&c.Status)
		return 5
	case "timestamp":
		p.str(&c.Timestamp)
		return 6
	case "agentId":
		p.str(&c.AgentID)
		return 7
	default:
		return 0
	}
}

func (pt *part) names() map[string]bool { return partNames }

func (pt *part) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "text":
		p.str(&pt.Text)
		return 1
	case "thought":
		p.boolean(&pt.Thought)
		return 2
	case "functionCall":
		objectPtr(p, &pt.FunctionCall)
		return 3
	case "functionResponse":
		objectPtr(p, &pt.FunctionResponse)
		return 4
	case "inlineData":
		objectPtr(p, &pt.InlineData)
		return 5
	case "fileData":
		objectPtr(p, &pt.FileData)
		return 6
	case "executableCode":
		p.raw(&pt.ExecutableCode)
		return 7
	case "codeExecutionResult":
		p.raw(&pt.CodeExecutionResult)
		return 8
	default:
		return 0
	}
}

func (d *inlineData) names() map[string]bool { return inlineNames }

func (d *inlineData) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "mimeType":
		p.str(&d.MimeType)
		return 1
	case "data":
		p.str(&d.Data)
		return 2
	default:
		return 0
	}
}

func (d *fileData) names() map[string]bool { return fileNames }

func (d *fileData) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "mimeType":
		p.str(&d.MimeType)
		return 1
	case "fileUri":
		p.str(&d.FileURI)
		return 2
	case "displayName":
		p.str(&d.DisplayName)
		return 3
	default:
		return 0
	}
}

func (c *functionCall) names() map[string]bool { return callNames }

func (c *functionCall) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "id":
		p.str(&c.ID)
		return 1
	case "name":
		p.str(&c.Name)
		return 2
	case "args":
		p.raw(&c.Args)
		return 3
	default:
		return 0
	}
}

func (r *functionResponse) names() map[string]bool { return responseNames }

func (r *functionResponse) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "id":
		p.str(&r.ID)
		return 1
	case "name":
		p.str(&r.Name)
		return 2
	case "response":
		p.raw(&r.Response)
		return 3
	default:
		return 0
	}
}

func (r *response) names() map[string]bool { return respNames }

func (r *response) member(p *jsonParser, key []byte) int {
	switch string(key) {
	case "output":
		p.raw(&r.Output)
		return 1
	case "error":
		p.raw(&r.Error)
		return 2
	default:
		return 0
	}
}

var fileArgsNames = jsonNames(reflect.TypeFor[fileArgs]())

func (a *fileArgs) names() map[string]bool { return fileArgsNames }

func (a *fileArgs) member(p *jsonParser, key []byte) int {
	if string(key) != "file_path" {
		return 0
	}
	p.raw(&a.FilePath)
	return 1
}
