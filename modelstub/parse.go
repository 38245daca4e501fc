package modelstub

import (
	"encoding/json"
	"fmt"
	"strings"
)

// parse reads a request body of an API into the normalised view.
func parse(api API, body []byte) (*Request, error) {
	req := &Request{Body: json.RawMessage(body)}
	var err error
	switch api {
	case Anthropic:
		err = parseAnthropic(body, req)
	case Responses:
		err = parseResponses(body, req)
	case Chat:
		err = parseChat(body, req)
	case Gemini:
		err = parseGemini(body, req)
	}
	if err != nil {
		return nil, fmt.Errorf("%s request: %w", api, err)
	}
	if req.Messages == nil {
		req.Messages = []Message{}
	}
	return req, nil
}

// textOf flattens content that is a string or a list of parts with text.
func textOf(raw json.RawMessage, textKeys ...string) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []map[string]json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var out []string
	for _, p := range parts {
		for _, k := range textKeys {
			var t string
			if json.Unmarshal(p[k], &t) == nil && t != "" {
				out = append(out, t)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

func parseAnthropic(body []byte, req *Request) error {
	var b struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		System json.RawMessage `json:"system"`
		Tools  []struct {
			Name        string          `json:"name"`
			Type        string          `json:"type"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return err
	}
	req.Model, req.Stream = b.Model, b.Stream
	if sys := textOf(b.System, "text"); sys != "" {
		req.Messages = append(req.Messages, Message{Role: "system", Text: sys})
	}
	for _, m := range b.Messages {
		msg := Message{Role: m.Role}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			msg.Text = s
			req.Messages = append(req.Messages, msg)
			continue
		}
		var blocks []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			Thinking  string          `json:"thinking"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(m.Content, &blocks)
		var texts []string
		for _, bl := range blocks {
			switch bl.Type {
			case "text":
				texts = append(texts, bl.Text)
			case "thinking":
				msg.Thinking = joinText(msg.Thinking, bl.Thinking)
			case "tool_use":
				msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: bl.ID, Name: bl.Name, Args: bl.Input})
			case "tool_result":
				msg.ToolResults = append(msg.ToolResults, ToolResult{CallID: bl.ToolUseID, Output: textOf(bl.Content, "text")})
			}
		}
		msg.Text = strings.Join(texts, "\n")
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range b.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Name, Params: t.InputSchema, Custom: t.Type == "custom" && len(t.InputSchema) == 0})
	}
	return nil
}

func parseResponses(body []byte, req *Request) error {
	var b struct {
		Model        string          `json:"model"`
		Stream       bool            `json:"stream"`
		Instructions string          `json:"instructions"`
		Input        json.RawMessage `json:"input"`
		Tools        []struct {
			Type       string          `json:"type"`
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return err
	}
	req.Model, req.Stream = b.Model, b.Stream
	if b.Instructions != "" {
		req.Messages = append(req.Messages, Message{Role: "system", Text: b.Instructions})
	}
	var s string
	if json.Unmarshal(b.Input, &s) == nil {
		req.Messages = append(req.Messages, Message{Role: "user", Text: s})
	} else {
		var items []struct {
			Type      string          `json:"type"`
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
			Input     string          `json:"input"`
			CallID    string          `json:"call_id"`
			Output    json.RawMessage `json:"output"`
			Summary   json.RawMessage `json:"summary"`
		}
		_ = json.Unmarshal(b.Input, &items)
		for _, it := range items {
			switch it.Type {
			case "message", "":
				role := it.Role
				if role == "developer" {
					role = "system"
				}
				req.Messages = append(req.Messages, Message{Role: role, Text: textOf(it.Content, "text")})
			case "reasoning":
				req.Messages = append(req.Messages, Message{Role: "assistant", Thinking: textOf(it.Summary, "text")})
			case "function_call":
				req.Messages = append(req.Messages, Message{Role: "assistant",
					ToolCalls: []ToolCall{{ID: it.CallID, Name: it.Name, Args: json.RawMessage(orEmpty(it.Arguments))}}})
			case "custom_tool_call":
				args, _ := json.Marshal(map[string]string{"input": it.Input})
				req.Messages = append(req.Messages, Message{Role: "assistant", ToolCalls: []ToolCall{{ID: it.CallID, Name: it.Name, Args: args}}})
			case "function_call_output", "custom_tool_call_output":
				out := textOf(it.Output, "text")
				req.Messages = append(req.Messages, Message{Role: "tool", ToolResults: []ToolResult{{CallID: it.CallID, Output: out}}})
			}
		}
	}
	for _, t := range b.Tools {
		switch t.Type {
		case "function":
			req.Tools = append(req.Tools, Tool{Name: t.Name, Params: t.Parameters})
		case "custom":
			req.Tools = append(req.Tools, Tool{Name: t.Name, Custom: true})
		default:
			// Hosted tools (web_search, ...) have a type and no name.
			name := t.Name
			if name == "" {
				name = t.Type
			}
			req.Tools = append(req.Tools, Tool{Name: name})
		}
	}
	return nil
}

func orEmpty(args string) string {
	if !json.Valid([]byte(args)) {
		b, _ := json.Marshal(map[string]string{"arguments": args})
		return string(b)
	}
	return args
}

func parseChat(body []byte, req *Request) error {
	var b struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role             string          `json:"role"`
			Content          json.RawMessage `json:"content"`
			ReasoningContent string          `json:"reasoning_content"`
			ToolCallID       string          `json:"tool_call_id"`
			Name             string          `json:"name"`
			ToolCalls        []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return err
	}
	req.Model, req.Stream = b.Model, b.Stream
	for _, m := range b.Messages {
		msg := Message{Role: m.Role, Thinking: m.ReasoningContent}
		text := textOf(m.Content, "text")
		if m.Role == "tool" {
			msg.ToolResults = []ToolResult{{CallID: m.ToolCallID, Name: m.Name, Output: text}}
		} else {
			msg.Text = text
		}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Args: json.RawMessage(orEmpty(c.Function.Arguments))})
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range b.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Function.Name, Params: t.Function.Parameters})
	}
	return nil
}

