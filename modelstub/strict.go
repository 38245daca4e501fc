package modelstub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/stead-dev/stead/session"
)

// A strict stub (the default; Options.Permissive turns it off) refuses
// what the real APIs refuse where a lenient stub would hide a bug in what
// stead writes for a CLI: a model of another provider, a tool result
// without its call, a call left without its result, thinking or reasoning
// the API could not have signed. Each refusal has the real API's status,
// error body and wording (as its clients report them), and the request
// log records it (Request.Refused).

// refusal is a request the stub refuses, and how the API says so.
type refusal struct {
	status int
	// message is the API's error message; typ its error type (Anthropic,
	// OpenAI); param and code OpenAI's.
	message, typ string
	param, code  any
	// rule says which check refused it, for the log.
	rule string
}

// Rules a refusal names in the request log.
const (
	ruleModel     = "a model of another provider"
	ruleOrphan    = "a tool result without its call"
	ruleNoResult  = "a tool call without its result"
	ruleSignature = "thinking the API did not sign"
)

func (r *refusal) String() string { return r.rule + ": " + r.message }

// check returns why the real API would refuse req, or nil.
func check(req *Request) *refusal {
	switch req.API {
	case Anthropic:
		return checkAnthropic(req)
	case Responses:
		return checkResponses(req)
	case Chat:
		return checkChat(req)
	case Gemini:
		return checkGemini(req)
	}
	return nil
}

// refuse writes a refusal in the API's error shape.
func refuse(w http.ResponseWriter, api API, r *refusal) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.status)
	var body any
	switch api {
	case Anthropic:
		body = map[string]any{"type": "error", "error": map[string]any{"type": r.typ, "message": r.message}}
	case Gemini:
		body = map[string]any{"error": map[string]any{"code": r.status, "message": r.message, "status": geminiStatus(r.status)}}
	default:
		body = map[string]any{"error": map[string]any{"message": r.message, "type": r.typ, "param": r.param, "code": r.code}}
	}
	writeJSONBody(w, body)
}

func geminiStatus(code int) string {
	switch code {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	}
	return "INTERNAL"
}

// foreign reports whether model clearly names a model of another family
// than the API's own (names of no known family, such as test models,
// pass).
func foreign(model string, own ...string) bool {
	f := session.FamilyOf(model)
	if f == "" {
		return false
	}
	for _, o := range own {
		if f == o {
			return false
		}
	}
	return true
}

// anthropicBlock is a content block of a Messages API message, as the
// checks read it.
type anthropicBlock struct {
	Type      string  `json:"type"`
	ID        string  `json:"id"`
	ToolUseID string  `json:"tool_use_id"`
	Thinking  string  `json:"thinking"`
	Signature *string `json:"signature"`
}

