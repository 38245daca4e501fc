package index

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/stead-dev/stead/session"
)

// A session's summary is kept in the sessions table's summary column,
// for stats (the listing's fields have columns of their own). stats
// from the index decodes every session's, so the encoding is binary:
// the JSON earlier stead wrote, 38 MB for the 10,000-session corpus, was
// half of what `stead session stats` cost (encoding/json, 270 of 510 ms).
//
// The binary form starts with summaryBinary, a byte no JSON text starts
// with; then the fields of session.Summary in order (encodeSummary says
// how each is written). A summary in JSON, which indexes written before
// it hold, still reads.
const summaryBinary = 1

// storedSummary is a session's summary as the index kept it in JSON:
// with what its JSON leaves out (usage buckets and responses, its own and
// those of the history it copied or borrowed), which stats counts.
type storedSummary struct {
	session.Summary
	Buckets         []session.UsageBucket            `json:"buckets,omitempty"`
	Responses       []session.ResponseUsage          `json:"responses,omitempty"`
	AdoptedBuckets  []session.UsageBucket            `json:"adoptedBuckets,omitempty"`
	BorrowedBuckets map[string][]session.UsageBucket `json:"borrowedBuckets,omitempty"`
}

// encodeSummary is sum as the index keeps it. Integers are varints,
// strings and lists their length then their items, a map its length then
// its pairs by key, a time whether it is zero then its seconds,
// nanoseconds and zone offset, a pointer whether it is nil then what it
// points at. Every field of the summary and the types it holds is
// written (TestSummaryCodecKeepsEveryField fails on one left out).
func encodeSummary(sum session.Summary) []byte {
	e := summaryEncoder{b: make([]byte, 0, 256)}
	e.b = append(e.b, summaryBinary)
	e.str(sum.CLI)
	e.str(sum.ID)
	e.str(sum.Path)
	e.int(sum.Size)
	e.str(sum.Project)
	e.str(sum.Title)
	e.time(sum.Start)
	e.time(sum.End)
	e.int(int64(sum.Messages))
	e.int(int64(sum.Turns))
	e.bool(sum.History != nil)
	if h := sum.History; h != nil {
		e.str(h.From)
		e.time(h.Written)
		e.time(h.Start)
		e.time(h.End)
		e.int(int64(h.Messages))
		e.usage(h.Adopted)
		e.models(h.AdoptedModels)
		e.buckets(h.AdoptedBuckets)
	}
	e.bool(sum.Parent != nil)
	if l := sum.Parent; l != nil {
		for _, s := range []string{l.Kind, l.CLI, l.ID, l.Path, l.AgentID, l.CallID, l.EntryID} {
			e.str(s)
		}
	}
	e.usage(sum.Usage)
	e.models(sum.Models)
	e.uint(uint64(len(sum.Borrowed)))
	for _, k := range sortedKeys(sum.Borrowed) {
		b := sum.Borrowed[k]
		e.str(k)
		e.usage(b.Usage)
		e.models(b.Models)
		e.buckets(b.Buckets)
	}
	e.buckets(sum.Buckets)
	e.uint(uint64(len(sum.Responses)))
	for _, r := range sum.Responses {
		e.uint(r.Key)
		e.str(r.Model)
		e.usage(r.Usage)
		e.int(r.Bucket)
	}
	e.usage(sum.LastUsage)
	e.uint(uint64(len(sum.Tools)))
	for _, k := range sortedKeys(sum.Tools) {
		e.str(string(k))
		e.int(int64(sum.Tools[k]))
	}
	e.int(int64(sum.ToolErrors))
	e.uint(uint64(len(sum.Files)))
	for _, f := range sum.Files {
		e.str(f)
	}
	e.int(int64(sum.Skipped))
	e.uint(uint64(len(sum.Warnings)))
	for _, w := range sum.Warnings {
		e.str(w.Path)
		e.int(int64(w.Line))
		e.str(w.Message)
	}
	return e.b
}

