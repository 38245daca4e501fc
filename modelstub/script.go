package modelstub

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/stead-dev/stead/session"
)

// Script is what the stub plays.
type Script struct {
	// Model is the model name the stub reports; empty means the model the
	// CLI asked for.
	Model string `json:"model,omitempty"`
	// Prompts are the user prompts the script answers, in order: not
	// played by the stub, but what a driver should send (one per CLI
	// invocation or TUI turn).
	Prompts []string `json:"prompts,omitempty"`
	// Turns are the model's answers to main requests, in order.
	Turns []Turn `json:"turns"`
	// Title answers title and summary side requests.
	Title string `json:"title,omitempty"`
}

// Turn is one model response.
type Turn struct {
	Thinking string    `json:"thinking,omitempty"`
	Text     string    `json:"text,omitempty"`
	Tools    []ToolUse `json:"tools,omitempty"`
	// Usage is reported for the turn; zero fields are estimated from the
	// request and the answer.
	Usage *session.Usage `json:"usage,omitempty"`
	// Fault replaces the answer: "429" or "500" (an HTTP error), "stall"
	// (the stream starts and never ends) or "drop" (the connection
	// closes mid-stream).
	Fault string `json:"fault,omitempty"`
	// FaultTimes is how many requests get the fault before the turn is
	// played normally; 0 means every request (retries included), so the
	// CLI fails for good. A turn with a fault and nothing else gives way
	// to the next turn once its faults are spent.
	FaultTimes int `json:"faultTimes,omitempty"`
	// RetryAfterMs, when set, is sent with a 429 or 500 in the
	// Retry-After-Ms and Retry-After headers, telling clients that honour
	// them (OpenCode, the Anthropic and OpenAI SDKs) when to retry; 0
	// makes their retries immediate.
	RetryAfterMs *int `json:"retryAfterMs,omitempty"`
	// DelayMs is a pause between streamed events, to watch a busy CLI.
	DelayMs int `json:"delayMs,omitempty"`
}

// ToolUse is a tool call in a turn.
type ToolUse struct {
	// Tool is the universal tool name.
	Tool session.Tool `json:"tool"`
	// Args are universal arguments: bash {command}, read {path},
	// write {path, content}, edit {path, old, new}, search {pattern},
	// glob {pattern}, list {path}, web_fetch {url}, web_search {query}.
	// Keys the stub does not know are passed through.
	Args map[string]any `json:"args,omitempty"`
	// Name, when set and declared by the CLI, is the tool called;
	// otherwise Tool is mapped to a declared tool. Either way Args are
	// fitted to the tool's schema: keys it has are kept, universal keys
	// and other CLIs' names for them renamed, keys it forbids dropped.
	Name string `json:"name,omitempty"`
}

// faultOnly reports whether the turn is a fault and nothing else.
func (t Turn) faultOnly() bool {
	return t.Fault != "" && t.Text == "" && t.Thinking == "" && len(t.Tools) == 0
}

// Faults the stub can inject.
const (
	Fault429   = "429"
	Fault500   = "500"
	FaultStall = "stall"
	FaultDrop  = "drop"
)

// ReadScript decodes a JSON script and checks it.
func ReadScript(r io.Reader) (*Script, error) {
	var s Script
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Check reports what is wrong with a script.
func (s *Script) Check() error {
	if len(s.Turns) == 0 {
		return fmt.Errorf("script: no turns")
	}
	for i, t := range s.Turns {
		switch t.Fault {
		case "", Fault429, Fault500, FaultStall, FaultDrop:
		default:
			return fmt.Errorf("script: turn %d: unknown fault %q (want 429, 500, stall or drop)", i+1, t.Fault)
		}
		if t.Fault == "" && t.Text == "" && t.Thinking == "" && len(t.Tools) == 0 {
			return fmt.Errorf("script: turn %d is empty", i+1)
		}
		for j, u := range t.Tools {
			if u.Tool == "" && u.Name == "" {
				return fmt.Errorf("script: turn %d, tool %d: name a tool", i+1, j+1)
			}
		}
	}
	return nil
}

// FromSession derives a script from a universal session: each model
// response (the assistant text, thinking and tool calls between two user
// prompts or tool results) becomes a turn, and each user prompt a prompt.
// Replaying the script against a CLI with the same prompts repeats the
// conversation; tool calls are re-run for real. Paths inside the session's
// project become relative, so the replay works on a copy of the project
// elsewhere (see Options.Dir).
func FromSession(s *session.Session) *Script {
	sc := &Script{Model: s.Model.Model, Title: s.Title}
	var cur *Turn
	flush := func() {
		if cur != nil && (cur.Text != "" || cur.Thinking != "" || len(cur.Tools) > 0) {
			sc.Turns = append(sc.Turns, *cur)
		}
		cur = nil
	}
	open := func() *Turn {
		if cur == nil {
			cur = &Turn{}
		}
		return cur
	}
	lastMsg := ""
	for _, e := range s.Timeline {
		switch e.Type {
		case session.User:
			flush()
			if e.Kind == "" && strings.TrimSpace(e.Content) != "" {
				sc.Prompts = append(sc.Prompts, e.Content)
			}
		case session.ToolResult:
			flush()
		case session.Assistant:
			if e.Kind == session.KindError {
				continue
			}
			// A new API response starts a new turn.
			if e.MessageID != "" && lastMsg != "" && e.MessageID != lastMsg {
				flush()
			}
			t := open()
			t.Text = joinText(t.Text, e.Content)
			t.Thinking = joinText(t.Thinking, e.Thinking)
			if e.Usage != nil {
				u := *e.Usage
				t.Usage = &u
			}
		case session.ToolCall:
			if e.MessageID != "" && lastMsg != "" && e.MessageID != lastMsg {
				flush()
			}
			var args map[string]any
			_ = json.Unmarshal(e.Input, &args)
			relativize(args, s.Project.Path)
			t := open()
			t.Tools = append(t.Tools, ToolUse{Tool: e.Tool, Name: e.OriginalTool, Args: args})
		}
		if e.MessageID != "" {
			lastMsg = e.MessageID
		}
	}
	flush()
	return sc
}

// relativize makes the path arguments in args under project relative to
// it ("." for the project itself).
func relativize(args map[string]any, project string) {
	project = strings.TrimSuffix(project, "/")
	if project == "" {
		return // no project, or "/": every path would qualify
	}
	for _, k := range argAliases["path"] {
		p, ok := args[k].(string)
		switch {
		case !ok:
		case p == project || p == project+"/":
			args[k] = "."
		case strings.HasPrefix(p, project+"/"):
			args[k] = strings.TrimPrefix(p, project+"/")
		}
	}
}

func joinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}
