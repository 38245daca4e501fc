package catalog

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/session"
)

// Opened is a session opened to be read out (exported, shown, stored):
// whole, or, for a large file, in two passes: its outline first, then
// its entries read again from the file as they are written out, its
// native records spooled to disk. Close it when done.
type Opened struct {
	// Session is the session; its Timeline is nil when Entries is set.
	Session *session.Session
	// Entries gives the entries of a session read in two passes; nil
	// when Session.Timeline holds them.
	Entries *Entries
	// Records gives the native records a two-pass read kept; nil when
	// Session.Records holds them (or none were kept).
	Records session.Records
	close   func()
}

// Close releases the file and spool a two-pass read holds.
func (o *Opened) Close() {
	if o != nil && o.close != nil {
		o.close()
	}
}

// Keep is what the first of two reads keeps beside the outline: the
// native records, and the entries' ids (session.Outline.KeepIDs).
type Keep struct{ Records, IDs bool }

// TwoPassAbove is the size from which a session file is read in two
// passes, so that memory does not grow with the session; below it a
// session is read whole. A variable so that tests can read small files
// in two passes.
var TwoPassAbove int64 = 8 << 20

// Open opens the session ref names for reading out: whole, or, for a
// file larger than TwoPassAbove of a CLI whose files hold their whole
// conversation, in two passes keeping what keep says.
func Open(env session.Env, a adapters.Adapter, ref session.Ref, keep Keep) (*Opened, error) {
	if fi, err := os.Stat(ref.Path); err == nil && fi.Mode().IsRegular() && fi.Size() > TwoPassAbove &&
		a.Reads() && a.OpenOutline != nil && a.NewDecoder != nil {
		o, ok, err := OpenTwoPass(env, a, ref, fi.Size(), keep)
		if ok || err != nil {
			return o, err
		}
	}
	s, err := a.Open(env, ref)
	if err != nil {
		return nil, err
	}
	return &Opened{Session: s}, nil
}

// OpenTwoPass reads the first size bytes of ref's file for its outline,
// keeping what keep asks for, and opens the file again for its entries.
// It reports false when the session's entries are not all in its file:
// the caller reads it whole.
func OpenTwoPass(env session.Env, a adapters.Adapter, ref session.Ref, size int64, keep Keep) (*Opened, bool, error) {
	o := session.ReadOptions{Outline: session.NewOutline(), Limit: size, Records: func(session.Record) {}}
	if keep.IDs {
		o.Outline.KeepIDs()
	}
	var spool *RecordSpool
	if keep.Records {
		var err error
		if spool, err = NewRecordSpool(); err != nil {
			return nil, false, err
		}
		o.Records = spool.Add
	}
	s, oneFile, err := a.OpenOutline(env, ref, o)
	if err == nil && oneFile {
		err = spool.Rewind()
	}
	// The first read leaves garbage of up to a few times its largest
	// record, and a heap target set while that record was held: collected
	// now, it does not add to what the second read holds.
	runtime.GC()
	if err != nil || !oneFile {
		spool.Close()
		return nil, false, err
	}
	file, err := os.Open(ref.Path)
	if err != nil {
		spool.Close()
		return nil, false, err
	}
	s.Timeline = nil
	opened := &Opened{Session: s, close: func() { file.Close(); spool.Close() },
		Entries: &Entries{outline: o.Outline, events: a.NewDecoder(io.LimitReader(file, size)), name: ref.Path,
			newDecoder: a.NewDecoder, size: size}}
	if spool != nil {
		opened.Records = spool
	}
	return opened, true, nil
}

// Entries gives the entries of a session, read for its outline first,
// one at a time: each entry read again from the file is completed by the
// outline, as a Builder would have kept it. Memory holds the outline, a
// few dozen bytes an entry, and one record.
type Entries struct {
	outline    *session.Outline
	events     adapters.Decoder
	name       string
	newDecoder func(io.Reader) adapters.Decoder
	size       int64           // the bytes of the file read
	raw        []session.Entry // the entries of the last record read
	i          int
	out        session.Entry
}

// IDs are the entries' ids, when the first read kept them (Keep.IDs).
func (s *Entries) IDs() []string { return s.outline.IDs() }

// Len is the number of entries.
func (s *Entries) Len() int { return s.outline.Len() }

