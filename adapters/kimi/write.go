package kimi

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stead-dev/stead/adapters/internal/ids"
	"github.com/stead-dev/stead/session"
)

// interruptedResult is the text Kimi Code gives a tool call whose result
// was never recorded, when it sends the history to the model; stead
// writes it as the result of such a call in a kimi-cli session, whose
// context needs one, and reads it back as an interrupted call.
const interruptedResult = "Tool execution was interrupted before its result was recorded. Do not assume the tool completed successfully."

// maxBlob is the largest Kimi Code media blob the encoder embeds.
const maxBlob = 32 << 20

// Encoder writes a Kimi session, one normalised entry at a time: a Kimi
// Code journal (agents/main/wire.jsonl), or for the "legacy" format a
// kimi-cli wire.jsonl, with its context.jsonl as a File.
//
// The entries of one model response (its thinking, text, tool calls and
// their results) are gathered and written as one step, as Kimi Code
// writes them: step.begin, content.part per part, tool.call and
// tool.result, step.end with the response's usage. A response holding an
// entry of several parts (thinking and text in one message, as other
// CLIs and kimi-cli's context record them) is written as whole context
// messages instead, as Kimi Code's importer writes them, so that it reads
// back as it was. See the package doc for the profile binding.
type Encoder struct {
	w     io.Writer
	t     session.Target
	lost  func(session.Loss)
	err   error
	newID func() string

	started bool
	last    time.Time // time of the latest record

	// The response being gathered.
	resp        []session.Entry
	respKey     string
	respUsage   bool
	respResults bool

	inTurn    bool
	turns     int  // turns opened; the current one is turns-1
	cancelled bool // the current turn ended with an interrupted call
	steps     int  // steps of the current turn
	model     string
	messages  int // context messages written, for llm.request

	callIDs  map[string]string // source call id -> written id
	usedIDs  map[string]bool
	status   map[string]session.ToolStatus // written call id -> the call's status
	callUUID map[string]string             // written call id -> tool.call's uuid

	legacy *legacyOut
	buf    []byte
}

// NewEncoder returns an encoder of the session t to w: a Kimi Code
// journal, or a kimi-cli wire.jsonl when t.Format is "legacy" (its
// context.jsonl then comes from Files, beside t.Path, which Place chose
// and inject sets). lost hears what Kimi cannot hold.
func NewEncoder(w io.Writer, t session.Target, lost func(session.Loss)) *Encoder {
	if lost == nil {
		lost = func(session.Loss) {}
	}
	e := &Encoder{w: w, t: t, lost: lost, newID: ids.UUID4, last: t.Created,
		callIDs: map[string]string{}, usedIDs: map[string]bool{}, status: map[string]session.ToolStatus{}, callUUID: map[string]string{}}
	if t.Format == FormatLegacy {
		e.legacy = &legacyOut{}
		if t.Path != "" {
			e.legacy.dir = filepath.Dir(t.Path)
		}
	}
	return e
}

// Encode writes one entry.
func (e *Encoder) Encode(en *session.Entry) error {
	if e.err != nil {
		return e.err
	}
	e.start()
	switch en.Type {
	case session.User:
		e.flush()
		e.endTurn()
		e.touch(en.Timestamp)
		if e.legacy != nil {
			e.legacyTurn(en)
		} else {
			e.codeTurn(en)
		}
	case session.Assistant, session.ToolCall:
		k := responseKey(en)
		if len(e.resp) > 0 && e.boundary(en, k) {
			e.flush()
		}
		e.gather(en, k)
	case session.ToolResult:
		e.gather(en, "")
		e.respResults = true
	}
	return e.err
}

// Close writes what is gathered and ends the last turn.
func (e *Encoder) Close() error {
	e.start()
	e.flush()
	e.endTurn()
	if e.legacy != nil && e.legacy.dir == "" && e.err == nil {
		e.err = fmt.Errorf("kimi: the kimi-cli session %s has no path (Target.Path, chosen by Place): its context.jsonl has no place", e.t.ID)
	}
	return e.err
}

// Files returns the files a session needs beside its journal: a kimi-cli
// session's context.jsonl, the LLM context kimi-cli resumes from. A Kimi
// Code session needs none but the state.json Place chose.
func (e *Encoder) Files() []session.File {
	if e.legacy == nil || e.legacy.dir == "" {
		return nil
	}
	return []session.File{{Path: filepath.Join(e.legacy.dir, "context.jsonl"), Data: e.legacy.ctx.Bytes()}}
}

