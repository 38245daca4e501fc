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
	"strings"

	"github.com/stead-dev/stead/session"
)

// Writer writes an export: the header, then one session line per Write.
// It encodes a line a message at a time and keeps nothing of the sessions
// it wrote, so memory does not grow with the export.
type Writer struct {
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
	// The session object is the only part that can fail to encode (a cost
	// that is not a number): encode it before writing anything.
	obj, err := encodeSession(w.encode, s)
	if err != nil {
		return fmt.Errorf("agenthistory: session %q: %w", s.ID, err)
	}
	w.bw.WriteString(`{"type":"session","session":`)
	w.bw.Write(obj)
	w.bw.WriteString(`,"messages":[`)
	tl := s.Timeline
	starts := groups(tl)
	ctx := newMsgCtx(s)
	for m, st := range starts {
		end := len(tl)
		if m+1 < len(starts) {
			end = starts[m+1]
		}
		if m > 0 {
			w.bw.WriteByte(',')
		}
		b, err := ctx.encodeMessage(w.encode, tl[st:end], m+1, m == 0, false)
		if err != nil {
			return w.fail(fmt.Errorf("agenthistory: session %q message %d: %w", s.ID, m+1, err))
		}
		w.bw.Write(b)
	}
	w.bw.WriteByte(']')
	if g := graph(tl, starts); g != nil {
		b, err := w.encode(g)
		if err != nil {
			return w.fail(fmt.Errorf("agenthistory: session %q graph: %w", s.ID, err))
		}
		w.bw.WriteString(`,"graph":`)
		w.bw.Write(b)
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
// temporary file in the same directory, renamed to path by the returned
// Closer, which also closes the Writer. When the Writer failed, or the
// file cannot be finished, the Closer removes the temporary file instead
// and returns the error, leaving any file at path as it was. A path ending in ".gz" is gzip-compressed. The
// file is private (0600): sessions hold code, prompts and secrets.
func Create(path string, h Header) (*Writer, io.Closer, error) {
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
		err = os.Rename(c.f.Name(), c.path)
	}
	if err != nil {
		os.Remove(c.f.Name())
		if !strings.HasPrefix(err.Error(), "agenthistory:") {
			err = fmt.Errorf("agenthistory: %w", err)
		}
	}
	c.err = err
	return err
}
