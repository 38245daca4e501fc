package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
	"github.com/stead-dev/stead/session"
)

// NewStreamDecoder returns a decoder for converting a session as it is
// read. It yields the conversation NewDecoder yields, but keeps no native
// records, and reads user and assistant records (nearly all of a session's
// bytes) with the scanner, at memory speed, instead of encoding/json. A
// record the scanner cannot read, and every other record, goes the
// ordinary way.
func NewStreamDecoder(r io.Reader) *Decoder {
	d := NewDecoder(r)
	d.sc = jsonl.NewScanner(nil, 0)
	return d
}

// decodeStream is Decode for a stream decoder.
func (d *Decoder) decodeStream() (session.Event, error) {
	if !d.r.Next() {
		if err := d.r.Err(); err != nil {
			return session.Event{}, fmt.Errorf("claude: read %s: %w", d.name(), err)
		}
		return session.Event{}, io.EOF
	}
	line := d.r.Line()
	ev := session.Event{Line: d.r.LineNo()}
	if line[0] != '{' {
		ev.Warning = d.warn(ev.Line, "not a JSON object; line skipped")
		return ev, nil
	}
	var rec record
	switch d.scanRecord(line, &rec) {
	case scanned:
	case skip:
		return ev, nil // nothing a conversion carries
	default:
		rec = record{}
		if err := json.Unmarshal(line, &rec); err != nil {
			var te *json.UnmarshalTypeError
			if !errors.As(err, &te) {
				switch {
				case !d.r.Partial():
					ev.Warning = d.warn(ev.Line, "malformed JSON ("+err.Error()+"); line skipped")
				case !jsonl.Growing(d.livePath()):
					ev.Warning = d.warn(ev.Line, jsonl.Incomplete(len(line), err))
				}
				return ev, nil
			}
			ev.Warning = d.warn(ev.Line, fmt.Sprintf("field %q has unexpected type %s; read what could be", te.Field, te.Value))
		}
	}
	if !utf8.Valid(line) {
		// The scanner keeps the bytes; the encoder writes U+FFFD.
		if ev.Warning != nil {
			ev.Warning.Message = jsonl.AddProblem(ev.Warning.Message, jsonl.InvalidUTF8)
		} else {
			ev.Warning = d.warn(ev.Line, jsonl.InvalidUTF8)
		}
	}
	d.convert(&rec, nil, &ev)
	for i := range ev.Entries {
		ev.Entries[i].Native = nil
	}
	ev.Record = nil
	return ev, nil
}

// str reads a string value whole.
func str(s *jsonl.Scanner) string { return s.StringValue() }

// What scanRecord did with a record.
const (
	fallback = iota // the caller decodes it with encoding/json
	scanned         // a user or assistant record, read
	skip            // a record no conversion carries
)

// carriesNothing lists record types whose entries, if any, a conversion
// leaves behind (the CLI's context snapshots and bookkeeping): a stream
// decoder skips them unread.
var carriesNothing = map[string]bool{
	"attachment": true, "file-history-snapshot": true, "queue-operation": true, "last-prompt": true,
	"api-request": true, "api-request-blob": true, "api-request-shape": true, "tools-used": true,
	"atis-latch": true, "mode": true, "permission-mode": true, "cost-state": true, "tag": true,
	"agent-name": true, "pr-link": true,
}

// scanRecord reads a user or assistant record with the scanner, and skips
// one that carries nothing. Any other record, and one it cannot read, it
// leaves to the caller to decode with encoding/json.
func (d *Decoder) scanRecord(line []byte, rec *record) int {
	s := d.sc
	s.ResetBytes(line)
	if !s.NextLine() || !s.BeginObject() {
		return fallback
	}
	for s.NextKey() {
		switch string(s.Key()) {
		case "type":
			rec.Type = str(s)
			if carriesNothing[rec.Type] {
				return skip
			}
			if rec.Type != "user" && rec.Type != "assistant" {
				return fallback
			}
		case "uuid":
			rec.UUID = str(s)
		case "parentUuid":
			rec.ParentUUID = str(s)
		case "logicalParentUuid":
			rec.LogicalParentUUID = str(s)
		case "sessionId":
			rec.SessionID = str(s)
		case "agentId":
			rec.AgentID = str(s)
		case "timestamp":
			rec.Timestamp = str(s)
		case "cwd":
			rec.Cwd = str(s)
		case "gitBranch":
			rec.GitBranch = str(s)
		case "version":
			rec.Version = str(s)
		case "requestId":
			rec.RequestID = str(s)
		case "requestSessionId":
			rec.RequestSessionID = str(s)
		case "isSidechain":
			rec.IsSidechain = s.Bool()
		case "isMeta":
			rec.IsMeta = s.Bool()
		case "isCompactSummary":
			rec.IsCompactSummary = s.Bool()
		case "isApiErrorMessage":
			rec.IsAPIErrorMessage = s.Bool()
		case "toolDenialKind":
			rec.ToolDenialKind = s.AppendRaw(nil)
		case "toolUseResult":
			rec.fastMeta = true
			if s.Kind() != '{' {
				s.Skip()
				continue
			}
			s.BeginObject()
			for s.NextKey() {
				switch string(s.Key()) {
				case "interrupted":
					rec.interrupted = s.Bool()
				case "agentId":
					rec.agentID = str(s)
				default:
					s.Skip()
				}
			}
		case "message":
			pm, ok := scanMessage(s)
			if !ok {
				return fallback
			}
			rec.parsed = pm
		default:
			s.Skip()
		}
	}
	s.Finish()
	if s.Failed() || (rec.Type != "user" && rec.Type != "assistant") {
		return fallback
	}
	if rec.parsed == nil {
		rec.parsed = &parsedMessage{}
	}
	return scanned
}