func (e *Encoder) start() {
	if e.started {
		return
	}
	e.started = true
	if e.legacy != nil {
		e.legacyStart()
		return
	}
	e.line(obj{{"type", "metadata"}, {"protocol_version", "1.5"}, {"created_at", e.t.Created.UnixMilli()}})
	// The binding names no profile: resumed with -m, or in the TUI, Kimi
	// Code binds its own default profile, rendering its system prompt for
	// the directory, and the model given or configured. Only print mode
	// without -m keeps this one.
	e.put("profile.bind", kv{"modelAlias", EnvModel}, kv{"thinkingEffort", "on"},
		kv{"systemPrompt", standInPrompt(e.t)}, kv{"environmentDisclosure", obj{{"cwd", e.t.Dir}}},
		kv{"disallowedTools", []string{}})
}

// standInPrompt is the system prompt of the profile a written session
// binds, for the one resume that keeps it (print mode without -m).
func standInPrompt(t session.Target) string {
	from := "another coding agent"
	if t.Origin.CLI != "" {
		from = t.Origin.CLI
	}
	return "You are Kimi Code CLI, an interactive coding agent working in " + t.Dir + " on the user's computer. " +
		"The conversation so far was recorded by " + from + " and converted by stead; continue it, " +
		"helping the user with their software engineering tasks through your tools."
}

// touch advances the clock of the records to t.
func (e *Encoder) touch(t time.Time) {
	if !t.IsZero() && t.After(e.last) {
		e.last = t
	}
}

// responseKey names the model response an entry belongs to: its API
// message id, or for an entry read from a Kimi Code journal its step.
func responseKey(en *session.Entry) string {
	if en.MessageID != "" {
		return en.MessageID
	}
	if en.Native != nil && len(en.Native.Record) > 0 {
		var r struct {
			Event struct {
				StepUUID string `json:"stepUuid"`
			} `json:"event"`
		}
		if json.Unmarshal(en.Native.Record, &r) == nil && r.Event.StepUUID != "" {
			return "step:" + r.Event.StepUUID
		}
	}
	return ""
}

// boundary reports whether en, of response k, starts a new model
// response.
func (e *Encoder) boundary(en *session.Entry, k string) bool {
	switch {
	case k != "" && k == e.respKey:
		return false
	case k != "" && e.respKey != "":
		return true
	}
	return e.respResults || en.Usage != nil && e.respUsage
}

func (e *Encoder) gather(en *session.Entry, k string) {
	if len(e.resp) == 0 {
		e.respKey = ""
	}
	if k != "" && e.respKey == "" {
		e.respKey = k
	}
	if en.Usage != nil {
		e.respUsage = true
	}
	e.resp = append(e.resp, *en)
}

// flush writes the response gathered.
func (e *Encoder) flush() {
	resp := e.resp
	e.resp, e.respKey, e.respUsage, e.respResults = e.resp[:0], "", false, false
	if len(resp) == 0 || e.err != nil {
		return
	}
	if !e.inTurn {
		// A response before any prompt: a turn without one.
		e.inTurn, e.turns, e.steps, e.cancelled = true, e.turns+1, 0, false
	}
	e.steps++
	if e.legacy != nil {
		e.legacyStep(resp)
		return
	}
	for i := range resp {
		if resp[i].Type == session.Assistant && partCount(&resp[i]) > 1 {
			e.codeMessages(resp)
			return
		}
	}
	e.codeStep(resp)
}

// endTurn closes the open turn.
func (e *Encoder) endTurn() {
	if !e.inTurn {
		return
	}
	e.inTurn = false
	if e.legacy != nil {
		e.wire("TurnEnd", obj{})
		return
	}
	reason := "completed"
	if e.cancelled {
		reason = "cancelled"
	}
	e.put("turn.ended", kv{"turnId", e.turns - 1}, kv{"reason", reason})
}

// codeTurn opens a turn with the user's prompt.
func (e *Encoder) codeTurn(en *session.Entry) {
	e.inTurn, e.turns, e.steps, e.cancelled = true, e.turns+1, 0, false
	id := "msg_" + e.newID()
	input := e.userParts(en)
	e.put("turn.prompt", kv{"input", input}, kv{"origin", obj{{"kind", "user"}}}, kv{"promptId", id}, kv{"turnId", e.turns - 1})
	e.put("context.append_message", kv{"message", obj{{"role", "user"}, {"content", input}, {"id", id},
		{"toolCalls", []any{}}, {"origin", obj{{"kind", "user"}}}}})
	e.messages++
}