// decodeSummary reads what encodeSummary wrote, or a summary in JSON.
func decodeSummary(data []byte) (session.Summary, error) {
	if len(data) > 0 && data[0] == '{' {
		return decodeJSONSummary(data)
	}
	if len(data) == 0 || data[0] != summaryBinary {
		return session.Summary{}, errors.New("not a stored summary")
	}
	d := summaryDecoder{b: data[1:]}
	var sum session.Summary
	sum.CLI = d.name()
	sum.ID = d.str()
	sum.Path = d.str()
	sum.Size = d.int()
	sum.Project = d.str()
	sum.Title = d.str()
	sum.Start = d.time()
	sum.End = d.time()
	sum.Messages = int(d.int())
	sum.Turns = int(d.int())
	if d.bool() {
		h := &session.History{}
		h.From = d.str()
		h.Written = d.time()
		h.Start = d.time()
		h.End = d.time()
		h.Messages = int(d.int())
		h.Adopted = d.usage()
		h.AdoptedModels = d.models()
		h.AdoptedBuckets = d.buckets()
		sum.History = h
	}
	if d.bool() {
		l := &session.Link{}
		for _, s := range []*string{&l.Kind, &l.CLI, &l.ID, &l.Path, &l.AgentID, &l.CallID, &l.EntryID} {
			*s = d.str()
		}
		sum.Parent = l
	}
	sum.Usage = d.usage()
	sum.Models = d.models()
	if n := d.count(2); n > 0 {
		sum.Borrowed = make(map[string]session.BorrowedUsage, n)
		for range n {
			k := d.str()
			var b session.BorrowedUsage
			b.Usage = d.usage()
			b.Models = d.models()
			b.Buckets = d.buckets()
			sum.Borrowed[k] = b
		}
	}
	sum.Buckets = d.buckets()
	if n := d.count(4); n > 0 {
		sum.Responses = make([]session.ResponseUsage, n)
		for i := range sum.Responses {
			r := &sum.Responses[i]
			r.Key = d.uint()
			r.Model = d.name()
			r.Usage = d.usage()
			r.Bucket = d.int()
		}
	}
	sum.LastUsage = d.usage()
	if n := d.count(2); n > 0 {
		sum.Tools = make(map[session.Tool]int, n)
		for range n {
			k := session.Tool(d.name())
			sum.Tools[k] = int(d.int())
		}
	}
	sum.ToolErrors = int(d.int())
	if n := d.count(1); n > 0 {
		sum.Files = make([]string, n)
		for i := range sum.Files {
			sum.Files[i] = d.str()
		}
	}
	sum.Skipped = int(d.int())
	if n := d.count(3); n > 0 {
		sum.Warnings = make([]session.Warning, n)
		for i := range sum.Warnings {
			w := &sum.Warnings[i]
			w.Path = d.str()
			w.Line = int(d.int())
			w.Message = d.str()
		}
	}
	if d.err == nil && len(d.b) > 0 {
		d.err = fmt.Errorf("%d bytes after the summary", len(d.b))
	}
	if d.err != nil {
		return session.Summary{}, fmt.Errorf("a stored summary: %w", d.err)
	}
	return sum, nil
}

// decodeJSONSummary reads a summary in JSON, as stead kept it before
// summaryBinary.
func decodeJSONSummary(data []byte) (session.Summary, error) {
	var st storedSummary
	if err := json.Unmarshal(data, &st); err != nil {
		return session.Summary{}, err
	}
	sum := st.Summary
	sum.Buckets, sum.Responses = st.Buckets, st.Responses
	if sum.History != nil {
		sum.History.AdoptedBuckets = st.AdoptedBuckets
	}
	for origin, b := range st.BorrowedBuckets {
		bu := sum.Borrowed[origin]
		bu.Buckets = b
		sum.Borrowed[origin] = bu
	}
	return sum, nil
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

type summaryEncoder struct{ b []byte }

func (e *summaryEncoder) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *summaryEncoder) int(v int64)   { e.b = binary.AppendVarint(e.b, v) }