func checkAnthropic(req *Request) *refusal {
	if foreign(req.Model, session.FamilyAnthropic) {
		// The Messages API's answer to a model it does not serve.
		return &refusal{status: http.StatusNotFound, typ: "not_found_error", rule: ruleModel, message: "model: " + req.Model}
	}
	var b struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(req.Body, &b) != nil {
		return nil
	}
	blocks := make([][]anthropicBlock, len(b.Messages))
	for i, m := range b.Messages {
		_ = json.Unmarshal(m.Content, &blocks[i]) // a string content has no blocks
	}
	bad := func(rule, msg string) *refusal {
		return &refusal{status: http.StatusBadRequest, typ: "invalid_request_error", rule: rule, message: msg}
	}
	// next returns the message after i, skipping the system turns Claude
	// Code puts among the messages, or -1.
	next := func(i int) int {
		for j := i + 1; j < len(b.Messages); j++ {
			if b.Messages[j].Role != "system" {
				return j
			}
		}
		return -1
	}
	uses := func(i int) map[string]bool {
		ids := map[string]bool{}
		if i >= 0 && b.Messages[i].Role == "assistant" {
			for _, bl := range blocks[i] {
				if bl.Type == "tool_use" {
					ids[bl.ID] = true
				}
			}
		}
		return ids
	}
	prev := -1
	for i, m := range b.Messages {
		if m.Role == "system" {
			continue
		}
		called := uses(prev)
		var calls []string
		for j, bl := range blocks[i] {
			switch bl.Type {
			case "thinking":
				if m.Role != "assistant" {
					continue
				}
				if bl.Signature == nil {
					return bad(ruleSignature, fmt.Sprintf("messages.%d.content.%d.thinking.signature: Field required", i, j))
				}
				if !thinkingSigned(bl.Thinking, *bl.Signature) {
					return bad(ruleSignature, fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j))
				}
			case "tool_use":
				if m.Role == "assistant" {
					calls = append(calls, bl.ID)
				}
			case "tool_result":
				if !called[bl.ToolUseID] {
					return bad(ruleOrphan, fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. "+
						"Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, bl.ToolUseID))
				}
			}
		}
		// A call must have its result in the next message; a last
		// assistant message (a prefill) has no next one yet.
		if n := next(i); len(calls) > 0 && n >= 0 {
			results := map[string]bool{}
			if b.Messages[n].Role == "user" {
				for _, bl := range blocks[n] {
					if bl.Type == "tool_result" {
						results[bl.ToolUseID] = true
					}
				}
			}
			var missing []string
			for _, id := range calls {
				if !results[id] {
					missing = append(missing, id)
				}
			}
			if len(missing) > 0 {
				return bad(ruleNoResult, fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. "+
					"Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, strings.Join(missing, ", ")))
			}
		}
		prev = i
	}
	return nil
}

func checkResponses(req *Request) *refusal {
	if foreign(req.Model, session.FamilyOpenAI) {
		return &refusal{status: http.StatusBadRequest, typ: "invalid_request_error", param: "model", code: "model_not_found",
			rule: ruleModel, message: fmt.Sprintf("The requested model '%s' does not exist.", req.Model)}
	}
	var b struct {
		Input json.RawMessage `json:"input"`
	}
	var items []struct {
		Type             string  `json:"type"`
		CallID           string  `json:"call_id"`
		EncryptedContent *string `json:"encrypted_content"`
	}
	if json.Unmarshal(req.Body, &b) != nil || json.Unmarshal(b.Input, &items) != nil {
		return nil // a string input holds no items
	}
	bad := func(rule, msg string) *refusal {
		return &refusal{status: http.StatusBadRequest, typ: "invalid_request_error", param: "input", rule: rule, message: msg}
	}
	kind := map[string]string{"function_call": "function call", "custom_tool_call": "custom tool call"}
	calls := map[string]string{} // call id: its kind
	outputs := map[string]bool{} // call ids with an output
	var order []string           // call ids, in order
	for _, it := range items {
		switch it.Type {
		case "function_call", "custom_tool_call":
			if _, seen := calls[it.CallID]; !seen {
				order = append(order, it.CallID)
			}
			calls[it.CallID] = kind[it.Type]
		case "function_call_output", "custom_tool_call_output":
			if _, ok := calls[it.CallID]; !ok {
				return bad(ruleOrphan, fmt.Sprintf("No tool call found for %s output with call_id %s.", kind[strings.TrimSuffix(it.Type, "_output")], it.CallID))
			}
			outputs[it.CallID] = true
		case "reasoning":
			if enc := it.EncryptedContent; enc != nil && *enc != "" && !reasoningDecrypts(*enc) {
				r := bad(ruleSignature, fmt.Sprintf("The encrypted content %s could not be verified. Reason: Encrypted content could not be decrypted or parsed.", clipToken(*enc)))
				r.param, r.code = nil, "invalid_encrypted_content"
				return r
			}
		}
	}
	for _, id := range order {
		if !outputs[id] {
			return bad(ruleNoResult, fmt.Sprintf("No tool output found for %s %s.", calls[id], id))
		}
	}
	return nil
}

// clipToken shows a token as the Responses API quotes it: its first and
// last four characters.
func clipToken(s string) string {
	if len(s) <= 11 {
		return s
	}
	return s[:4] + "..." + s[len(s)-4:]
}

func checkChat(req *Request) *refusal {
	// Chat Completions serves OpenAI's models and, at the base URLs
	// OpenCode and Kimi Code point it at, others' (Moonshot's); never
	// Anthropic's or Google's.
	if f := session.FamilyOf(req.Model); f == session.FamilyAnthropic || f == session.FamilyGoogle {
		return &refusal{status: http.StatusNotFound, typ: "invalid_request_error", param: nil, code: "model_not_found",
			rule: ruleModel, message: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model)}
	}
	var b struct {
		Messages []struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if json.Unmarshal(req.Body, &b) != nil {
		return nil
	}
	bad := func(rule, param, msg string) *refusal {
		return &refusal{status: http.StatusBadRequest, typ: "invalid_request_error", param: param, rule: rule, message: msg}
	}
	var open map[string]bool // the calls of the assistant message the tool messages answer
	var owner int
	for i, m := range b.Messages {
		if m.Role == "tool" {
			switch {
			case open == nil:
				return bad(ruleOrphan, fmt.Sprintf("messages.[%d].role", i),
					"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.")
			case !open[m.ToolCallID]:
				return bad(ruleOrphan, fmt.Sprintf("messages.[%d].tool_call_id", i),
					fmt.Sprintf("Invalid parameter: 'tool_call_id' of '%s' not found in 'tool_calls' of previous message.", m.ToolCallID))
			}
			delete(open, m.ToolCallID)
			continue
		}
		if r := unanswered(open, owner, bad); r != nil {
			return r
		}
		open = nil
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			open, owner = map[string]bool{}, i
			for _, c := range m.ToolCalls {
				open[c.ID] = true
			}
		}
	}
	return unanswered(open, owner, bad)
}

