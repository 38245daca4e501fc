package modelstub

import (
	"encoding/json"
	"strings"

	"github.com/stead-dev/stead/session"
)

// Kinds of side request.
const (
	sideText   = "text"   // a title, a summary, a utility question
	sideJSON   = "json"   // a structured utility call (routing, a title schema)
	sideTokens = "tokens" // a token count
)

// sideRequest tells whether a request is a side request (one that takes no
// script turn) and which kind. Main conversation requests always declare
// tools; utility requests the CLIs make on the side declare none, or ask
// for JSON, or use a non-chat endpoint.
func sideRequest(api API, action string, req *Request) (bool, string) {
	switch {
	case action == "count_tokens" || action == "countTokens":
		return true, sideTokens
	case api == Gemini && action != "streamGenerateContent":
		if jsonSchema(api, req.Body) != nil || geminiJSONMode(req.Body) {
			return true, sideJSON
		}
		return true, sideText
	case api == Responses && jsonSchema(api, req.Body) != nil:
		return true, sideJSON
	case len(req.Tools) == 0:
		return true, sideText
	}
	return false, ""
}

// geminiJSONMode reports whether a Gemini request asks for a JSON answer.
func geminiJSONMode(body []byte) bool {
	var b struct {
		GenerationConfig struct {
			ResponseMimeType string `json:"responseMimeType"`
		} `json:"generationConfig"`
	}
	return json.Unmarshal(body, &b) == nil && b.GenerationConfig.ResponseMimeType == "application/json"
}

func (s *Stub) sideAnswer(kind string, req *Request) *answer {
	title := s.script().Title
	if title == "" {
		title = "Stub session"
	}
	switch kind {
	case sideTokens:
		return &answer{count: true, usage: session.Usage{Input: int64(len(req.Body)/4 + 1)}}
	case sideJSON:
		v := placeholder(jsonSchema(req.API, req.Body), "", title)
		b, _ := json.Marshal(v)
		return &answer{text: string(b)}
	}
	return &answer{text: title}
}

// jsonSchema returns the JSON Schema a request asks its answer to follow,
// or nil.
func jsonSchema(api API, body []byte) map[string]any {
	var b struct {
		Text struct {
			Format struct {
				Type   string         `json:"type"`
				Schema map[string]any `json:"schema"`
			} `json:"format"`
		} `json:"text"`
		GenerationConfig struct {
			ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
			ResponseSchema     map[string]any `json:"responseSchema"`
		} `json:"generationConfig"`
	}
	if json.Unmarshal(body, &b) != nil {
		return nil
	}
	switch api {
	case Responses:
		if b.Text.Format.Type == "json_schema" {
			if b.Text.Format.Schema == nil {
				return map[string]any{}
			}
			return b.Text.Format.Schema
		}
	case Gemini:
		if b.GenerationConfig.ResponseJSONSchema != nil {
			return b.GenerationConfig.ResponseJSONSchema
		}
		return b.GenerationConfig.ResponseSchema
	}
	return nil
}

// placeholder makes up a value that satisfies a JSON Schema: the first
// enum value, the minimum of a number, the title for title-like strings.
func placeholder(sch map[string]any, name, title string) any {
	if sch == nil {
		return map[string]any{}
	}
	if enum, ok := sch["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	typ, _ := sch["type"].(string)
	if typ == "" {
		if types, ok := sch["type"].([]any); ok && len(types) > 0 {
			typ, _ = types[0].(string)
		}
	}
	switch strings.ToLower(typ) {
	case "object", "":
		props, _ := sch["properties"].(map[string]any)
		out := map[string]any{}
		for k, v := range props {
			sub, _ := v.(map[string]any)
			out[k] = placeholder(sub, k, title)
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		if m, ok := sch["minimum"].(float64); ok {
			return m
		}
		return 1
	case "boolean":
		return false
	}
	if strings.Contains(strings.ToLower(name), "title") || strings.Contains(strings.ToLower(name), "summary") {
		return title
	}
	return "stub"
}
