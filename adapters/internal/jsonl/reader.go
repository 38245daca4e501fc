package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
	"unicode/utf8"
)

// Reader reads lines of any length.
type Reader struct {
	r      io.Reader
	buf    []byte
	start  int // start of unread data in buf
	end    int // end of data in buf
	line   []byte
	lineNo int
	off    int64 // stream offset of buf[0]
	lineAt int64 // stream offset of the current line
	eof    bool
	err    error
	// partial is set when the current line is the last and has no
	// newline.
	partial bool
	// kept is the chunk the lines handed over are copied into (keep).
	kept []byte
	// size is the length of the file read when it is one (0 otherwise),
	// looked up (sized) when the buffer first grows past shrinkAbove: a
	// buffer grown for a huge line grows no larger than what is left of
	// the file.
	size  int64
	sized bool
}

// Lines handed over (Record.Raw) are copied into chunks of keepChunk
// bytes, one allocation for many lines instead of one each: a session's
// lines are most of what its decoder allocates. A line over keepMax gets
// a copy of its own, so that a chunk wastes little at its end. A line
// kept keeps its chunk alive: a caller that keeps a few lines of a long
// stream holds at most keepChunk for each.
const (
	keepChunk = 32 << 10
	keepMax   = 4 << 10
)

// keep returns line, the current line, as one the Reader does not touch
// again (a copy, or a huge line itself), its capacity its length
// (appending to it cannot write over the next).
func (r *Reader) keep(line []byte) []byte {
	if len(line) > shrinkAbove {
		// A huge line is handed over in the buffer grown for it, not
		// copied (it would be held twice): the Reader reads on in a new
		// buffer holding what follows it. (ReadInto, the adapters' fast
		// path, copied it: a 600 MB line was held twice.)
		line = line[:len(line):len(line)]
		nb := make([]byte, max(64<<10, 2*(r.end-r.start)))
		n := copy(nb, r.buf[r.start:r.end])
		r.off += int64(r.start)
		r.buf, r.start, r.end = nb, 0, n
		r.line = line
		return line
	}
	if len(line) > keepMax {
		return bytes.Clone(line)
	}
	if cap(r.kept)-len(r.kept) < len(line) {
		r.kept = make([]byte, 0, keepChunk)
	}
	start := len(r.kept)
	r.kept = append(r.kept, line...)
	return r.kept[start:len(r.kept):len(r.kept)]
}

// shrinkAbove is the buffer size above which a Reader lets go of a buffer
// grown for a huge line.
const shrinkAbove = 4 << 20

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: r, buf: make([]byte, 64<<10)}
}

// Next advances to the next non-blank line and reports whether there is
// one. Line endings (\n or \r\n) are not part of the line. A last line
// without a newline is returned too.
func (r *Reader) Next() bool {
	for {
		if !r.next() {
			return false
		}
		if !IsBlank(r.line) {
			return true
		}
	}
}

func (r *Reader) next() bool {
	scanFrom := r.start
	for {
		if i := bytes.IndexByte(r.buf[scanFrom:r.end], '\n'); i >= 0 {
			nl := scanFrom + i
			r.set(r.start, nl)
			r.start = nl + 1
			r.partial = false
			return true
		}
		scanFrom = r.end
		if r.eof {
			if r.start < r.end {
				r.set(r.start, r.end)
				r.start = r.end
				r.partial = true
				return true
			}
			r.line = nil
			return false
		}
		// Make room: slide unread data to the front, or grow. A buffer
		// grown for a huge line shrinks back once that line is done.
		if r.start > 0 && len(r.buf) > shrinkAbove && r.end-r.start < len(r.buf)/8 {
			nb := make([]byte, max(64<<10, 2*(r.end-r.start)))
			n := copy(nb, r.buf[r.start:r.end])
			r.buf = nb
			r.off += int64(r.start)
			scanFrom -= r.start
			r.start, r.end = 0, n
		}
		if r.start > 0 {
			n := copy(r.buf, r.buf[r.start:r.end])
			r.off += int64(r.start)
			scanFrom -= r.start
			r.start, r.end = 0, n
		}
		if r.end == len(r.buf) {
			r.grow()
		}
		n, err := r.r.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			r.eof = true
			if !errors.Is(err, io.EOF) {
				r.err = err
			}
		}
	}
}

