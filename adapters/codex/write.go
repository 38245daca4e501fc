package codex

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/stead-dev/stead/adapters/internal/ids"
	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// WriteVersion is the Codex version written sessions claim: the one whose
// loading rules the writer follows (codex.md §7).
const WriteVersion = "0.169.0"

// Place chooses a new session's id (a time-ordered UUID, as Codex makes)
// and its file: sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl
// under Codex's home, in local time, where resume, the picker and --last
// all find it (codex.md §7).
func Place(env session.Env, t *session.Target) (session.Placement, error) {
	if t.ID == "" {
		t.ID = ids.UUID7(time.Now())
	}
	if !ids.IsUUID(t.ID) {
		return session.Placement{}, fmt.Errorf("codex: session id %q is not a UUID, which Codex requires", t.ID)
	}
	if !filepath.IsAbs(t.Dir) {
		return session.Placement{}, fmt.Errorf("codex: project directory %q is not absolute", t.Dir)
	}
	// Codex pins a thread to the model provider it records. A thread
	// with none is indexed with an empty provider once Codex has a state
	// database, and its TUI then refuses to resume it ("Model provider
	// unavailable"); so the session records the provider this Codex home
	// resumes with.
	t.Provider = ConfiguredProvider(env)
	// Codex resumes a thread with the model its rollout's turn_context
	// names (the TUI does; exec warns and takes its configured one), so
	// the rollout names the model this Codex is to use: the one asked
	// for, else its configured one, else none (Codex's own default).
	if t.Model == "" {
		t.Model, t.ModelFrom = ConfiguredModel(env)
	}
	root := Root(env)
	local := t.Created.Local()
	name := "rollout-" + local.Format("2006-01-02T15-04-05") + "-" + t.ID + ".jsonl"
	return session.Placement{
		Root:   root,
		Path:   filepath.Join(root, "sessions", local.Format("2006"), local.Format("01"), local.Format("02"), name),
		Resume: []string{"codex", "resume", t.ID},
	}, nil
}

// Encoder writes a Codex rollout in the legacy history mode, which Codex
// loads and keeps appending to: a session_meta line first, whose id is the
// file's and whose model_provider is Target.Provider (Place sets it to the
// provider Codex is configured with; any other fails the resume);
// then response items (messages, reasoning, function and custom tool calls
// with their outputs), the user_message and agent_message events the
// picker shows and token_count events with the usage; and, last, a
// turn_context naming Target.Model (the model Codex will resume with,
// never the source's: Codex reads it back; none when Codex is to use its
// default). It comes after the history, whose usage then names no model:
// Codex keeps none per message, and the turns it records did not run on
// the target's model (priced so, they would be priced wrong).
type Encoder struct {
	w    io.Writer
	t    session.Target
	lost func(session.Loss)
	err  error

	model   string
	total   tokenUsage
	custom  map[string]bool   // calls of custom (freeform) tools
	hosted  map[string]bool   // web searches run on OpenAI's side
	tools   map[string]string // each call's Codex tool, by call id
	last    time.Time
	started bool
	buf     []byte // line buffer
}

// NewEncoder returns an encoder of the session t to w; lost hears what
// Codex cannot hold.
func NewEncoder(w io.Writer, t session.Target, lost func(session.Loss)) *Encoder {
	if lost == nil {
		lost = func(session.Loss) {}
	}
	return &Encoder{w: w, t: t, lost: lost, custom: map[string]bool{}, hosted: map[string]bool{}, tools: map[string]string{}, last: t.Created}
}

type outLine struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   any    `json:"payload"`
}

// put writes a line whose payload is marshalled from v (small lines).
func (e *Encoder) put(typ string, v any) {
	if e.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		e.err = err
		return
	}
	e.putRaw(typ, b)
}

// putRaw writes a line around a payload that is JSON already.
func (e *Encoder) putRaw(typ string, payload []byte) {
	e.end(append(e.begin(typ), payload...))
}

// begin starts a line in the line buffer, up to its payload, which the
// caller appends before calling end.
func (e *Encoder) begin(typ string) []byte {
	b := append(e.buf[:0], `{"timestamp":"`...)
	b = e.last.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
	b = append(b, `","type":"`...)
	b = append(b, typ...)
	return append(b, `","payload":`...)
}