// Find reads the file again from its start, one record at a time, up to
// the first entry match takes, and returns what match made of it: usually
// a read of the first records, all of them when no entry matches. (A
// transcript titles a session that has none after its first prompt.)
func (s *Entries) Find(match func(*session.Entry) (string, bool)) (string, error) {
	file, err := os.Open(s.name)
	if err != nil {
		return "", err
	}
	defer file.Close()
	events := s.newDecoder(io.LimitReader(file, s.size))
	for {
		ev, err := events.Decode()
		if errors.Is(err, io.EOF) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", s.name, err)
		}
		for i := range ev.Entries {
			if t, ok := match(&ev.Entries[i]); ok {
				return t, nil
			}
		}
	}
}

// Next returns the next entry, valid until the next call, or io.EOF; an
// error wrapping ErrChanged when the file no longer holds what its first
// read found.
func (s *Entries) Next() (*session.Entry, error) {
	n := s.outline.Len()
	if s.i >= n {
		return nil, io.EOF
	}
	for len(s.raw) == 0 {
		ev, err := s.events.Decode()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: %w: %d entries on a second read, %d on the first", s.name, ErrChanged, s.i, n)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		s.raw = ev.Entries
	}
	s.out = s.raw[0]
	s.raw[0] = session.Entry{}
	s.raw = s.raw[1:]
	if !s.outline.Complete(&s.out) {
		return nil, fmt.Errorf("%s: %w: entry %d is a %s at %s on a second read, not the %s first read there", s.name, ErrChanged,
			s.i+1, s.out.Type, session.FormatTime(s.out.Timestamp), s.outline.Type(s.i))
	}
	s.i++
	return &s.out, nil
}

// ErrChanged is a session file that changed between two reads.
var ErrChanged = errors.New("the session changed while it was read")

// RecordSpool holds a session's native records on disk between two reads,
// in a private temporary file that is already unlinked, and gives them
// back in order. A nil spool holds nothing.
type RecordSpool struct {
	f   *os.File
	w   *bufio.Writer
	r   *bufio.Reader
	err error
	rec session.Record
	buf []byte
}

// NewRecordSpool makes an empty spool.
func NewRecordSpool() (*RecordSpool, error) {
	f, err := os.CreateTemp("", "stead-records-*")
	if err != nil {
		return nil, fmt.Errorf("spooling records: %w", err)
	}
	os.Remove(f.Name())
	return &RecordSpool{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// Add spools a record; an error is kept for Rewind.
func (s *RecordSpool) Add(r session.Record) {
	if s.err != nil {
		return
	}
	var n [2 * binary.MaxVarintLen64]byte
	k := binary.PutUvarint(n[:], uint64(r.Line))
	k += binary.PutUvarint(n[k:], uint64(len(r.Record)))
	s.w.Write(n[:k])
	if _, err := s.w.Write(r.Record); err != nil {
		s.err = fmt.Errorf("spooling records: %w", err)
	}
}

// Rewind finishes writing and starts reading from the first record.
func (s *RecordSpool) Rewind() error {
	if s == nil {
		return nil
	}
	if s.err == nil {
		if err := s.w.Flush(); err != nil {
			s.err = fmt.Errorf("spooling records: %w", err)
		}
	}
	if s.err == nil {
		if _, err := s.f.Seek(0, io.SeekStart); err != nil {
			s.err = fmt.Errorf("spooling records: %w", err)
		}
	}
	s.r = bufio.NewReaderSize(s.f, 256<<10)
	return s.err
}

// Next returns the next record, valid until the next call, or io.EOF.
func (s *RecordSpool) Next() (*session.Record, error) {
	line, err := binary.ReadUvarint(s.r)
	if err == io.EOF {
		return nil, io.EOF
	}
	var n uint64
	if err == nil {
		n, err = binary.ReadUvarint(s.r)
	}
	if err == nil {
		if uint64(cap(s.buf)) < n {
			s.buf = make([]byte, n)
		}
		s.buf = s.buf[:n]
		_, err = io.ReadFull(s.r, s.buf)
	}
	if err != nil {
		return nil, fmt.Errorf("reading spooled records: %w", err)
	}
	s.rec = session.Record{Line: int(line), Record: s.buf}
	return &s.rec, nil
}

// Close removes the spool.
func (s *RecordSpool) Close() {
	if s != nil {
		s.f.Close()
	}
}
