package codex

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/stead-dev/stead/adapters/internal/fastjson"
	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/session"
)

// The full decoder reads each record with fastjson: the envelope, then its
// payload (meta, item, event, turn context), then the item's content, in
// one pass each, where encoding/json checks and reads the same bytes three
// or four times. What fastjson declines (a value of an unexpected type, a
// key spelt in another case, a line that is not JSON) is read with
// encoding/json as before, the whole record or just the part declined; so
// every record decodes to what encoding/json made of it. TestFastDecode
// compares the two.

// fastDecode is off in tests that compare the fast decoder with
// encoding/json.
var fastDecode = true

// decodeFast is Decode reading with fastjson first.
func (d *Decoder) decodeFast() (session.Event, error) {
	env := &d.env // reused: the envelope a line is read into escapes
	rec, err := jsonl.ReadInto(d.r, env, d.readEnvelope)
	if err == io.EOF {
		return session.Event{}, io.EOF
	}
	if err != nil {
		return session.Event{}, fmt.Errorf("codex: read %s: %w", d.name(), err)
	}
	ev := session.Event{Line: rec.Line}
	if p := rec.Report(d.livePath()); p != "" {
		ev.Warning = d.warn(rec.Line, p)
	}
	if !rec.Skipped {
		d.convert(env, rec.Raw, &ev)
	}
	return ev, nil
}

// readEnvelope is fastEnvelope as jsonl.ReadInto calls it.
func (d *Decoder) readEnvelope(line []byte, env *envelope) (ok, nonASCII bool) {
	ok = d.fastEnvelope(line, env)
	return ok, d.fp.NonASCII()
}

// predecoded is a payload read with its envelope, in the same pass: when
// the type precedes the payload (as Codex writes them), the payload is
// read as it is checked, not checked and then read again.
type predecoded struct {
	typ   string // the envelope type it was read as; "" for none
	src   []byte // the payload it was read from
	meta  meta
	item  item
	event event
	strs  [2]string // a turn context's model and cwd, a usage record's thread, a compaction's message
}

// predecoded returns what was read of payload as the type typ, if so.
func (d *Decoder) predecoded(typ string, payload []byte) *predecoded {
	if d.pre.typ != typ || len(payload) == 0 || len(d.pre.src) != len(payload) || &d.pre.src[0] != &payload[0] {
		return nil
	}
	return &d.pre
}

// predecode reads the payload ahead as the type typ, when it is one whose
// payload is read; it reports false, consuming nothing, when it is not, or
// when the payload is not read as encoding/json reads it.
func (d *Decoder) predecode(typ string) bool {
	p := &d.fp
	d.pre.typ = ""
	switch typ {
	case "session_meta":
		d.pre.meta = meta{}
	case "response_item":
		d.pre.item = item{}
	case "event_msg":
		d.pre.event = event{}
	case "turn_context", "token_usage_record", "compacted":
		d.pre.strs = [2]string{}
	default:
		return false
	}
	m := p.Mark()
	if p.Kind() != '{' {
		return false
	}
	p.Object()
	for k, ok := p.Key(); ok; k, ok = p.Key() {
		switch typ {
		case "session_meta":
			d.metaField(&d.pre.meta, k)
		case "response_item":
			d.itemField(&d.pre.item, k)
		case "event_msg":
			d.eventField(&d.pre.event, k)
		case "turn_context":
			switch string(k) {
			case "model":
				p.Intern(&d.pre.strs[0])
			case "cwd":
				p.Intern(&d.pre.strs[1])
			default:
				modelCwdKeys.Skip(p, k)
			}
		case "token_usage_record":
			if string(k) == "thread_id" {
				p.Intern(&d.pre.strs[0])
			} else {
				threadKeys.Skip(p, k)
			}
		case "compacted":
			if string(k) == "message" {
				p.Str(&d.pre.strs[0])
			} else {
				messageKeys.Skip(p, k)
			}
		}
	}
	if p.Failed() {
		p.Rewind(m)
		return false
	}
	d.pre.typ = typ
	return true
}

