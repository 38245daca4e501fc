package agenthistory

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"strconv"

	"github.com/stead-dev/stead/session"
)

// lineIndex is what writing a session line keeps of the messages it wrote:
// which message holds each entry id and which tool each call id names,
// and, for the conversation graph, each message's uuid and parent
// message. Messages are added in order, each before it is encoded, and
// nothing else of them is kept, so a line can be written from a stream.
//
// The conversation graph: a message's parent is the message holding the
// entry its first entry follows (its parent_uuid, looked up among every
// entry of the line, the first that has the id). A fork point is a
// message with more than one child, its branches those children in line
// order; the active path runs from the root to the last message. An entry
// that follows an entry of its own message, or one the line does not
// hold, starts no edge.
//
// Ids are kept as 64-bit hashes (seeded per index), and uuids packed in
// an arena, a canonical UUID in 16 bytes: about 40 bytes per message in
// all, whatever the entries hold. Two ids of one line with the same hash
// (a chance of about n²/2⁶⁵ for n ids) would be taken for one.
type lineIndex struct {
	seed maphash.Seed

	// An open-addressing table of the line's entry ids: keys[i] is an
	// id's hash (0 for a free slot), msg[i] the message of its first
	// entry, tool[i] the first call with that id's tool name, as
	// index+1 in names (0: none; toolMore: in more).
	keys  []uint64
	msg   []uint32
	tool  []uint16
	used  int
	names []string
	named map[string]int
	more  map[uint64]int

	// graph is false for an index kept only for tool names.
	graph  bool
	n      int     // messages added
	linked bool    // some message has a parent_uuid
	parent []int32 // each message's parent message, or -1
	// waiting holds the messages whose parent_uuid is an id not yet seen.
	waiting map[uint64][]int32
	uuids   arena
}

const toolMore = 1<<16 - 1

func newLineIndex(graph bool) *lineIndex {
	return &lineIndex{seed: maphash.MakeSeed(), graph: graph}
}

func (x *lineIndex) hash(id string) uint64 {
	h := maphash.String(x.seed, id)
	if h == 0 {
		h = 1
	}
	return h
}

// slot returns where h is in the table, or the free slot where it goes.
func (x *lineIndex) slot(h uint64) (int, bool) {
	n := len(x.keys)
	i, _ := bits.Mul64(h, uint64(n))
	for j := int(i); ; {
		switch x.keys[j] {
		case h:
			return j, true
		case 0:
			return j, false
		}
		if j++; j == n {
			j = 0
		}
	}
}

// lookup returns the slot of id, or -1.
func (x *lineIndex) lookup(id string) int {
	if id == "" || x.used == 0 {
		return -1
	}
	if i, ok := x.slot(x.hash(id)); ok {
		return i
	}
	return -1
}

// insert returns id's slot, adding id for message m when it is new.
func (x *lineIndex) insert(h uint64, m int) (int, bool) {
	if (x.used+1)*20 > len(x.keys)*17 { // at most 85% full
		x.grow()
	}
	i, ok := x.slot(h)
	if !ok {
		x.keys[i], x.msg[i], x.used = h, uint32(m), x.used+1
	}
	return i, !ok
}

// grow makes the table a quarter larger: its size follows the number of
// ids more closely than doubling would.
func (x *lineIndex) grow() {
	keys, msg, tool := x.keys, x.msg, x.tool
	n := max(1024, len(keys)+len(keys)/4)
	x.keys, x.msg, x.tool = make([]uint64, n), make([]uint32, n), make([]uint16, n)
	for k, h := range keys {
		if h != 0 {
			i, _ := x.slot(h)
			x.keys[i], x.msg[i], x.tool[i] = h, msg[k], tool[k]
		}
	}
}

