package agenthistory

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stead-dev/stead/session"
)

// Writer writes an export: the header, then one session line per Write
// or WriteStream.
// It encodes a line a message at a time and keeps nothing of the sessions
// it wrote, so memory does not grow with the export.
type Writer struct {
	// Names says what agent name to write for each CLI; set it before
	// the first Write (the zero Names writes each CLI's own name).
	Names Names

	bw  *bufio.Writer
	buf bytes.Buffer
	enc *json.Encoder
	err error
}

// NewWriter writes h's line to w and returns a Writer for the sessions
// that follow. Close flushes what is buffered; it does not close w.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	line, err := marshalHeader(h)
	if err != nil {
		return nil, fmt.Errorf("agenthistory: header: %w", err)
	}
	wr := &Writer{bw: bufio.NewWriterSize(w, 64<<10)}
	wr.enc = json.NewEncoder(&wr.buf)
	wr.enc.SetEscapeHTML(false)
	wr.bw.Write(line)
	if err := wr.bw.WriteByte('\n'); err != nil {
		return nil, fmt.Errorf("agenthistory: %w", err)
	}
	return wr, nil
}

// Write writes s as one session line. A session the format cannot hold
// (nil, an entry of an unknown type, a cost that is not a number) is
// refused before anything is written, and the Writer goes on; an error
// writing leaves the Writer failed, every later call returning it.
//
// Write is WriteStream with s as meta and its timeline as the entries.
func (w *Writer) Write(s *session.Session) error {
	if w.err != nil {
		return w.err
	}
	if s == nil {
		return errors.New("agenthistory: nil session")
	}
	if err := checkEntries(s); err != nil {
		return err // nothing written: the Writer can go on
	}
	return w.writeLine(s, nil, &sliceMessages{tl: s.Timeline})
}

// Entries gives a session's timeline one entry at a time, in order, for
// WriteStream. Next returns io.EOF after the last entry. The entry it
// returns, and what the entry points to, may be reused by the next call:
// WriteStream copies what it keeps.
type Entries interface {
	Next() (*session.Entry, error)
}

// WriteStream writes a session line as Write does, without the whole
// timeline in memory: meta is the session without its timeline (its
// Timeline is not read) and entries gives the timeline in order; records,
// when not nil, gives the native records in order instead of
// meta.Records, which are then not read. The line
// is written as it goes: the session object, then each message once its
// entries are read (only the current message is held), then the
// conversation graph, for which a few dozen bytes per message are kept
// (see the package documentation). Records are written one at a time.
//
// The session object comes first in the line, so it is made from meta
// alone: started_at and ended_at are meta.Metadata.Created and
// LastModified as given (Write takes them from the session's metadata
// the same way), and the tokens, cost, title, links and warnings are
// meta's, so a caller reads the session first (for its outline: see
// session.Outline) to fill them.
//
// A session object the format cannot hold (a cost that is not a number)
// is refused before anything is written, and the Writer goes on. Any
// later error (an entry of an unknown type, an error from entries, an
// error writing) comes with the line half written, and leaves the Writer
// failed.
func (w *Writer) WriteStream(meta *session.Session, records Records, entries Entries) error {
	if w.err != nil {
		return w.err
	}
	if meta == nil {
		return errors.New("agenthistory: nil session")
	}
	if entries == nil {
		return errors.New("agenthistory: nil entries")
	}
	return w.writeLine(meta, records, &streamMessages{src: entries})
}

// messages gives a line's messages in order, each the entries of one,
// valid until the next call; io.EOF after the last.
type messages interface {
	next() ([]session.Entry, error)
}

// writeLine writes the session line of meta, its records (meta.Records
// when recs is nil) and its messages.
func (w *Writer) writeLine(meta *session.Session, recs Records, msgs messages) error {
	// The head of the session object is the only part that can be refused
	// (a cost that is not a number): it is encoded before anything is
	// written.
	started := false
	err := writeSession(w.bw, w.encode, meta, w.Names, recs, func() error {
		started = true
		_, err := w.bw.WriteString(`{"type":"session","session":`)
		return err
	})
	switch {
	case err != nil && !started:
		return fmt.Errorf("agenthistory: session %q: %w", meta.ID, err)
	case err != nil:
		return w.fail(fmt.Errorf("agenthistory: session %q: %w", meta.ID, err))
	}
	w.bw.WriteString(`,"messages":[`)
	ids := newLineIndex(true)
	ctx := newMsgCtx(meta, ids)
	for m := 0; ; m++ {
		es, err := msgs.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return w.fail(fmt.Errorf("agenthistory: session %q: %w", meta.ID, err))
		}
		if m > 0 {
			w.bw.WriteByte(',')
		}
		ids.add(es)
		if err := ctx.writeMessage(w.bw, w.encode, es, m+1, m == 0, false); err != nil {
			return w.fail(fmt.Errorf("agenthistory: session %q message %d: %w", meta.ID, m+1, err))
		}
	}
	w.bw.WriteByte(']')
	if _, err := ids.writeGraph(w.bw, `,"graph":`, w.encode); err != nil {
		return w.fail(fmt.Errorf("agenthistory: session %q graph: %w", meta.ID, err))
	}
	w.bw.WriteString("}\n")
	if w.buf.Cap() > 1<<20 {
		w.buf = bytes.Buffer{} // do not keep one huge message's buffer
		w.enc = json.NewEncoder(&w.buf)
		w.enc.SetEscapeHTML(false)
	}
	if _, err := w.bw.Write(nil); err != nil {
		return w.fail(fmt.Errorf("agenthistory: %w", err))
	}
	return nil
}

