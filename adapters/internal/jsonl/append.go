package jsonl

import (
	"io"
	"unicode/utf8"
)

// needsEscape marks the bytes AppendString cannot copy as they are.
var needsEscape = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	for c := 0x80; c < 0x100; c++ {
		t[c] = true // checked as UTF-8
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// AppendString appends s to dst as a JSON string: quoted, with quotes,
// backslashes and control characters escaped, and invalid UTF-8 replaced
// by U+FFFD, as encoding/json does (but without escaping <, > and &). It
// copies runs that need nothing at memory speed.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	return append(appendEscaped(dst, s), '"')
}

// appendEscaped appends s escaped for a JSON string, without quotes.
func appendEscaped(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if !needsEscape[c] {
			i++
			continue
		}
		if c >= 0x80 {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	return append(dst, s[start:]...)
}

// WriteString writes s to w as a JSON string, as AppendString would,
// escaping it in chunks through buf (which it returns, for reuse), so that
// a huge string needs no buffer of its size.
func WriteString(w io.Writer, s string, buf []byte) []byte {
	const chunk = 64 << 10
	buf = append(buf[:0], '"')
	for len(s) > 0 {
		n := min(chunk, len(s))
		// Do not cut a UTF-8 sequence.
		for n < len(s) && n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		if n == 0 {
			n = min(chunk, len(s))
		}
		buf = appendEscaped(buf, s[:n])
		if _, err := w.Write(buf); err != nil {
			return buf[:0]
		}
		buf = buf[:0]
		s = s[n:]
	}
	buf = append(buf, '"')
	w.Write(buf)
	return buf[:0]
}