// scanMessage reads a message: a plain string, or an object whose
// content is a string or a list of blocks.
func scanMessage(s *jsonl.Scanner) (*parsedMessage, bool) {
	pm := &parsedMessage{}
	switch s.Kind() {
	case '"':
		text := str(s)
		pm.str = &text
		return pm, true
	case 'n':
		s.Skip()
		return pm, true
	case '{':
	default:
		return nil, false
	}
	s.BeginObject()
	for s.NextKey() {
		switch string(s.Key()) {
		case "id":
			pm.ID = str(s)
		case "role":
			pm.Role = str(s)
		case "model":
			pm.Model = str(s)
		case "stop_reason":
			pm.StopReason = str(s)
		case "usage":
			switch s.Kind() {
			case 'n':
				s.Skip()
			case '{':
				pm.Usage = scanUsage(s)
			default:
				return nil, false
			}
		case "content":
			switch s.Kind() {
			case '"':
				text := str(s)
				pm.str = &text
			case '[':
				blocks, ok := scanBlocks(s)
				if !ok {
					return nil, false
				}
				pm.blocks = blocks
			case 'n':
				s.Skip()
			default:
				return nil, false
			}
		default:
			s.Skip()
		}
	}
	return pm, !s.Failed()
}

func scanUsage(s *jsonl.Scanner) *usage {
	u := &usage{}
	s.BeginObject()
	for s.NextKey() {
		switch string(s.Key()) {
		case "input_tokens":
			u.InputTokens = s.Int()
		case "output_tokens":
			u.OutputTokens = s.Int()
		case "cache_creation_input_tokens":
			u.CacheCreationInputTokens = s.Int()
		case "cache_read_input_tokens":
			u.CacheReadInputTokens = s.Int()
		case "output_tokens_details":
			if s.Kind() != '{' {
				s.Skip()
				continue
			}
			s.BeginObject()
			for s.NextKey() {
				if string(s.Key()) == "thinking_tokens" {
					u.OutputTokensDetails.ThinkingTokens = s.Int()
				} else {
					s.Skip()
				}
			}
		default:
			s.Skip()
		}
	}
	return u
}

// scanBlocks reads a list of content blocks.
func scanBlocks(s *jsonl.Scanner) ([]block, bool) {
	s.BeginArray()
	var blocks []block
	for s.NextElem() {
		if s.Kind() != '{' {
			return nil, false
		}
		var b block
		s.BeginObject()
		for s.NextKey() {
			switch string(s.Key()) {
			case "type":
				b.Type = str(s)
			case "text":
				b.Text = str(s)
			case "thinking":
				b.Thinking = str(s)
			case "signature":
				b.Signature = str(s)
			case "data":
				b.Data = str(s)
			case "id":
				b.ID = str(s)
			case "name":
				b.Name = str(s)
			case "title":
				b.Title = str(s)
			case "tool_use_id":
				b.ToolUseID = str(s)
			case "is_error":
				b.IsError = s.Bool()
			case "input":
				b.Input = s.AppendRaw(nil)
			case "source":
				if s.Kind() != '{' {
					s.Skip()
					continue
				}
				b.Source = scanSource(s)
			case "content":
				if b.Type == "tool_result" && (s.Kind() == '"' || s.Kind() == '[' || s.Kind() == 'n') {
					b.resultText, b.resultAtts = scanResultContent(s)
					b.resultRead = true
				} else {
					b.Content = s.AppendRaw(nil) // decoded the ordinary way
				}
			default:
				s.Skip()
			}
		}
		blocks = append(blocks, b)
	}
	return blocks, !s.Failed()
}

func scanSource(s *jsonl.Scanner) *source {
	src := &source{}
	s.BeginObject()
	for s.NextKey() {
		switch string(s.Key()) {
		case "type":
			src.Type = str(s)
		case "media_type":
			src.MediaType = str(s)
		case "data":
			src.Data = str(s)
		case "url":
			src.URL = str(s)
		case "file_id":
			src.FileID = str(s)
		default:
			s.Skip()
		}
	}
	return src
}

// scanResultContent reads a tool_result's content as toolResultContent
// does: a string, or text blocks joined by newlines, images and documents
// as attachments.
func scanResultContent(s *jsonl.Scanner) (string, []session.Attachment) {
	switch s.Kind() {
	case '"':
		return str(s), nil
	case 'n':
		s.Skip()
		return "", nil
	}
	var parts []string
	var atts []session.Attachment
	s.BeginArray()
	for s.NextElem() {
		if s.Kind() != '{' {
			s.Skip()
			continue
		}
		var b block
		s.BeginObject()
		for s.NextKey() {
			switch string(s.Key()) {
			case "type":
				b.Type = str(s)
			case "text":
				b.Text = str(s)
			case "title":
				b.Title = str(s)
			case "source":
				if s.Kind() != '{' {
					s.Skip()
					continue
				}
				b.Source = scanSource(s)
			default:
				s.Skip()
			}
		}
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "image", "document":
			atts = append(atts, attachment(b))
		}
	}
	return strings.Join(parts, "\n"), atts
}
