package session

import (
	"encoding/binary"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ReadOptions change how a Builder keeps what it folds, for a session too
// large to hold: read once for its outline, then again, entry by entry,
// for its content (see Outline).
type ReadOptions struct {
	// Outline, when set, takes the timeline: the Builder folds each entry
	// into it instead of keeping it, and the session it returns has no
	// entries (its metadata, totals and links are the same).
	Outline *Outline
	// Records, when set, is handed each native record that produced no
	// entry, in file order, instead of the session's Records keeping it.
	Records func(Record)
	// Limit, when above zero, is how many bytes of the session's file are
	// read, so that a second read of a file still being written sees the
	// same records.
	Limit int64
}

// Outline is the timeline of a session folded for a second read: for each
// entry, only what a Builder decides about it beyond what its decoder
// yields. That is its id when the Builder renamed it, its tool status
// (after updates and pairing), its usage, its model and subagent when an
// update set them, and a check of which entry it was. A second read of the
// same file yields the same entries, which Complete turns, one at a time,
// into the entries the Builder would have kept.
//
// It costs about 50 bytes an entry: an index of the entries' ids by
// 96-bit hash (to find repeated ids and apply updates), 8 bytes of type,
// status and check, and the usage of each model response; a dozen more
// for an entry whose id repeats an earlier one. Nothing grows with what
// an entry says. Entries are counted in 32 bits: a session file
// would need over 2³¹ entries, a hundred gigabytes, to overflow it.
type Outline struct {
	seed    [2]maphash.Seed
	index   map[idHash]int32
	entries []outlined
	types   codes[EntryType]
	status  codes[ToolStatus]
	usage   []Usage          // the usage entries came with, in order
	updated map[int32]Usage  // usage an update set
	renamed map[int32]uint32 // n of a final id that is the decoder's + "#n"
	ids     map[int32]string // other final ids that are not the decoder's
	models  map[int32]string // models an update set
	agents  map[int32]*Link  // final subagent links
	pairs   [][2]int32       // a tool result and the earlier call it answers
	sum     summary          // times and model, folded as entries come
	modelAt int              // the entry sum.model came from
	next    int              // the entry Complete completes next
	nextUse int              // its usage, when it came with one
	keepIDs bool             // KeepIDs was called
	kept    []string         // the final ids, when keepIDs
}

// idHash is an entry id's hash: 96 bits, so that two ids of one session
// sharing one is out of reach (about 10⁻¹⁵ for ten million entries), in 16
// bytes an entry with its place.
type idHash [3]uint32

// outlined is one entry of an Outline.
type outlined struct {
	check       uint32 // hash of the decoder's id and the entry's time
	typ, status uint8  // codes (see codes)
	flags       uint8
}

// flags of an outlined entry.
const (
	copied    uint8 = 1 << iota // Origin is set: usage is not counted
	succeeded                   // Success is set
	hasUsage                    // it came with usage, kept in usage
	usageSet                    // an update set its usage, kept in updated
)

// NewOutline returns an empty Outline, for ReadOptions.
func NewOutline() *Outline {
	return &Outline{
		seed:    [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		index:   make(map[idHash]int32),
		updated: make(map[int32]Usage),
		renamed: make(map[int32]uint32),
		ids:     make(map[int32]string),
		models:  make(map[int32]string),
		agents:  make(map[int32]*Link),
		modelAt: -1,
		// The codes finish sets come first: they always have one.
		types:  codes[EntryType]{list: []EntryType{ToolCall, ToolResult}},
		status: codes[ToolStatus]{list: []ToolStatus{StatusOK, StatusError, StatusPending}},
	}
}

// KeepIDs makes the Outline keep the final id of each entry it outlines,
// for a reader that names entries by ids it shortens (see Abbrev) and so
// needs all of them before the second read. It costs an id's bytes an
// entry, until IDs hands them over.
func (o *Outline) KeepIDs() { o.keepIDs = true }

// IDs returns the final ids of the entries outlined, in order, when
// KeepIDs was called before they were; the Outline forgets them.
func (o *Outline) IDs() []string {
	ids := o.kept
	o.kept = nil
	return ids
}

// Len is the number of entries outlined.
func (o *Outline) Len() int { return len(o.entries) }

// Type is the type of entry i as it was first read.
func (o *Outline) Type(i int) EntryType { return o.types.value(i, o.entries[i].typ) }

// Complete makes e, the next entry its decoder yields on a second read
// (the first entry, then each one after it), the entry a Builder would
// have kept: its id, status, usage, model and subagent as the whole
// session settled them. It reports false, leaving e as it was, when e is
// not the entry first read there (its type, id or time differ: the file
// changed) or every entry was completed.
func (o *Outline) Complete(e *Entry) bool {
	i := o.next
	if i >= len(o.entries) {
		return false
	}
	x := o.entries[i]
	if o.types.value(i, x.typ) != e.Type || o.check(e) != x.check {
		return false
	}
	o.next++
	k := int32(i)
	if n, ok := o.renamed[k]; ok {
		e.ID += "#" + strconv.FormatUint(uint64(n), 10)
	} else if id, ok := o.ids[k]; ok {
		e.ID = id
	}
	if e.Type == ToolCall && len(e.Input) == 0 {
		e.Input = emptyObject
	}
	if st := o.status.value(i, x.status); st != e.Status {
		e.SetStatus(st)
	}
	e.Usage = nil
	if x.flags&hasUsage != 0 {
		u := o.usage[o.nextUse]
		e.Usage = &u
		o.nextUse++
	}
	if x.flags&usageSet != 0 {
		u := o.updated[k]
		e.Usage = &u
	}
	if m, ok := o.models[k]; ok {
		e.Model = m
	}
	e.Subagent = o.agents[k]
	return true
}

func (o *Outline) hash(id string) idHash {
	a, b := maphash.String(o.seed[0], id), maphash.String(o.seed[1], id)
	return idHash{uint32(a), uint32(a >> 32), uint32(b)}
}

func (o *Outline) has(id string) bool {
	_, ok := o.index[o.hash(id)]
	return ok
}

func (o *Outline) check(e *Entry) uint32 {
	var b [12]byte
	binary.LittleEndian.PutUint64(b[:], uint64(e.Timestamp.Unix()))
	binary.LittleEndian.PutUint32(b[8:], uint32(e.Timestamp.Nanosecond()))
	var h maphash.Hash
	h.SetSeed(o.seed[0])
	h.WriteString(e.ID)
	h.Write(b[:])
	return uint32(h.Sum64())
}

// add outlines e, a new entry with its final id: decoded is the id its
// decoder gave it.
func (o *Outline) add(e *Entry, decoded string) {
	i := len(o.entries)
	k := int32(i)
	if e.ID != decoded {
		o.rename(k, e.ID, decoded)
	}
	raw := *e
	raw.ID = decoded
	x := outlined{check: o.check(&raw), typ: o.types.add(i, e.Type), status: o.status.add(i, e.Status)}
	if e.Origin != "" {
		x.flags |= copied
	}
	if e.Success {
		x.flags |= succeeded
	}
	if e.Type == ToolResult {
		if j, ok := o.index[o.hash(e.CallID)]; ok && o.Type(int(j)) == ToolCall {
			o.pairs = append(o.pairs, [2]int32{k, j})
		}
	}
	if e.Usage != nil {
		x.flags |= hasUsage
		o.usage = append(o.usage, *e.Usage)
	}
	o.index[o.hash(e.ID)] = k
	o.entries = append(o.entries, x)
	if o.keepIDs {
		// A copy: the id may be part of a record's bytes.
		o.kept = append(o.kept, strings.Clone(e.ID))
	}
	if e.Subagent != nil {
		o.agents[k] = e.Subagent
	}
	o.sum.time(e.Timestamp)
	if e.Model != "" {
		o.sum.model, o.modelAt = e.Model, i
	}
}

// rename keeps id, the final id of entry k, which its decoder named
// decoded: a repeated id, renamed decoded#n, as n alone.
func (o *Outline) rename(k int32, id, decoded string) {
	if n, ok := strings.CutPrefix(id, decoded+"#"); ok && decoded != "" {
		if v, err := strconv.ParseUint(n, 10, 32); err == nil && strconv.FormatUint(v, 10) == n {
			o.renamed[k] = uint32(v)
			return
		}
	}
	o.ids[k] = id
}

func (o *Outline) update(u Update) {
	k, ok := o.index[o.hash(u.EntryID)]
	if !ok {
		return
	}
	i := int(k)
	if u.Status != "" {
		o.entries[i].status = o.status.add(i, u.Status)
	}
	if u.Usage != nil {
		o.entries[i].flags |= usageSet
		o.updated[k] = *u.Usage
	}
	if u.Model != "" {
		o.models[k] = u.Model
		if i >= o.modelAt {
			o.sum.model, o.modelAt = u.Model, i
		}
	}
	if u.Subagent != nil {
		o.agents[k] = u.Subagent
	}
}

// finish pairs tool calls with their results as Pair does, and folds the
// session's totals into s as Builder.Session does.
func (o *Outline) finish(s *Session) {
	call, result := o.types.code(ToolCall), o.types.code(ToolResult)
	ok, failed, pending := o.status.code(StatusOK), o.status.code(StatusError), o.status.code(StatusPending)
	for i := range o.entries {
		if x := &o.entries[i]; x.typ == result && o.status.value(i, x.status) == "" {
			x.status = failed
			if x.flags&succeeded != 0 {
				x.status = ok
			}
		}
	}
	for _, p := range o.pairs {
		r, c := int(p[0]), int(p[1])
		if o.status.value(c, o.entries[c].status) == "" {
			o.entries[c].status = o.status.add(c, o.status.value(r, o.entries[r].status))
		}
	}
	for i := range o.entries {
		if x := &o.entries[i]; x.typ == call && o.status.value(i, x.status) == "" {
			x.status = pending
		}
	}
	next := 0
	for i, x := range o.entries {
		var u *Usage
		if x.flags&hasUsage != 0 {
			u = &o.usage[next]
			next++
		}
		if x.flags&usageSet != 0 {
			v := o.updated[int32(i)]
			u = &v
		}
		if u != nil && x.flags&copied == 0 {
			o.sum.tokens.Add(*u)
			o.sum.counted = true
		}
	}
	agents := make([]int32, 0, len(o.agents))
	for i := range o.agents {
		agents = append(agents, i)
	}
	slices.Sort(agents)
	for _, i := range agents {
		if o.entries[i].typ == call {
			o.sum.subagents = addLink(o.sum.subagents, *o.agents[i])
		}
	}
	o.sum.fold(s)
}

// codes gives each distinct value of a string type a one-byte code: 0 for
// "", then the values in the order they come. Past 254 of them (no CLI
// has that many entry types or statuses) an entry's value is kept aside
// under code 255.
type codes[T ~string] struct {
	list []T
	odd  map[int]T
}

const oddCode = 255

// code returns the code of v, one of the values listed first.
func (c *codes[T]) code(v T) uint8 { return uint8(slices.Index(c.list, v) + 1) }

// add returns the code of v, entry i's value.
func (c *codes[T]) add(i int, v T) uint8 {
	if v == "" {
		return 0
	}
	if k := slices.Index(c.list, v); k >= 0 {
		return uint8(k + 1)
	}
	if len(c.list) < oddCode-1 {
		c.list = append(c.list, v)
		return uint8(len(c.list))
	}
	if c.odd == nil {
		c.odd = make(map[int]T)
	}
	c.odd[i] = v
	return oddCode
}

// value is the value of code k, entry i's.
func (c *codes[T]) value(i int, k uint8) T {
	switch {
	case k == 0:
		return ""
	case k == oddCode:
		return c.odd[i]
	}
	return c.list[k-1]
}

// summary is what Builder.Session derives from a session's entries.
type summary struct {
	first, last time.Time
	tokens      Usage
	counted     bool
	model       string // the last entry's model
	subagents   []Link
}

func (m *summary) time(t time.Time) { widen(&m.first, &m.last, t) }

// fold sets s's times, totals, main model and subagents from m.
func (m *summary) fold(s *Session) {
	if !m.first.IsZero() && (s.Metadata.Created.IsZero() || m.first.Before(s.Metadata.Created)) {
		s.Metadata.Created = m.first
	}
	if m.last.After(s.Metadata.LastModified) {
		s.Metadata.LastModified = m.last
	}
	if s.Metadata.LastModified.IsZero() {
		s.Metadata.LastModified = s.Metadata.Created
	}
	if m.counted {
		t := m.tokens
		s.Metadata.Tokens = &t
	}
	if s.Model.Model == "" {
		s.Model.Model = m.model
	}
	if s.Model.Provider == "" {
		s.Model.Provider = ProviderOf(s.Model.Model)
	}
	for _, l := range m.subagents {
		s.Subagents = addLink(s.Subagents, l)
	}
}
