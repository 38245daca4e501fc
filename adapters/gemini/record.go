package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/stead-dev/stead/adapters/internal/jsonread"
	"github.com/stead-dev/stead/session"
)

// record is the union of the fields stead reads from a line of a session
// file: a message, a metadata record, a "$set" update or a "$rewindTo".
// Unknown fields stay in the raw line kept with the record.
type record struct {
	msgRecord
	Set         *setRecord      `json:"$set"`
	RewindTo    json.RawMessage `json:"$rewindTo"`
	SessionID   json.RawMessage `json:"sessionId"`
	ProjectHash json.RawMessage `json:"projectHash"`
	StartTime   string          `json:"startTime"`
	LastUpdated string          `json:"lastUpdated"`
	Directories json.RawMessage `json:"directories"`
	Summary     json.RawMessage `json:"summary"`
	Messages    []msgRecord     `json:"messages"`
}

// Kinds of record, decided in the order Gemini CLI's loader decides them.
const (
	recUnknown = iota
	recRewind
	recMessage
	recSet
	recMeta
)

func (r *record) kind() int {
	switch {
	case isString(r.RewindTo):
		return recRewind
	case isString(r.RawID):
		return recMessage
	case r.Set != nil: // an object: anything else fails to decode into it
		return recSet
	case isString(r.SessionID) && isString(r.ProjectHash):
		return recMeta
	}
	return recUnknown
}

func isString(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '"' }