// userParts is a prompt's content: its text, then its attachments.
func (e *Encoder) userParts(en *session.Entry) []any {
	parts := []any{}
	if en.Content != "" || len(en.Attachments) == 0 {
		parts = append(parts, obj{{"type", "text"}, {"text", en.Content}})
	}
	return append(parts, e.media(en)...)
}

// respInfo returns a response's model and usage. The model is history,
// the one that wrote the response (the entry's, else the source
// session's): Kimi Code resumes with the model its profile binds, not the
// one its llm.request records name.
func (e *Encoder) respInfo(resp []session.Entry) (string, *session.Usage) {
	model := ""
	var u *session.Usage
	for i := range resp {
		if model == "" && resp[i].Type != session.ToolResult {
			model = resp[i].Model
		}
		if u == nil && resp[i].Usage != nil && resp[i].Type != session.ToolResult {
			u = resp[i].Usage
		}
	}
	if model == "" {
		model = e.t.SourceModel
	}
	return model, u
}

// llmRequest records the model of the responses that follow, where Kimi
// Code records it: in the request it made for them.
func (e *Encoder) llmRequest(model, turnStep string) {
	if model == "" || model == e.model {
		return
	}
	e.model = model
	provider := session.ProviderOf(model)
	if provider == "" && model == e.t.SourceModel {
		provider = e.t.SourceProvider
	}
	if provider == "" {
		provider = "unknown"
	}
	fields := []kv{{"kind", "loop"}, {"provider", provider}, {"model", model}, {"toolSelect", false},
		{"systemPromptHash", ""}, {"toolsHash", ""}, {"messageCount", e.messages}}
	if turnStep != "" {
		fields = append(fields, kv{"turnStep", turnStep})
	}
	e.put("llm.request", fields...)
}

// codeUsage is a usage in Kimi's terms; input excludes cache reads and
// writes in both.
func codeUsage(u *session.Usage) obj {
	return obj{{"inputOther", u.Input}, {"output", u.Output}, {"inputCacheRead", u.CacheRead}, {"inputCacheCreation", u.CacheWrite}}
}

func (e *Encoder) usageRecord(model string, u *session.Usage) {
	if model == "" {
		model = EnvModel
	}
	e.put("usage.record", kv{"model", model}, kv{"usage", codeUsage(u)}, kv{"usageScope", "turn"})
}

// codeStep writes a response as a Kimi Code step.
func (e *Encoder) codeStep(resp []session.Entry) {
	turn := strconv.Itoa(e.turns - 1)
	step := e.newID()
	e.touch(resp[0].Timestamp)
	model, u := e.respInfo(resp)
	loop := func(ev obj) { e.put("context.append_loop_event", kv{"event", ev}) }
	loop(obj{{"type", "step.begin"}, {"uuid", step}, {"turnId", turn}, {"step", e.steps}})
	e.llmRequest(model, turn+"."+strconv.Itoa(e.steps))
	if u != nil {
		e.usageRecord(model, u)
	}
	in := func(typ string) obj {
		return obj{{"type", typ}, {"uuid", e.newID()}, {"turnId", turn}, {"step", e.steps}, {"stepUuid", step}}
	}
	calls := false
	for i := range resp {
		en := &resp[i]
		e.touch(en.Timestamp)
		switch en.Type {
		case session.Assistant:
			for _, p := range e.parts(en) {
				loop(append(in("content.part"), kv{"part", p}))
			}
		case session.ToolCall:
			calls = true
			id := e.call(en)
			uuid := e.newID()
			e.callUUID[id] = uuid
			loop(obj{{"type", "tool.call"}, {"uuid", uuid}, {"turnId", turn}, {"step", e.steps}, {"stepUuid", step},
				{"toolCallId", id}, {"name", en.OriginalTool}, {"args", args(en.Input)}})
			e.denied(en, id, en.OriginalTool)
		case session.ToolResult:
			id, ok := e.result(en)
			if !ok {
				continue
			}
			loop(obj{{"type", "tool.result"}, {"parentUuid", e.callUUID[id]}, {"toolCallId", id}, {"result", e.codeResult(en)}})
		}
	}
	e.messages++
	reason := "end_turn"
	if calls {
		reason = "tool_use"
	}
	end := obj{{"type", "step.end"}, {"uuid", step}, {"turnId", turn}, {"step", e.steps}, {"finishReason", reason}}
	if u != nil {
		end = append(end, kv{"usage", codeUsage(u)})
	}
	loop(end)
}

