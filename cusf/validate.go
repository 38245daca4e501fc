package cusf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Validation rules, as Issue.Rule names them.
const (
	// RuleJSON: every line is one JSON value (not empty, not malformed).
	RuleJSON = "json-line"
	// RuleSchema: every line validates against Schema.
	RuleSchema = "schema"
	// RuleMetaFirst: the first line, and only it, is the _meta entry.
	RuleMetaFirst = "meta-first"
	// RuleStartFirst: session_start comes before any message or tool line.
	RuleStartFirst = "session_start-first"
	// RuleStartOnce: there is exactly one session_start.
	RuleStartOnce = "session_start-once"
	// RuleToolResult: a tool_result's tool_id names an earlier tool_use.
	RuleToolResult = "tool_result-matches-tool_use"
	// RuleEndMatches: session_end.session_id is session_start.session_id.
	RuleEndMatches = "session_end-matches-session_start"
	// RuleTimestamps: timestamps (started_at, timestamp, ended_at) never
	// go back in time.
	RuleTimestamps = "timestamps-ordered"
	// RuleEndLast: the file ends with its one session_end.
	RuleEndLast = "session_end-last"
	// RuleReconstruction: import and re-export give the file back (§5.3).
	RuleReconstruction = "reconstruction"
)

// ValidateOptions configure Validate.
type ValidateOptions struct {
	// Reconstruct runs the reconstruction test of §5.3 (import, re-export,
	// compare). It keeps a copy of the file in memory. A --grade command
	// turns it on.
	Reconstruct bool
	// MaxIssues is how many issues each check keeps (the others are only
	// counted in Check.Total); 0 is 20.
	MaxIssues int
}

// Issue is one failed rule.
type Issue struct {
	// Line is the 1-based line number, 0 for the file as a whole.
	Line    int    `json:"line"`
	Rule    string `json:"rule"`
	Message string `json:"message"`

	fatal bool
}

func (i Issue) String() string {
	return "line " + strconv.Itoa(i.Line) + ": rule " + i.Rule + ": " + i.Message
}

// Check is the outcome of one of the three validations.
type Check struct {
	Pass bool `json:"pass"`
	// Skipped is set when the check was not run.
	Skipped bool `json:"skipped,omitempty"`
	// Errors are the first issues found, in line order.
	Errors []Issue `json:"errors,omitempty"`
	// Total counts every issue, Errors and those left out.
	Total int `json:"total,omitempty"`
}

// Result is what Validate found. It encodes as JSON for tools.
type Result struct {
	Name           string `json:"name,omitempty"`
	Lines          int    `json:"lines"`
	Schema         Check  `json:"schema"`
	Structure      Check  `json:"structure"`
	Reconstruction Check  `json:"reconstruction"`
	// Grade is A to F as §9.1 defines them, Score the percentage behind
	// it (see the package documentation for how it is computed).
	Grade string `json:"grade"`
	Score int    `json:"score"`
	// Optional counts the optional fields the grade looks at: those the
	// file's lines could have, and those they fill in.
	Optional Optional `json:"optional"`
}

// Optional counts optional fields.
type Optional struct {
	Applicable int `json:"applicable"`
	Populated  int `json:"populated"`
}

// Pass reports whether every check that ran passed.
func (r *Result) Pass() bool {
	return r.Schema.Pass && r.Structure.Pass && (r.Reconstruction.Pass || r.Reconstruction.Skipped)
}

// WriteText writes the result in the shape of §9.2: a line per check, the
// first issues of a failing one indented under it, and the grade.
func (r *Result) WriteText(w io.Writer) {
	var b strings.Builder
	for _, c := range []struct {
		name string
		c    *Check
	}{{"Schema validation", &r.Schema}, {"Structural validation", &r.Structure}, {"Reconstruction test", &r.Reconstruction}} {
		switch {
		case c.c.Skipped:
			fmt.Fprintf(&b, "➖ %s: SKIPPED\n", c.name)
		case c.c.Pass:
			fmt.Fprintf(&b, "✅ %s: PASS\n", c.name)
		default:
			fmt.Fprintf(&b, "❌ %s: FAIL\n", c.name)
			for _, i := range c.c.Errors {
				fmt.Fprintf(&b, "   %s\n", i)
			}
			if more := c.c.Total - len(c.c.Errors); more > 0 {
				fmt.Fprintf(&b, "   … and %d more\n", more)
			}
		}
	}
	fmt.Fprintf(&b, "Grade: %s (%d%%)\n", r.Grade, r.Score)
	io.WriteString(w, b.String())
}

