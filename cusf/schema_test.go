package cusf_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/stead-dev/stead/cusf"
)

// TestSchemaAgrees holds stead's schema evaluator to the JSON Schema
// library it replaced: on every line of cusf/testdata, of the CUSF export
// of every adapter's testdata session and of lines made by mutating a
// line of each kind, the two must agree on whether the line is valid and
// on the (instance location, keyword) of each innermost error.
func TestSchemaAgrees(t *testing.T) {
	lib := librarySchema(t)
	var lines [][]byte
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		lines = append(lines, bytes.Split(data, []byte("\n"))...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	exported := 0
	for _, c := range testCases(t) {
		// A subtest each: a case that is not a session file skips only
		// its own.
		t.Run("export/"+c.cli+"/"+c.name, func(t *testing.T) {
			split := bytes.Split(bytes.TrimSpace(export(t, openCase(t, c))), []byte("\n"))
			exported += len(split)
			lines = append(lines, split...)
		})
	}
	mutated := mutations(t)
	lines = append(lines, mutated...)

	compared, invalid := 0, 0
	for _, line := range lines {
		doc, err := cusf.DecodeLine(line)
		if err != nil {
			continue // not a JSON value: no schema check
		}
		compared++
		want := libraryLeaves(t, lib, line)
		got := steadLeaves(t, doc)
		if !slices.Equal(got, want) {
			t.Errorf("%s\nstead: %q\nlibrary: %q", clipLine(line), got, want)
		}
		if len(want) > 0 {
			invalid++
		}
	}
	t.Logf("compared %d lines (%d exported from adapter testdata, %d mutated, the rest from testdata/): %d valid, %d invalid",
		compared, exported, len(mutated), compared-invalid, invalid)
	if compared < 1000 || invalid < compared/4 || invalid == compared {
		t.Errorf("compared %d lines, %d invalid: the test lost its lines", compared, invalid)
	}
}

// FuzzSchemaAgrees is TestSchemaAgrees on any line.
func FuzzSchemaAgrees(f *testing.F) {
	for _, l := range templates {
		f.Add(l)
	}
	for _, ts := range timestamps {
		f.Add(`{"type":"message","role":"user","content":"hi","timestamp":"` + ts + `","message_id":"m1"}`)
	}
	for _, n := range numbers {
		f.Add(`{"type":"session_end","session_id":"abc","ended_at":"2026-01-28T12:00:00Z","total_messages":` + n + `}`)
	}
	lib := librarySchema(f)
	f.Fuzz(func(t *testing.T, line string) {
		doc, err := cusf.DecodeLine([]byte(line))
		if err != nil {
			return
		}
		want := libraryLeaves(t, lib, []byte(line))
		if got := steadLeaves(t, doc); !slices.Equal(got, want) {
			t.Errorf("%s\nstead: %q\nlibrary: %q", clipLine([]byte(line)), got, want)
		}
	})
}

// librarySchema compiles Schema with the library, as Validate did.
func librarySchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(cusf.Schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "https://stead.dev/schemas/cusf-v1.0.0.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// libraryLeaves returns the innermost errors of the library's validation
// of line, as sorted "pointer keyword" strings.
func libraryLeaves(t testing.TB, s *jsonschema.Schema, line []byte) []string {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		t.Fatalf("the library cannot read %s: %v", clipLine(line), err)
	}
	err = s.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("%s: %v", clipLine(line), err)
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, leafKey(e.InstanceLocation, strings.Join(e.ErrorKind.KeywordPath(), "/")))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(out)
	return out
}

// steadLeaves is libraryLeaves with stead's evaluator.
func steadLeaves(t testing.TB, doc any) []string {
	t.Helper()
	errs, err := cusf.SchemaErrors(doc)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range errs {
		out = append(out, leafKey(e.Location, e.Keyword))
	}
	slices.Sort(out)
	return out
}

func leafKey(loc []string, keyword string) string {
	return "/" + strings.Join(loc, "/") + " " + keyword
}

func clipLine(line []byte) string {
	if len(line) > 300 {
		return string(line[:300]) + "…"
	}
	return string(line)
}