// codeMessages writes a response as whole context messages: the
// assistant's, then one per tool result.
func (e *Encoder) codeMessages(resp []session.Entry) {
	e.touch(resp[0].Timestamp)
	model, u := e.respInfo(resp)
	e.llmRequest(model, "")
	content := []any{}
	toolCalls := []any{}
	var called []*session.Entry
	for i := range resp {
		en := &resp[i]
		switch en.Type {
		case session.Assistant:
			content = append(content, e.parts(en)...)
		case session.ToolCall:
			id := e.call(en)
			toolCalls = append(toolCalls, obj{{"type", "function"}, {"id", id}, {"name", en.OriginalTool}, {"arguments", string(args(en.Input))}})
			called = append(called, en)
		}
	}
	msg := obj{{"role", "assistant"}, {"content", content}, {"toolCalls", toolCalls}}
	if u != nil {
		// No step.end to carry the usage: the message does, where Kimi
		// Code's context messages keep it.
		msg = append(msg, kv{"usage", codeUsage(u)})
	}
	e.put("context.append_message", kv{"message", msg})
	e.messages++
	for _, c := range called {
		e.denied(c, e.callIDs[c.ID], c.OriginalTool)
	}
	for i := range resp {
		en := &resp[i]
		if en.Type != session.ToolResult {
			continue
		}
		e.touch(en.Timestamp)
		id, ok := e.result(en)
		if !ok {
			continue
		}
		msg := obj{{"role", "tool"}, {"content", e.resultParts(en)}, {"toolCalls", []any{}}, {"toolCallId", id}}
		if failed(en) {
			msg = append(msg, kv{"isError", true})
		}
		e.put("context.append_message", kv{"message", msg})
		e.messages++
	}
}

// denied records that the user rejected a call, as Kimi Code does when a
// call is not approved.
func (e *Encoder) denied(en *session.Entry, id, name string) {
	if en.Status != session.StatusDenied {
		return
	}
	if e.legacy != nil {
		req := "stead-" + e.newID()
		e.wire("ApprovalRequest", obj{{"id", req}, {"tool_call_id", id}, {"sender", name},
			{"action", "use " + name}, {"description", "Use " + name}, {"source_kind", nil},
			{"source_id", nil}, {"agent_id", nil}, {"subagent_type", nil}, {"source_description", nil}, {"display", []any{}}})
		e.wire("ApprovalResponse", obj{{"request_id", req}, {"response", "reject"}, {"feedback", ""}})
		return
	}
	e.put("permission.record_approval_result", kv{"turnId", e.turns - 1}, kv{"toolCallId", id},
		kv{"toolName", name}, kv{"action", "use " + name}, kv{"result", obj{{"decision", "rejected"}}})
}

// result returns the written id of a result's call, and false for a
// result Kimi Code makes up itself: a placeholder for a call that never
// finished, which Kimi Code answers, when it sends the history, with its
// own "interrupted" error (kimi.md §3.8). A call the source marked
// interrupted ends its turn as cancelled.
func (e *Encoder) result(en *session.Entry) (string, bool) {
	id, ok := e.callIDs[en.CallID]
	if !ok {
		id = e.callID(en.CallID)
	}
	if en.Kind == session.KindPlaceholder {
		if e.status[id] == session.StatusInterrupted {
			e.cancelled = true
		}
		return id, e.legacy != nil
	}
	return id, true
}

// failed reports whether a result is an error.
func failed(en *session.Entry) bool {
	return !(en.Success || en.Status == session.StatusOK)
}

// resultText is a result's text: its error, for a failed call.
func resultText(en *session.Entry) string {
	if failed(en) && en.Error != "" {
		return en.Error
	}
	return en.Output
}

// codeResult is a tool.result's result: the native one when the result
// comes from a Kimi Code journal (keeping its note and duration), else
// its output, text or parts, and whether it failed.
func (e *Encoder) codeResult(en *session.Entry) any {
	if raw, ok := nativeResult(en); ok {
		return raw
	}
	r := obj{{"output", e.resultOutput(en)}}
	if failed(en) {
		r = append(r, kv{"isError", true})
	}
	return r
}

