package cusf_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stead-dev/stead/cusf"
	"github.com/stead-dev/stead/session"
)

// base is a valid CUSF file written by hand from the standard's examples.
var base = []string{
	`{"_meta":{"format":"cusf","version":"1.0.0","exported_at":"2026-01-28T12:00:00Z","exporter":"coditect-sx/1.0.0"}}`,
	`{"type":"session_start","session_id":"abc","llm_source":"claude","started_at":"2026-01-28T10:00:00Z"}`,
	`{"type":"message","role":"user","content":"hi","timestamp":"2026-01-28T10:01:00Z","parent_id":null,"message_id":"m1"}`,
	`{"type":"message","role":"assistant","content":"ok","timestamp":"2026-01-28T10:01:30Z","parent_id":"m1","message_id":"m2","stop_reason":"tool_use"}`,
	`{"type":"tool_use","tool_name":"Read","tool_input":{"file_path":"/a"},"tool_id":"t1","timestamp":"2026-01-28T10:02:00Z","parent_id":"m2"}`,
	`{"type":"tool_result","tool_id":"t1","result":"x","is_error":false,"timestamp":"2026-01-28T10:02:01Z"}`,
	`{"type":"session_end","session_id":"abc","ended_at":"2026-01-28T12:00:00Z","total_messages":2,"end_reason":"export"}`,
}

// edit returns base with line n (1-based) replaced by the given lines (none
// deletes it).
func edit(n int, with ...string) []string {
	out := append([]string(nil), base[:n-1]...)
	out = append(out, with...)
	return append(out, base[n:]...)
}