// str returns raw as a string when it is a JSON string.
func str(raw json.RawMessage) string {
	if !isString(raw) {
		return ""
	}
	if s, ok := jsonread.QuickString(raw); ok {
		return s
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// firstString returns the first element of raw when it is an array whose
// first element is a string.
func firstString(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '[' {
		return ""
	}
	var first json.RawMessage
	if jsonread.ParseValue(raw, func(p *jsonread.Parser) {
		for more := p.OpenArray(); more; more = p.More() {
			if first == nil {
				p.Raw(&first)
			} else {
				p.Skip()
			}
		}
	}) {
		return str(first)
	}
	var a []json.RawMessage
	if json.Unmarshal(raw, &a) != nil || len(a) == 0 {
		return ""
	}
	return str(a[0])
}

// setRecord is the object of a "$set" line. Messages is nil unless the
// record has a list of them.
type setRecord struct {
	SessionID   json.RawMessage `json:"sessionId"`
	Summary     json.RawMessage `json:"summary"`
	Directories json.RawMessage `json:"directories"`
	Messages    []msgRecord     `json:"messages"`

	sc *scratch // where its lists go when a Decoder reads it
}

// msgRecord is a message record: a message with an "id" that must be a
// string.
type msgRecord struct {
	RawID json.RawMessage `json:"id"`
	message

	sc *scratch // where its lists go when a Decoder reads it
}

// message is one chat message of any type.
type message struct {
	ID        string          `json:"-"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Thoughts  []thought       `json:"thoughts"`
	Tokens    *tokens         `json:"tokens"`
	Model     string          `json:"model"`
	ToolCalls []toolCall      `json:"toolCalls"`

	// parts is Content read as parts reads it, when parsed is set:
	// jsonread.Parse reads it with the rest of the line.
	parts  []part
	parsed bool
}

type thought struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
}

// text is how Gemini CLI shows a thought: "**subject** description", the
// form the model wrote it in.
func (t thought) text() string {
	switch {
	case t.Subject == "":
		return t.Description
	case t.Description == "":
		return "**" + t.Subject + "**"
	}
	return "**" + t.Subject + "** " + t.Description
}

type toolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args"`
	Result    json.RawMessage `json:"result"`
	Status    string          `json:"status"`
	Timestamp string          `json:"timestamp"`
	AgentID   string          `json:"agentId"`

	sc *scratch // set when a Decoder reads it
	// resultParts is Result read as content reads it, when resultRead is
	// set: a Decoder reads it with the rest of the line (see scratch).
	resultParts []part
	resultRead  bool
}

// part is a part of an API content, as messages store them.
type part struct {
	Text                string            `json:"text"`
	Thought             bool              `json:"thought"`
	FunctionCall        *functionCall     `json:"functionCall"`
	FunctionResponse    *functionResponse `json:"functionResponse"`
	InlineData          *inlineData       `json:"inlineData"`
	FileData            *fileData         `json:"fileData"`
	ExecutableCode      json.RawMessage   `json:"executableCode"`
	CodeExecutionResult json.RawMessage   `json:"codeExecutionResult"`

	sc *scratch // set when a Decoder reads it
}

type inlineData struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

type fileData struct {
	MimeType    string `json:"mimeType"`
	FileURI     string `json:"fileUri"`
	DisplayName string `json:"displayName"`
}

type functionCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type functionResponse struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`

	sc *scratch // set when a Decoder reads it
	// resp is Response read as responseText reads it, when respRead is
	// set: a Decoder reads it with the rest of the line (see scratch).
	resp     response
	respRead bool
}

// parts reads a content or result: a string (one text part), a list of
// parts, or one part. Parts that are plain strings count as text.
func parts(raw json.RawMessage) ([]part, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		var p part
		if jsonread.Parse(raw, &p) {
			return []part{p}, nil
		}
	}
	if len(raw) > 0 && raw[0] == '[' {
		if ps, ok := quickParts(raw); ok {
			return ps, nil
		}
	}
	return slowParts(raw)
}

// slowParts is parts with encoding/json, for what jsonread.Parse leaves to it.
func slowParts(raw json.RawMessage) ([]part, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	switch raw[0] {
	case '"':
		s := str(raw)
		return []part{{Text: s}}, nil
	case '{':
		var p part
		err := json.Unmarshal(raw, &p)
		return []part{p}, err
	case '[':
		// Parts are objects; a list holding a plain string takes the slow
		// way.
		var ps []part
		err := json.Unmarshal(raw, &ps)
		var te *json.UnmarshalTypeError
		if err == nil || !errors.As(err, &te) {
			return ps, err
		}
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil, err
		}
		ps = make([]part, 0, len(elems))
		var first error
		for _, e := range elems {
			if isString(e) {
				s := str(e)
				ps = append(ps, part{Text: s})
				continue
			}
			var p part
			if err := json.Unmarshal(e, &p); err != nil && first == nil {
				first = err
			}
			ps = append(ps, p)
		}
		return ps, first
	}
	return nil, nil
}

// quickParts reads a list of parts as parts does, or reports false.
func quickParts(raw []byte) (ps []part, ok bool) {
	ok = jsonread.ParseValue(raw, func(p *jsonread.Parser) { ps = partList(p, nil) })
	return ps, ok
}

// partList reads a list of parts as parts does. With a scratch (a
// Decoder's), the parts come from its pool and read what they hold
// through it.
func partList(p *jsonread.Parser, sc *scratch) []part {
	var ps []part
	pool := &ps
	if sc != nil {
		pool = &sc.parts
	}
	start := len(*pool)
	for more := p.OpenArray(); more; more = p.More() {
		switch p.Peek() {
		case '"':
			*pool = append(*pool, part{Text: p.StringValue()})
		case '{', 'n':
			*pool = append(*pool, part{sc: sc})
			p.Object(&(*pool)[len(*pool)-1])
		default:
			p.Fail()
		}
	}
	if len(*pool) == start {
		return []part{}
	}
	return (*pool)[start:len(*pool):len(*pool)]
}

// content reads a message's content as parts reads it, with a scratch as
// partList does.
func content(p *jsonread.Parser, sc *scratch) []part {
	var ps []part
	pool := &ps
	if sc != nil {
		pool = &sc.parts
	}
	start := len(*pool)
	switch p.Peek() {
	case '"':
		*pool = append(*pool, part{Text: p.StringValue()})
	case '{':
		*pool = append(*pool, part{sc: sc})
		p.Object(&(*pool)[start])
	case '[':
		return partList(p, sc)
	default:
		p.Skip()
		return nil
	}
	return (*pool)[start:len(*pool):len(*pool)]
}

// response is what stead reads of a functionResponse's response.
type response struct {
	Output json.RawMessage `json:"output"`
	Error  json.RawMessage `json:"error"`

	// out and err are Output and Error as str reads them, when jsonread
	// read them as strings (outRead, errRead): most outputs have escapes,
	// and reading them with the rest saves a second pass.
	out, err         string
	outRead, errRead bool
}

// responseText is the text a functionResponse carried: its output, or its
// error, or the whole response as JSON. out is the output when it is a
// string; errKey reports a non-null error. jp, reused, reads the response
// unless the Decoder read it with the line.
func responseText(jp *jsonread.Parser, fr *functionResponse) (text, out string, errKey bool) {
	raw := fr.Response
	r := &fr.resp
	if !fr.respRead {
		r = &response{}
		if len(raw) == 0 || raw[0] != '{' || !jp.Parse(raw, r) && json.Unmarshal(raw, resetResponse(r)) != nil {
			return compactJSON(raw), "", false
		}
	}
	errKey = len(r.Error) > 0 && string(r.Error) != "null"
	switch {
	case isString(r.Output):
		out = r.out
		if !r.outRead {
			out = str(r.Output)
		}
		return out, out, errKey
	case errKey && isString(r.Error):
		if r.errRead {
			return r.err, "", errKey
		}
		return str(r.Error), "", errKey
	}
	return compactJSON(raw), "", errKey
}

func resetResponse(r *response) *response {
	*r = response{}
	return r
}

// result is a tool's result read in full: its text, its attachments, and
// what its status is decided from.
type result struct {
	text   string
	atts   []session.Attachment
	errKey bool
	probe  string // the output of the first response, or the result when a string
	set    bool   // the call has a result at all
}

// readResult reads a toolCalls[].result: a string, one part, or a list of
// parts (functionResponse, text, inlineData). jp, reused, reads what the
// Decoder did not read with the line.
func readResult(jp *jsonread.Parser, c *toolCall) (result, error) {
	raw := bytes.TrimSpace(c.Result)
	var res result
	res.set = hasResult(raw)
	if !res.set {
		return res, nil
	}
	if raw[0] == '"' {
		if c.resultRead {
			res.text = c.resultParts[0].Text
		} else {
			res.text = str(raw)
		}
		res.probe = res.text
		return res, nil
	}
	var ps []part
	var err error
	if c.resultRead {
		ps = c.resultParts
	} else {
		ps, err = parts(raw)
	}
	var texts []string
	probed := false
	for i := range ps {
		p := &ps[i] // not a copy: a part is large
		switch {
		case p.FunctionResponse != nil:
			t, out, e := responseText(jp, p.FunctionResponse)
			res.errKey = res.errKey || e
			if !probed {
				res.probe, probed = out, true
			}
			texts = append(texts, t)
		case p.Text != "" && !p.Thought:
			texts = append(texts, p.Text)
		default:
			if a, ok := attachment(p); ok {
				res.atts = append(res.atts, a)
			}
		}
	}
	res.text = strings.Join(texts, "\n")
	return res, err
}

// hasResult reports whether a call's result is set, as Gemini CLI tests
// it: a non-empty string, an object, or a non-empty list.
func hasResult(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '"':
		return len(raw) > 2
	case '{':
		return true
	case '[':
		return len(bytes.TrimSpace(raw[1:len(raw)-1])) > 0
	}
	return false // null, or a number or boolean the CLI could not send
}

func attachment(p *part) (session.Attachment, bool) {
	switch {
	case p.InlineData != nil:
		t := "file"
		if strings.HasPrefix(p.InlineData.MimeType, "image/") {
			t = "image"
		}
		return session.Attachment{Type: t, MediaType: p.InlineData.MimeType, Data: p.InlineData.Data}, true
	case p.FileData != nil:
		t := "file"
		if strings.HasPrefix(p.FileData.MimeType, "image/") {
			t = "image"
		}
		return session.Attachment{Type: t, MediaType: p.FileData.MimeType, URL: p.FileData.FileURI, Name: p.FileData.DisplayName}, true
	}
	return session.Attachment{}, false
}

// compactJSON renders raw JSON as text, with invalid UTF-8 replaced as
// encoding/json replaces it (so the text survives a JSON round trip).
func compactJSON(raw json.RawMessage) string {
	b, ok := jsonread.AppendCompact(nil, raw)
	if !ok {
		return validUTF8(raw)
	}
	return validUTF8(b)
}

// validUTF8 replaces each byte that is not part of valid UTF-8 with
// U+FFFD, as encoding/json does.
func validUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var s strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			s.WriteRune(utf8.RuneError)
		} else {
			s.Write(b[:n])
		}
		b = b[n:]
	}
	return s.String()
}

// objectArgs returns a call's arguments as a compact JSON object (as a
// JSON round trip leaves them): the universal format wants an object, and
// the native record keeps anything else.
func objectArgs(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return json.RawMessage(`{}`)
	}
	b, ok := jsonread.AppendCompact(make([]byte, 0, len(raw)), raw)
	if !ok {
		return json.RawMessage(`{}`)
	}
	return b
}

// filePath returns the file_path argument of a call's arguments.
func filePath(args json.RawMessage) string {
	var a fileArgs
	if len(args) == 0 || args[0] != '{' || !jsonread.Parse(args, &a) && json.Unmarshal(args, resetFileArgs(&a)) != nil {
		return ""
	}
	return str(a.FilePath)
}

// fileArgs is what filePath reads of a call's arguments.
type fileArgs struct {
	FilePath json.RawMessage `json:"file_path"`
}

func resetFileArgs(a *fileArgs) *fileArgs {
	*a = fileArgs{}
	return a
}
