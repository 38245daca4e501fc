package session

import (
	"math"
	"slices"
	"sort"
	"time"
)

// MaxSummaryFiles and MaxSummaryWarnings cap Summary.Files and
// Summary.Warnings so a summary's size never depends on how long a session
// is.
const (
	MaxSummaryFiles    = 1000
	MaxSummaryWarnings = 10
)

// Detail says how much a summary reads of a file.
type Detail int

const (
	// DetailFull reads everything a summary holds: usage by model, tool
	// calls, errors and files, as statistics need.
	DetailFull Detail = iota
	// DetailList reads only what a listing needs (ids, project, times,
	// title, message and turn counts), skipping most of every record
	// once its kind is known. Usage, tools, errors and files stay empty.
	DetailList
)

// Summary is what a fast scan of one native session file yields: enough to
// list sessions and total their usage without building a timeline. Its size
// does not grow with the session's records (Files is capped at
// MaxSummaryFiles; Buckets grows with the quarter hours the session made
// responses in, not with its responses), but for Responses, which a scan
// drops once it has compared the files.
type Summary struct {
	CLI  string `json:"cli"`
	ID   string `json:"id"`
	Path string `json:"path"`
	// Size is the file's size in bytes.
	Size int64 `json:"size"`
	// Project is the working directory.
	Project string `json:"project"`
	// Title is the session's title, or the start of its first prompt.
	Title string    `json:"title,omitempty"`
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
	// Messages counts user prompts and assistant text replies (tool
	// calls, results, thinking and injected context are not messages):
	// every one the file holds, copied history included (History).
	Messages int `json:"messages"`
	// Turns counts user prompts.
	Turns int `json:"turns"`
	// History describes the history a session stead wrote (a
	// conversion, fork, A/B arm, chain step or template) copied from
	// another session; nil for any other session. For such a session
	// Start is when stead wrote it and End its last record since (or
	// Start), and Turns, Usage, Tools, ToolErrors and Files count only
	// what happened in it: the history's usage is in Borrowed under
	// History.From, and its turns, tool calls, errors and files are
	// not counted.
	History *History `json:"history,omitempty"`
	// Parent links a fork or subagent to its parent session.
	Parent *Link `json:"parent,omitempty"`

	// Usage totals tokens of model responses recorded in this file,
	// each response counted once, excluding those copied from another
	// session (see Borrowed).
	Usage Usage `json:"usage"`
	// Models splits Usage by model.
	Models map[string]Usage `json:"models,omitempty"`
	// Borrowed holds usage of responses this file copied from other
	// sessions (forks), keyed by the id of the session that made them,
	// or by OriginKey(cli, id) when that session is another CLI's or
	// stead copied it. A caller that also scans that session should drop
	// it; otherwise it belongs to this file.
	Borrowed map[string]BorrowedUsage `json:"borrowed,omitempty"`
	// Buckets splits Usage by when each response was made, a quarter
	// hour at a time, and by model (see UsageBucket), sorted by Start
	// and Model: what usage over time (by day, week or month in any time
	// zone, or by billing block) is counted from. They add up to Usage
	// and Models exactly. Only a session.DetailFull summary counts
	// usage. They are not encoded.
	Buckets []UsageBucket `json:"-"`
	// Responses lists the responses whose usage Usage counts, by a hash
	// of their ids, so that a caller scanning several files counts a
	// response copied into several of them once: Claude Code 1.0 copied
	// a session's history, ids and usage, into the new file of a
	// --continue. It is not encoded.
	Responses []ResponseUsage `json:"-"`
	// LastUsage is the usage of the last model response: its context
	// size is the session's current context.
	LastUsage Usage `json:"lastUsage"`
	// Tools counts tool calls by universal tool name.
	Tools map[Tool]int `json:"tools,omitempty"`
	// ToolErrors counts tool results that reported an error.
	ToolErrors int `json:"toolErrors"`
	// Files lists files the session wrote or edited, as named in tool
	// calls, in first-seen order.
	Files []string `json:"files,omitempty"`
	// Skipped counts lines that could not be parsed.
	Skipped int `json:"skipped"`
	// Warnings describes the first skipped lines.
	Warnings []Warning `json:"warnings,omitempty"`
}