var envelopeKeys = fastjson.NewKeys("timestamp", "type", "payload", "id", "record_type")

func (d *Decoder) fastEnvelope(line []byte, env *envelope) bool {
	p := &d.fp
	p.Reset(line)
	d.pre.typ = ""
	if !p.Object() {
		return false
	}
	for k, ok := p.Key(); ok; k, ok = p.Key() {
		switch string(k) {
		case "timestamp":
			p.View(&env.Timestamp) // only parsed
		case "type":
			p.Intern(&env.Type)
		case "payload":
			m := p.Mark()
			if d.predecode(env.Type) {
				env.Payload = p.Since(m)
				d.pre.src = env.Payload
			} else {
				env.Payload = p.Raw()
			}
		case "id":
			p.Str(&env.ID)
		case "record_type":
			p.Str(&env.RecordType)
		default:
			envelopeKeys.Skip(p, k)
		}
	}
	return p.End()
}

// fastObject walks the object b with p, handing each key to member, and
// reports whether all went well. A b that is not an object is declined.
func fastObject(p *fastjson.Parser, b []byte, member func(k []byte)) bool {
	p.Reset(b)
	if p.Kind() != '{' {
		return false
	}
	p.Object()
	for k, ok := p.Key(); ok; k, ok = p.Key() {
		member(k)
	}
	return p.End()
}

var metaKeys = fastjson.NewKeys("id", "timestamp", "cwd", "originator", "cli_version", "source",
	"model_provider", "model", "history_mode", "forked_from_id", "history_base", "instructions",
	"base_instructions", "git")

var (
	historyBaseKeys = fastjson.NewKeys("thread_id", "end_ordinal_exclusive", "end_byte_offset")
	textKeys        = fastjson.NewKeys("text")
	gitKeys         = fastjson.NewKeys("commit_hash", "branch", "repository_url")
)

// fastMeta reads a session_meta payload as encoding/json reads it into m.
func (d *Decoder) fastMeta(b []byte, m *meta) bool {
	return fastObject(&d.fp, b, func(k []byte) { d.metaField(m, k) })
}

// metaField reads a member of the object fastMeta reads.
func (d *Decoder) metaField(m *meta, k []byte) {
	p := &d.fp
	switch string(k) {
	case "id":
		p.Str(&m.ID)
	case "timestamp":
		p.Str(&m.Timestamp)
	case "cwd":
		p.Str(&m.Cwd)
	case "originator":
		p.Str(&m.Originator)
	case "cli_version":
		p.Str(&m.CLIVersion)
	case "source":
		m.Source = p.Raw()
	case "model_provider":
		p.Str(&m.ModelProvider)
	case "model":
		p.Str(&m.Model)
	case "history_mode":
		p.Str(&m.HistoryMode)
	case "forked_from_id":
		p.Str(&m.ForkedFromID)
	case "instructions":
		p.Str(&m.Instructions)
	case "history_base":
		if p.Null() {
			m.HistoryBase = nil
			return
		}
		if m.HistoryBase == nil {
			m.HistoryBase = &historyBase{}
		}
		h := m.HistoryBase
		if !p.Object() {
			return
		}
		for k, ok := p.Key(); ok; k, ok = p.Key() {
			switch string(k) {
			case "thread_id":
				p.Str(&h.ThreadID)
			case "end_ordinal_exclusive":
				fastjson.Int(p, &h.EndOrdinalExclusive)
			case "end_byte_offset":
				fastjson.Int(p, &h.EndByteOffset)
			default:
				historyBaseKeys.Skip(p, k)
			}
		}
	case "base_instructions":
		if p.Null() {
			m.BaseInstructions = nil
			return
		}
		if m.BaseInstructions == nil {
			m.BaseInstructions = &struct {
				Text string `json:"text"`
			}{}
		}
		bi := m.BaseInstructions
		if !p.Object() {
			return
		}
		for k, ok := p.Key(); ok; k, ok = p.Key() {
			if string(k) == "text" {
				p.Str(&bi.Text)
			} else {
				textKeys.Skip(p, k)
			}
		}
	case "git":
		if p.Null() {
			m.Git = nil
			return
		}
		if m.Git == nil {
			m.Git = &struct {
				CommitHash    string `json:"commit_hash"`
				Branch        string `json:"branch"`
				RepositoryURL string `json:"repository_url"`
			}{}
		}
		g := m.Git
		if !p.Object() {
			return
		}
		for k, ok := p.Key(); ok; k, ok = p.Key() {
			switch string(k) {
			case "commit_hash":
				p.Str(&g.CommitHash)
			case "branch":
				p.Str(&g.Branch)
			case "repository_url":
				p.Str(&g.RepositoryURL)
			default:
				gitKeys.Skip(p, k)
			}
		}
	default:
		metaKeys.Skip(p, k)
	}
}

