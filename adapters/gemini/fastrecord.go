package gemini

import (
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
		jsonread.ObjectPtr(p, &r.Set)
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
		jsonread.Objects(p, &r.Messages)
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
		jsonread.Objects(p, &s.Messages)
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
		p.Str(&m.Type)
		return 3
	case "content":
		start := p.Begin()
		m.parts, m.parsed = content(p), true
		m.Content = p.Since(start)
		return 4
	case "thoughts":
		jsonread.Objects(p, &m.Thoughts)
		return 5
	case "tokens":
		jsonread.ObjectPtr(p, &m.Tokens)
		return 6
	case "model":
		p.Str(&m.Model)
		return 7
	case "toolCalls":
		jsonread.Objects(p, &m.ToolCalls)
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
		p.Str(&c.Name)
		return 2
	case "args":
		p.Raw(&c.Args)
		return 3
	case "result":
		p.Raw(&c.Result)
		return 4
	case "status":
		p.Str(&c.Status)
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
		jsonread.ObjectPtr(p, &pt.FunctionCall)
		return 3
	case "functionResponse":
		jsonread.ObjectPtr(p, &pt.FunctionResponse)
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
		p.Str(&d.MimeType)
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
		p.Str(&d.MimeType)
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
		p.Str(&c.Name)
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
		p.Str(&r.Name)
		return 2
	case "response":
		p.Raw(&r.Response)
		return 3
	default:
		return 0
	}
}

func (r *response) Names() map[string]bool { return respNames }

func (r *response) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "output":
		p.Raw(&r.Output)
		return 1
	case "error":
		p.Raw(&r.Error)
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