func parseGemini(body []byte, req *Request) error {
	type part struct {
		Text         string `json:"text"`
		Thought      bool   `json:"thought"`
		FunctionCall *struct {
			ID   string          `json:"id"`
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		} `json:"functionCall"`
		FunctionResponse *struct {
			ID       string          `json:"id"`
			Name     string          `json:"name"`
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
	}
	var b struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []part `json:"parts"`
		} `json:"contents"`
		SystemInstruction *struct {
			Parts []part `json:"parts"`
		} `json:"systemInstruction"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name                 string          `json:"name"`
				Parameters           json.RawMessage `json:"parameters"`
				ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return err
	}
	if si := b.SystemInstruction; si != nil {
		var texts []string
		for _, p := range si.Parts {
			texts = append(texts, p.Text)
		}
		req.Messages = append(req.Messages, Message{Role: "system", Text: strings.Join(texts, "\n")})
	}
	for _, c := range b.Contents {
		role := c.Role
		if role == "model" {
			role = "assistant"
		}
		msg := Message{Role: role}
		var texts []string
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: p.FunctionCall.Args})
			case p.FunctionResponse != nil:
				out := string(p.FunctionResponse.Response)
				var r struct {
					Output string `json:"output"`
				}
				if json.Unmarshal(p.FunctionResponse.Response, &r) == nil && r.Output != "" {
					out = r.Output
				}
				msg.ToolResults = append(msg.ToolResults, ToolResult{CallID: p.FunctionResponse.ID, Name: p.FunctionResponse.Name, Output: out})
			case p.Thought:
				msg.Thinking = joinText(msg.Thinking, p.Text)
			default:
				texts = append(texts, p.Text)
			}
		}
		if len(msg.ToolResults) > 0 && len(texts) == 0 {
			msg.Role = "tool"
		}
		msg.Text = strings.Join(texts, "\n")
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range b.Tools {
		for _, d := range t.FunctionDeclarations {
			params := d.ParametersJSONSchema
			if len(params) == 0 {
				params = d.Parameters
			}
			req.Tools = append(req.Tools, Tool{Name: d.Name, Params: params})
		}
	}
	return nil
}

// geminiModel reads the model from /v1beta/models/{model}:{action}.
func geminiModel(path string) string {
	i := strings.Index(path, "/models/")
	if i < 0 {
		return ""
	}
	m := path[i+len("/models/"):]
	if j := strings.LastIndexByte(m, ':'); j >= 0 {
		m = m[:j]
	}
	return m
}
