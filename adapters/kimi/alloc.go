package kimi

import (
	"reflect"

	"github.com/stead-dev/stead/session"
)

// How a whole-session read keeps its allocations down: the values every
// record makes (an event's entries, its native record, a warning, a
// usage) come a chunk at a time. (The strings nearly every record repeats
// are shared as they are read: see strCommon.)

// chunkBytes is the size of the chunks a batch allocates: small enough
// that a chunk kept alive by one value of it costs little and that the
// runtime allocates it as a small object (up to 32 KB, which costs less
// than a large one), large enough that allocating is rare.
const chunkBytes = 16 << 10

// batch hands out the values of the events a whole-session read folds,
// from chunks. A value of a chunk keeps the whole chunk alive, and with it
// what its neighbours point to (their native records): fine when the
// session keeps them all anyway, not for a Decoder whose caller keeps a
// few events of a long stream, so only read uses a batch.
type batch struct {
	entries  []session.Entry
	natives  []session.Native
	records  []session.Record
	warnings []session.Warning
	usages   []session.Usage
}

// carve returns the next n values of *free, a fresh chunk when it has too
// few. The slice has capacity n, so that appending to it cannot write over
// the values carved after it.
func carve[T any](free *[]T, n int) []T {
	if len(*free) < n {
		*free = make([]T, max(n, chunkBytes/int(reflect.TypeFor[T]().Size())))
	}
	s := (*free)[:n:n]
	*free = (*free)[n:]
	return s
}

// entries returns the slice of n entries a record's conversion fills.
func (d *Decoder) entries(n int) []session.Entry {
	if d.batch == nil {
		return make([]session.Entry, n)
	}
	return carve(&d.batch.entries, n)
}

// one returns e as a record's only entry.
func (d *Decoder) one(e session.Entry) []session.Entry {
	s := d.entries(1)
	s[0] = e
	return s
}

func (d *Decoder) newNative(n session.Native) *session.Native {
	if d.batch == nil {
		return newValue(nil, n)
	}
	return newValue(&d.batch.natives, n)
}

func (d *Decoder) newRecord(r session.Record) *session.Record {
	if d.batch == nil {
		return newValue(nil, r)
	}
	return newValue(&d.batch.records, r)
}

func (d *Decoder) warn(line int, msg string) *session.Warning {
	w := session.Warning{Path: d.Path, Line: line, Message: msg}
	if d.batch == nil {
		return newValue(nil, w)
	}
	return newValue(&d.batch.warnings, w)
}

func (d *Decoder) newUsage(u session.Usage) *session.Usage {
	if d.batch == nil {
		return newValue(nil, u)
	}
	return newValue(&d.batch.usages, u)
}

// newValue returns a pointer to a copy of v, carved from *free, or
// allocated on its own when free is nil.
func newValue[T any](free *[]T, v T) *T {
	var p *T
	if free != nil {
		p = &carve(free, 1)[0]
	} else {
		// Not &v, which would move v to the heap whether or not it
		// is returned.
		p = new(T)
	}
	*p = v
	return p
}
