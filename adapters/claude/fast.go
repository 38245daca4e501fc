package claude

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/stead-dev/stead/adapters/internal/fastjson"
	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/session"
)

// The full decoder reads each record once, with fastjson: the record, its
// message, its content blocks and tool results in one pass, where
// encoding/json checks and reads the same bytes three or four times. What
// fastjson declines (a value of an unexpected type, a key spelt in another
// case, a line that is not JSON) is read with encoding/json as before, the
// whole record or just the part declined; so every record decodes to what
// encoding/json made of it. TestFastDecode compares the two.

// fastDecode is off in tests that compare the fast decoder with
// encoding/json.
var fastDecode = true

// decodeFast is Decode reading with fastjson first.
func (d *Decoder) decodeFast() (session.Event, error) {
	r := &d.rec // reused: a record a line is read into escapes, and is big
	line, err := jsonl.ReadInto(d.r, r, d.readRecord)
	if err == io.EOF {
		return session.Event{}, io.EOF
	}
	if err != nil {
		return session.Event{}, fmt.Errorf("claude: read %s: %w", d.name(), err)
	}
	ev := session.Event{Line: line.Line}
	if p := line.Report(d.livePath()); p != "" {
		ev.Warning = d.warn(line.Line, p)
	}
	if !line.Skipped {
		d.convert(r, line.Raw, &ev)
	}
	return ev, nil
}

// readRecord is fastRecord as jsonl.ReadInto calls it.
func (d *Decoder) readRecord(line []byte, rec *record) (ok, nonASCII bool) {
	ok = d.fastRecord(line, rec)
	return ok, d.fp.NonASCII()
}

var recordKeys = fastjson.NewKeys("type", "subtype", "uuid", "parentUuid", "logicalParentUuid", "sessionId",
	"agentId", "timestamp", "cwd", "gitBranch", "version", "isSidechain", "isMeta", "isCompactSummary",
	"isApiErrorMessage", "requestId", "requestSessionId", "message", "toolUseResult", "toolDenialKind",
	"content", "level", "error", "retryAttempt", "maxRetries", "durationMs", "messageCount", "compactMetadata",
	"attachment", "rendered", "summary", "leafUuid", "customTitle", "aiTitle", "name", "input", "tool_use_id",
	"is_error", "output")

