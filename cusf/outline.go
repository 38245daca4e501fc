package cusf

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/stead-dev/stead/session"
)

// Outline is what a first read of a CUSF file keeps (DecodeOutline) for a
// second read to give its entries one at a time as Decode gives them
// (Entries): a file too large to hold is read in memory bounded by its
// largest line. It holds a session.Outline, about 50 bytes an entry, and
// the entry ids a tool result's name could meet ("L" and a digit: ids the
// file gives as such, and those of lines with no id).
type Outline struct {
	outline *session.Outline
	ids     session.IDs
}

// ErrChanged is the error of a second read of a file that is not the
// file the first read read.
var ErrChanged = errors.New("the file changed between its two reads")

// DecodeOutline reads a CUSF file as Decode does without holding its
// entries: the session it returns has none (its metadata, totals and
// warnings are Decode's), and the lines that made no entry are handed to
// records, in order, instead of kept in its Records. The Outline's Entries
// then reads the entries from the same bytes again.
func DecodeOutline(r io.Reader, name string, records func(session.Record)) (*session.Session, *Outline, []error, error) {
	o := &Outline{outline: session.NewOutline()}
	d := newDecoder(name, session.NewBuilder("", name).With(session.ReadOptions{Outline: o.outline, Records: records}))
	var lform []string
	d.lform = func(id string) { lform = append(lform, id) }
	if err := d.read(r); err != nil {
		return nil, nil, d.warns, err
	}
	s, err := d.finish()
	if err != nil {
		return nil, nil, d.warns, err
	}
	// The Builder makes a repeated id unique with a "#n" suffix: an id of
	// this form can only repeat another of the form, so these are the
	// final ids a result's name is made unique among (see nameResults).
	for _, id := range lform {
		o.ids.Unique(id)
	}
	return s, o, d.warns, nil
}

// Len is the number of entries outlined.
func (o *Outline) Len() int { return o.outline.Len() }

// Entries returns the entries of the CUSF file r holds, read again after
// DecodeOutline read it for o: each, in order, as Decode gives it, one
// line at a time. Entries is called once. A file that is not the one first
// read fails with ErrChanged, naming it.
func (o *Outline) Entries(r io.Reader, name string) *EntryReader {
	er := &EntryReader{o: o, name: name, br: bufio.NewReaderSize(r, 64<<10)}
	er.d = newDecoder(name, nil)
	er.d.emit = func(ev session.Event) { er.queue = append(er.queue, ev.Entries...) }
	return er
}

// EntryReader gives the entries of a CUSF file read a second time (see
// Outline.Entries).
type EntryReader struct {
	o     *Outline
	name  string
	br    *bufio.Reader
	d     *decoder
	n     int // lines read
	eof   bool
	queue []session.Entry // entries decoded, not yet given
	i     int             // entries given
	out   session.Entry
}

// Next returns the next entry, valid until the next call, or io.EOF after
// the last.
func (r *EntryReader) Next() (*session.Entry, error) {
	if r.i >= r.o.outline.Len() {
		return nil, io.EOF
	}
	for len(r.queue) == 0 {
		if r.eof {
			return nil, fmt.Errorf("%s: %w: %d entries on a second read, %d on the first", r.name, ErrChanged, r.i, r.o.outline.Len())
		}
		line, err := r.br.ReadBytes('\n')
		if len(line) > 0 {
			r.n++
			r.d.line(r.n, line)
		}
		switch {
		case err == io.EOF:
			r.eof = true
			r.d.flush()
		case err != nil:
			return nil, fmt.Errorf("%s: %w", r.name, err)
		}
	}
	r.out = r.queue[0]
	r.queue[0] = session.Entry{}
	r.queue = r.queue[1:]
	if !r.o.outline.Complete(&r.out) {
		return nil, fmt.Errorf("%s: %w: entry %d is a %s on a second read, not the %s first read there", r.name, ErrChanged,
			r.i+1, r.out.Type, r.o.outline.Type(r.i))
	}
	if line, ok := strings.CutPrefix(r.out.ID, resultMark); ok {
		r.out.ID = r.o.ids.Unique("L" + line)
	}
	r.i++
	return &r.out, nil
}

// isLForm reports whether id is "L" and a digit, then anything: the form
// of the ids of lines with no id, and of the names given to results.
func isLForm(id string) bool { return len(id) >= 2 && id[0] == 'L' && id[1] >= '0' && id[1] <= '9' }
