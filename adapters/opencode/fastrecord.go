package opencode

import (
	"encoding/json"
	"reflect"

	"github.com/stead-dev/stead/adapters/internal/jsonread"
)

// How each record type reads its members with a jsonread.Parser: the same
// names and types as their json tags, and millis and count read as their
// UnmarshalJSON reads them. parseJSON tries this first and leaves what it
// gives up on to encoding/json.

var (
	sessionInfoNames  = jsonread.Names(reflect.TypeFor[sessionInfo]())
	sessionModelNames = jsonread.Names(reflect.TypeFor[sessionModel]())
	sessionTimeNames  = jsonread.Names(reflect.TypeFor[sessionTime]())
	tokensNames       = jsonread.Names(reflect.TypeFor[tokens]())
	cacheTokensNames  = jsonread.Names(reflect.TypeFor[cacheTokens]())
	apiErrorNames     = jsonread.Names(reflect.TypeFor[apiError]())
	errorDataNames    = jsonread.Names(reflect.TypeFor[errorData]())
	messageInfoNames  = jsonread.Names(reflect.TypeFor[messageInfo]())
	messageModelNames = jsonread.Names(reflect.TypeFor[messageModel]())
	messageTimeNames  = jsonread.Names(reflect.TypeFor[messageTime]())
	partNames         = jsonread.Names(reflect.TypeFor[part]())
	toolStateNames    = jsonread.Names(reflect.TypeFor[toolState]())
	spanNames         = jsonread.Names(reflect.TypeFor[span]())
	bashMetaNames     = jsonread.Names(reflect.TypeFor[bashMeta]())
)

// readMillis reads any value into m as millis.UnmarshalJSON does.
func readMillis(p *jsonread.Parser, m *millis) {
	var raw json.RawMessage
	p.Raw(&raw)
	m.UnmarshalJSON(raw)
}

// readCount reads any value into c as count.UnmarshalJSON does.
func readCount(p *jsonread.Parser, c *count) {
	var raw json.RawMessage
	p.Raw(&raw)
	c.UnmarshalJSON(raw)
}

func (s *sessionInfo) Names() map[string]bool { return sessionInfoNames }

func (s *sessionInfo) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "id":
		p.Str(&s.ID)
		return 1
	case "slug":
		p.Str(&s.Slug)
		return 2
	case "projectID":
		p.Str(&s.ProjectID)
		return 3
	case "parentID":
		p.Str(&s.ParentID)
		return 4
	case "directory":
		p.Str(&s.Directory)
		return 5
	case "title":
		p.Str(&s.Title)
		return 6
	case "version":
		p.Str(&s.Version)
		return 7
	case "model":
		jsonread.ObjectPtr(p, &s.Model)
		return 8
	case "time":
		p.Object(&s.Time)
		return 9
	case "metadata":
		p.Raw(&s.Metadata)
		return 10
	}
	return 0
}

func (m *sessionModel) Names() map[string]bool { return sessionModelNames }

func (m *sessionModel) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "id":
		p.Str(&m.ID)
		return 1
	case "providerID":
		p.Str(&m.ProviderID)
		return 2
	}
	return 0
}

func (t *sessionTime) Names() map[string]bool { return sessionTimeNames }

func (t *sessionTime) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "created":
		readMillis(p, &t.Created)
		return 1
	case "updated":
		readMillis(p, &t.Updated)
		return 2
	}
	return 0
}

func (t *tokens) Names() map[string]bool { return tokensNames }

func (t *tokens) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "input":
		readCount(p, &t.Input)
		return 1
	case "output":
		readCount(p, &t.Output)
		return 2
	case "reasoning":
		readCount(p, &t.Reasoning)
		return 3
	case "cache":
		p.Object(&t.Cache)
		return 4
	}
	return 0
}

func (c *cacheTokens) Names() map[string]bool { return cacheTokensNames }

func (c *cacheTokens) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "read":
		readCount(p, &c.Read)
		return 1
	case "write":
		readCount(p, &c.Write)
		return 2
	}
	return 0
}

func (e *apiError) Names() map[string]bool { return apiErrorNames }

func (e *apiError) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "name":
		p.Str(&e.Name)
		return 1
	case "data":
		p.Object(&e.Data)
		return 2
	}
	return 0
}

