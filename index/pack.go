package index

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"sync"
)

// An entry's text is kept deflated (the index holds it for snippets; the
// full-text index holds only its words): a byte saying how, then the text.
const (
	packedPlain   = 'p'
	packedDeflate = 'd'
)

// packMin is the shortest text worth deflating.
const packMin = 96

var deflaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// packText is text as the entries table keeps it: deflated when that is
// shorter.
func packText(text string) []byte {
	if len(text) >= packMin {
		var buf bytes.Buffer
		buf.Grow(len(text)/2 + 16)
		buf.WriteByte(packedDeflate)
		w := deflaters.Get().(*flate.Writer)
		w.Reset(&buf)
		_, err := io.WriteString(w, text)
		if err == nil {
			err = w.Close()
		}
		deflaters.Put(w)
		if err == nil && buf.Len() < len(text)+1 {
			return buf.Bytes()
		}
	}
	return append([]byte{packedPlain}, text...)
}

// unpacker reads what packText wrote, text after text, reusing its
// inflater (each new one allocates a 32 KB window) and buffer.
type unpacker struct {
	in  bytes.Reader
	r   io.ReadCloser
	out bytes.Buffer
}

func (u *unpacker) unpack(b []byte) (string, error) {
	return u.unpackPrefix(b, MaxEntryText*4)
}

// unpackPrefix is the text's first n bytes at most (the last character
// can be cut), inflating no more than that.
func (u *unpacker) unpackPrefix(b []byte, n int) (string, error) {
	if len(b) == 0 {
		return "", nil
	}
	switch b[0] {
	case packedPlain:
		return string(b[1:min(len(b), n+1)]), nil
	case packedDeflate:
		u.in.Reset(b[1:])
		if u.r == nil {
			u.r = flate.NewReader(&u.in)
		} else if err := u.r.(flate.Resetter).Reset(&u.in, nil); err != nil {
			return "", fmt.Errorf("index: an entry's text: %w", err)
		}
		u.out.Reset()
		if _, err := u.out.ReadFrom(io.LimitReader(u.r, int64(n))); err != nil {
			return "", fmt.Errorf("index: an entry's text: %w", err)
		}
		return u.out.String(), nil
	}
	return "", fmt.Errorf("index: an entry's text is packed in an unknown way (%q)", b[0])
}