// grow doubles the buffer, or makes it as large as what is left of the
// file when that is less: a line of 600 MB took a buffer of 1 GB, and
// 1.5 GB while it was copied into it.
func (r *Reader) grow() {
	n := 2 * len(r.buf)
	if !r.sized && n > shrinkAbove {
		r.sized = true
		if f, ok := r.r.(interface{ Stat() (os.FileInfo, error) }); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
				r.size = fi.Size()
			}
		}
	}
	// A file read from its start: what is left of it from buf[0] (with
	// a little more, so that its end is read as such, not as a full
	// buffer). A file that grows past its size grows the buffer again.
	if left := r.size - r.off + growSlack; r.size > 0 && left > int64(len(r.buf)) && left < int64(n) {
		n = int(left)
	}
	nb := make([]byte, n)
	copy(nb, r.buf[:r.end])
	r.buf = nb
}

// growSlack is the room a buffer grown to the end of a file keeps beyond
// it.
const growSlack = 4 << 10

func (r *Reader) set(from, nl int) {
	r.lineNo++
	r.lineAt = r.off + int64(from)
	l := r.buf[from:nl]
	if n := len(l); n > 0 && l[n-1] == '\r' {
		l = l[:n-1]
	}
	r.line = l
}

// Line returns the current line. It is valid until the next call to Next.
func (r *Reader) Line() []byte { return r.line }

// LineNo returns the 1-based number of the current line, counting blank
// lines.
func (r *Reader) LineNo() int { return r.lineNo }

// Offset returns the byte offset of the current line in the stream.
func (r *Reader) Offset() int64 { return r.lineAt }

// Err returns the first read error other than io.EOF.
func (r *Reader) Err() error { return r.err }

// Partial reports whether the current line is the last line of the input
// and has no newline: a record that may still be being written (see
// Incomplete).
func (r *Reader) Partial() bool { return r.partial }

// IsBlank reports whether b holds only JSON whitespace.
func IsBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// GrowingWindow is how recently a file must have been modified for an
// unterminated last line that does not parse to be taken as a record
// still being written, and not reported. The CLIs append whole records
// (Gemini CLI one appendFileSync of the line, gemini.md §4.2; Claude Code
// whole records in batches, at most about 3 s after they happen,
// claude.md), so a reader finds half a record only when it reads between
// the pieces of one large write, which takes milliseconds. A last line
// still incomplete seconds later was cut short: its writer died, or the
// disk filled. Five seconds leaves room for a slow disk and a loaded
// machine.
const GrowingWindow = 5 * time.Second