// nativeResult returns the result of the Kimi Code tool.result record an
// entry was read from.
func nativeResult(en *session.Entry) (json.RawMessage, bool) {
	if en.Native == nil || len(en.Native.Record) == 0 || len(en.Attachments) > 0 {
		return nil, false
	}
	var r struct {
		Type  string `json:"type"`
		Event struct {
			Type       string          `json:"type"`
			ToolCallID string          `json:"toolCallId"`
			Result     json.RawMessage `json:"result"`
		} `json:"event"`
	}
	if json.Unmarshal(en.Native.Record, &r) != nil || r.Type != "context.append_loop_event" ||
		r.Event.Type != "tool.result" || r.Event.ToolCallID != en.CallID || len(r.Event.Result) == 0 {
		return nil, false
	}
	return r.Event.Result, true
}

// resultOutput is a result's output: its text, or parts when it has
// attachments.
func (e *Encoder) resultOutput(en *session.Entry) any {
	if len(en.Attachments) == 0 {
		return resultText(en)
	}
	return e.resultParts(en)
}

func (e *Encoder) resultParts(en *session.Entry) []any {
	parts := []any{}
	if t := resultText(en); t != "" {
		parts = append(parts, obj{{"type", "text"}, {"text", t}})
	}
	return append(parts, e.media(en)...)
}

// partCount is how many content parts an assistant entry makes.
func partCount(en *session.Entry) int {
	n := len(en.Attachments)
	kimi := 0
	for _, r := range en.Reasoning {
		if r.Format == "kimi" {
			kimi++
		}
	}
	switch {
	case kimi > 0:
		n += kimi
	case en.Thinking != "":
		n++
	}
	if en.Content != "" {
		n++
	}
	return n
}

// parts returns an assistant entry's content parts (thinking, text,
// media) and reports what Kimi cannot hold.
func (e *Encoder) parts(en *session.Entry) []any {
	var parts []any
	think := func(text, encrypted string) obj {
		p := obj{{"type", "think"}, {"think", text}}
		if e.legacy != nil {
			var enc any
			if encrypted != "" {
				enc = encrypted
			}
			return append(p, kv{"encrypted", enc})
		}
		if encrypted != "" {
			p = append(p, kv{"encrypted", encrypted})
		}
		return p
	}
	kimi := false
	for _, r := range en.Reasoning {
		if r.Format == "kimi" {
			kimi = true
			parts = append(parts, think(r.Text, r.Encrypted))
		}
	}
	if !kimi {
		if en.Thinking != "" {
			// Kimi takes its reasoning back as plain text
			// (reasoning_content), signed by nobody: the text goes, a
			// signature another provider made does not.
			parts = append(parts, think(en.Thinking, ""))
		}
		for _, r := range en.Reasoning {
			switch {
			case r.Signature == "" && r.Encrypted == "":
			case r.Text != "" && en.Thinking != "":
				e.lost(session.Loss{Entry: en.ID, What: session.LostReasoning, How: session.HandledChanged,
					Detail: "the thinking is carried as text; its " + formatOr(r.Format) + " signature or encryption means nothing to Kimi's API and is dropped"})
			default:
				e.lost(session.Loss{Entry: en.ID, What: session.LostReasoning, How: session.HandledDropped,
					Detail: "encrypted " + formatOr(r.Format) + " reasoning cannot be sent to Kimi's API"})
			}
		}
	}
	if en.Content != "" {
		parts = append(parts, obj{{"type", "text"}, {"text", en.Content}})
	}
	return append(parts, e.media(en)...)
}

func formatOr(f string) string {
	if f == "" {
		return "another provider's"
	}
	return f
}

// media returns an entry's attachments as media parts, reporting those
// Kimi cannot hold.
func (e *Encoder) media(en *session.Entry) []any {
	var out []any
	for _, a := range en.Attachments {
		typ := a.Type
		switch typ {
		case "image", "audio", "video":
		default:
			e.lost(session.Loss{Entry: en.ID, What: session.LostAttachment, How: session.HandledDropped,
				Detail: fmt.Sprintf("Kimi takes images, audio and video; the %s %q is left out", a.Type, firstNonEmpty(a.Name, a.Path))})
			continue
		}
		url, ok := attachmentURL(a)
		if !ok {
			e.lost(session.Loss{Entry: en.ID, What: session.LostAttachment, How: session.HandledDropped,
				Detail: fmt.Sprintf("the %s %q has neither its data nor a URL", a.Type, firstNonEmpty(a.Name, a.Path))})
			continue
		}
		if e.legacy != nil {
			out = append(out, obj{{"type", typ + "_url"}, {typ + "_url", obj{{"url", url}, {"id", nil}}}})
		} else {
			out = append(out, obj{{"type", typ + "_url"}, {typ + "Url", obj{{"url", url}}}})
		}
	}
	return out
}

