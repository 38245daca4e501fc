package jsonl

import (
	"hash/maphash"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stead-dev/stead/session"
)

// Helpers the adapters' summarizers share.

// Title turns the start of a prompt (possibly cut mid-rune at a byte limit)
// into a one-line title.
func Title(b []byte) string {
	for len(b) > 0 && !utf8.Valid(b) {
		b = b[:len(b)-1]
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// Time parses a timestamp as the stores write them, or returns the zero
// time.
func Time(b []byte) time.Time {
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		t, _ = session.ParseTime(string(b))
	}
	return t.UTC()
}

var hashSeed = maphash.MakeSeed()

// Recent remembers the last few keys it was shown. The records of one API
// response are written close together, so it finds repeats without memory
// that grows with the session.
type Recent struct {
	keys [16]uint64
	next int
	used int
}

// Seen reports whether the key made of a and b was among the recent ones,
// and remembers it.
func (r *Recent) Seen(a, b []byte) bool {
	var h maphash.Hash
	h.SetSeed(hashSeed)
	h.Write(a)
	h.WriteByte(0)
	h.Write(b)
	k := h.Sum64()
	for i := 0; i < r.used; i++ {
		if r.keys[i] == k {
			return true
		}
	}
	r.keys[r.next] = k
	r.next = (r.next + 1) % len(r.keys)
	if r.used < len(r.keys) {
		r.used++
	}
	return false
}

// SkipFailed counts the scanner's current line, finished and Failed, as
// skipped in sum, with its problem, unless it is the incomplete last line
// (Scanner.Partial) of the file at path while the file is Growing: a
// record still being written is not an error.
func SkipFailed(sum *session.Summary, s *Scanner, path string) {
	if s.Partial() && Growing(path) {
		return
	}
	sum.Skip(s.LineNo(), s.Problem())
}