// end finishes the line begin started and writes it.
func (e *Encoder) end(b []byte) {
	b = append(b, "}\n"...)
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
	e.buf = b[:0]
}

// str appends s to a line as a JSON string. A large string is not built in
// the line buffer: what the line holds so far is written, then the string
// in escaped chunks, so the buffer stays small whatever the content.
func (e *Encoder) str(b []byte, s string) []byte {
	const chunk = 64 << 10
	if len(s) <= chunk {
		return jsonl.AppendString(b, s)
	}
	return e.flushed(jsonl.WriteString(e.writer(b), s, b[:0]))
}

// writer writes the line so far and returns where the rest goes.
func (e *Encoder) writer(b []byte) io.Writer {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
	return errWriter{e}
}

// flushed takes back the buffer after a streamed string.
func (e *Encoder) flushed(b []byte) []byte { return b[:0] }

// errWriter writes to the encoder's writer, keeping its first error.
type errWriter struct{ e *Encoder }

func (w errWriter) Write(p []byte) (int, error) {
	if w.e.err != nil {
		return 0, w.e.err
	}
	n, err := w.e.w.Write(p)
	w.e.err = err
	return n, err
}

func (e *Encoder) start() {
	if e.started {
		return
	}
	e.started = true
	meta := map[string]any{
		"id":          e.t.ID,
		"timestamp":   e.t.Created.UTC().Format("2006-01-02T15:04:05.000Z"),
		"cwd":         e.t.Dir,
		"originator":  "stead",
		"cli_version": WriteVersion,
		"source":      "cli",
	}
	if e.t.Provider != "" {
		meta["model_provider"] = e.t.Provider
	}
	if o := e.t.Origin; o.CLI != "" || o.ID != "" {
		// Provenance, a field Codex does not know and skips: the source
		// and when stead wrote the rollout, whose records timed at or
		// before then are the source's history (summaries count their
		// usage with the source).
		p := map[string]any{"cli": o.CLI, "id": o.ID}
		if o.Tool != "" {
			p["tool"] = o.Tool
		}
		if !o.Written.IsZero() {
			p["written"] = o.Written.UTC().Format(time.RFC3339Nano)
		}
		meta["stead_origin"] = p
	}
	e.put("session_meta", meta)
}

// turnContext records, once, the model Codex will resume the thread with:
// Target.Model, not the entries' (a source's model of another provider
// would be what Codex asks for). With none, Codex takes its configured or
// default model.
func (e *Encoder) turnContext() {
	model := e.t.Model
	if model == "" || model == e.model {
		return
	}
	e.model = model
	e.put("turn_context", map[string]any{
		"turn_id":         ids.UUID7(e.last),
		"cwd":             e.t.Dir,
		"approval_policy": "on-request",
		"sandbox_policy":  map[string]any{"type": "read-only"},
		"model":           model,
		"summary":         "auto",
	})
}

// Encode writes one entry.
func (e *Encoder) Encode(en *session.Entry) error {
	e.start()
	if !en.Timestamp.IsZero() && en.Timestamp.After(e.last) {
		e.last = en.Timestamp
	}
	switch en.Type {
	case session.User:
		b := append(e.begin("response_item"), `{"type":"message","role":"user","content":[{"type":"input_text","text":`...)
		b = e.str(b, en.Content)
		b = append(b, '}')
		for _, img := range e.images(en) {
			b = append(b, `,{"type":"input_image","image_url":`...)
			b = jsonl.AppendString(b, img)
			b = append(b, '}')
		}
		e.end(append(b, "]}"...))
		b = append(e.begin("event_msg"), `{"type":"user_message","message":`...)
		b = jsonl.AppendString(b, en.Content)
		e.end(append(b, `,"images":[],"local_images":[],"text_elements":[]}`...))
	case session.Assistant:
		e.reasoning(en)
		if en.Content != "" {
			b := append(e.begin("response_item"), `{"type":"message","role":"assistant","content":[{"type":"output_text","text":`...)
			b = e.str(b, en.Content)
			e.end(append(b, "}]}"...))
			b = append(e.begin("event_msg"), `{"type":"agent_message","message":`...)
			b = jsonl.AppendString(b, en.Content)
			e.end(append(b, '}'))
		}
		for range en.Attachments {
			e.lost(session.Loss{Entry: en.ID, What: session.LostAttachment, How: session.HandledDropped,
				Detail: "Codex keeps no attachments on assistant messages"})
		}
		e.usage(en.Usage)
	case session.ToolCall:
		e.call(en)
		e.usage(en.Usage)
	case session.ToolResult:
		e.result(en)
	}
	return e.err
}