// Field values the mutations try.
var (
	// anyType has a value of every JSON type.
	anyType = []any{nil, true, false, json.Number("1"), json.Number("1.5"), "s", "", []any{}, []any{"x"}, map[string]any{}}
	// timestamps are bad and edge date-times.
	timestamps = []string{
		"yesterday", "2026-01-28T10:01:00", "2026-01-28t10:01:00z", "2026-01-28T23:59:60Z",
		"2026-02-30T10:00:00Z", "2026-01-28T10:01:00.Z", "2026-01-28T10:01:00+05:30", "2026-01-28T25:00:00Z",
		"2026-01-28T10:01:00.123456789Z", "2026-01-28T10:01:00-00:00", "2026-01-28T23:59:60+00:00",
		"2026-01-28T18:59:60-05:00", "2026-01-28T23:59:60+01:00", "2026-01-29T00:59:60+01:00", "2026-01-28T23:59:61Z",
		"2026-01-28 10:01:00Z", "2026-1-28T10:01:00Z", "2026-01-28T+1:00:00Z", "2026-01-28T-1:00:00Z",
		"2026-01-28T-0:00:00Z", "2026-01-28T10:01:00+5:30", "2026-01-28T10:01:00+05:3x", "2026-01-28T10:01:00+24:00",
		"2026-01-28T10:01:00+0530", "2026-01-28T10:60:00Z", "2026-01-28T10:01:00ZZ", "2026-01-28T10:01:00.5+01:00",
		"2024-02-29T10:00:00Z", "2026-02-29T10:00:00Z", "0000-01-01T00:00:00Z", "2026-01-28T10:01:00 Z",
		"2026-01-28T10:01:00.1", "2026-01-28T10:01:00z", "2026-01-28X10:01:00Z", "2026-01-28T10:01:00.123",
		"2026-01-28T10:01:00+05:30 ", "2026-01-28T10:01", "2026-01-28T10:01:00Z\n", "２026-01-28T10:01:00Z",
	}
	// numbers are token counts and the like.
	numbers = []string{"0", "-0", "1", "-1", "1.5", "1.0", "1e2", "1E+2", "2.50e1", "0.1e1", "1e-1", "-0.0", "0e5",
		"100000000000000000000000", "1.00000000000000000001", "12345678901234567890.0", "-1e-400"}
	// versions are _meta versions, good and bad.
	versions = []string{"1.0.0", "1.0", "v1.0.0", "1.0.0-rc.1", "1.0.0+build.5", "1.0.0 ", " 1.0.0", "x1.0.0", "1.0.0-", "10.20.30", "1.0.0\n", ""}
)

// templates are lines of every kind with every field filled in.
var templates = []string{
	`{"_meta":{"format":"cusf","version":"1.0.0","exported_at":"2026-01-28T12:00:00Z","exporter":"coditect-sx/1.0.0"}}`,
	`{"type":"session_start","session_id":"abc","llm_source":"claude","llm_model":"m","started_at":"2026-01-28T10:00:00Z","project_path":"/p","git_branch":"main","cwd":"/p","machine_id":"x","tenant_id":"y","user_id":"z"}`,
	`{"type":"message","role":"user","content":"hi","timestamp":"2026-01-28T10:01:00Z","parent_id":null,"message_id":"m1"}`,
	`{"type":"message","role":"assistant","content":"ok","timestamp":"2026-01-28T10:01:30Z","parent_id":"m1","message_id":"m2","model":"m","usage":{"input":1,"output":2,"cache_read":3,"cache_write":4},"thinking":"t","stop_reason":"tool_use"}`,
	`{"type":"tool_use","tool_name":"Read","tool_input":{"file_path":"/a"},"tool_id":"t1","timestamp":"2026-01-28T10:02:00Z","parent_id":"m2"}`,
	`{"type":"tool_result","tool_id":"t1","result":"x","is_error":false,"error_message":null,"timestamp":"2026-01-28T10:02:01Z","truncated":false}`,
	`{"type":"session_end","session_id":"abc","ended_at":"2026-01-28T12:00:00Z","total_messages":2,"total_tokens":{"input":1,"output":2},"end_reason":"export"}`,
}