// required lists the required fields of each kind of line: a schema error
// in one of them (or a missing one) fails the grade, one in an optional
// field is a minor error.
var required = map[string]map[string]bool{
	"_meta":          {"_meta": true},
	TypeSessionStart: {"type": true, "session_id": true, "llm_source": true, "started_at": true},
	TypeMessage:      {"type": true, "role": true, "content": true, "timestamp": true, "message_id": true},
	TypeToolUse:      {"type": true, "tool_name": true, "tool_id": true, "timestamp": true},
	TypeToolResult:   {"type": true, "tool_id": true, "timestamp": true},
	TypeSessionEnd:   {"type": true, "session_id": true, "ended_at": true},
}

// timeFields names the timestamp that orders each kind of line.
var timeFields = map[string]string{
	TypeSessionStart: "started_at",
	TypeMessage:      "timestamp",
	TypeToolUse:      "timestamp",
	TypeToolResult:   "timestamp",
	TypeSessionEnd:   "ended_at",
}

// validator is the state of one Validate.
type validator struct {
	res       *Result
	max       int
	sch       *schema
	fatalLine int // the last line counted in fatalLines
	fatal     int // lines with a fatal issue

	first                int // the first non-empty line
	startLine, endLine   int
	startID              string
	startFirstReported   bool
	toolIDs              map[string]bool
	lastTime             time.Time
	lastTimeLine         int
	messages             int
	applicable, populate int
}

func (v *validator) issue(c *Check, line int, rule string, fatal bool, format string, args ...any) {
	c.Total++
	if len(c.Errors) < v.max {
		c.Errors = append(c.Errors, Issue{Line: line, Rule: rule, Message: fmt.Sprintf(format, args...), fatal: fatal})
	}
	if fatal && line != v.fatalLine {
		v.fatalLine = line
		v.fatal++
	}
}