func (e *Encoder) reasoning(en *session.Entry) {
	kept := false
	for _, r := range en.Reasoning {
		if r.Format != "openai" || r.Encrypted == "" {
			continue
		}
		summary := []any{}
		if r.Text != "" {
			summary = append(summary, map[string]any{"type": "summary_text", "text": r.Text})
		}
		e.put("response_item", map[string]any{"type": "reasoning", "summary": summary, "content": nil, "encrypted_content": r.Encrypted})
		kept = true
	}
	if en.Thinking != "" && !kept {
		e.lost(session.Loss{Entry: en.ID, What: session.LostThinking, How: session.HandledDropped,
			Detail: "OpenAI's Responses API takes back only reasoning it encrypted; this thinking has none"})
	}
}

func (e *Encoder) call(en *session.Entry) {
	e.tools[en.ID] = en.OriginalTool
	if payload, ok := hostedCall(en); ok {
		// A search Codex's model ran on OpenAI's side, written back to
		// Codex as it was: it has no output item.
		e.hosted[en.ID] = true
		e.put("response_item", payload)
		return
	}
	if en.OriginalTool == "apply_patch" {
		if input, ok := freeformInput(en.Input); ok {
			// A freeform tool: its input is text, not JSON. The text
			// goes out as the JSON string it already is in the input.
			e.custom[en.ID] = true
			b := append(e.begin("response_item"), `{"type":"custom_tool_call","status":"completed","call_id":`...)
			b = jsonl.AppendString(b, en.ID)
			b = append(b, `,"name":`...)
			b = jsonl.AppendString(b, en.OriginalTool)
			b = append(b, `,"input":"`...)
			if e.err == nil {
				_, e.err = e.w.Write(b)
			}
			if e.err == nil {
				_, e.err = e.w.Write(input)
			}
			e.end(append(b[:0], `"}`...))
			return
		}
	}
	args := string(en.Input)
	if args == "" {
		args = "{}"
	}
	b := append(e.begin("response_item"), `{"type":"function_call","name":`...)
	b = jsonl.AppendString(b, en.OriginalTool)
	b = append(b, `,"arguments":`...)
	b = e.str(b, args)
	b = append(b, `,"call_id":`...)
	b = jsonl.AppendString(b, en.ID)
	e.end(append(b, '}'))
}

// hostedCall returns the native payload of a Codex web_search_call.
func hostedCall(en *session.Entry) (json.RawMessage, bool) {
	if en.Native == nil {
		return nil, false
	}
	var rec struct {
		Payload json.RawMessage `json:"payload"`
	}
	var typ struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(en.Native.Record, &rec) != nil || json.Unmarshal(rec.Payload, &typ) != nil || typ.Type != "web_search_call" {
		return nil, false
	}
	return rec.Payload, true
}

func (e *Encoder) result(en *session.Entry) {
	if e.hosted[en.CallID] {
		return // a hosted search has no output item
	}
	out := en.Output
	if !(en.Success || en.Status == session.StatusOK) && en.Error != "" {
		out = en.Error
	}
	typ := "function_call_output"
	if e.custom[en.CallID] {
		typ = "custom_tool_call_output"
	}
	var output any = out
	switch {
	case en.Kind == session.KindPlaceholder:
		output = "aborted" // Codex's own output for a call that never finished
	case en.Native != nil:
		// A Codex result written back to Codex keeps its output as it was
		// (a JSON wrapper with the exit code, say).
		// The oldest rollouts hold the item itself, not in a payload.
		var rec struct {
			Type    string          `json:"type"`
			Output  json.RawMessage `json:"output"`
			Payload struct {
				Type   string          `json:"type"`
				Output json.RawMessage `json:"output"`
			} `json:"payload"`
		}
		if json.Unmarshal(en.Native.Record, &rec) == nil {
			switch {
			case isOutputItem(rec.Payload.Type) && len(rec.Payload.Output) > 0:
				output = rec.Payload.Output
			case isOutputItem(rec.Type) && len(rec.Output) > 0:
				output = rec.Output
			}
		}
	}
	if text, ok := output.(string); ok && len(en.Attachments) > 0 {
		// Images go back as the content items Codex gives its model.
		if items, ok := e.outputItems(en, text); ok {
			output = items
		}
	}
	b := append(e.begin("response_item"), `{"type":"`...)
	b = append(b, typ...)
	b = append(b, `","call_id":`...)
	b = jsonl.AppendString(b, en.CallID)
	b = append(b, `,"output":`...)
	switch o := output.(type) {
	case string:
		b = e.str(b, o)
	case json.RawMessage:
		b = append(b, o...)
	}
	e.end(append(b, '}'))
	if failed(en) {
		written := []byte(out)
		if raw, ok := output.(json.RawMessage); ok {
			written = raw
		}
		if outputStatus(written) != session.StatusError {
			// The text does not say it failed: the event that did
			// in Codex does.
			e.put("event_msg", e.failure(en.CallID, firstOf(e.tools[en.CallID], en.OriginalTool), out))
		}
	}
}