// mutations returns the templates, base, and lines made from the
// templates by removing a field or setting it to another value, down to
// the fields of fields.
func mutations(t *testing.T) [][]byte {
	t.Helper()
	var out [][]byte
	add := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	for _, l := range append(slices.Clone(templates), base...) {
		out = append(out, []byte(l))
	}
	for _, l := range []string{`{}`, `[]`, `1`, `"x"`, `null`, `true`, `{"type":"note"}`, `{"type":null}`, `{"_meta":null}`,
		`{"type":"message"}`, `{"type":"Message","role":"user"}`, `{"_meta":{}}`, `{"_meta":[]}`,
		`{"_meta":{"format":"cusf","version":"1.0.0","exported_at":"2026-01-28T12:00:00Z","exporter":"x"},"type":"message"}`,
		`{"type":"session_end","session_id":"abc","ended_at":"2026-01-28T12:00:00Z","_meta":1}`} {
		out = append(out, []byte(l))
	}
	for _, tmpl := range templates {
		for _, path := range fieldPaths(decode(t, tmpl), nil) {
			name := path[len(path)-1]
			add(set(t, tmpl, path, nil, true))
			values := slices.Clone(anyType)
			switch name {
			case "exported_at", "started_at", "timestamp", "ended_at":
				for _, ts := range timestamps {
					values = append(values, ts)
				}
			case "type", "format", "role", "llm_source", "stop_reason", "end_reason":
				s, _ := get(t, tmpl, path).(string)
				values = append(values, strings.ToUpper(s), strings.ToUpper(s[:1])+s[1:], s+" ", "other", "user",
					"assistant", "system", "error", "tool_use", "message", "session_start", "session_end", "tool_result")
			case "input", "output", "cache_read", "cache_write", "total_messages":
				for _, n := range numbers {
					values = append(values, json.Number(n))
				}
			case "version":
				for _, v := range versions {
					values = append(values, v)
				}
			}
			for _, v := range values {
				add(set(t, tmpl, path, v, false))
			}
		}
	}
	// Two broken fields at once, one required and one optional.
	add(set(t, templates[3], []string{"usage", "input"}, json.Number("-1"), false))
	m := set(t, templates[3], []string{"timestamp"}, "yesterday", false)
	m["stop_reason"], m["parent_id"] = "done", 5
	delete(m, "content")
	add(m)
	// A 5 MB value.
	add(set(t, templates[2], []string{"timestamp"}, strings.Repeat("x", 5<<20), false))
	return out
}