// Validate checks the CUSF file r (named name in the result) line by
// line: against the schema, against the structural rules of §5.2 (see the
// Rule constants), and, with opts.Reconstruct, by the reconstruction test
// of §5.3; then grades it (§9.1). The error is for a failing reader only:
// a file that breaks the rules gives a Result that says so.
func Validate(r io.Reader, name string, opts ValidateOptions) (*Result, error) {
	sch, err := lineSchema()
	if err != nil {
		return nil, fmt.Errorf("cusf: compiling the schema: %w", err)
	}
	res := &Result{Name: name, Reconstruction: Check{Skipped: !opts.Reconstruct}}
	v := &validator{res: res, max: opts.MaxIssues, sch: sch, toolIDs: map[string]bool{}}
	if v.max <= 0 {
		v.max = 20
	}
	var kept bytes.Buffer
	if opts.Reconstruct {
		r = io.TeeReader(r, &kept)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			res.Lines++
			v.line(res.Lines, line)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	v.finish()
	if opts.Reconstruct {
		res.Reconstruction = reconstruct(kept.Bytes(), name)
	}
	res.Schema.Pass = res.Schema.Total == 0
	res.Structure.Pass = res.Structure.Total == 0
	v.grade()
	return res, nil
}

func (v *validator) line(n int, raw []byte) {
	res := v.res
	raw = bytes.TrimRight(raw, "\r\n")
	if n == 1 {
		raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		v.issue(&res.Schema, n, RuleJSON, false, "empty line")
		return
	}
	first := v.first == 0
	if first {
		v.first = n
	}
	doc, err := decodeLine(raw)
	if err != nil {
		v.issue(&res.Schema, n, RuleJSON, true, "not a JSON value: %v", err)
		if first {
			v.issue(&res.Structure, n, RuleMetaFirst, true, "the first line is not the _meta entry (it is not JSON)")
		}
		return
	}
	obj, _ := doc.(map[string]any)
	kind := ""
	if _, ok := obj["_meta"]; ok {
		kind = "_meta"
	} else if t, ok := obj["type"].(string); ok {
		kind = t
	}
	v.schema(n, kind, doc)
	if obj == nil {
		if first {
			v.issue(&res.Structure, n, RuleMetaFirst, true, "the first line is not the _meta entry")
		}
		return
	}
	v.structure(n, kind, obj, first)
	v.count(kind, obj)
}

// schema reports an issue for each schema error of line n, doc decoded,
// of the given kind: fatal for a missing field, for an error in a
// required field or at the top of the line, or for a line of no known kind.
func (v *validator) schema(n int, kind string, doc any) {
	req, known := required[kind]
	for _, e := range v.sch.validate(doc) {
		fatal := !known || len(e.Location) == 0 || req[e.Location[0]] || e.Keyword == "required"
		msg := e.Error()
		if kind != "" {
			msg = kind + " " + msg
		}
		v.issue(&v.res.Schema, n, RuleSchema, fatal, "%s", msg)
	}
}

func (v *validator) structure(n int, kind string, obj map[string]any, first bool) {
	c := &v.res.Structure
	if kind == "_meta" {
		if !first {
			v.issue(c, n, RuleMetaFirst, true, "_meta entry on line %d; it must be the first line and only it", n)
		}
		return
	}
	if first {
		v.issue(c, n, RuleMetaFirst, true, "the first line is not the _meta entry (it is %s)", describe(kind))
	}
	if v.endLine != 0 {
		v.issue(c, n, RuleEndLast, true, "%s after session_end (line %d)", describe(kind), v.endLine)
	}
	switch kind {
	case TypeSessionStart:
		if v.startLine != 0 {
			v.issue(c, n, RuleStartOnce, true, "a second session_start (the first is on line %d)", v.startLine)
		} else {
			v.startLine = n
			v.startID, _ = obj["session_id"].(string)
		}
	case TypeMessage, TypeToolUse, TypeToolResult:
		if v.startLine == 0 && !v.startFirstReported {
			v.startFirstReported = true
			v.issue(c, n, RuleStartFirst, true, "%s before session_start", kind)
		}
		switch kind {
		case TypeToolUse:
			if id, ok := obj["tool_id"].(string); ok {
				v.toolIDs[id] = true
			}
		case TypeToolResult:
			if id, ok := obj["tool_id"].(string); ok && !v.toolIDs[id] {
				v.issue(c, n, RuleToolResult, true, "tool_result tool_id %q has no tool_use before it", id)
			}
		}
	case TypeSessionEnd:
		if v.endLine != 0 {
			break // reported above as a line after session_end
		}
		v.endLine = n
		id, _ := obj["session_id"].(string)
		switch {
		case v.startLine == 0:
			v.issue(c, n, RuleEndMatches, true, "session_end with no session_start before it")
		case id != v.startID:
			v.issue(c, n, RuleEndMatches, true, "session_end.session_id %q does not match session_start.session_id %q (line %d)", id, v.startID, v.startLine)
		}
	}
	if f, ok := timeFields[kind]; ok {
		if s, ok := obj[f].(string); ok {
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				if v.lastTimeLine > 0 && t.Before(v.lastTime) {
					v.issue(c, n, RuleTimestamps, false, "%s %s %s is before %s on line %d", kind, f, s,
						v.lastTime.Format(time.RFC3339Nano), v.lastTimeLine)
				} else {
					v.lastTime, v.lastTimeLine = t, n
				}
			}
		}
	}
}

func describe(kind string) string {
	if kind == "" {
		return "a line with no type"
	}
	return strconv.Quote(kind)
}

func (v *validator) finish() {
	c := &v.res.Structure
	last := v.res.Lines
	switch {
	case v.first == 0:
		v.issue(c, 0, RuleMetaFirst, true, "the file has no line")
		return
	case v.startLine == 0:
		v.issue(c, 0, RuleStartOnce, true, "the file has no session_start")
	}
	if v.endLine == 0 {
		v.issue(c, last, RuleEndLast, true, "the file does not end with session_end")
	}
}

// present reports whether an optional field is filled in: there, not null,
// and not an empty string.
func present(obj map[string]any, key string) bool {
	switch x := obj[key].(type) {
	case nil:
		return false
	case string:
		return x != ""
	}
	return true
}

