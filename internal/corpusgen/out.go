package corpusgen

import (
	"bufio"
	"strconv"
	"time"
)

// out streams one session file. Records are assembled in a small scratch
// buffer and written piece by piece; large strings go straight from the text
// pool to the buffered writer, so memory does not grow with line size.
//
// Besides the bytes really written (n), out keeps a logical count: the bytes
// the session's original generator would have written. They differ only
// when a fork replays its original (bookkeeping lines are skipped,
// requestSessionId is added) or a line is truncated; generators base every
// size decision on the logical count, so a replay makes the same random
// draws as the original did.
type out struct {
	bw        *bufio.Writer
	n         int64 // bytes written to the file
	logical   int64 // bytes the original generator would have written
	lineStart int64
	lines     int   // complete lines written
	maxLine   int64 // longest line written, newline excluded
	malformed int   // 1-based line number of the truncated line, 0 if none
	scratch   []byte
}

// buf returns the empty scratch buffer to assemble the next piece in.
func (o *out) buf() []byte { return o.scratch[:0] }

// put writes b, part of the current line, and keeps its storage as scratch.
func (o *out) put(b []byte) {
	o.bw.Write(b) // bufio errors are sticky and reported by Flush
	o.n += int64(len(b))
	o.logical += int64(len(b))
	o.scratch = b[:0]
}

// putExtra writes b without counting it as logical output.
func (o *out) putExtra(b []byte) {
	o.bw.Write(b)
	o.n += int64(len(b))
	o.scratch = b[:0]
}

// blob streams x's text into the current line.
func (o *out) blob(x blob) {
	x.each(func(p []byte) {
		o.bw.Write(p)
		o.n += int64(len(p))
		o.logical += int64(len(p))
	})
}

// end writes b and a newline, finishing the current line.
func (o *out) end(b []byte) {
	o.put(append(b, '\n'))
	o.finishLine()
}

func (o *out) finishLine() {
	if l := o.n - o.lineStart - 1; l > o.maxLine {
		o.maxLine = l
	}
	o.lines++
	o.lineStart = o.n
}

// skip accounts for the complete line b that the original wrote but this
// file leaves out.
func (o *out) skip(b []byte) {
	o.logical += int64(len(b)) + 1
	o.scratch = b[:0]
}

// truncate writes the first half of the complete line b, which is then not
// valid JSON, and records it as the file's malformed line. The logical count
// grows by the whole line, as if it had been written.
func (o *out) truncate(b []byte) {
	cut := len(b) / 2
	o.bw.Write(b[:cut])
	o.bw.WriteByte('\n')
	o.n += int64(cut) + 1
	o.logical += int64(len(b)) + 1
	o.finishLine()
	o.malformed = o.lines
	o.scratch = b[:0]
}

// appendStr appends s as a JSON string.
func appendStr(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEsc(b, s)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendEsc appends s escaped for the inside of a JSON string.
func appendEsc(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	return append(b, s[start:]...)
}

// appendTS appends t as a quoted UTC timestamp with milliseconds, the form
// both CLIs use.
func appendTS(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
	return append(b, '"')
}

func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }
