package modelstub

import (
	"encoding/json"
	"time"
)

// API names the model API a request came in on.
type API string

// The APIs the stub speaks.
const (
	Anthropic API = "anthropic" // POST /v1/messages
	Responses API = "responses" // POST /v1/responses
	Chat      API = "chat"      // POST /v1/chat/completions
	Gemini    API = "gemini"    // POST /v1beta/models/{model}:{action}
)

// Request is one request the stub received, as recorded.
type Request struct {
	Seq  int       `json:"seq"`
	Time time.Time `json:"time"`
	API  API       `json:"api"`
	Path string    `json:"path"`
	// Side is true for a request that took no script turn (titles,
	// summaries, routing, token counts).
	Side bool `json:"side"`
	// Turn is the 1-based script turn the request took, or 0.
	Turn int `json:"turn,omitempty"`
	// Fault is the fault the stub answered with, if any.
	Fault string `json:"fault,omitempty"`
	// Refused says why the stub refused the request as the real API
	// would (a strict stub): the rule, then the API's message. A refused
	// request takes no script turn.
	Refused string `json:"refused,omitempty"`
	// Model is the model the request asked for.
	Model string `json:"model,omitempty"`
	// Stream tells whether the answer was streamed.
	Stream bool `json:"stream"`
	// Headers holds the request headers that identify the client.
	Headers map[string]string `json:"headers,omitempty"`
	// Messages is the conversation the request carried, normalised.
	Messages []Message `json:"messages"`
	// Tools are the tools the request declared.
	Tools []Tool `json:"tools,omitempty"`
	// Calls are the tool calls the stub answered with.
	Calls []ToolCall `json:"calls,omitempty"`
	// Warnings say what the stub could not do as the script asked.
	Warnings []string `json:"warnings,omitempty"`
	// Body is the request body as received.
	Body json.RawMessage `json:"body"`
}

// Message is one message of a request's conversation, whatever the API.
type Message struct {
	// Role is system, user, assistant or tool.
	Role        string       `json:"role"`
	Text        string       `json:"text,omitempty"`
	Thinking    string       `json:"thinking,omitempty"`
	ToolCalls   []ToolCall   `json:"toolCalls,omitempty"`
	ToolResults []ToolResult `json:"toolResults,omitempty"`
}

// ToolCall is a tool call in a message.
type ToolCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// ToolResult is a tool's output sent back to the model.
type ToolResult struct {
	CallID string `json:"callId,omitempty"`
	Name   string `json:"name,omitempty"`
	Output string `json:"output"`
}

// Tool is a tool a request declared.
type Tool struct {
	Name string `json:"name"`
	// Params is the tool's JSON Schema for its arguments.
	Params json.RawMessage `json:"params,omitempty"`
	// Custom is true for a freeform tool that takes text, not JSON.
	Custom bool `json:"custom,omitempty"`
}

// Texts returns the text of every message with the role, in order.
func (r *Request) Texts(role string) []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == role && m.Text != "" {
			out = append(out, m.Text)
		}
	}
	return out
}

// ToolResults returns every tool result the request carried, in order.
func (r *Request) ToolResults() []ToolResult {
	var out []ToolResult
	for _, m := range r.Messages {
		out = append(out, m.ToolResults...)
	}
	return out
}

// AllToolCalls returns every tool call the request's history carried.
func (r *Request) AllToolCalls() []ToolCall {
	var out []ToolCall
	for _, m := range r.Messages {
		out = append(out, m.ToolCalls...)
	}
	return out
}

// Declares reports whether the request declared a tool of that name.
func (r *Request) Declares(name string) bool {
	for _, t := range r.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}