func (v *validator) opt(obj map[string]any, keys ...string) {
	for _, k := range keys {
		v.applicable++
		if present(obj, k) {
			v.populate++
		}
	}
}

// count counts the optional fields §9.1's grade looks at (see the package
// documentation).
func (v *validator) count(kind string, obj map[string]any) {
	switch kind {
	case TypeSessionStart:
		v.opt(obj, "llm_model", "project_path", "cwd")
		if present(obj, "git_branch") {
			v.opt(obj, "git_branch")
		}
	case TypeMessage:
		if obj["role"] == "assistant" {
			v.opt(obj, "model", "usage", "stop_reason")
		}
		if v.messages > 0 {
			v.opt(obj, "parent_id")
		}
		v.messages++
	case TypeToolUse:
		v.opt(obj, "tool_input", "parent_id")
	case TypeToolResult:
		v.opt(obj, "result")
	case TypeSessionEnd:
		v.opt(obj, "total_messages", "total_tokens", "end_reason")
	}
}

// grade sets the grade and score: F (under 60) when a required field is
// missing or invalid or the structure is broken, D (60–69) for minor
// errors only, else 70 + 30 × the share of applicable optional fields
// populated: A from 90, B from 80, C from 70.
func (v *validator) grade() {
	res := v.res
	res.Optional = Optional{Applicable: v.applicable, Populated: v.populate}
	ratio := 1.0
	if v.applicable > 0 {
		ratio = float64(v.populate) / float64(v.applicable)
	}
	minor := res.Schema.Total+res.Structure.Total > 0 || (!res.Reconstruction.Skipped && !res.Reconstruction.Pass)
	switch {
	case v.fatal > 0 || v.first == 0:
		res.Grade = "F"
		clean := 0.0
		if res.Lines > 0 && v.fatal < res.Lines {
			clean = float64(res.Lines-v.fatal) / float64(res.Lines)
		}
		res.Score = int(59 * clean)
	case minor:
		res.Grade = "D"
		res.Score = 60 + int(9*ratio)
	default:
		res.Score = 70 + int(30*ratio)
		switch {
		case res.Score >= 90:
			res.Grade = "A"
		case res.Score >= 80:
			res.Grade = "B"
		default:
			res.Grade = "C"
		}
	}
}

var errStop = errors.New("comparison over")

// reconstruct runs the §5.3 test on a whole file: import it, re-export
// it, and compare the two line by line as JSON values, _meta.exported_at
// and _meta.exporter and unknown fields aside, absent fields the same as
// null ones, is_error and truncated absent the same as false, and
// timestamps compared as instants. It reports the first
// line that differs.
func reconstruct(data []byte, name string) Check {
	fail := func(line int, format string, args ...any) Check {
		return Check{Total: 1, Errors: []Issue{{Line: line, Rule: RuleReconstruction, Message: fmt.Sprintf(format, args...)}}}
	}
	s, _, err := Decode(bytes.NewReader(data), name)
	if err != nil {
		return fail(0, "the file cannot be imported: %v", err)
	}
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := NewEncoder(pw, Options{Exporter: "stead-validate", Now: func() time.Time { return time.Unix(0, 0) }}).Encode(s)
		pw.CloseWithError(err)
	}()
	defer func() {
		pr.CloseWithError(errStop)
		<-done
	}()
	orig := bufio.NewReaderSize(bytes.NewReader(data), 64<<10)
	again := bufio.NewReaderSize(pr, 64<<10)
	n := 0
	for {
		var a []byte
		for {
			l, err := orig.ReadBytes('\n')
			if len(l) > 0 {
				n++
			}
			if len(bytes.TrimSpace(l)) > 0 || err != nil {
				a = bytes.TrimSpace(l)
				if n == 1 {
					a = bytes.TrimPrefix(a, []byte("\xef\xbb\xbf"))
				}
				break
			}
		}
		b, err := again.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return fail(n, "re-exporting the imported session failed: %v", err)
		}
		b = bytes.TrimSpace(b)
		switch {
		case len(a) == 0 && len(b) == 0:
			return Check{Pass: true}
		case len(a) == 0:
			return fail(n+1, "the re-export has a line the file lacks: %s", clip(string(b)))
		case len(b) == 0:
			return fail(n, "the line is missing from the re-export")
		}
		if d := diffLines(a, b); d != "" {
			return fail(n, "%s", d)
		}
	}
}

