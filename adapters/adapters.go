package adapters

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/stead-dev/stead/adapters/adapter"
	"github.com/stead-dev/stead/adapters/claude"
	"github.com/stead-dev/stead/adapters/codex"
	"github.com/stead-dev/stead/adapters/gemini"
	"github.com/stead-dev/stead/adapters/kimi"
	"github.com/stead-dev/stead/adapters/opencode"
	"github.com/stead-dev/stead/session"
)

// The types of package adapter, under the names stead has always used for
// them (adapters.Adapter): the registry's callers need not know that the
// CLI packages fill them in from there.
type (
	Adapter = adapter.Adapter
	Toolset = adapter.Toolset
	Reader  = adapter.Reader
	Writer  = adapter.Writer
	Driver  = adapter.Driver
	Decoder = adapter.Decoder
	Encoder = adapter.Encoder
)

// All lists every supported CLI: each is its package's Adapter.
var All = []Adapter{
	claude.Adapter,
	codex.Adapter,
	gemini.Adapter,
	opencode.Adapter,
	kimi.Adapter,
}

// registry is a list of adapters indexed by name.
type registry struct {
	all   []Adapter
	index map[string]int
}

// newRegistry indexes all; a name registered twice panics, as
// database/sql.Register does.
func newRegistry(all []Adapter) *registry {
	r := &registry{all: all, index: make(map[string]int, len(all))}
	for i, a := range all {
		if _, dup := r.index[a.Name]; dup {
			panic(fmt.Sprintf("adapters: %q registered twice", a.Name))
		}
		r.index[a.Name] = i
	}
	return r
}

func (r *registry) lookup(name string) (Adapter, bool) {
	i, ok := r.index[name]
	if !ok {
		return Adapter{}, false
	}
	return r.all[i], true
}

var registered = sync.OnceValue(func() *registry { return newRegistry(All) })

// Lookup returns the adapter for the CLI named name.
func Lookup(name string) (Adapter, bool) { return registered().lookup(name) }

// Names lists the supported CLIs, sorted.
func Names() []string {
	names := make([]string, len(All))
	for i, a := range All {
		names[i] = a.Name
	}
	sort.Strings(names)
	return names
}

// NativeCall writes a universal tool call as the first CLI's native call
// that accept takes (the model stub accepts one the request declared and
// whose schema the input fits).
func NativeCall(tool session.Tool, args map[string]any, accept func(name string, input json.RawMessage) bool) (string, json.RawMessage, bool) {
	return nativeCall(All, tool, args, accept)
}

func nativeCall(all []Adapter, tool session.Tool, args map[string]any, accept func(name string, input json.RawMessage) bool) (string, json.RawMessage, bool) {
	for _, a := range all {
		if a.ToolCall == nil {
			continue
		}
		if name, input, ok := a.ToolCall(tool, args); ok && accept(name, input) {
			return name, input, true
		}
	}
	return "", nil, false
}

// NativeTools returns the names the CLIs give a universal tool, each once:
// first the tools models call for it (Calls), sorted, then every other
// name that maps to it (Tools), sorted. The model stub calls the first one
// a request declared.
func NativeTools(u session.Tool) []string { return nativeTools(All, u) }

func nativeTools(all []Adapter, u session.Tool) []string {
	seen := map[string]bool{}
	var calls, others []string
	for _, a := range all {
		if name, ok := a.Calls[u]; ok && !seen[name] {
			seen[name] = true
			calls = append(calls, name)
		}
	}
	for _, a := range all {
		for name, t := range a.Tools {
			if t == u && !seen[name] {
				seen[name] = true
				others = append(others, name)
			}
		}
	}
	sort.Strings(calls)
	sort.Strings(others)
	return append(calls, others...)
}
