package modelstub

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/session"
)

// argAliases names the argument keys different tools use for the same
// universal argument, most common first.
var argAliases = map[string][]string{
	"command": {"command", "cmd"},
	"path":    {"file_path", "filePath", "absolute_path", "path", "notebook_path", "dir_path", "directory"},
	"content": {"content", "contents", "text"},
	"old":     {"old_string", "oldString", "old_str", "old"},
	"new":     {"new_string", "newString", "new_str", "new"},
	"pattern": {"pattern", "regex", "query"},
	"url":     {"url", "uri"},
	"query":   {"query", "q"},
}

// schema is the part of a tool's JSON Schema the stub reads.
type schema struct {
	Properties map[string]struct {
		Type json.RawMessage `json:"type"`
	} `json:"properties"`
	Required             []string        `json:"required"`
	AdditionalProperties json.RawMessage `json:"additionalProperties"`
}

// closed reports whether the schema rejects properties it does not list.
func (s schema) closed() bool {
	return len(s.Properties) > 0 && string(s.AdditionalProperties) == "false"
}

func (s schema) typeOf(prop string) string {
	p, ok := s.Properties[prop]
	if !ok {
		return ""
	}
	var t string
	if json.Unmarshal(p.Type, &t) == nil {
		return strings.ToLower(t)
	}
	return ""
}

// resolveTool turns a scripted tool use into a call of a tool the request
// declared, with arguments in that tool's schema. It returns a warning when
// it had to guess.
func resolveTool(u ToolUse, declared []Tool, names func(session.Tool) []string, native nativeCall) (call, string) {
	if u.Name != "" {
		for _, t := range declared {
			if t.Name == u.Name {
				return buildCall(t, u.Args), ""
			}
		}
	}
	if native != nil && u.Name == "" {
		if c, ok := nativeFits(u, declared, native); ok {
			return c, ""
		}
	}
	if t, ok := findTool(u.Tool, declared, names); ok {
		return buildCall(t, u.Args), ""
	}
	// A CLI without a file-read tool (Codex) reads through its shell.
	if u.Tool == session.ToolRead {
		if t, ok := findTool(session.ToolBash, declared, names); ok {
			path, _ := firstString(u.Args, argAliases["path"]...)
			return buildCall(t, map[string]any{"command": "cat " + safetext.Quote(path)}), ""
		}
	}
	name := u.Name
	if name == "" {
		name = string(u.Tool)
	}
	args, _ := json.Marshal(u.Args)
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	return call{name: name, args: args}, fmt.Sprintf("no declared tool for %q (declared: %s); called %q as is", u.Tool, toolNames(declared), name)
}

func findTool(u session.Tool, declared []Tool, names func(session.Tool) []string) (Tool, bool) {
	var candidates []string
	if names != nil {
		candidates = names(u)
	}
	candidates = append(candidates, string(u))
	for _, c := range candidates {
		for _, t := range declared {
			if t.Name == c {
				return t, true
			}
		}
	}
	for _, c := range candidates {
		for _, t := range declared {
			if strings.EqualFold(t.Name, c) {
				return t, true
			}
		}
	}
	// Last, the shortest declared name containing the universal one
	// (read_file for read).
	var best Tool
	for _, t := range declared {
		if strings.Contains(strings.ToLower(t.Name), string(u)) && (best.Name == "" || len(t.Name) < len(best.Name)) {
			best = t
		}
	}
	return best, best.Name != ""
}

func toolNames(ts []Tool) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// buildCall maps arguments onto the tool's schema: keys the schema has are
// kept, universal keys and other CLIs' names for them are renamed to the
// schema's, and keys a closed schema (additionalProperties: false) would
// reject are dropped.
func buildCall(t Tool, args map[string]any) call {
	c := call{name: t.Name}
	var sch schema
	_ = json.Unmarshal(t.Params, &sch)
	out := map[string]any{}
	for k, v := range args {
		key := mapArg(k, sch)
		if sch.closed() {
			if _, ok := sch.Properties[key]; !ok {
				continue
			}
		}
		if sch.typeOf(key) == "array" {
			if s, ok := v.(string); ok && key == "command" {
				v = []string{"bash", "-lc", s} // a shell tool taking argv
			}
		}
		out[key] = v
	}
	// Fill required string arguments the script left out (a
	// description, say), so the CLI accepts the call.
	for _, req := range sch.Required {
		if _, ok := out[req]; !ok && sch.typeOf(req) == "string" {
			out[req] = "stub " + req
		}
	}
	if t.Custom {
		// A freeform tool takes text: the "input" argument, or the only
		// one.
		c.custom = true
		if s, ok := firstString(out, "input", "patch", "command", "content"); ok {
			c.input = s
		} else {
			b, _ := json.Marshal(out)
			c.input = string(b)
		}
		c.args, _ = json.Marshal(map[string]string{"input": c.input})
		return c
	}
	c.args, _ = json.Marshal(out)
	return c
}