func decode(t *testing.T, line string) map[string]any {
	t.Helper()
	doc, err := cusf.DecodeLine([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	return doc.(map[string]any)
}

// fieldPaths lists the paths to the fields of m and of its object fields.
func fieldPaths(m map[string]any, prefix []string) [][]string {
	var out [][]string
	for k, v := range m {
		p := append(slices.Clone(prefix), k)
		out = append(out, p)
		if sub, ok := v.(map[string]any); ok {
			out = append(out, fieldPaths(sub, p)...)
		}
	}
	slices.SortFunc(out, func(a, b []string) int { return slices.Compare(a, b) })
	return out
}

func get(t *testing.T, line string, path []string) any {
	var v any = decode(t, line)
	for _, k := range path {
		v = v.(map[string]any)[k]
	}
	return v
}

// set returns line decoded, with the field at path set to v or removed.
func set(t *testing.T, line string, path []string, v any, remove bool) map[string]any {
	t.Helper()
	doc := decode(t, line)
	m := doc
	for _, k := range path[:len(path)-1] {
		m = m[k].(map[string]any)
	}
	if remove {
		delete(m, path[len(path)-1])
	} else {
		m[path[len(path)-1]] = v
	}
	return doc
}

// TestSchemaMessages checks the text of the evaluator's errors, values
// clipped.
func TestSchemaMessages(t *testing.T) {
	huge := strings.Repeat("x", 5<<20)
	tests := []struct {
		line string
		want []string
	}{
		{`{"type":"message","role":"user","timestamp":"yesterday","message_id":"m1"}`,
			[]string{`missing property "content"`, `at /timestamp: "yesterday" is not a valid date-time (less than 20 characters long)`}},
		{`{"type":"session_end","ended_at":"2026-01-28T12:00:00Z","total_messages":-1}`,
			[]string{`missing property "session_id"`, `at /total_messages: -1 is less than the minimum 0`}},
		{`{"_meta":{"format":"CUSF","version":"1.0","exported_at":"2026-01-28T12:00:00Z","exporter":1}}`,
			[]string{`at /_meta/exporter: got number 1, want string`, `at /_meta/format: got string "CUSF", want "cusf"`,
				`at /_meta/version: "1.0" does not match the pattern ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]*)?$`}},
		{`{"type":"note"}`, []string{`at /type: got string "note", want one of "session_start", "message", "tool_use", "tool_result", "session_end"`}},
		{`{"type":"tool_use"}`, []string{`missing properties "tool_name", "tool_id", "timestamp"`}},
		{`[]`, []string{`got array, want object`}},
		{`{"type":"message","role":"user","content":"hi","timestamp":"` + huge + `","message_id":"m1"}`,
			[]string{`at /timestamp: "` + strings.Repeat("x", 80) + `…" is not a valid date-time (the 11th character is not T or t)`}},
	}
	for _, tt := range tests {
		doc, err := cusf.DecodeLine([]byte(tt.line))
		if err != nil {
			t.Fatal(err)
		}
		errs, err := cusf.SchemaErrors(doc)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range errs {
			got = append(got, e.Error())
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s:\ngot  %q\nwant %q", clipLine([]byte(tt.line)), got, tt.want)
		}
	}
}

// TestSchemaUnsupported checks that a schema beyond the subset the
// evaluator supports does not compile, and says where and why.
func TestSchemaUnsupported(t *testing.T) {
	if err := cusf.CompileSchema(cusf.Schema); err != nil {
		t.Fatalf("Schema: %v", err)
	}
	tests := []struct {
		name string
		edit func(root map[string]any)
		want string
	}{
		{"unsupported keyword", func(r map[string]any) { prop(r, "message", "content")["maxLength"] = json.Number("5") },
			`at #/$defs/message/properties/content: keyword "maxLength" is not supported`},
		{"additionalProperties", func(r map[string]any) { def(r, "usage")["additionalProperties"] = false },
			`at #/$defs/usage: keyword "additionalProperties" is not supported`},
		{"in a definition no $ref reaches", func(r map[string]any) { defs(r)["unused"] = map[string]any{"oneOf": []any{}} },
			`at #/$defs/unused: keyword "oneOf" is not supported`},
		{"$ref that does not resolve", func(r map[string]any) { prop(r, "message", "timestamp")["$ref"] = "#/$defs/time" },
			`at #/$defs/message/properties/timestamp: $ref "#/$defs/time" does not resolve`},
		{"$ref to another document", func(r map[string]any) { prop(r, "message", "timestamp")["$ref"] = "other.json#/$defs/timestamp" },
			`$ref "other.json#/$defs/timestamp" is not #/$defs/<name>`},
		{"another format", func(r map[string]any) { prop(r, "message", "content")["format"] = "email" },
			`format "email" is not supported`},
		{"another draft", func(r map[string]any) { r["$schema"] = "http://json-schema.org/draft-07/schema#" },
			`$schema is not https://json-schema.org/draft/2020-12/schema`},
		{"nested $id", func(r map[string]any) { def(r, "usage")["$id"] = "usage.json" },
			`at #/$defs/usage: $id is supported only at the root`},
		{"boolean schema", func(r map[string]any) { def(r, "message")["properties"].(map[string]any)["extra"] = true },
			`at #/$defs/message/properties/extra: a schema is not an object`},
		{"bad pattern", func(r map[string]any) { prop(r, "message", "content")["pattern"] = "(" },
			`at #/$defs/message/properties/content: pattern: error parsing regexp`},
		{"bad type", func(r map[string]any) { prop(r, "message", "content")["type"] = "text" },
			`type is not a type name or a list of them`},
		{"$ref cycle", func(r map[string]any) {
			defs(r)["a"] = map[string]any{"$ref": "#/$defs/b"}
			defs(r)["b"] = map[string]any{"allOf": []any{map[string]any{"$ref": "#/$defs/a"}}}
		},
			`at #/$defs/a: a $ref cycle`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := decode(t, string(cusf.Schema))
			tt.edit(root)
			data, err := json.Marshal(root)
			if err != nil {
				t.Fatal(err)
			}
			err = cusf.CompileSchema(data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error with %q", err, tt.want)
			}
		})
	}
	// A recursive schema that goes into the value is fine.
	root := decode(t, string(cusf.Schema))
	prop(root, "tool_use", "tool_input")["properties"] = map[string]any{"next": map[string]any{"$ref": "#/$defs/tool_use"}}
	data, _ := json.Marshal(root)
	if err := cusf.CompileSchema(data); err != nil {
		t.Errorf("recursive schema: %v", err)
	}
}

func defs(root map[string]any) map[string]any { return root["$defs"].(map[string]any) }

func def(root map[string]any, name string) map[string]any { return defs(root)[name].(map[string]any) }

func prop(root map[string]any, name, field string) map[string]any {
	return def(root, name)["properties"].(map[string]any)[field].(map[string]any)
}