// attachmentURL is the URL a media part carries for an attachment: its
// data as a data: URL, its URL, or for a Kimi Code blob (a file named by
// the SHA-256 of its base64 form, in an agent's blobs folder) the blob's
// data, or its blobref: when the blob is gone, as the source had it. Other
// files are not read: a session names paths, and a conversion must not
// carry a file's content off the machine because a session named it.
func attachmentURL(a session.Attachment) (string, bool) {
	switch {
	case a.Data != "" && a.MediaType != "":
		return "data:" + a.MediaType + ";base64," + a.Data, true
	case a.URL != "":
		return a.URL, true
	case a.Path != "" && a.MediaType != "" && filepath.Base(filepath.Dir(a.Path)) == "blobs" && isSHA256(filepath.Base(a.Path)):
		if b, err := readBlob(a.Path); err == nil {
			return "data:" + a.MediaType + ";base64," + b, true
		}
		return "blobref:" + a.MediaType + ";" + filepath.Base(a.Path), true
	}
	return "", false
}

// readBlob returns a Kimi Code blob base64-encoded, if its name is the
// hash Kimi Code gives it.
func readBlob(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() || info.Size() > maxBlob {
		return "", fmt.Errorf("kimi: %s is not a blob", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := base64.StdEncoding.EncodeToString(b)
	if sum := sha256.Sum256([]byte(s)); hex.EncodeToString(sum[:]) != filepath.Base(path) {
		return "", fmt.Errorf("kimi: %s is not the blob its name says", path)
	}
	return s, nil
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// call returns the id written for a call, remembering its status. A
// call whose id an earlier call had gets a new one, which its result then
// names.
func (e *Encoder) call(en *session.Entry) string {
	if _, seen := e.status[e.callIDs[en.ID]]; seen {
		delete(e.callIDs, en.ID)
	}
	id := e.callID(en.ID)
	e.status[id] = en.Status
	return id
}

// callID returns the id written for a source call id: the same, unless a
// call of the session has it already (Kimi Code ids must be unique in a
// journal; it suffixes repeats __2, __3…).
func (e *Encoder) callID(src string) string {
	if id, ok := e.callIDs[src]; ok {
		return id
	}
	id := src
	if id == "" {
		id = "call_stead_" + strconv.Itoa(len(e.callIDs)+1)
	}
	for n := 2; e.usedIDs[id]; n++ {
		id = src + "__" + strconv.Itoa(n)
	}
	e.usedIDs[id] = true
	e.callIDs[src] = id
	return id
}

// args returns a tool input as the JSON object Kimi records: an input that
// is not one is wrapped.
func args(input json.RawMessage) json.RawMessage {
	return objectInput(input, "input")
}

// kv is a key and value of a JSON object written in order.
type kv struct {
	k string
	v any
}

// obj is a JSON object whose keys keep their order, as the CLIs write
// them.
type obj []kv

// MarshalJSON writes the object's keys in order.
func (o obj) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, f := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := session.MarshalCompact(f.k)
		b = append(b, k...)
		b = append(b, ':')
		v, err := session.MarshalCompact(f.v)
		if err != nil {
			return nil, err
		}
		b = append(b, v...)
	}
	return append(b, '}'), nil
}

// put writes a Kimi Code record: its type, the main agent, its fields, its
// time.
func (e *Encoder) put(typ string, fields ...kv) {
	o := make(obj, 0, len(fields)+3)
	o = append(o, kv{"type", typ}, kv{"agentId", "main"})
	o = append(o, fields...)
	o = append(o, kv{"time", e.last.UnixMilli()})
	e.line(o)
}

// line writes one JSON line.
func (e *Encoder) line(v any) {
	if e.err != nil {
		return
	}
	b, err := session.MarshalCompact(v)
	if err != nil {
		e.err = err
		return
	}
	e.buf = append(append(e.buf[:0], b...), '\n')
	_, e.err = e.w.Write(e.buf)
	if cap(e.buf) > 1<<20 {
		e.buf = nil
	}
}

// pythonJSON respaces compact JSON as Python's json.dumps writes it (", "
// and ": " between items), which kimi-cli uses for its wire and marker
// lines.
func pythonJSON(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/8)
	inStr, esc := false, false
	for _, c := range b {
		out = append(out, c)
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case !inStr && (c == ',' || c == ':'):
			out = append(out, ' ')
		}
	}
	return out
}

// floatSeconds writes t as kimi-cli's float epoch seconds.
func floatSeconds(t time.Time) json.RawMessage {
	s := strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return json.RawMessage(s)
}