// Growing reports whether the file at path was modified within
// GrowingWindow, so that its unterminated last line may be a record still
// being written. A stream (path "") is not growing: its last line is all
// there will be.
func Growing(path string) bool {
	if path == "" {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && time.Since(fi.ModTime()) < GrowingWindow
}

// Incomplete is the problem reported for an unterminated last line of n
// bytes that does not parse (err): a record cut short. While its file is
// Growing the line is not reported at all.
func Incomplete(n int, err error) string {
	return fmt.Sprintf("incomplete last line skipped: its record is cut short (%d bytes, no newline: %v)", n, err)
}

// Record is one line read by Decode.
type Record struct {
	// Line is the 1-based line number.
	Line int
	// Raw is a copy of the line, owned by the caller.
	Raw []byte
	// Problem says why the line was skipped, or what could not be read
	// of it; it is empty when the line decoded cleanly.
	Problem string
	// Skipped is true when nothing could be read: the line is not a JSON
	// object, or not JSON at all.
	Skipped bool
	// Partial is true when the line is skipped for being an incomplete
	// last line (see Incomplete): a record its writer may still be
	// writing. Problem then says it was cut short; a caller that reads a
	// file Growing reports nothing.
	Partial bool
}

// Report returns the problem to report of rec, read from the file at
// path ("" for a stream): its Problem, or "" when it is an incomplete
// last line of a file still Growing (a record being written is not an
// error).
func (rec Record) Report(path string) string {
	if rec.Partial && Growing(path) {
		return ""
	}
	return rec.Problem
}

// Decode reads the next non-blank line into v with encoding/json. It
// returns io.EOF at the end of input and read errors as they are. A line
// that is not a JSON object, or not valid JSON, comes back Skipped with a
// Problem; a field of an unexpected type leaves v holding what could be
// read, with a Problem naming the field; invalid UTF-8 is read as U+FFFD,
// with a Problem saying so (InvalidUTF8).
func (r *Reader) Decode(v any) (Record, error) {
	rec, err := r.nextObject()
	if err != nil || rec.Skipped {
		return rec, err
	}
	if !r.unmarshal(r.line, &rec, v) {
		return rec, nil
	}
	rec.Raw = r.keep(r.line)
	return rec, nil
}

// unmarshal decodes line, the current line, into v with encoding/json
// and sets the problems of rec as Decode reports them. It reports false
// when rec is Skipped.
func (r *Reader) unmarshal(line []byte, rec *Record, v any) bool {
	if err := json.Unmarshal(line, v); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			rec.Problem, rec.Skipped = "malformed JSON ("+err.Error()+"); line skipped", true
			if r.partial {
				rec.Problem, rec.Partial = Incomplete(len(line), err), true
			}
			return false
		}
		rec.Problem = fmt.Sprintf("field %q has unexpected type %s; read what could be", te.Field, te.Value)
	}
	rec.checkUTF8(line)
	return true
}

// nextObject moves to the next non-blank line. It returns io.EOF at the
// end and read errors as they are; a line that is not a JSON object comes
// back Skipped with a Problem.
func (r *Reader) nextObject() (Record, error) {
	if !r.Next() {
		if r.err != nil {
			return Record{}, r.err
		}
		return Record{}, io.EOF
	}
	rec := Record{Line: r.lineNo}
	if r.line[0] != '{' {
		rec.Problem, rec.Skipped = "not a JSON object; line skipped", true
	}
	return rec, nil
}

// ReadInto reads the next record into *v as Decode does, but through fast
// when it can, for a caller with a faster reader of its own. fast reads
// raw, a copy of the line, into v and reports whether it could, and
// whether raw has a byte above 0x7f (a fast reader that declines invalid
// UTF-8 may report false). What fast declines is read from a zero *v with
// encoding/json, so that the records, problems and warnings are Decode's.
// *v is zeroed when a line is read, and stays zero for a Skipped line.
func ReadInto[T any](r *Reader, v *T, fast func(raw []byte, v *T) (ok, nonASCII bool)) (Record, error) {
	rec, err := r.nextObject()
	if err != nil {
		return rec, err
	}
	var zero T
	*v = zero
	if rec.Skipped {
		return rec, nil
	}
	rec.Raw = r.keep(r.line)
	if ok, nonASCII := fast(rec.Raw, v); !ok {
		*v = zero
		if !r.unmarshal(rec.Raw, &rec, v) {
			rec.Raw = nil
		}
	} else if nonASCII {
		rec.checkUTF8(rec.Raw)
	}
	return rec, nil
}

// checkUTF8 adds InvalidUTF8 to the problems of rec when line is not
// UTF-8.
func (rec *Record) checkUTF8(line []byte) {
	if !utf8.Valid(line) {
		rec.Problem = AddProblem(rec.Problem, InvalidUTF8)
	}
}

// InvalidUTF8 is the problem reported for a record holding bytes that are
// not UTF-8: what is read of it (and so what a conversion writes) has
// U+FFFD in their place, as encoding/json reads them. The native record
// keeps the bytes as they are.
const InvalidUTF8 = "invalid UTF-8 in the record, read as U+FFFD"

// AddProblem appends the problem p to problems, a "; "-separated list.
func AddProblem(problems, p string) string {
	if problems == "" {
		return p
	}
	return problems + "; " + p
}