// sliceMessages gives the messages of a timeline held in memory.
type sliceMessages struct {
	tl []session.Entry
	i  int
}

func (s *sliceMessages) next() ([]session.Entry, error) {
	if s.i >= len(s.tl) {
		return nil, io.EOF
	}
	st := s.i
	s.i = messageEnd(s.tl, st)
	return s.tl[st:s.i], nil
}

// streamMessages groups the entries of an Entries into messages, copying
// each entry: it reads one entry past the message it returns.
type streamMessages struct {
	src     Entries
	cur     []session.Entry
	ahead   session.Entry // the next message's first entry, when hasNext
	hasNext bool
	done    bool
}

func (s *streamMessages) next() ([]session.Entry, error) {
	if !s.hasNext {
		ok, err := s.read(&s.ahead)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, io.EOF
		}
	}
	clear(s.cur)
	s.cur = append(s.cur[:0], s.ahead)
	s.hasNext = false
	for {
		ok, err := s.read(&s.ahead)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if !sameResponse(&s.cur[len(s.cur)-1], &s.ahead) {
			s.hasNext = true
			break
		}
		s.cur = append(s.cur, s.ahead)
	}
	return s.cur, nil
}

// read copies the next entry to dst, and reports whether there was one.
func (s *streamMessages) read(dst *session.Entry) (bool, error) {
	if s.done {
		return false, nil
	}
	e, err := s.src.Next()
	switch {
	case err == io.EOF:
		s.done = true
		return false, nil
	case err != nil:
		return false, err
	case e == nil:
		return false, errors.New("entries gave a nil entry")
	case !e.Type.Valid():
		return false, fmt.Errorf("entry %q has invalid type %q", e.ID, e.Type)
	}
	copyEntry(dst, e)
	return true, nil
}

// copyEntry makes dst a copy of src that shares nothing an Entries may
// reuse.
func copyEntry(dst, src *session.Entry) {
	*dst = *src
	dst.Input = bytes.Clone(src.Input)
	if src.Usage != nil {
		u := *src.Usage
		dst.Usage = &u
	}
	dst.Reasoning = slices.Clone(src.Reasoning)
	dst.Attachments = slices.Clone(src.Attachments)
	if src.Subagent != nil {
		l := *src.Subagent
		dst.Subagent = &l
	}
	if src.Native != nil {
		nv := *src.Native
		nv.Record = bytes.Clone(src.Native.Record)
		dst.Native = &nv
	}
}

// encode returns v's JSON, valid until the next call.
func (w *Writer) encode(v any) ([]byte, error) {
	w.buf.Reset()
	if err := w.enc.Encode(v); err != nil {
		return nil, err
	}
	b := w.buf.Bytes()
	return b[:len(b)-1], nil
}

func (w *Writer) fail(err error) error {
	w.err = err
	return err
}

// Close flushes the export and reports the first error of the Writer. It
// does not check the header's session_count against the sessions written
// (a caller may skip a session it cannot open); a Reader warns when they
// differ.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if err := w.bw.Flush(); err != nil {
		return w.fail(fmt.Errorf("agenthistory: %w", err))
	}
	return nil
}

// Create starts an export to the file at path, written atomically: to a
// temporary file in the same directory, linked to path by the returned
// Closer, which also closes the Writer. It never replaces a file: when
// one is at path by then, the Closer fails with an error matching
// os.ErrExist. When the Writer failed, or the file cannot be finished,
// the Closer removes the temporary file and returns the error, leaving
// any file at path as it was. A path ending in ".gz" is gzip-compressed.
// The file is private (0600): sessions hold code, prompts and secrets.
func Create(path string, h Header) (*Writer, io.Closer, error) {
	return CreateFiltered(path, h, nil)
}

// CreateFiltered is Create with the NDJSON text passed through filter (when
// not nil) on its way to the file, before any compression: filter returns
// the writer to write to, whose Close flushes what it holds.
func CreateFiltered(path string, h Header, filter func(io.Writer) io.WriteCloser) (*Writer, io.Closer, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, nil, fmt.Errorf("agenthistory: %w", err)
	}
	c := &fileCloser{f: f, path: path}
	var out io.Writer = f
	if strings.HasSuffix(path, ".gz") {
		c.gz = gzip.NewWriter(f)
		out = c.gz
	}
	if filter != nil {
		c.filter = filter(out)
		out = c.filter
	}
	w, err := NewWriter(out, h)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, nil, err
	}
	c.w = w
	return w, c, nil
}

type fileCloser struct {
	w      *Writer
	f      *os.File
	filter io.WriteCloser
	gz     *gzip.Writer
	path   string
	closed bool
	err    error
}

func (c *fileCloser) Close() error {
	if c.closed {
		return c.err
	}
	c.closed = true
	err := c.w.Close()
	if c.filter != nil {
		if e := c.filter.Close(); err == nil {
			err = e
		}
	}
	if c.gz != nil {
		if e := c.gz.Close(); err == nil {
			err = e
		}
	}
	if err == nil {
		err = c.f.Sync()
	}
	if e := c.f.Close(); err == nil {
		err = e
	}
	if err == nil {
		// A hard link fails where a file is already, unlike a rename:
		// an export never replaces one.
		err = os.Link(c.f.Name(), c.path)
	}
	os.Remove(c.f.Name())
	if err != nil {
		if !strings.HasPrefix(err.Error(), "agenthistory:") {
			err = fmt.Errorf("agenthistory: %w", err)
		}
	}
	c.err = err
	return err
}
