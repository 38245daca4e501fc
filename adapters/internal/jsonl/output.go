package jsonl

import (
	"bytes"
	"encoding/json"
)

// Objects calls fn with each JSON object a CLI printed on its standard
// output, in order, until fn returns false. The output may be a single
// (possibly indented) document or one object per line mixed with plain
// text lines, which are skipped.
func Objects(out []byte, fn func(obj map[string]json.RawMessage) bool) {
	var objs []map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var obj map[string]json.RawMessage
		if err := dec.Decode(&obj); err != nil {
			if dec.More() || len(bytes.TrimSpace(out[dec.InputOffset():])) > 0 {
				objs = nil // not a clean stream of documents: go line by line
				break
			}
			for _, o := range objs {
				if !fn(o) {
					return
				}
			}
			return
		}
		objs = append(objs, obj)
	}
	for line := range bytes.Lines(out) {
		var obj map[string]json.RawMessage
		if json.Unmarshal(line, &obj) == nil && obj != nil && !fn(obj) {
			return
		}
	}
}

// StringField returns obj[key] as a string, or "".
func StringField(obj map[string]json.RawMessage, key string) string {
	var s string
	if raw, ok := obj[key]; ok {
		json.Unmarshal(raw, &s)
	}
	return s
}

// LastDocument decodes the last JSON object in out that starts at the
// beginning of a line, even one spread over several lines (an indented
// document printed after other text). It returns nil when there is none.
func LastDocument(out []byte) map[string]json.RawMessage {
	for end := len(out); end > 0; {
		i := bytes.LastIndex(out[:end], []byte("\n{"))
		start := i + 1
		if i < 0 {
			if !bytes.HasPrefix(out, []byte("{")) {
				return nil
			}
			start = 0
		}
		var obj map[string]json.RawMessage
		if json.NewDecoder(bytes.NewReader(out[start:])).Decode(&obj) == nil {
			return obj
		}
		if i < 0 {
			return nil
		}
		end = i
	}
	return nil
}

// Field descends into nested objects along keys and returns the raw
// value there, or nil.
func Field(obj map[string]json.RawMessage, keys ...string) json.RawMessage {
	var raw json.RawMessage
	for i, k := range keys {
		raw = obj[k]
		if raw == nil || i == len(keys)-1 {
			break
		}
		obj = nil
		if json.Unmarshal(raw, &obj) != nil {
			return nil
		}
	}
	return raw
}

// ErrorMessage returns a readable message from an API error text: the
// text itself, or the "message" inside a JSON error body such as
// {"error":{"message":...}}.
func ErrorMessage(s string) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &obj) != nil {
		return s
	}
	for _, path := range [][]string{{"error", "message"}, {"message"}} {
		var m string
		if json.Unmarshal(Field(obj, path...), &m) == nil && m != "" {
			return m
		}
	}
	return s
}

// LastLine returns the last non-blank line of out, trimmed.
func LastLine(out []byte) string {
	out = bytes.TrimSpace(out)
	if i := bytes.LastIndexByte(out, '\n'); i >= 0 {
		out = out[i+1:]
	}
	return string(bytes.TrimSpace(out))
}

// FirstString returns the string at key in the first object a CLI printed
// (see Objects) that has one, considering only objects whose "type" is typ
// when typ is not empty.
func FirstString(out []byte, typ, key string) (s string) {
	Objects(out, func(obj map[string]json.RawMessage) bool {
		if typ == "" || StringField(obj, "type") == typ {
			s = StringField(obj, key)
		}
		return s == ""
	})
	return s
}

// ReadObject decodes a JSON object with the scanner, at memory speed for
// large strings: strings, numbers (as float64), booleans and nulls are
// read directly, nested objects and arrays with encoding/json. It returns
// false for anything that is not one well-formed object.
func ReadObject(b []byte) (map[string]any, bool) {
	s := NewScanner(nil, 64)
	s.ResetBytes(b)
	if !s.NextLine() || !s.BeginObject() {
		return nil, false
	}
	out := map[string]any{}
	for s.NextKey() {
		k := string(s.Key())
		switch s.Kind() {
		case '"':
			out[k] = s.StringValue()
		case 't', 'f':
			out[k] = s.Bool()
		case 'n':
			s.Skip()
			out[k] = nil
		case '{', '[':
			var v any
			if json.Unmarshal(s.AppendRaw(nil), &v) != nil {
				return nil, false
			}
			out[k] = v
		default:
			var f float64
			if json.Unmarshal(s.AppendRaw(nil), &f) != nil {
				return nil, false
			}
			out[k] = f
		}
	}
	s.Finish()
	return out, !s.Failed()
}