// isOutputItem reports whether typ is a tool output item.
func isOutputItem(typ string) bool {
	return typ == "function_call_output" || typ == "custom_tool_call_output"
}

// failed reports whether a result is a failure of its tool.
func failed(en *session.Entry) bool {
	return en.Status == session.StatusError || en.Status == "" && !en.Success && en.Error != ""
}

// outputItems is a result's text and images as the content items of a
// tool output; what is not an image is reported lost.
func (e *Encoder) outputItems(en *session.Entry, text string) (json.RawMessage, bool) {
	items := []map[string]any{}
	if text != "" {
		items = append(items, map[string]any{"type": "input_text", "text": text})
	}
	images := 0
	for _, a := range en.Attachments {
		switch {
		case a.Type == "image" && a.Data != "" && a.MediaType != "":
			items = append(items, map[string]any{"type": "input_image", "image_url": "data:" + a.MediaType + ";base64," + a.Data})
			images++
		case a.Type == "image" && a.URL != "":
			items = append(items, map[string]any{"type": "input_image", "image_url": a.URL})
			images++
		default:
			e.lost(session.Loss{Entry: en.ID, What: session.LostAttachment, How: session.HandledDropped,
				Detail: fmt.Sprintf("a Codex tool output holds text and images; the %s %q is left out", a.Type, firstOf(a.Name, a.Path))})
		}
	}
	if images == 0 {
		return nil, false
	}
	b, err := json.Marshal(items)
	return b, err == nil
}

// collabEnds are the events that end a call of each collab tool.
var collabEnds = map[string]string{
	"spawn_agent":  "collab_agent_spawn_end",
	"send_input":   "collab_agent_interaction_end",
	"wait_agent":   "collab_waiting_end",
	"close_agent":  "collab_close_end",
	"resume_agent": "collab_resume_end",
}

// failure is the event with which Codex records that a call of tool
// failed, when its output's text does not say so: an MCP call's Err, a
// command's end with status failed (exit code 1: the source kept none
// Codex could read), a patch or image generation that failed, a collab
// agent that errored, else a dynamic tool's response that did not
// succeed.
func (e *Encoder) failure(callID, tool, text string) map[string]any {
	if server, name, ok := strings.Cut(strings.TrimPrefix(tool, "mcp__"), "__"); ok && strings.HasPrefix(tool, "mcp__") {
		return map[string]any{"type": "mcp_tool_call_end", "call_id": callID,
			"invocation": map[string]any{"server": server, "tool": name, "arguments": nil},
			"duration":   map[string]any{"secs": 0, "nanos": 0}, "result": map[string]any{"Err": text}}
	}
	if kind, ok := collabEnds[tool]; ok {
		return map[string]any{"type": kind, "call_id": callID, "status": map[string]any{"errored": text}}
	}
	switch tool {
	case "shell", "exec_command", "local_shell", "container.exec", "shell_command":
		return map[string]any{"type": "exec_command_end", "call_id": callID, "command": []string{}, "cwd": e.t.Dir,
			"stdout": "", "stderr": text, "aggregated_output": text, "exit_code": 1, "status": "failed",
			"duration": map[string]any{"secs": 0, "nanos": 0}, "formatted_output": text}
	case "apply_patch":
		return map[string]any{"type": "patch_apply_end", "call_id": callID, "stdout": "", "stderr": text, "success": false}
	case "image_generation":
		return map[string]any{"type": "image_generation_end", "call_id": callID, "status": "failed"}
	}
	return map[string]any{"type": "dynamic_tool_call_response", "call_id": callID, "tool": tool, "success": false, "error": text}
}