// unanswered refuses an assistant message's tool calls that no tool
// message answered.
func unanswered(open map[string]bool, owner int, bad func(rule, param, msg string) *refusal) *refusal {
	if len(open) == 0 {
		return nil
	}
	ids := make([]string, 0, len(open))
	for id := range open {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return bad(ruleNoResult, fmt.Sprintf("messages.[%d].role", owner),
		"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. "+
			"The following tool_call_ids did not have response messages: "+strings.Join(ids, ", "))
}

func checkGemini(req *Request) *refusal {
	if foreign(req.Model, session.FamilyGoogle) {
		return &refusal{status: http.StatusNotFound, rule: ruleModel, message: fmt.Sprintf("models/%s is not found for API version v1beta, "+
			"or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.", req.Model)}
	}
	type part struct {
		Text             string  `json:"text"`
		ThoughtSignature *string `json:"thoughtSignature"`
		FunctionCall     *struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"functionCall"`
		FunctionResponse *struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"functionResponse"`
	}
	var b struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []part `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(req.Body, &b) != nil {
		return nil
	}
	bad := func(rule, msg string) *refusal {
		return &refusal{status: http.StatusBadRequest, rule: rule, message: msg}
	}
	const count = "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
	// key names a call or a response: by id when it has one, else by name.
	key := func(id, name string) string {
		if id != "" {
			return "id:" + id
		}
		return "name:" + name
	}
	// The current turn starts after the last user content with text: a
	// Gemini 3 model needs the signature of the first call of each of its
	// model contents.
	current := 0
	for k, c := range b.Contents {
		for _, p := range c.Parts {
			if c.Role == "user" && p.FunctionResponse == nil && p.Text != "" {
				current = k + 1
			}
		}
	}
	gemini3 := strings.HasPrefix(strings.TrimPrefix(strings.ToLower(req.Model), "models/"), "gemini-3")
	for k, c := range b.Contents {
		var calls []string
		var responses []string
		first := true
		for _, p := range c.Parts {
			if sig := p.ThoughtSignature; sig != nil && !thoughtSigned(*sig) {
				return bad(ruleSignature, "Corrupted thought signature.")
			}
			if fc := p.FunctionCall; fc != nil && c.Role == "model" {
				calls = append(calls, key(fc.ID, fc.Name))
				if first && gemini3 && k >= current && p.ThoughtSignature == nil {
					return bad(ruleSignature, fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. "+
						"This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. "+
						"Additional data, function call `default_api:%s` , position %d. "+
						"Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", fc.Name, k+1))
				}
				first = false
			}
			if fr := p.FunctionResponse; fr != nil {
				responses = append(responses, key(fr.ID, fr.Name))
			}
		}
		if len(responses) > 0 {
			var called []string
			if k > 0 && b.Contents[k-1].Role == "model" {
				for _, p := range b.Contents[k-1].Parts {
					if fc := p.FunctionCall; fc != nil {
						called = append(called, key(fc.ID, fc.Name))
					}
				}
			}
			if len(called) == 0 {
				return bad(ruleOrphan, "Please ensure that function response turn comes immediately after a function call turn.")
			}
			answered := map[string]bool{}
			for _, r := range responses {
				answered[r] = true
			}
			for _, r := range responses {
				if !contains(called, r) {
					return bad(ruleOrphan, count)
				}
			}
			for _, c := range called {
				if !answered[c] {
					return bad(ruleNoResult, count)
				}
			}
			// More responses than calls, each answering one, pass: Gemini
			// CLI 0.61.0 sends each result twice when it resumes a
			// session it wrote itself (the real API would refuse that
			// too; the stub is here to catch what stead writes).
		}
		if len(calls) > 0 && k+1 < len(b.Contents) {
			nxt := b.Contents[k+1]
			hasResponse := false
			for _, p := range nxt.Parts {
				hasResponse = hasResponse || p.FunctionResponse != nil
			}
			if nxt.Role != "user" || !hasResponse {
				return bad(ruleNoResult, count)
			}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