// add indexes the entries of the next message, es, before it is encoded.
func (x *lineIndex) add(es []session.Entry) {
	m := x.n
	x.n++
	if len(x.keys) == 0 {
		x.grow()
	}
	for k := range es {
		e := &es[k]
		if e.ID == "" {
			continue
		}
		h := x.hash(e.ID)
		i, isNew := x.insert(h, m)
		if e.Type == session.ToolCall && x.tool[i] == 0 {
			x.setTool(i, h, toolName(e))
		}
		if isNew && len(x.waiting) > 0 {
			if ws, ok := x.waiting[h]; ok {
				for _, w := range ws {
					if int(w) != m {
						x.parent[w] = int32(m)
					}
				}
				delete(x.waiting, h)
			}
		}
	}
	if !x.graph {
		return
	}
	x.uuids.add(m, es[0].ID)
	x.parent = append(x.parent, -1)
	if p := es[0].ParentID; p != "" {
		x.linked = true
		h := x.hash(p)
		if i, ok := x.slot(h); ok { // the table holds es
			if pm := int(x.msg[i]); pm != m {
				x.parent[m] = int32(pm)
			}
		} else {
			if x.waiting == nil {
				x.waiting = map[uint64][]int32{}
			}
			x.waiting[h] = append(x.waiting[h], int32(m))
		}
	}
}

func (x *lineIndex) setTool(i int, h uint64, name *string) {
	k, ok := x.named[*name]
	if !ok {
		if x.named == nil {
			x.named = map[string]int{}
		}
		k = len(x.names)
		x.names = append(x.names, *name)
		x.named[*name] = k
	}
	if k+1 < toolMore {
		x.tool[i] = uint16(k + 1)
		return
	}
	x.tool[i] = toolMore
	if x.more == nil {
		x.more = map[uint64]int{}
	}
	x.more[h] = k
}

// toolName is the tool_name of a result of call id: the tool of the first
// call with that id in this or an earlier message, or nil.
func (x *lineIndex) toolName(id string) *string {
	i := x.lookup(id)
	if i < 0 || x.tool[i] == 0 {
		return nil
	}
	k := int(x.tool[i]) - 1
	if x.tool[i] == toolMore {
		k = x.more[x.keys[i]]
	}
	return &x.names[k]
}

// graphOut is where writeGraph writes: a bufio.Writer or a bytes.Buffer.
type graphOut interface {
	Write([]byte) (int, error)
	WriteString(string) (int, error)
	WriteByte(byte) error
}

// writeGraph writes `,"graph":` and the conversation graph of the
// messages added, and reports whether it wrote anything: a linear
// session has no graph. It drops the id table, so it comes last. enc
// encodes the uuids as JSON strings.
func (x *lineIndex) writeGraph(out graphOut, prefix string, enc func(any) ([]byte, error)) (bool, error) {
	n := x.n
	if n < 3 || !x.linked {
		return false, nil // a fork needs a parent and two children
	}
	x.keys, x.msg, x.tool, x.more, x.waiting = nil, nil, nil, nil, nil
	parent := x.parent
	// next[m] is, for a fork, where its branches end in kids, and -1 for
	// any other message.
	next := make([]int32, n)
	for _, p := range parent {
		if p >= 0 {
			next[p]++
		}
	}
	total := int32(0)
	for m, c := range next {
		if c > 1 {
			next[m] = total
			total += c
		} else {
			next[m] = -1
		}
	}
	if total == 0 {
		return false, nil
	}
	kids := make([]int32, total)
	for m, p := range parent {
		if p >= 0 && next[p] >= 0 {
			kids[next[p]] = int32(m)
			next[p]++
		}
	}
	var id []byte
	str := func(m int) error {
		id = x.uuids.get(m, id[:0])
		b, err := enc(string(id))
		if err != nil {
			return err
		}
		out.Write(b)
		return nil
	}
	num := make([]byte, 0, 20)
	obj := func(m int) error {
		out.WriteString(`{"uuid":`)
		if err := str(m); err != nil {
			return err
		}
		out.WriteString(`,"index":`)
		out.Write(strconv.AppendInt(num[:0], int64(m)+1, 10))
		return nil
	}
	out.WriteString(prefix)
	out.WriteString(`{"is_linear":false,"fork_points":[`)
	from, first := int32(0), true
	for m, to := range next {
		if to < 0 {
			continue
		}
		if !first {
			out.WriteByte(',')
		}
		first = false
		if err := obj(m); err != nil {
			return true, err
		}
		out.WriteString(`,"branches":[`)
		for k, c := range kids[from:to] {
			if k > 0 {
				out.WriteByte(',')
			}
			if err := obj(int(c)); err != nil {
				return true, err
			}
			out.WriteByte('}')
		}
		out.WriteString("]}")
		from = to
	}
	next, kids = nil, nil
	// The active path, walked up from the last message, then written
	// root first.
	seen := make([]uint64, (n+63)/64)
	var path []int32
	for m := n - 1; m >= 0 && seen[m/64]&(1<<(m%64)) == 0; m = int(parent[m]) {
		seen[m/64] |= 1 << (m % 64)
		path = append(path, int32(m))
	}
	out.WriteString(`],"active_path":[`)
	for k := len(path) - 1; k >= 0; k-- {
		if k < len(path)-1 {
			out.WriteByte(',')
		}
		if err := str(int(path[k])); err != nil {
			return true, err
		}
	}
	out.WriteString("]}")
	return true, nil
}