// fastRecord reads a record as encoding/json reads it into rec, and its
// message as parseMessage reads that; it reports false when it cannot.
func (d *Decoder) fastRecord(line []byte, rec *record) bool {
	p := &d.fp
	p.Reset(line)
	if !p.Object() {
		return false
	}
	var parsed *parsedMessage
	for k, ok := p.Key(); ok; k, ok = p.Key() {
		switch string(k) {
		case "type":
			p.Intern(&rec.Type)
		case "subtype":
			p.Intern(&rec.Subtype)
		case "uuid":
			p.Str(&rec.UUID)
		case "parentUuid":
			p.Str(&rec.ParentUUID)
		case "logicalParentUuid":
			p.Str(&rec.LogicalParentUUID)
		case "sessionId":
			p.Intern(&rec.SessionID)
		case "agentId":
			p.Intern(&rec.AgentID)
		case "timestamp":
			p.View(&rec.Timestamp) // only parsed
		case "cwd":
			p.Intern(&rec.Cwd)
		case "gitBranch":
			p.Intern(&rec.GitBranch)
		case "version":
			p.Intern(&rec.Version)
		case "isSidechain":
			p.Bool(&rec.IsSidechain)
		case "isMeta":
			p.Bool(&rec.IsMeta)
		case "isCompactSummary":
			p.Bool(&rec.IsCompactSummary)
		case "isApiErrorMessage":
			p.Bool(&rec.IsAPIErrorMessage)
		case "requestId":
			p.Str(&rec.RequestID)
		case "requestSessionId":
			p.Str(&rec.RequestSessionID)
		case "message":
			m := p.Mark()
			parsed = fastMessage(p)
			if parsed == nil {
				p.Rewind(m)
				rec.Message = p.Raw()
			} else {
				rec.Message = p.Since(m)
			}
		case "toolUseResult":
			m := p.Mark()
			rec.fastMeta = false
			if p.Kind() == '{' {
				var tur resultMetaFields
				if fastResultMeta(p, &tur) {
					rec.fastMeta, rec.interrupted, rec.agentID = true, tur.interrupted, tur.agentID
				} else {
					p.Rewind(m)
				}
			}
			if rec.fastMeta {
				rec.ToolUseResult = p.Since(m)
			} else {
				rec.ToolUseResult = p.Raw()
			}
		case "toolDenialKind":
			rec.ToolDenialKind = p.Raw()
		case "content":
			rec.Content = p.Raw()
		case "level":
			p.Intern(&rec.Level)
		case "error":
			rec.Error = p.Raw()
		case "retryAttempt":
			fastjson.Int(p, &rec.RetryAttempt)
		case "maxRetries":
			fastjson.Int(p, &rec.MaxRetries)
		case "durationMs":
			fastjson.Int(p, &rec.DurationMs)
		case "messageCount":
			fastjson.Int(p, &rec.MessageCount)
		case "compactMetadata":
			rec.CompactMetadata = p.Raw()
		case "attachment":
			m := p.Mark()
			if a, ok := fastAttachment(p); ok {
				rec.att, rec.Attachment = a, p.Since(m)
			} else {
				p.Rewind(m)
				rec.att, rec.Attachment = nil, p.Raw()
			}
		case "rendered":
			m := p.Mark()
			if r, ok := fastRendered(p); ok {
				rec.rend, rec.Rendered = r, p.Since(m)
			} else {
				p.Rewind(m)
				rec.rend, rec.Rendered = nil, p.Raw()
			}
		case "summary":
			p.Str(&rec.Summary)
		case "leafUuid":
			p.Str(&rec.LeafUUID)
		case "customTitle":
			p.Str(&rec.CustomTitle)
		case "aiTitle":
			p.Str(&rec.AITitle)
		case "name":
			p.Str(&rec.Name)
		case "input":
			rec.Input = bytes.Clone(p.Raw())
		case "tool_use_id":
			p.Str(&rec.ToolUseID)
		case "is_error":
			p.Bool(&rec.IsError)
		case "output":
			rec.Output = p.Raw()
		default:
			recordKeys.Skip(p, k)
		}
	}
	if !p.End() {
		return false
	}
	if rec.Type == "user" || rec.Type == "assistant" {
		rec.parsed = parsed
	}
	return true
}

type resultMetaFields struct {
	interrupted bool
	agentID     string
}

var resultMetaKeys = fastjson.NewKeys("interrupted", "agentId")

// fastResultMeta reads what resultMeta reads of a toolUseResult object.
func fastResultMeta(p *fastjson.Parser, tur *resultMetaFields) bool {
	if !p.Object() {
		return false
	}
	for k, ok := p.Key(); ok; k, ok = p.Key() {
		switch string(k) {
		case "interrupted":
			p.Bool(&tur.interrupted)
		case "agentId":
			p.Str(&tur.agentID)
		default:
			resultMetaKeys.Skip(p, k)
		}
	}
	return !p.Failed()
}

var messageKeys = fastjson.NewKeys("id", "role", "model", "content", "stop_reason", "usage")

// fastMessage reads a message as parseMessage does, or returns nil when
// parseMessage would find fault with it or p declines it.
func fastMessage(p *fastjson.Parser) *parsedMessage {
	pm := &parsedMessage{}
	switch p.Kind() {
	case '"':
		s := p.String()
		pm.str = &s
		return pm
	case 'n':
		p.Null()
		return pm
	case '{':
	default:
		return nil
	}
	p.Object()
	for k, ok := p.Key(); ok; k, ok = p.Key() {
		switch string(k) {
		case "id":
			p.Str(&pm.ID)
		case "role":
			p.Intern(&pm.Role)
		case "model":
			p.Intern(&pm.Model)
		case "stop_reason":
			p.Intern(&pm.StopReason)
		case "usage":
			if p.Null() {
				pm.Usage = nil
				continue
			}
			if pm.Usage == nil {
				pm.Usage = &usage{}
			}
			fastUsage(p, pm.Usage)
		case "content":
			pm.str, pm.blocks = nil, nil
			switch p.Kind() {
			case '"':
				s := p.String()
				pm.str = &s
			case 'n':
				p.Null()
			case '[':
				pm.blocks = fastBlocks(p, true)
			default:
				return nil
			}
		default:
			messageKeys.Skip(p, k)
		}
	}
	if p.Failed() {
		return nil
	}
	return pm
}

