package web

import (
	"bytes"
	"encoding/json"

	"github.com/stead-dev/stead/internal/safetext"
	"github.com/stead-dev/stead/session"
)

// clipAt is how much of each of an entry's texts a page gets: a tool's
// output of hundreds of megabytes (a log, a minified file, a JSON
// document read whole) sent to the browser froze the page. A text cut is
// said in the entry's "clipped" member (its full length in bytes, by
// field); full=true, for one entry, sends it whole.
const clipAt = 64 << 10

// pageEntry is an entry as the pages get it: its texts clipped unless
// full, and what was cut.
type pageEntry struct {
	*session.Entry
	clipped map[string]int
}

// MarshalJSON writes the universal entry with a "clipped" member when a
// text was cut: {"output": 314572800} (the full lengths, in bytes).
func (p pageEntry) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(p.Entry)
	if err != nil || len(p.clipped) == 0 {
		return b, err
	}
	c, err := json.Marshal(p.clipped)
	if err != nil {
		return nil, err
	}
	// b is an object: its closing brace goes after the member.
	b = append(b[:len(b)-1], `,"clipped":`...)
	b = append(b, c...)
	return append(b, '}'), nil
}

// clipped is e as a page gets it: e itself when full or nothing is over
// clipAt, else a copy with its long texts cut at a character's start.
func clipped(e *session.Entry, full bool) pageEntry {
	if full {
		return pageEntry{Entry: e}
	}
	var c *session.Entry
	var cut map[string]int
	copied := func() {
		if c == nil {
			cp := *e
			c, cut = &cp, make(map[string]int)
		}
	}
	for _, name := range []string{"content", "thinking", "output", "error"} {
		if s := *textOf(e, name); len(s) > clipAt {
			copied()
			cut[name] = len(s)
			*textOf(c, name) = safetext.CutBytes(s, clipAt)
		}
	}
	if len(e.Input) > clipAt {
		if in, ok := clipJSON(e.Input); ok {
			copied()
			cut["input"] = len(e.Input)
			c.Input = in
		}
	}
	if c == nil {
		return pageEntry{Entry: e}
	}
	return pageEntry{Entry: c, clipped: cut}
}

// pageEntries is a page's entries as clipped makes them.
func pageEntries(entries []*session.Entry, full bool) []pageEntry {
	out := make([]pageEntry, len(entries))
	for i, e := range entries {
		out[i] = clipped(e, full)
	}
	return out
}

// textOf is the text of e that clipped names.
func textOf(e *session.Entry, name string) *string {
	switch name {
	case "content":
		return &e.Content
	case "thinking":
		return &e.Thinking
	case "output":
		return &e.Output
	}
	return &e.Error
}

// clipJSON cuts each string of a tool's input over clipAt (a file written
// whole, a patch): the input stays the JSON the page reads (a command, a
// path), with the long values cut. It reports false for input that is
// not JSON, which is sent as it is.
func clipJSON(raw json.RawMessage) (json.RawMessage, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return raw, false
	}
	v = clipValue(v)
	b, err := json.Marshal(v)
	if err != nil {
		return raw, false
	}
	return b, true
}

func clipValue(v any) any {
	switch t := v.(type) {
	case string:
		return safetext.CutBytes(t, clipAt)
	case []any:
		for i := range t {
			t[i] = clipValue(t[i])
		}
	case map[string]any:
		for k := range t {
			t[k] = clipValue(t[k])
		}
	}
	return v
}