// Skip counts a line that could not be parsed.
func (s *Summary) Skip(line int, msg string) {
	s.Skipped++
	if len(s.Warnings) < MaxSummaryWarnings {
		s.Warnings = append(s.Warnings, Warning{Line: line, Message: msg})
	}
}

// History is the part of a session that stead copied from another
// session when it wrote it.
type History struct {
	// From names the session the history was copied from, as
	// OriginKey gives it: the key of its usage in Summary.Borrowed.
	From string `json:"from"`
	// Written is when stead wrote the session: its records timed at or
	// before Written are the history.
	Written time.Time `json:"written"`
	// Start and End span the history's own records, as timed in the
	// session they were copied from.
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
	// Messages counts the history's messages, which Summary.Messages
	// includes.
	Messages int `json:"messages"`
	// Adopted is the history's usage that Summary.Usage counts after
	// all, because the session it was copied from is not known to the
	// caller (see Adopt); AdoptedModels splits it by model.
	Adopted       Usage            `json:"adopted,omitzero"`
	AdoptedModels map[string]Usage `json:"adoptedModels,omitempty"`
	// AdoptedBuckets splits Adopted by time and model.
	AdoptedBuckets []UsageBucket `json:"-"`
}

// OriginKey names session id of CLI cli as a key of Summary.Borrowed.
func OriginKey(cli, id string) string { return cli + ":" + id }

// OwnMessages counts the messages of the session itself, not those of
// copied history.
func (s *Summary) OwnMessages() int {
	if s.History == nil {
		return s.Messages
	}
	return s.Messages - s.History.Messages
}

// BorrowedUsage is usage copied from another session, split by model and
// by time.
type BorrowedUsage struct {
	Usage   Usage            `json:"usage"`
	Models  map[string]Usage `json:"models,omitempty"`
	Buckets []UsageBucket    `json:"-"`
}

// AddUsage counts the usage of a model response made at t under model.
// A zero t is taken as the latest time the summary has seen (the
// response came after it), or left unknown when it has seen none.
func (s *Summary) AddUsage(t time.Time, model string, u Usage) {
	s.Usage.Add(u)
	addModel(&s.Models, model, u)
	addBucket(&s.Buckets, bucketOf(s.at(t), model, u))
	s.LastUsage = u
}

// at is t, or the latest time seen when t is unknown.
func (s *Summary) at(t time.Time) time.Time {
	if t.IsZero() {
		return s.End
	}
	return t
}

// ResponseUsage is one model response counted in a Summary.
type ResponseUsage struct {
	// Key hashes the ids that name the response across files.
	Key   uint64
	Model string
	Usage Usage
	// Bucket is the Start of the bucket that counts it.
	Bucket int64
}

// BucketOf returns the Start of the bucket a response made at t is
// counted in (what AddUsage counts it under, t zero included).
func (s *Summary) BucketOf(t time.Time) int64 { return bucketStart(s.at(t)) }

// Uncount takes back a response counted here, because it is counted in
// another file or a later record replaced it.
func (s *Summary) Uncount(r ResponseUsage) {
	s.Usage.Sub(r.Usage)
	if m, ok := s.Models[r.Model]; ok {
		m.Sub(r.Usage)
		if m.IsZero() {
			delete(s.Models, r.Model)
		} else {
			s.Models[r.Model] = m
		}
	}
	subBucket(&s.Buckets, UsageBucket{Start: r.Bucket, Model: r.Model, Usage: r.Usage, Responses: 1})
}

// AddBorrowed counts usage of a response made at t that was copied from
// session origin.
func (s *Summary) AddBorrowed(origin string, t time.Time, model string, u Usage) {
	s.lend(origin, bucketOf(s.at(t), model, u))
}

// lend adds b to the usage borrowed from origin.
func (s *Summary) lend(origin string, b UsageBucket) {
	if s.Borrowed == nil {
		s.Borrowed = make(map[string]BorrowedUsage)
	}
	bu := s.Borrowed[origin]
	bu.Usage.Add(b.Usage)
	addModel(&bu.Models, b.Model, b.Usage)
	addBucket(&bu.Buckets, b)
	s.Borrowed[origin] = bu
}