var usageKeys = fastjson.NewKeys("input_tokens", "output_tokens", "cache_creation_input_tokens",
	"cache_read_input_tokens", "output_tokens_details")

var usageDetailKeys = fastjson.NewKeys("thinking_tokens")

func fastUsage(p *fastjson.Parser, u *usage) {
	if !p.Object() {
		return
	}
	for k, ok := p.Key(); ok; k, ok = p.Key() {
		switch string(k) {
		case "input_tokens":
			fastjson.Int(p, &u.InputTokens)
		case "output_tokens":
			fastjson.Int(p, &u.OutputTokens)
		case "cache_creation_input_tokens":
			fastjson.Int(p, &u.CacheCreationInputTokens)
		case "cache_read_input_tokens":
			fastjson.Int(p, &u.CacheReadInputTokens)
		case "output_tokens_details":
			if p.Null() {
				continue
			}
			if !p.Object() {
				return
			}
			for k, ok := p.Key(); ok; k, ok = p.Key() {
				if string(k) == "thinking_tokens" {
					fastjson.Int(p, &u.OutputTokensDetails.ThinkingTokens)
				} else {
					usageDetailKeys.Skip(p, k)
				}
			}
		default:
			usageKeys.Skip(p, k)
		}
	}
}

var blockKeys = fastjson.NewKeys("type", "text", "thinking", "signature", "data", "id", "name", "input",
	"tool_use_id", "content", "is_error", "source", "title")

// fastBlocks reads a list of content blocks as blocksOf does (declining
// what blocksOf would report or read only in part). In a message (top),
// a tool_result's content is read as toolResultContent reads it.
func fastBlocks(p *fastjson.Parser, top bool) []block {
	if !p.Array() {
		return nil
	}
	blocks := []block{}
	for p.Elem() {
		if p.Kind() != '{' {
			p.Decline() // a null or a value of another type
			return nil
		}
		blocks = append(blocks, block{})
		b := &blocks[len(blocks)-1]
		p.Object()
		for k, ok := p.Key(); ok; k, ok = p.Key() {
			switch string(k) {
			case "type":
				p.Intern(&b.Type)
			case "text":
				p.Str(&b.Text)
			case "thinking":
				p.Str(&b.Thinking)
			case "signature":
				p.Str(&b.Signature)
			case "data":
				p.Str(&b.Data)
			case "id":
				p.Str(&b.ID)
			case "name":
				p.Str(&b.Name)
			case "title":
				p.Str(&b.Title)
			case "tool_use_id":
				p.Str(&b.ToolUseID)
			case "is_error":
				p.Bool(&b.IsError)
			case "input":
				b.Input = bytes.Clone(p.Raw())
			case "source":
				if p.Null() {
					b.Source = nil
					continue
				}
				if b.Source == nil {
					b.Source = &source{}
				}
				fastSource(p, b.Source)
			case "content":
				b.resultRead = false
				m := p.Mark()
				if top && b.Type == "tool_result" {
					if text, atts, ok := fastResultContent(p); ok {
						b.resultText, b.resultAtts, b.resultRead = text, atts, true
						b.Content = p.Since(m)
						continue
					}
					p.Rewind(m)
				}
				b.Content = p.Raw()
			default:
				blockKeys.Skip(p, k)
			}
		}
		if b.Type != "tool_result" {
			b.resultRead = false // the type changed after its content
		}
	}
	if p.Failed() {
		return nil
	}
	return blocks
}

var sourceKeys = fastjson.NewKeys("type", "media_type", "data", "url", "file_id")

func fastSource(p *fastjson.Parser, s *source) {
	if !p.Object() {
		return
	}
	for k, ok := p.Key(); ok; k, ok = p.Key() {
		switch string(k) {
		case "type":
			p.Intern(&s.Type)
		case "media_type":
			p.Intern(&s.MediaType)
		case "data":
			p.Str(&s.Data)
		case "url":
			p.Str(&s.URL)
		case "file_id":
			p.Str(&s.FileID)
		default:
			sourceKeys.Skip(p, k)
		}
	}
}