func file(lines []string) []byte {
	if len(lines) == 0 {
		return nil
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

func TestValidate(t *testing.T) {
	huge := `{"type":"message","role":"user","content":"` + strings.Repeat("x", 5<<20) +
		`","timestamp":"2026-01-28T10:01:00Z","parent_id":null,"message_id":"m1"}`
	tests := []struct {
		name  string
		lines []string
		rule  string // the first issue's rule, "" for none
		line  int
		grade string
	}{
		{"valid", base, "", 0, "B"},
		{"huge 5 MB line", edit(3, huge), "", 0, "B"},
		{"missing _meta", base[1:], cusf.RuleMetaFirst, 1, "F"},
		{"message before session_start", append([]string{base[0], base[2], base[1]}, base[3:]...), cusf.RuleStartFirst, 2, "F"},
		{"orphan tool_result", edit(6, `{"type":"tool_result","tool_id":"x","result":"x","timestamp":"2026-01-28T10:02:01Z"}`),
			cusf.RuleToolResult, 6, "F"},
		{"mismatched session_end id", edit(7, `{"type":"session_end","session_id":"xyz","ended_at":"2026-01-28T12:00:00Z"}`),
			cusf.RuleEndMatches, 7, "F"},
		{"timestamps backwards", edit(5, `{"type":"tool_use","tool_name":"Read","tool_input":{"file_path":"/a"},"tool_id":"t1","timestamp":"2026-01-28T10:00:30Z","parent_id":"m2"}`),
			cusf.RuleTimestamps, 5, "D"},
		{"malformed JSON line", edit(4, `{"type":"message","role":`), cusf.RuleJSON, 4, "F"},
		{"empty line", edit(4, "", base[3]), cusf.RuleJSON, 4, "D"},
		{"missing required field", edit(3, `{"type":"message","role":"user","timestamp":"2026-01-28T10:01:00Z","message_id":"m1"}`),
			cusf.RuleSchema, 3, "F"},
		{"bad date-time", edit(3, `{"type":"message","role":"user","content":"hi","timestamp":"yesterday","message_id":"m1"}`),
			cusf.RuleSchema, 3, "F"},
		{"bad optional enum", edit(4, `{"type":"message","role":"assistant","content":"ok","timestamp":"2026-01-28T10:01:30Z","message_id":"m2","stop_reason":"done"}`),
			cusf.RuleSchema, 4, "D"},
		{"unknown line type", edit(4, `{"type":"note","timestamp":"2026-01-28T10:01:30Z"}`), cusf.RuleSchema, 4, "F"},
		{"no session_end", base[:6], cusf.RuleEndLast, 6, "F"},
		{"line after session_end", append(append([]string(nil), base...), base[2]), cusf.RuleEndLast, 8, "F"},
		{"second session_start", edit(2, base[1], base[1]), cusf.RuleStartOnce, 3, "F"},
		{"second _meta", edit(2, base[0], base[1]), cusf.RuleMetaFirst, 2, "F"},
		{"empty file", nil, cusf.RuleMetaFirst, 0, "F"},
		{"totals that do not add up", edit(7, `{"type":"session_end","session_id":"abc","ended_at":"2026-01-28T12:00:00Z","total_messages":5,"end_reason":"export"}`),
			cusf.RuleReconstruction, 7, "D"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := validate(t, file(tt.lines), tt.name)
			var issues []cusf.Issue
			for _, c := range []cusf.Check{res.Schema, res.Structure, res.Reconstruction} {
				issues = append(issues, c.Errors...)
			}
			if tt.rule == "" {
				if !res.Pass() || len(issues) > 0 {
					t.Errorf("want no issue, got:\n%s", resultText(res))
				}
			} else {
				found := false
				for _, i := range issues {
					if i.Rule == tt.rule {
						found = true
						if i.Line != tt.line {
							t.Errorf("rule %s on line %d, want line %d: %s", i.Rule, i.Line, tt.line, i)
						}
						break
					}
				}
				if !found {
					t.Errorf("no %s issue:\n%s", tt.rule, resultText(res))
				}
			}
			if res.Grade != tt.grade {
				t.Errorf("grade %s (%d%%), want %s:\n%s", res.Grade, res.Score, tt.grade, resultText(res))
			}
		})
	}
}

func TestIssueText(t *testing.T) {
	res := validate(t, file(edit(6, `{"type":"tool_result","tool_id":"x","timestamp":"2026-01-28T10:02:01Z"}`)), "orphan")
	want := `line 6: rule tool_result-matches-tool_use: tool_result tool_id "x" has no tool_use before it`
	if len(res.Structure.Errors) == 0 || res.Structure.Errors[0].String() != want {
		t.Errorf("got %v, want %s", res.Structure.Errors, want)
	}
	text := resultText(res)
	for _, s := range []string{"✅ Schema validation: PASS\n", "❌ Structural validation: FAIL\n   " + want + "\n", "Reconstruction test: ", "Grade: F ("} {
		if !strings.Contains(text, s) {
			t.Errorf("text lacks %q:\n%s", s, text)
		}
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(res); err != nil || !strings.Contains(buf.String(), `"rule":"tool_result-matches-tool_use"`) {
		t.Errorf("JSON: %v %s", err, buf.String())
	}
}

func TestWriteTextPass(t *testing.T) {
	res := validate(t, export(t, small()), "small")
	want := "✅ Schema validation: PASS\n✅ Structural validation: PASS\n✅ Reconstruction test: PASS\nGrade: A (96%)\n"
	if got := resultText(res); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	res, err := cusf.Validate(bytes.NewReader(export(t, small())), "small", cusf.ValidateOptions{})
	if err != nil || !res.Reconstruction.Skipped || !strings.Contains(resultText(res), "➖ Reconstruction test: SKIPPED") {
		t.Errorf("without Reconstruct: %v\n%s", err, resultText(res))
	}
}

// TestForeignFields checks a file with fields stead has no place for
// (and unknown ones) survives import and re-export.
func TestForeignFields(t *testing.T) {
	lines := []string{
		base[0],
		`{"type":"session_start","session_id":"abc","llm_source":"gpt","llm_model":"gpt-5","started_at":"2026-01-28T10:00:00Z","project_path":"/p","cwd":"/p/sub","machine_id":"m-1","tenant_id":"t-1","user_id":"u-1","x_extra":{"a":1}}`,
		base[2],
		`{"type":"message","role":"assistant","content":"ok","timestamp":"2026-01-28T10:01:30Z","parent_id":"m1","message_id":"m2","model":"gpt-5","usage":{"input":10,"output":5},"stop_reason":"max_tokens"}`,
		`{"type":"tool_use","tool_name":"Bash","tool_id":"t1","timestamp":"2026-01-28T10:02:00Z","parent_id":"m2"}`,
		`{"type":"tool_result","tool_id":"t1","result":"x","is_error":true,"error_message":"boom","timestamp":"2026-01-28T10:02:01Z","truncated":true}`,
		`{"type":"session_end","session_id":"abc","ended_at":"2026-01-28T12:00:00Z","total_messages":2,"total_tokens":{"input":10,"output":5},"end_reason":"user_exit"}`,
	}
	data := file(lines)
	res := validate(t, data, "foreign")
	if !res.Pass() {
		t.Fatalf("validation:\n%s", resultText(res))
	}
	s, warns, err := cusf.Decode(bytes.NewReader(data), "foreign")
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	if s.Source.CLI != session.Universal || s.Project.Path != "/p" || s.Model.Model != "gpt-5" {
		t.Errorf("session: %+v %+v %+v", s.Source, s.Project, s.Model)
	}
	if len(s.Records) < 2 || !strings.Contains(string(s.Records[1].Record), `"x_extra":{"a":1}`) {
		t.Errorf("the session_start line with its unknown field is not kept: %v", s.Records)
	}
	r := s.Timeline[3]
	if r.Type != session.ToolResult || r.Success || r.Error != "boom" || r.Status != session.StatusError {
		t.Errorf("result: %+v", r)
	}
}

func TestDecodeWarnings(t *testing.T) {
	lines := []string{
		base[0], base[1],
		`{"type":"message","role":`,
		`{"type":"note","text":"hello"}`,
		`{"type":"message","role":"robot","content":"beep","timestamp":"2026-01-28T10:01:00Z","message_id":"r"}`,
		`{"type":"message","role":"user","content":5,"timestamp":"2026-01-28T10:01:00Z","message_id":"n"}`,
		base[2], base[6],
	}
	s, warns, err := cusf.Decode(bytes.NewReader(file(lines)), "w.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"w.jsonl:3: ", "w.jsonl:4: ", "w.jsonl:5: ", "w.jsonl:6: "}
	if len(warns) != len(want) {
		t.Fatalf("warnings %v, want %d", warns, len(want))
	}
	for i, w := range warns {
		var le *cusf.LineError
		if !strings.HasPrefix(w.Error(), want[i]) || !errors.As(w, &le) || le.Line != i+3 {
			t.Errorf("warning %d: %v, want prefix %q", i, w, want[i])
		}
	}
	if len(s.Timeline) != 1 || s.Timeline[0].Content != "hi" || len(s.Warnings) != len(want) {
		t.Errorf("timeline %+v, warnings %v", s.Timeline, s.Warnings)
	}
	if _, _, err := cusf.Decode(strings.NewReader(""), "empty"); err == nil {
		t.Error("an empty file decodes with no error")
	}
}

// TestDecodeHugeLine reads a line far longer than a bufio.Scanner allows.
func TestDecodeHugeLine(t *testing.T) {
	content := strings.Repeat("y", 5<<20)
	lines := edit(3, `{"type":"message","role":"user","content":"`+content+`","timestamp":"2026-01-28T10:01:00Z","message_id":"m1"}`)
	s, warns, err := cusf.Decode(bytes.NewReader(file(lines)), "huge")
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	if s.Timeline[0].Content != content {
		t.Errorf("content of %d bytes, want %d", len(s.Timeline[0].Content), len(content))
	}
}