func (d *errorData) Names() map[string]bool { return errorDataNames }

func (d *errorData) Member(p *jsonread.Parser, key []byte) int {
	if string(key) == "message" {
		p.Str(&d.Message)
		return 1
	}
	return 0
}

func (m *messageInfo) Names() map[string]bool { return messageInfoNames }

func (m *messageInfo) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "id":
		p.Str(&m.ID)
		return 1
	case "role":
		p.Str(&m.Role)
		return 2
	case "parentID":
		p.Str(&m.ParentID)
		return 3
	case "modelID":
		p.Str(&m.ModelID)
		return 4
	case "providerID":
		p.Str(&m.ProviderID)
		return 5
	case "model":
		jsonread.ObjectPtr(p, &m.Model)
		return 6
	case "mode":
		p.Str(&m.Mode)
		return 7
	case "time":
		p.Object(&m.Time)
		return 8
	case "cost":
		p.Float(&m.Cost)
		return 9
	case "tokens":
		jsonread.ObjectPtr(p, &m.Tokens)
		return 10
	case "error":
		jsonread.ObjectPtr(p, &m.Error)
		return 11
	case "summary":
		p.Raw(&m.Summary)
		return 12
	}
	return 0
}

func (m *messageModel) Names() map[string]bool { return messageModelNames }

func (m *messageModel) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "providerID":
		p.Str(&m.ProviderID)
		return 1
	case "modelID":
		p.Str(&m.ModelID)
		return 2
	}
	return 0
}

func (t *messageTime) Names() map[string]bool { return messageTimeNames }

func (t *messageTime) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "created":
		readMillis(p, &t.Created)
		return 1
	case "completed":
		readMillis(p, &t.Completed)
		return 2
	}
	return 0
}

func (pt *part) Names() map[string]bool { return partNames }

func (pt *part) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "id":
		p.Str(&pt.ID)
		return 1
	case "type":
		p.Str(&pt.Type)
		return 2
	case "text":
		p.Str(&pt.Text)
		return 3
	case "synthetic":
		p.Bool(&pt.Synthetic)
		return 4
	case "metadata":
		p.Raw(&pt.Metadata)
		return 5
	case "time":
		p.Object(&pt.Time)
		return 6
	case "tool":
		p.Str(&pt.Tool)
		return 7
	case "callID":
		p.Str(&pt.CallID)
		return 8
	case "state":
		jsonread.ObjectPtr(p, &pt.State)
		return 9
	case "mime":
		p.Str(&pt.Mime)
		return 10
	case "filename":
		p.Str(&pt.Filename)
		return 11
	case "url":
		p.Str(&pt.URL)
		return 12
	case "tokens":
		jsonread.ObjectPtr(p, &pt.Tokens)
		return 13
	case "cost":
		p.Float(&pt.Cost)
		return 14
	case "prompt":
		p.Str(&pt.Prompt)
		return 15
	case "description":
		p.Str(&pt.Description)
		return 16
	case "attempt":
		p.Int(&pt.Attempt)
		return 17
	case "error":
		jsonread.ObjectPtr(p, &pt.Error)
		return 18
	}
	return 0
}

func (s *toolState) Names() map[string]bool { return toolStateNames }

func (s *toolState) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "status":
		p.Str(&s.Status)
		return 1
	case "input":
		p.Raw(&s.Input)
		return 2
	case "output":
		p.Str(&s.Output)
		return 3
	case "error":
		p.Str(&s.Error)
		return 4
	case "metadata":
		p.Raw(&s.Metadata)
		return 5
	case "time":
		p.Object(&s.Time)
		return 6
	case "attachments":
		jsonread.Objects(p, &s.Attachments)
		return 7
	}
	return 0
}

func (t *span) Names() map[string]bool { return spanNames }

func (t *span) Member(p *jsonread.Parser, key []byte) int {
	switch string(key) {
	case "start":
		readMillis(p, &t.Start)
		return 1
	case "end":
		readMillis(p, &t.End)
		return 2
	}
	return 0
}

func (m *bashMeta) Names() map[string]bool { return bashMetaNames }

func (m *bashMeta) Member(p *jsonread.Parser, key []byte) int {
	if string(key) == "exit" {
		p.Raw(&m.Exit)
		return 1
	}
	return 0
}
