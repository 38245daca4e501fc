package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/stead-dev/stead/adapters/internal/fastjson"
	"github.com/stead-dev/stead/adapters/internal/jsonl"
)

// The functions here read lines the way jsonl.Reader.Decode does (the same
// records, problems and warnings), with a fastjson.Parser first and
// encoding/json only for what the parser fails on. They are the same in
// the claude and codex adapters: adapters/internal packages may not import
// jsonl, and jsonl is not this change's to extend.

// nextLine reads the next non-blank line of r. It returns io.EOF at the
// end and read errors as they are. A line that is not a JSON object comes
// back Skipped with a Problem; any other has Raw, a copy of the line, for
// the caller to walk.
func nextLine(r *jsonl.Reader) (jsonl.Record, error) {
	if !r.Next() {
		if err := r.Err(); err != nil {
			return jsonl.Record{}, err
		}
		return jsonl.Record{}, io.EOF
	}
	rec := jsonl.Record{Line: r.LineNo()}
	line := r.Line()
	if line[0] != '{' {
		rec.Problem, rec.Skipped = "not a JSON object; line skipped", true
		return rec, nil
	}
	rec.Raw = bytes.Clone(line)
	return rec, nil
}

// checked completes a record p walked in full: invalid UTF-8 is a problem.
func checked(p *fastjson.Parser, rec *jsonl.Record) {
	if p.NonASCII() && !utf8.Valid(rec.Raw) {
		rec.Problem = jsonl.AddProblem(rec.Problem, jsonl.InvalidUTF8)
	}
}

// unmarshalLine decodes the record nextLine read into v with encoding/json,
// as jsonl.Reader.Decode does; r must not have moved on. A line that is
// not JSON comes back Skipped, without Raw.
func unmarshalLine(r *jsonl.Reader, rec *jsonl.Record, v any) {
	if err := json.Unmarshal(rec.Raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			rec.Problem, rec.Skipped = "malformed JSON ("+err.Error()+"); line skipped", true
			if r.Partial() {
				rec.Problem, rec.Partial = jsonl.Incomplete(len(rec.Raw), err), true
			}
			rec.Raw = nil
			return
		}
		rec.Problem = fmt.Sprintf("field %q has unexpected type %s; read what could be", te.Field, te.Value)
	}
	if !utf8.Valid(rec.Raw) {
		rec.Problem = jsonl.AddProblem(rec.Problem, jsonl.InvalidUTF8)
	}
}
