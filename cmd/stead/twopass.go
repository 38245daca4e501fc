package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/agenthistory"
	"github.com/stead-dev/stead/inject"
	"github.com/stead-dev/stead/session"
)

// exportSource is a session to export or show: whole, or, for a large
// file, its outline, its entries read again as they are written out and
// its native records spooled to disk.
type exportSource struct {
	s       *session.Session
	entries *outlineEntries
	records agenthistory.Records // nil: s.Records
	close   func()
}

// exportClock gives the time an export is made (a test fixes it).
var exportClock = time.Now

// twoPassAbove is the size from which a session file is exported or
// shown in two passes (see outlineEntries), so that memory does not grow
// with the session. Below it a session is read whole, in one pass.
var twoPassAbove int64 = 8 << 20

func openExport(ctx context.Context, f *Factory, opts *ExportOptions, it exportItem) (exportSource, error) {
	nothing := func() {}
	if strings.HasPrefix(it.ref, "run:") {
		b, err := connectBus(ctx, f, opts.Bus, true)
		if err != nil {
			return exportSource{}, err
		}
		defer b.Close()
		s, err := loadSession(ctx, f, b, it.ref, "")
		return exportSource{s: s, close: nothing}, err
	}
	a, _ := adapters.Lookup(it.cli)
	// Every format is written as the entries are read (a universal
	// document with its native records; CUSF holds none).
	if fi, err := os.Stat(it.sref.Path); err == nil && fi.Mode().IsRegular() && fi.Size() > twoPassAbove &&
		a.OpenOutline != nil && a.NewDecoder != nil {
		src, ok, err := openTwoPass(f, a, it.sref, fi.Size(), twoPassKeep{records: opts.Format != formatCUSF})
		if ok || err != nil {
			return src, err
		}
	}
	s, err := a.Open(f.Env, it.sref)
	return exportSource{s: s, close: nothing}, err
}

// twoPassKeep is what a first read keeps beside the outline: the native
// records (CUSF holds none), and the entries' ids (a transcript shortens
// them: see shortIDs).
type twoPassKeep struct{ records, ids bool }

// openTwoPass reads the first size bytes of ref's file for its outline,
// keeping what keep asks for, and opens the file again for its entries.
// It reports false when the session's entries are not all in its file:
// the caller reads it whole.
func openTwoPass(f *Factory, a adapters.Adapter, ref session.Ref, size int64, keep twoPassKeep) (exportSource, bool, error) {
	o := session.ReadOptions{Outline: session.NewOutline(), Limit: size, Records: func(session.Record) {}}
	if keep.ids {
		o.Outline.KeepIDs()
	}
	var spool *recordSpool
	if keep.records {
		var err error
		if spool, err = newRecordSpool(); err != nil {
			return exportSource{}, false, err
		}
		o.Records = spool.add
	}
	s, oneFile, err := a.OpenOutline(f.Env, ref, o)
	if err == nil && oneFile {
		err = spool.rewind()
	}
	// The first read leaves garbage of up to a few times its largest
	// record, and a heap target set while that record was held: collected
	// now, it does not add to what the second read holds.
	runtime.GC()
	if err != nil || !oneFile {
		spool.close()
		return exportSource{}, false, err
	}
	file, err := os.Open(ref.Path)
	if err != nil {
		spool.close()
		return exportSource{}, false, err
	}
	s.Timeline = nil
	var recs agenthistory.Records
	if spool != nil {
		recs = spool
	}
	return exportSource{s: s, records: recs, close: func() { file.Close(); spool.close() },
		entries: &outlineEntries{outline: o.Outline, events: a.NewDecoder(io.LimitReader(file, size)), name: ref.Path,
			newDecoder: a.NewDecoder, size: size}}, true, nil
}

// outlineEntries gives the entries of a session, read for its outline
// first, one at a time: each entry read again from the file is completed
// by the outline, as a Builder would have kept it. Memory holds the
// outline, a few dozen bytes an entry, and one record.
type outlineEntries struct {
	outline    *session.Outline
	events     inject.Stream
	name       string
	newDecoder func(io.Reader) adapters.Decoder
	size       int64           // the bytes of the file read
	raw        []session.Entry // the entries of the last record read
	i          int
	out        session.Entry
}

// title is the title a transcript gives the session when it has none
// (promptTitle of its first prompt), found by a read of the file from its
// start, one record at a time, up to that prompt: usually its first
// records, all of them for a session without one.
func (s *outlineEntries) title() (string, error) {
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
			if t, ok := promptTitle(&ev.Entries[i]); ok {
				return t, nil
			}
		}
	}
}

func (s *outlineEntries) Next() (*session.Entry, error) {
	n := s.outline.Len()
	if s.i >= n {
		return nil, io.EOF
	}
	for len(s.raw) == 0 {
		ev, err := s.events.Decode()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: %w: %d entries on a second read, %d on the first", s.name, errChanged, s.i, n)
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
		return nil, fmt.Errorf("%s: %w: entry %d is a %s at %s on a second read, not the %s first read there", s.name, errChanged,
			s.i+1, s.out.Type, session.FormatTime(s.out.Timestamp), s.outline.Type(s.i))
	}
	s.i++
	return &s.out, nil
}

// errChanged is a session file that changed between the two reads of an
// export.
var errChanged = errors.New("the session changed while it was read")

// recordSpool holds a session's native records on disk between the two
// reads of an export, in a private temporary file that is already
// unlinked, and gives them back in order. A nil spool holds nothing.
type recordSpool struct {
	f   *os.File
	w   *bufio.Writer
	r   *bufio.Reader
	err error
	rec session.Record
	buf []byte
}

func newRecordSpool() (*recordSpool, error) {
	f, err := os.CreateTemp("", "stead-records-*")
	if err != nil {
		return nil, fmt.Errorf("spooling records: %w", err)
	}
	os.Remove(f.Name())
	return &recordSpool{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

func (s *recordSpool) add(r session.Record) {
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

// rewind finishes writing and starts reading from the first record.
func (s *recordSpool) rewind() error {
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
func (s *recordSpool) Next() (*session.Record, error) {
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

func (s *recordSpool) close() {
	if s != nil {
		s.f.Close()
	}
}