func (e *summaryEncoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

func (e *summaryEncoder) str(s string) {
	e.uint(uint64(len(s)))
	e.b = append(e.b, s...)
}

// time writes t as the instant it is and its zone's offset: it reads
// back in a zone of that offset (UTC for none), as from JSON.
func (e *summaryEncoder) time(t time.Time) {
	e.bool(!t.IsZero())
	if t.IsZero() {
		return
	}
	_, off := t.Zone()
	e.int(t.Unix())
	e.uint(uint64(t.Nanosecond()))
	e.int(int64(off))
}

func (e *summaryEncoder) usage(u session.Usage) {
	e.int(u.Input)
	e.int(u.Output)
	e.int(u.CacheRead)
	e.int(u.CacheWrite)
	e.int(u.Reasoning)
}

func (e *summaryEncoder) models(m map[string]session.Usage) {
	e.uint(uint64(len(m)))
	for _, k := range sortedKeys(m) {
		e.str(k)
		e.usage(m[k])
	}
}

func (e *summaryEncoder) buckets(list []session.UsageBucket) {
	e.uint(uint64(len(list)))
	for _, b := range list {
		e.int(b.Start)
		e.str(b.Model)
		e.usage(b.Usage)
		e.int(int64(b.Responses))
		e.int(int64(b.First))
		e.int(int64(b.Last))
	}
}

// summaryDecoder reads what summaryEncoder wrote. Its first error
// sticks; what it reads after one is zero.
type summaryDecoder struct {
	b   []byte
	err error
	// names holds the CLI, model and tool names read, each once: a
	// session's usage buckets and responses name a few models many
	// times.
	names []string
}

var errTruncated = errors.New("truncated")

func (d *summaryDecoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
	d.b = nil
}

func (d *summaryDecoder) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(errTruncated)
		return 0
	}
	d.b = d.b[n:]
	return v
}

// int reads what binary.AppendVarint wrote.
func (d *summaryDecoder) int() int64 { return unzigzag(d.uint()) }

func (d *summaryDecoder) int32() int32 {
	v := d.int()
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail(fmt.Errorf("%d is out of range", v))
		return 0
	}
	return int32(v)
}

func (d *summaryDecoder) bool() bool {
	if len(d.b) == 0 {
		d.fail(errTruncated)
		return false
	}
	v := d.b[0]
	d.b = d.b[1:]
	if v > 1 {
		d.fail(fmt.Errorf("%d is not a boolean", v))
	}
	return v == 1
}

// count reads a length of items of at least min bytes each: no more
// than the bytes left could hold.
func (d *summaryDecoder) count(min int) int {
	n := d.uint()
	if n > uint64(len(d.b)/min) {
		d.fail(errTruncated)
		return 0
	}
	return int(n)
}

func (d *summaryDecoder) bytes() []byte {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.fail(errTruncated)
		return nil
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

func (d *summaryDecoder) str() string { return string(d.bytes()) }

// name is str for a string read many times over (a CLI, model or tool
// name): one copy of each.
func (d *summaryDecoder) name() string {
	b := d.bytes()
	for _, s := range d.names {
		if s == string(b) {
			return s
		}
	}
	s := string(b)
	if len(d.names) < 16 {
		d.names = append(d.names, s)
	}
	return s
}

func (d *summaryDecoder) time() time.Time {
	if !d.bool() {
		return time.Time{}
	}
	sec, nsec, off := d.int(), d.uint(), d.int()
	if nsec >= 1e9 || off < -24*3600 || off > 24*3600 {
		d.fail(fmt.Errorf("not a time: %d.%d%+d", sec, nsec, off))
		return time.Time{}
	}
	t := time.Unix(sec, int64(nsec)).UTC()
	if off != 0 {
		t = t.In(time.FixedZone("", int(off)))
	}
	return t
}

func (d *summaryDecoder) usage() session.Usage {
	return session.Usage{Input: d.int(), Output: d.int(), CacheRead: d.int(), CacheWrite: d.int(), Reasoning: d.int()}
}

func (d *summaryDecoder) models() map[string]session.Usage {
	n := d.count(6)
	if n == 0 {
		return nil
	}
	m := make(map[string]session.Usage, n)
	for range n {
		k := d.name()
		m[k] = d.usage()
	}
	return m
}

func (d *summaryDecoder) buckets() []session.UsageBucket {
	n := d.count(10)
	if n == 0 {
		return nil
	}
	list := make([]session.UsageBucket, n)
	for i := range list {
		b := &list[i]
		b.Start = d.int()
		b.Model = d.name()
		b.Usage = d.usage()
		b.Responses = d.int32()
		b.First = d.int32()
		b.Last = d.int32()
	}
	return list
}