// images returns the image URLs of a user message's images (data URLs for
// embedded ones), reporting what Codex cannot take.
func (e *Encoder) images(en *session.Entry) []string {
	var out []string
	for _, a := range en.Attachments {
		switch {
		case a.Type == "image" && a.Data != "" && a.MediaType != "":
			out = append(out, "data:"+a.MediaType+";base64,"+a.Data)
		case a.Type == "image" && a.URL != "":
			out = append(out, a.URL)
		default:
			e.lost(session.Loss{Entry: en.ID, What: session.LostAttachment, How: session.HandledDropped,
				Detail: fmt.Sprintf("Codex takes images only; the %s %q is left out", a.Type, firstOf(a.Name, a.Path))})
		}
	}
	return out
}

// usage writes a model response's token usage as Codex records it.
func (e *Encoder) usage(u *session.Usage) {
	if u == nil {
		return
	}
	last := tokenUsage{
		InputTokens:           u.Input + u.CacheRead,
		CachedInputTokens:     u.CacheRead,
		CacheWriteInputTokens: u.CacheWrite,
		OutputTokens:          u.Output,
		ReasoningOutputTokens: u.Reasoning,
		TotalTokens:           u.Input + u.CacheRead + u.CacheWrite + u.Output,
	}
	e.total.InputTokens += last.InputTokens
	e.total.CachedInputTokens += last.CachedInputTokens
	e.total.CacheWriteInputTokens += last.CacheWriteInputTokens
	e.total.OutputTokens += last.OutputTokens
	e.total.ReasoningOutputTokens += last.ReasoningOutputTokens
	e.total.TotalTokens += last.TotalTokens
	e.put("event_msg", map[string]any{"type": "token_count", "info": map[string]any{
		"total_token_usage": e.total, "last_token_usage": last, "model_context_window": nil}, "rate_limits": nil})
}

// Close finishes the rollout: the model Codex resumes with, and a title,
// if any, as the thread name.
func (e *Encoder) Close() error {
	e.start()
	e.turnContext()
	if e.t.Title != "" {
		e.put("event_msg", map[string]any{"type": "thread_name_updated", "thread_id": e.t.ID, "thread_name": e.t.Title})
	}
	return e.err
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// freeformInput returns a freeform tool's text, still JSON-escaped, from
// its {"input": text}.
func freeformInput(in json.RawMessage) ([]byte, bool) {
	s := jsonl.NewScanner(nil, 64)
	s.ResetBytes(in)
	if !s.NextLine() || !s.BeginObject() {
		return nil, false
	}
	for s.NextKey() {
		if string(s.Key()) == "input" {
			return s.StringSpan()
		}
		s.Skip()
	}
	return nil, false
}

// ConfiguredProvider is the model provider Codex uses in env: the
// top-level model_provider of its config.toml, else "openai".
func ConfiguredProvider(env session.Env) string {
	if p := topLevel(filepath.Join(Root(env), "config.toml"), "model_provider"); p != "" {
		return p
	}
	return "openai"
}

// ConfiguredModel is the model Codex uses in env when none is given on its
// command line: the top-level model of its config.toml, and that file's
// path; else "" and "default" (Codex's own default, which it settles
// itself). Profiles (-p) and -c overrides are command-line choices, not
// read.
func ConfiguredModel(env session.Env) (model, from string) {
	path := filepath.Join(Root(env), "config.toml")
	if m := topLevel(path, "model"); m != "" {
		return m, path
	}
	return "", "default"
}

// topLevel returns the string value of a top-level key of a TOML file,
// or "".
func topLevel(path, key string) string {
	f, err := storefile.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadString('\n') // a line of any length
		if line == "" && err != nil {
			break
		}
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			break // the top level ends at the first table
		}
		k, val, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != key {
			continue
		}
		val = strings.TrimSpace(val)
		if i := strings.Index(val, " #"); i >= 0 {
			val = strings.TrimSpace(val[:i])
		}
		if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') && val[len(val)-1] == val[0] {
			return val[1 : len(val)-1]
		}
	}
	return ""
}