var itemKeys = fastjson.NewKeys("type", "id", "role", "content", "name", "arguments", "input", "call_id",
	"output", "status", "summary", "encrypted_content", "action", "message", "namespace", "tools",
	"revised_prompt", "result")

// fastItem reads a response_item payload as encoding/json reads it into it.
func (d *Decoder) fastItem(b []byte, it *item) bool {
	return fastObject(&d.fp, b, func(k []byte) { d.itemField(it, k) })
}

// itemField reads a member of the object fastItem reads.
func (d *Decoder) itemField(it *item, k []byte) {
	p := &d.fp
	switch string(k) {
	case "type":
		p.Intern(&it.Type)
	case "id":
		p.Str(&it.ID)
	case "role":
		p.Intern(&it.Role)
	case "content":
		it.Content = p.Raw()
	case "name":
		p.Intern(&it.Name)
	case "arguments":
		it.Arguments = p.Raw()
	case "input":
		it.Input = p.Raw()
	case "call_id":
		p.Str(&it.CallID)
	case "output":
		it.Output = p.Raw()
	case "status":
		p.Intern(&it.Status)
	case "summary":
		it.Summary = p.Raw()
	case "encrypted_content":
		p.Str(&it.EncryptedContent)
	case "action":
		it.Action = p.Raw()
	case "message":
		p.Str(&it.Message)
	case "namespace":
		p.Intern(&it.Namespace)
	case "tools":
		it.Tools = p.Raw()
	case "revised_prompt":
		p.Str(&it.RevisedPrompt)
	case "result":
		p.Str(&it.Result)
	default:
		itemKeys.Skip(p, k)
	}
}

var eventKeys = fastjson.NewKeys("type", "thread_id", "turn_id", "info", "message", "thread_name", "call_id",
	"exit_code", "duration_ms", "reason", "item", "invocation", "result", "query", "action", "command", "cwd",
	"stdout", "stderr", "aggregated_output", "formatted_output", "success", "status", "changes",
	"revised_prompt", "saved_path", "path", "prompt", "receiver_thread_id", "new_thread_id", "tool",
	"arguments", "content_items", "error")

var (
	infoKeys       = fastjson.NewKeys("total_token_usage", "last_token_usage")
	tokenKeys      = fastjson.NewKeys("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens")
	invocationKeys = fastjson.NewKeys("server", "tool", "arguments")
)

// fastEvent reads an event_msg payload as encoding/json reads it into e.
func (d *Decoder) fastEvent(b []byte, e *event) bool {
	return fastObject(&d.fp, b, func(k []byte) { d.eventField(e, k) })
}