// Lend moves buckets counted in the summary's own usage to the usage
// borrowed from origin: they turned out to be copied from it.
func (s *Summary) Lend(origin string, buckets []UsageBucket) {
	for _, b := range buckets {
		s.Usage.Sub(b.Usage)
		if m, ok := s.Models[b.Model]; ok && !b.Usage.IsZero() {
			if m.Sub(b.Usage); m.IsZero() {
				delete(s.Models, b.Model)
			} else {
				s.Models[b.Model] = m
			}
		}
		subBucket(&s.Buckets, b)
		s.lend(origin, b)
	}
}

// Adopt moves usage borrowed from origin into the summary's own usage, for
// when the session it came from is not known.
func (s *Summary) Adopt(origin string) {
	b, ok := s.Borrowed[origin]
	if !ok {
		return
	}
	s.Usage.Add(b.Usage)
	for m, u := range b.Models {
		addModel(&s.Models, m, u)
	}
	for _, x := range b.Buckets {
		addBucket(&s.Buckets, x)
	}
	if h := s.History; h != nil && h.From == origin {
		h.Adopted.Add(b.Usage)
		for m, u := range b.Models {
			addModel(&h.AdoptedModels, m, u)
		}
		for _, x := range b.Buckets {
			addBucket(&h.AdoptedBuckets, x)
		}
	}
	delete(s.Borrowed, origin)
}

func addModel(m *map[string]Usage, model string, u Usage) {
	if *m == nil {
		*m = make(map[string]Usage)
	}
	cur := (*m)[model]
	cur.Add(u)
	(*m)[model] = cur
}

// AddTool counts a tool call.
func (s *Summary) AddTool(t Tool) {
	if s.Tools == nil {
		s.Tools = make(map[Tool]int)
	}
	s.Tools[t]++
}

// AddFile records a file the session modified.
func (s *Summary) AddFile(p string) {
	if p == "" || len(s.Files) >= MaxSummaryFiles {
		return
	}
	for _, f := range s.Files {
		if f == p {
			return
		}
	}
	s.Files = append(s.Files, p)
}

// See records a timestamp.
func (s *Summary) See(t time.Time) { widen(&s.Start, &s.End, t) }

// widen makes first and last span t too, unless t is unknown (zero).
func widen(first, last *time.Time, t time.Time) {
	if t.IsZero() {
		return
	}
	if first.IsZero() || t.Before(*first) {
		*first = t
	}
	if t.After(*last) {
		*last = t
	}
}

// Duration is the time from the first to the last record.
func (s *Summary) Duration() time.Duration {
	if s.Start.IsZero() || s.End.IsZero() {
		return 0
	}
	return s.End.Sub(s.Start)
}

// CacheHitRate is cache reads over cache reads plus cache writes, as seed
// 002 defines it, or 0 when there were neither.
func (u Usage) CacheHitRate() float64 {
	d := u.CacheRead + u.CacheWrite
	if d == 0 {
		return 0
	}
	return float64(u.CacheRead) / float64(d)
}

// ModelNames returns the models in m, sorted.
func ModelNames(m map[string]Usage) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// BucketSize is how long a usage bucket is: a quarter hour, so that the
// days, weeks and months of any time zone (whose offsets from UTC are all
// whole quarter hours) start and end between buckets, while a session
// holds few of them (at most 96 a day for each model it used) however
// many responses it made.
const BucketSize = 15 * time.Minute

// NoTime is the Start of the bucket of responses whose time is unknown.
const NoTime = math.MinInt64

// UsageBucket is the usage of the responses one model made in one quarter
// hour. It is small (80 bytes) because a scan keeps every session's.
type UsageBucket struct {
	// Start is when the quarter hour starts, in seconds since the Unix
	// epoch (a multiple of BucketSize), or NoTime.
	Start int64
	Model string
	Usage Usage
	// Responses counts the responses.
	Responses int32
	// First and Last are when the first and last of them were made, in
	// milliseconds after Start: where a billing block starts and how
	// fast it burns depend on the responses' times, not on quarter
	// hours. A response taken back (Uncount) leaves them as they were.
	First, Last int32
}