// fastResultContent reads a tool_result's content as toolResultContent
// does, declining what it would read with compactJSON.
func fastResultContent(p *fastjson.Parser) (string, []session.Attachment, bool) {
	switch p.Kind() {
	case '"':
		s := p.String()
		return s, nil, !p.Failed()
	case 'n':
		p.Null()
		return "", nil, !p.Failed()
	case '[':
	default:
		return "", nil, false
	}
	blocks := fastBlocks(p, false)
	if p.Failed() {
		return "", nil, false
	}
	var parts []string
	var atts []session.Attachment
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "image", "document":
			atts = append(atts, attachment(b))
		}
	}
	return strings.Join(parts, "\n"), atts, true
}

var attachmentKeys = fastjson.NewKeys("type", "systemPrompt", "text", "content")

var renderedKeys = fastjson.NewKeys("content")

// attachmentFields is what attachmentEntry and renderedText read of an
// attachment.
type attachmentFields struct {
	typ, text string
	content   []byte
	prompt    []string
}

// renderedFields is what renderedText reads of a rendered list.
type renderedFields struct {
	n     int      // elements
	parts []string // of those with content
}

// fastAttachment reads an attachment object as attachmentEntry and
// renderedText read it, or fails.
func fastAttachment(p *fastjson.Parser) (*attachmentFields, bool) {
	if p.Kind() != '{' {
		return nil, false
	}
	a := &attachmentFields{}
	p.Object()
	seenPrompt := false
	for k, ok := p.Key(); ok; k, ok = p.Key() {
		switch string(k) {
		case "type":
			p.Intern(&a.typ)
		case "text":
			p.Str(&a.text)
		case "content":
			a.content = p.Raw()
		case "systemPrompt":
			if seenPrompt {
				p.Decline() // encoding/json reads the second into the first
				continue
			}
			seenPrompt = true
			if p.Null() || !p.Array() {
				continue
			}
			a.prompt = []string{}
			for p.Elem() {
				a.prompt = append(a.prompt, p.String())
			}
		default:
			attachmentKeys.Skip(p, k)
		}
	}
	return a, !p.Failed()
}

// fastRendered reads a rendered list as renderedText reads it, or fails.
func fastRendered(p *fastjson.Parser) (*renderedFields, bool) {
	r := &renderedFields{}
	if p.Null() {
		return r, true
	}
	if !p.Array() {
		return nil, false
	}
	for p.Elem() {
		r.n++
		if p.Null() {
			continue
		}
		if !p.Object() {
			return nil, false
		}
		// As renderedText reads an element: a string content is a
		// part, any other content its compact JSON (a null, "null"), no
		// content nothing.
		var part string
		var raw []byte
		has := false
		for k, ok := p.Key(); ok; k, ok = p.Key() {
			if string(k) != "content" {
				renderedKeys.Skip(p, k)
				continue
			}
			has = true
			if p.Kind() == '"' {
				part, raw = p.String(), nil
			} else {
				raw = p.Raw()
			}
		}
		switch {
		case !has:
		case raw == nil:
			r.parts = append(r.parts, part)
		default:
			r.parts = append(r.parts, compactJSON(raw))
		}
	}
	return r, !p.Failed()
}

// fastAttachmentEntry is attachmentEntry reading with fastjson (or taking
// what fastRecord read); it reports false when attachmentEntry must read
// the record.
func (d *Decoder) fastAttachmentEntry(rec *record) (session.Entry, bool) {
	p := &d.fp
	a := rec.att
	if a == nil {
		p.Reset(rec.Attachment)
		var ok bool
		if a, ok = fastAttachment(p); !ok || !p.End() {
			return session.Entry{}, false
		}
	}
	if a.typ == "prompt_snapshot" && len(a.prompt) > 0 {
		return session.Entry{Type: session.System, Kind: session.KindInstructions, Content: strings.Join(a.prompt, "\n")}, true
	}
	e := session.Entry{Type: session.System, Kind: session.KindContext}
	// renderedText: the rendered parts, else the attachment's text.
	if len(rec.Rendered) > 0 {
		r := rec.rend
		if r == nil {
			p.Reset(rec.Rendered)
			var ok bool
			if r, ok = fastRendered(p); !ok || !p.End() {
				return session.Entry{}, false
			}
		}
		if r.n > 0 {
			e.Content = strings.Join(r.parts, "\n")
			return e, true
		}
	}
	switch {
	case a.text != "":
		e.Content = a.text
	default:
		if s, ok := stringContent(a.content); ok {
			e.Content = s
		} else {
			e.Content = a.typ
		}
	}
	return e, true
}