// mapArg finds the schema's name for a universal argument key.
func mapArg(k string, sch schema) string {
	if len(sch.Properties) == 0 {
		return k
	}
	if _, ok := sch.Properties[k]; ok {
		return k
	}
	// The universal key's own aliases first, then any list naming k, in
	// a fixed order.
	unis := []string{k}
	for _, uni := range slices.Sorted(maps.Keys(argAliases)) {
		if uni != k && slices.Contains(argAliases[uni], k) {
			unis = append(unis, uni)
		}
	}
	for _, uni := range unis {
		for _, a := range argAliases[uni] {
			if _, ok := sch.Properties[a]; ok {
				return a
			}
		}
	}
	return k
}

func firstString(m map[string]any, keys ...string) (string, bool) {
	for _, k := range keys {
		if s, ok := m[k].(string); ok {
			return s, true
		}
	}
	return "", false
}

// absArgs makes the path arguments of u (universal or native names)
// absolute against dir.
func absArgs(u ToolUse, dir string) ToolUse {
	if dir == "" {
		return u
	}
	var args map[string]any
	for _, k := range argAliases["path"] {
		p, ok := u.Args[k].(string)
		if !ok || p == "" || filepath.IsAbs(p) {
			continue
		}
		if args == nil {
			args = make(map[string]any, len(u.Args))
			for k, v := range u.Args {
				args[k] = v
			}
		}
		args[k] = filepath.Join(dir, p)
	}
	if args != nil {
		u.Args = args
	}
	return u
}

// nativeCall is Options.ToolCall.
type nativeCall func(tool session.Tool, args map[string]any, accept func(name string, input json.RawMessage) bool) (string, json.RawMessage, bool)

// nativeFits asks native for the call, accepting a tool the request
// declared whose schema the input fits.
func nativeFits(u ToolUse, declared []Tool, native nativeCall) (call, bool) {
	byName := map[string]Tool{}
	for _, t := range declared {
		byName[t.Name] = t
	}
	name, in, ok := native(u.Tool, u.Args, func(name string, input json.RawMessage) bool {
		t, found := byName[name]
		if !found {
			return false
		}
		if t.Custom {
			_, ok := customInput(input)
			return ok
		}
		return fitsSchema(t, input)
	})
	if !ok {
		return call{}, false
	}
	if byName[name].Custom {
		text, _ := customInput(in)
		b, _ := json.Marshal(map[string]string{"input": text})
		return call{name: name, args: b, custom: true, input: text}, true
	}
	return call{name: name, args: in}, true
}

// customInput reads a freeform tool's text from {"input": text}.
func customInput(input json.RawMessage) (string, bool) {
	var in struct {
		Input *string `json:"input"`
	}
	if json.Unmarshal(input, &in) != nil || in.Input == nil {
		return "", false
	}
	return *in.Input, true
}

// fitsSchema reports whether input is an object that has the tool's
// required properties and, when the schema is closed or lists properties,
// no others.
func fitsSchema(t Tool, input json.RawMessage) bool {
	var args map[string]json.RawMessage
	if json.Unmarshal(input, &args) != nil {
		return false
	}
	var sch schema
	if json.Unmarshal(t.Params, &sch) != nil || len(sch.Properties) == 0 {
		return true // nothing to check against
	}
	for _, r := range sch.Required {
		if _, ok := args[r]; !ok {
			return false
		}
	}
	for k := range args {
		if _, ok := sch.Properties[k]; !ok {
			return false
		}
	}
	return true
}