// Time is when the quarter hour starts, or the zero time for NoTime.
func (b *UsageBucket) Time() time.Time { return b.at(0) }

// FirstTime and LastTime are when its first and last responses were made
// (the zero time for NoTime).
func (b *UsageBucket) FirstTime() time.Time { return b.at(b.First) }
func (b *UsageBucket) LastTime() time.Time  { return b.at(b.Last) }

func (b *UsageBucket) at(ms int32) time.Time {
	if b.Start == NoTime {
		return time.Time{}
	}
	return time.UnixMilli(b.Start*1000 + int64(ms)).UTC()
}

const bucketSeconds = int64(BucketSize / time.Second)

// bucketStart is the Start of the bucket of time t.
func bucketStart(t time.Time) int64 {
	if t.IsZero() {
		return NoTime
	}
	sec := t.Unix()
	start := sec - sec%bucketSeconds
	if sec%bucketSeconds < 0 {
		start -= bucketSeconds
	}
	return start
}

// bucketOf is the bucket of one response made at t.
func bucketOf(t time.Time, model string, u Usage) UsageBucket {
	b := UsageBucket{Start: bucketStart(t), Model: model, Usage: u, Responses: 1}
	if b.Start != NoTime {
		ms := int32(t.UnixMilli() - b.Start*1000)
		b.First, b.Last = ms, ms
	}
	return b
}

// bucketLess orders buckets by Start, then Model.
func bucketLess(a, b *UsageBucket) bool {
	if a.Start != b.Start {
		return a.Start < b.Start
	}
	return a.Model < b.Model
}

// findBucket returns where b's key is, or would be, in the sorted list,
// and whether it is there. Responses mostly come in time order, so the
// last bucket is tried first.
func findBucket(list []UsageBucket, b *UsageBucket) (int, bool) {
	n := len(list)
	if n == 0 || bucketLess(&list[n-1], b) {
		return n, false
	}
	i := sort.Search(n, func(i int) bool { return !bucketLess(&list[i], b) })
	return i, i < n && list[i].Start == b.Start && list[i].Model == b.Model
}

// addBucket adds b to the sorted list.
func addBucket(list *[]UsageBucket, b UsageBucket) {
	i, ok := findBucket(*list, &b)
	if !ok {
		*list = slices.Insert(*list, i, b)
		return
	}
	x := &(*list)[i]
	if b.Responses > 0 {
		if x.Responses > 0 {
			x.First, x.Last = min(x.First, b.First), max(x.Last, b.Last)
		} else {
			x.First, x.Last = b.First, b.Last
		}
	}
	x.Responses += b.Responses
	x.Usage.Add(b.Usage)
}

// subBucket takes b back from the sorted list: a bucket left with neither
// usage nor responses goes. A bucket that is not there is added negated,
// so that the list still adds up to what was counted.
func subBucket(list *[]UsageBucket, b UsageBucket) {
	i, ok := findBucket(*list, &b)
	if !ok {
		neg := b
		neg.Usage = Usage{}
		neg.Usage.Sub(b.Usage)
		neg.Responses = -b.Responses
		*list = slices.Insert(*list, i, neg)
		return
	}
	x := &(*list)[i]
	x.Usage.Sub(b.Usage)
	x.Responses -= b.Responses
	if x.Usage.IsZero() && x.Responses <= 0 {
		*list = slices.Delete(*list, i, i+1)
	}
}

// SumBuckets adds up buckets, in all and by model: for a summary's
// Buckets, its Usage and Models.
func SumBuckets(buckets []UsageBucket) (Usage, map[string]Usage) {
	var all Usage
	models := map[string]Usage{}
	for _, b := range buckets {
		all.Add(b.Usage)
		m := models[b.Model]
		m.Add(b.Usage)
		models[b.Model] = m
	}
	for m, u := range models {
		if u.IsZero() {
			delete(models, m)
		}
	}
	return all, models
}

// SubBuckets returns the buckets of list less those of sub, as a new
// list.
func SubBuckets(list, sub []UsageBucket) []UsageBucket {
	out := slices.Clone(list)
	for _, b := range sub {
		subBucket(&out, b)
	}
	return out
}