// diffLines describes the first difference between a line of the file and
// the re-exported line, or returns "".
func diffLines(a, b []byte) string {
	va, err := decodeNumber(a)
	if err != nil {
		return "the line is not JSON, so the import skipped it"
	}
	vb, err := decodeNumber(b)
	if err != nil {
		return "the re-exported line is not JSON: " + err.Error()
	}
	va, vb = normalize(va, true), normalize(vb, true)
	return diff("", va, vb)
}

func decodeNumber(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func normalize(v any, top bool) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	for k, x := range m {
		if x == nil {
			delete(m, k)
			continue
		}
		m[k] = normalize(x, false)
	}
	if top {
		for _, k := range []string{"is_error", "truncated"} {
			if m[k] == false {
				delete(m, k)
			}
		}
		kind, _ := m["type"].(string)
		if meta, ok := m["_meta"].(map[string]any); ok {
			kind = "_meta"
			delete(meta, "exported_at")
			delete(meta, "exporter")
			onlyKnown(meta, "format", "version")
		}
		if known, ok := knownFields[kind]; ok {
			onlyKnown(m, known...)
		}
		for _, k := range []string{"usage", "total_tokens"} {
			if u, ok := m[k].(map[string]any); ok {
				onlyKnown(u, "input", "output", "cache_read", "cache_write")
			}
		}
	}
	return v
}

// knownFields are the fields the standard defines for each kind of line.
var knownFields = map[string][]string{
	"_meta":          {"_meta"},
	TypeSessionStart: {"type", "session_id", "llm_source", "llm_model", "started_at", "project_path", "git_branch", "cwd", "machine_id", "tenant_id", "user_id"},
	TypeMessage:      {"type", "role", "content", "timestamp", "message_id", "parent_id", "model", "usage", "thinking", "stop_reason"},
	TypeToolUse:      {"type", "tool_name", "tool_input", "tool_id", "timestamp", "parent_id"},
	TypeToolResult:   {"type", "tool_id", "result", "is_error", "error_message", "timestamp", "truncated"},
	TypeSessionEnd:   {"type", "session_id", "ended_at", "total_messages", "total_tokens", "end_reason"},
}

// onlyKnown deletes the keys of m not in known: readers accept unknown
// fields, and writers do not write them (§7.2).
func onlyKnown(m map[string]any, known ...string) {
	for k := range m {
		found := false
		for _, kk := range known {
			if k == kk {
				found = true
				break
			}
		}
		if !found {
			delete(m, k)
		}
	}
}

func diff(path string, a, b any) string {
	field := func() string {
		if path == "" {
			return "the line"
		}
		return "field " + path
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			xv, inA := x[k]
			yv, inB := y[k]
			switch {
			case !inA:
				return "field " + p + " is not in the file but re-exported as " + show(yv)
			case !inB:
				return "field " + p + " (" + show(xv) + ") is lost on re-export"
			}
			if d := diff(p, xv, yv); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		if len(x) != len(y) {
			return fmt.Sprintf("%s has %d elements in the file, %d re-exported", field(), len(x), len(y))
		}
		for i := range x {
			if d := diff(path+"["+strconv.Itoa(i)+"]", x[i], y[i]); d != "" {
				return d
			}
		}
		return ""
	case json.Number:
		if y, ok := b.(json.Number); ok {
			if x == y {
				return ""
			}
			fx, e1 := x.Float64()
			fy, e2 := y.Float64()
			if e1 == nil && e2 == nil && fx == fy {
				return ""
			}
		}
	case string:
		if y, ok := b.(string); ok && (x == y || sameTime(x, y)) {
			return ""
		}
	default:
		if a == b {
			return ""
		}
	}
	return field() + " is " + show(a) + " in the file, " + show(b) + " re-exported"
}

// sameTime reports whether two strings are the same instant written two
// ways (2026-01-28T10:00:00Z and 2026-01-28T10:00:00.000Z).
func sameTime(a, b string) bool {
	ta, err := time.Parse(time.RFC3339Nano, a)
	if err != nil {
		return false
	}
	tb, err := time.Parse(time.RFC3339Nano, b)
	return err == nil && ta.Equal(tb)
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(b))
}

func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "…"
}
