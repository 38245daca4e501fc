package history

import "time"

// Scanner is what Origin.Parse needs of a streaming JSON scanner
// (jsonl.Scanner).
type Scanner interface {
	Kind() byte
	Skip()
	BeginObject() bool
	NextKey() bool
	Key() []byte
	String(max int) []byte
}

// Origin is the provenance stead writes into a session it wrote, as a
// streaming summary reads it from a record: {"cli", "id", "written", ...}.
// Its byte slices are reused from record to record.
type Origin struct {
	CLI, ID, Written []byte
}

// Empty is o emptied, keeping its memory, for the next record.
func (o Origin) Empty() Origin {
	return Origin{CLI: o.CLI[:0], ID: o.ID[:0], Written: o.Written[:0]}
}

// Parse reads the provenance object s is at; a value that is not an
// object is skipped, and Parse reports false.
func (o *Origin) Parse(s Scanner) bool {
	if s.Kind() != '{' {
		s.Skip()
		return false
	}
	s.BeginObject()
	for s.NextKey() {
		switch string(s.Key()) {
		case "cli":
			o.CLI = append(o.CLI, s.String(64)...)
		case "id":
			o.ID = append(o.ID, s.String(1<<10)...)
		case "written":
			o.Written = append(o.Written, s.String(64)...)
		default:
			s.Skip()
		}
	}
	return true
}

// Mark tells split where the session came from and when stead wrote it,
// its time read by parseTime.
func (o *Origin) Mark(split *Split, parseTime func([]byte) time.Time) {
	split.From(string(o.CLI), string(o.ID), parseTime(o.Written))
}