// eventField reads a member of the object fastEvent reads.
func (d *Decoder) eventField(e *event, k []byte) {
	p := &d.fp
	switch string(k) {
	case "type":
		p.Intern(&e.Type)
	case "thread_id":
		p.Intern(&e.ThreadID)
	case "turn_id":
		p.Intern(&e.TurnID)
	case "info":
		if p.Null() {
			e.Info = nil
			return
		}
		if e.Info == nil {
			e.Info = &tokenInfo{}
		}
		if !p.Object() {
			return
		}
		for k, ok := p.Key(); ok; k, ok = p.Key() {
			switch string(k) {
			case "total_token_usage":
				fastTokens(p, &e.Info.Total)
			case "last_token_usage":
				fastTokens(p, &e.Info.Last)
			default:
				infoKeys.Skip(p, k)
			}
		}
	case "message":
		p.Str(&e.Message)
	case "thread_name":
		p.Str(&e.ThreadName)
	case "call_id":
		p.Str(&e.CallID)
	case "exit_code":
		if p.Null() {
			e.ExitCode = nil
			return
		}
		if e.ExitCode == nil {
			e.ExitCode = new(int)
		}
		fastjson.Int(p, e.ExitCode)
	case "duration_ms":
		fastjson.Int(p, &e.DurationMs)
	case "reason":
		p.Str(&e.Reason)
	case "item":
		e.Item = p.Raw()
	case "invocation":
		if p.Null() {
			e.Invocation = nil
			return
		}
		if e.Invocation == nil {
			e.Invocation = &struct {
				Server    string          `json:"server"`
				Tool      string          `json:"tool"`
				Arguments json.RawMessage `json:"arguments"`
			}{}
		}
		inv := e.Invocation
		if !p.Object() {
			return
		}
		for k, ok := p.Key(); ok; k, ok = p.Key() {
			switch string(k) {
			case "server":
				p.Str(&inv.Server)
			case "tool":
				p.Str(&inv.Tool)
			case "arguments":
				inv.Arguments = p.Raw()
			default:
				invocationKeys.Skip(p, k)
			}
		}
	case "result":
		e.Result = p.Raw()
	case "query":
		p.Str(&e.Query)
	case "action":
		e.Action = p.Raw()
	case "command":
		e.Command = p.Raw()
	case "cwd":
		p.Str(&e.Cwd)
	case "stdout":
		p.Str(&e.Stdout)
	case "stderr":
		p.Str(&e.Stderr)
	case "aggregated_output":
		p.Str(&e.AggregatedOutput)
	case "formatted_output":
		p.Str(&e.FormattedOutput)
	case "success":
		if p.Null() {
			e.Success = nil
			return
		}
		if e.Success == nil {
			e.Success = new(bool)
		}
		p.Bool(e.Success)
	case "status":
		e.Status = p.Raw()
	case "changes":
		e.Changes = p.Raw()
	case "revised_prompt":
		p.Str(&e.RevisedPrompt)
	case "saved_path":
		p.Str(&e.SavedPath)
	case "path":
		p.Str(&e.Path)
	case "prompt":
		p.Str(&e.Prompt)
	case "receiver_thread_id":
		p.Str(&e.ReceiverThreadID)
	case "new_thread_id":
		p.Str(&e.NewThreadID)
	case "tool":
		p.Str(&e.Tool)
	case "arguments":
		e.Arguments = p.Raw()
	case "content_items":
		e.ContentItems = p.Raw()
	case "error":
		p.Str(&e.Error)
	default:
		eventKeys.Skip(p, k)
	}
}

func fastTokens(p *fastjson.Parser, dst **tokenUsage) {
	if p.Null() {
		*dst = nil
		return
	}
	if *dst == nil {
		*dst = &tokenUsage{}
	}
	t := *dst
	if !p.Object() {
		return
	}
	for k, ok := p.Key(); ok; k, ok = p.Key() {
		switch string(k) {
		case "input_tokens":
			fastjson.Int(p, &t.InputTokens)
		case "cached_input_tokens":
			fastjson.Int(p, &t.CachedInputTokens)
		case "cache_write_input_tokens":
			fastjson.Int(p, &t.CacheWriteInputTokens)
		case "output_tokens":
			fastjson.Int(p, &t.OutputTokens)
		case "reasoning_output_tokens":
			fastjson.Int(p, &t.ReasoningOutputTokens)
		case "total_tokens":
			fastjson.Int(p, &t.TotalTokens)
		default:
			tokenKeys.Skip(p, k)
		}
	}
}

