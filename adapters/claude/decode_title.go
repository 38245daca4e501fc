package claude

import (
	"bytes"
	"hash/maphash"

	"github.com/stead-dev/stead/adapters/internal/jsonl"
)

// sidechain reports whether a record is a side branch of the file's
// conversation: a Task subagent's run written into the main file (Claude
// Code 1.0). A subagent's own file marks every record isSidechain and
// names its agentId; there the records are the conversation.
func sidechain(isSidechain, ownFile bool) bool {
	return isSidechain && !ownFile
}

// commandTitle is the title a slash command gives a session it starts:
// the command and its arguments ("/review auth module"), or "" for a
// command without arguments. Of a record's text only the first TitleMax
// bytes are read, as a summary reads them.
func commandTitle(text []byte) string {
	if len(text) > TitleMax {
		text = text[:TitleMax]
	}
	args := tagText(text, "command-args")
	if len(bytes.TrimSpace(args)) == 0 {
		return ""
	}
	name := bytes.TrimSpace(tagText(text, "command-name"))
	if len(name) > 0 && name[0] != '/' {
		name = append([]byte("/"), name...)
	}
	return jsonl.Title(append(append(name, ' '), args...))
}

// tagText is the text of <tag>...</tag> in b, up to its end when the
// closing tag was cut off.
func tagText(b []byte, tag string) []byte {
	open := []byte("<" + tag + ">")
	i := bytes.Index(b, open)
	if i < 0 {
		return nil
	}
	rest := b[i+len(open):]
	if j := bytes.Index(rest, []byte("</"+tag+">")); j >= 0 {
		rest = rest[:j]
	}
	return append([]byte(nil), rest...)
}

// hasResult reports whether a user record's blocks hold a tool result.
func hasResult(blocks []block) bool {
	for _, b := range blocks {
		if b.Type == "tool_result" {
			return true
		}
	}
	return false
}

// maxRecent bounds how many uuids recentSet remembers, so that a
// summary's memory does not grow with the session.
const maxRecent = 1 << 16

var recentSeed = maphash.MakeSeed()

// recentSet remembers the last maxRecent keys it was shown, by hash.
type recentSet struct {
	set  map[uint64]struct{}
	ring []uint64
	next int
}

// seen reports whether key was shown before, and remembers it.
func (r *recentSet) seen(key []byte) bool {
	h := maphash.Bytes(recentSeed, key)
	if _, ok := r.set[h]; ok {
		return true
	}
	if r.set == nil {
		r.set = make(map[uint64]struct{})
	}
	if len(r.ring) < maxRecent {
		r.ring = append(r.ring, h)
	} else {
		delete(r.set, r.ring[r.next])
		r.ring[r.next] = h
		r.next = (r.next + 1) % maxRecent
	}
	r.set[h] = struct{}{}
	return false
}