// arena keeps the uuids of a line's messages, in 64 KB chunks: each a
// uvarint header (length×2, +1 for a UUID packed in 16 bytes) and the
// bytes, with the offset of every 16th.
type arena struct {
	chunks [][]byte
	size   int64
	marks  []int64
}

const chunkSize = 64 << 10

// add appends message m's uuid.
func (a *arena) add(m int, id string) {
	if m%16 == 0 {
		a.marks = append(a.marks, a.size)
	}
	var buf [binary.MaxVarintLen64 + 16]byte
	if u, ok := packUUID(id); ok {
		n := binary.PutUvarint(buf[:], 16*2+1)
		copy(buf[n:], u[:])
		arenaWrite(a, buf[:n+16])
		return
	}
	n := binary.PutUvarint(buf[:], uint64(len(id))*2)
	arenaWrite(a, buf[:n])
	arenaWrite(a, id)
}

func arenaWrite[T string | []byte](a *arena, b T) {
	for len(b) > 0 {
		if len(a.chunks) == 0 || len(a.chunks[len(a.chunks)-1]) == chunkSize {
			a.chunks = append(a.chunks, make([]byte, 0, chunkSize))
		}
		c := &a.chunks[len(a.chunks)-1]
		k := copy((*c)[len(*c):chunkSize], b)
		*c = (*c)[:len(*c)+k]
		b = b[k:]
		a.size += int64(k)
	}
}

func (a *arena) byteAt(off int64) byte { return a.chunks[off/chunkSize][off%chunkSize] }

// header reads the uvarint at off and returns it and the offset after it.
func (a *arena) header(off int64) (uint64, int64) {
	var v uint64
	for s := 0; ; s += 7 {
		c := a.byteAt(off)
		off++
		v |= uint64(c&0x7f) << s
		if c < 0x80 {
			return v, off
		}
	}
}

// get appends message m's uuid to b.
func (a *arena) get(m int, b []byte) []byte {
	off := a.marks[m/16]
	for k := 0; k < m%16; k++ {
		h, at := a.header(off)
		off = at + int64(h/2)
	}
	h, off := a.header(off)
	start := len(b)
	for k := int64(0); k < int64(h/2); k++ {
		b = append(b, a.byteAt(off+k))
	}
	if h%2 == 1 {
		var u [16]byte
		copy(u[:], b[start:])
		b = appendUUID(b[:start], &u)
	}
	return b
}

// packUUID packs a UUID in canonical form (lower-case hex, 8-4-4-4-12).
func packUUID(s string) (u [16]byte, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	k := 0
	for i := 0; i < 36; i += 2 {
		if s[i] == '-' {
			i--
			continue
		}
		hi, ok1 := unhex(s[i])
		lo, ok2 := unhex(s[i+1])
		if !ok1 || !ok2 {
			return u, false
		}
		u[k] = hi<<4 | lo
		k++
	}
	return u, k == 16
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

func appendUUID(b []byte, u *[16]byte) []byte {
	const digits = "0123456789abcdef"
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, digits[c>>4], digits[c&15])
	}
	return b
}
