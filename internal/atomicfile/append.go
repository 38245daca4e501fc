package atomicfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// An append-only log of JSON records, one a line, cannot be written
// atomically as a whole; its records can. A record goes in one write of
// the complete line, so that another process appending at the same time
// never interleaves with it. A write can still stop part way (a full
// disk, a crash): the rest of that line is lost, and the next record must
// not land on the same line. So an appender first ends a line left
// unterminated, and a reader skips a line that is not a whole record,
// with a warning, and goes on.

// AppendLine appends rec and a newline to the file at path, creating it
// with perm, in a single write. When the file does not end in a newline
// (a record torn by an earlier failed write), a newline goes first, in
// the same write. When the write fails part way, the part written is cut
// off again if no other process has appended since, so that a full disk
// leaves the file as it was.
func AppendLine(path string, rec []byte, perm os.FileMode) (err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, perm)
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("atomicfile: %w", cerr)
		}
	}()
	size, torn, err := tornEnd(f)
	if err != nil {
		return fmt.Errorf("atomicfile: %s: %w", path, err)
	}
	line := make([]byte, 0, len(rec)+2)
	if torn {
		line = append(line, '\n')
	}
	line = append(append(line, rec...), '\n')
	n, err := f.Write(line)
	if err != nil {
		if n > 0 {
			if fi, serr := f.Stat(); serr == nil && fi.Size() == size+int64(n) {
				f.Truncate(size)
			}
		}
		return fmt.Errorf("atomicfile: appending to %s: %w", path, err)
	}
	return nil
}

// OpenAppend opens the file at path for appending, creating it with perm,
// for a writer that appends whole lines one write at a time (a log). When
// the file does not end in a newline (its last line was torn), it ends
// that line first, so that the first new line starts on a line of its
// own.
func OpenAppend(path string, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, perm)
	if err != nil {
		return nil, fmt.Errorf("atomicfile: %w", err)
	}
	_, torn, err := tornEnd(f)
	if err == nil && torn {
		_, err = f.Write([]byte{'\n'})
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("atomicfile: %s: %w", path, err)
	}
	return f, nil
}

// tornEnd returns the size of f and whether it is a non-empty file that
// does not end in a newline.
func tornEnd(f *os.File) (int64, bool, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, false, err
	}
	if !fi.Mode().IsRegular() || fi.Size() == 0 {
		return fi.Size(), false, nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], fi.Size()-1); err != nil {
		return 0, false, err
	}
	return fi.Size(), last[0] != '\n', nil
}

// TornLine is a line of a log that is not a whole record.
type TornLine struct {
	Line int    // 1-based
	Text string // its start, at most 60 bytes
}

func (t TornLine) String() string {
	return fmt.Sprintf("line %d: not a whole record (a torn write?), skipped: %q", t.Line, t.Text)
}

// ReadLines calls fn with each record of a log of JSON records, one a
// line, as AppendLine writes them, with its 1-based line number. Blank
// lines are skipped; a line that is not one JSON value (a record torn by
// a full disk or a crash, perhaps with the next record run on) is skipped
// and returned, and reading goes on. An error from fn stops the reading
// and is returned.
func ReadLines(r io.Reader, fn func(line int, rec []byte) error) ([]TornLine, error) {
	var torn []TornLine
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			rec := bytes.TrimSpace(line)
			switch {
			case len(rec) == 0:
			case !json.Valid(rec):
				torn = append(torn, TornLine{Line: n, Text: string(rec[:min(len(rec), 60)])})
			default:
				if ferr := fn(n, rec); ferr != nil {
					return torn, ferr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return torn, nil
		}
		if err != nil {
			return torn, err
		}
	}
}