var (
	modelCwdKeys = fastjson.NewKeys("model", "cwd")
	threadKeys   = fastjson.NewKeys("thread_id")
	messageKeys  = fastjson.NewKeys("message")
)

// fastStrings reads the string members named of the object b, as
// encoding/json reads them into a struct of those fields.
func (d *Decoder) fastStrings(b []byte, keys *fastjson.Keys, names []string, dst []*string) bool {
	return fastObject(&d.fp, b, d.stringsMember(keys, names, dst))
}

// stringsMember reads a member of the object fastStrings reads.
func (d *Decoder) stringsMember(keys *fastjson.Keys, names []string, dst []*string) func(k []byte) {
	p := &d.fp
	return func(k []byte) {
		for i, n := range names {
			if string(k) == n {
				p.Intern(dst[i])
				return
			}
		}
		keys.Skip(p, k)
	}
}

var completedKeys = fastjson.NewKeys("type", "id", "status", "exit_code", "command", "cwd", "aggregated_output")

// fastObjectInto walks the object b, handing each key to member, which
// reads the value and reports true, or reports false for a key it does
// not read (skipped here, as keys says).
func (d *Decoder) fastObjectInto(b []byte, keys *fastjson.Keys, member func(p *fastjson.Parser, k []byte) bool) bool {
	p := &d.fp
	return fastObject(p, b, func(k []byte) {
		if !member(p, k) {
			keys.Skip(p, k)
		}
	})
}

var partKeys = fastjson.NewKeys("type", "text", "image_url", "file_id", "filename", "file_data")

// parsers serve the functions that read a value outside a Decoder.
var parsers = sync.Pool{New: func() any { return new(fastjson.Parser) }}

// fastString is jsonString's decoding of a JSON string, with fastjson.
func fastString(raw []byte) (string, bool) {
	p := parsers.Get().(*fastjson.Parser)
	defer parsers.Put(p)
	p.Reset(raw)
	s := p.String()
	return s, p.End()
}

// resetItem zeroes what fastItem may have read, for encoding/json to
// read afresh.
func resetItem(it *item) *item {
	*it = item{}
	return it
}

// resetEvent zeroes what fastEvent may have read.
func resetEvent(e *event) *event {
	*e = event{}
	return e
}

// fastContentText is contentText reading a list of parts with fastjson;
// it reports false when contentText must read raw with encoding/json.
func fastContentText(raw []byte) (string, []session.Attachment, bool) {
	p := parsers.Get().(*fastjson.Parser)
	defer parsers.Put(p)
	p.Reset(raw)
	switch p.Kind() {
	case '"':
		s := p.String()
		return s, nil, p.End()
	case '[':
	default:
		return "", nil, false
	}
	var texts []string
	var atts []session.Attachment
	p.Array()
	for p.Elem() {
		if p.Null() {
			continue // a zero part, which reads as nothing
		}
		if !p.Object() {
			return "", nil, false
		}
		var pt part
		for k, ok := p.Key(); ok; k, ok = p.Key() {
			switch string(k) {
			case "type":
				p.Intern(&pt.Type)
			case "text":
				p.Str(&pt.Text)
			case "image_url":
				p.Str(&pt.ImageURL)
			case "file_id":
				p.Str(&pt.FileID)
			case "filename":
				p.Str(&pt.Filename)
			case "file_data":
				p.Str(&pt.FileData)
			default:
				partKeys.Skip(p, k)
			}
		}
		switch pt.Type {
		case "input_text", "output_text", "text", "reasoning_text", "summary_text":
			texts = append(texts, pt.Text)
		case "input_image":
			atts = append(atts, imageAttachment(pt.ImageURL))
		case "input_file":
			a := session.Attachment{Type: "file", Name: pt.Filename}
			if strings.HasPrefix(pt.FileData, "data:") {
				a.MediaType, a.Data = splitDataURL(pt.FileData)
			} else if pt.FileID != "" {
				a.Name = pt.FileID
			}
			atts = append(atts, a)
		}
	}
	if !p.End() {
		return "", nil, false
	}
	return strings.Join(texts, "\n"), atts, true
}
