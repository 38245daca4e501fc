package index

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// An entry's text is kept compressed (the index holds it for ranking and
// snippets; the full-text index holds only its words): a byte saying how,
// then the text.
//
//   - 'p': the text as it is (a short one, or one that does not shrink).
//   - 'z': zstd. A uvarint, the length of a first frame holding the text's
//     first rankText bytes, that frame, then a frame with the rest when
//     there is more: ranking reads only the first.
//   - 'd': deflate, as indexes written before zstd hold it (read, no
//     longer written).
//
// On a sample of 199,212 entries of the benchmark corpus (135 MB of text),
// zstd at its default level kept 47.3 % of the text where deflate at its
// fastest kept 48.2 %, and compressed in 3.8 s instead of 5.4 s and
// decompressed in 1.1 s instead of 2.8 s; ranking a common word's
// candidates is mostly decompressing them.
const (
	packedPlain   = 'p'
	packedZstd    = 'z'
	packedDeflate = 'd'
)

// packMin is the shortest text worth compressing.
const packMin = 96

// zstd's encoder and decoder are safe for concurrent use; made when first
// needed, since making them costs a process that never packs.
var (
	zstdEncoder = sync.OnceValue(func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderCRC(false),
			zstd.WithZeroFrames(true), zstd.WithSingleSegment(true))
		if err != nil {
			panic(err) // the options are constant
		}
		return e
	})
	zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(8*MaxEntryText))
		if err != nil {
			panic(err)
		}
		return d
	})
)

// packText is text as the entries table keeps it: compressed when that is
// shorter.
func packText(text string) []byte {
	if len(text) >= packMin {
		enc := zstdEncoder()
		head, rest := text, ""
		if len(text) > rankText {
			head, rest = text[:rankText], text[rankText:]
		}
		out := make([]byte, 1+binary.MaxVarintLen32, 1+binary.MaxVarintLen32+len(text)/2)
		out[0] = packedZstd
		out = enc.EncodeAll([]byte(head), out)
		n := len(out) - (1 + binary.MaxVarintLen32)
		if rest != "" {
			out = enc.EncodeAll([]byte(rest), out)
		}
		// The first frame's length goes before it.
		var lenBuf [binary.MaxVarintLen32]byte
		k := binary.PutUvarint(lenBuf[:], uint64(n))
		start := 1 + binary.MaxVarintLen32 - k
		copy(out[start:], lenBuf[:k])
		out[start-1] = packedZstd
		out = out[start-1:]
		if len(out) < len(text)+1 {
			return out
		}
	}
	return append([]byte{packedPlain}, text...)
}

// unpacker reads what packText wrote, text after text, reusing its
// buffers (and for deflate its inflater: each new one allocates a 32 KB
// window).
type unpacker struct {
	in  bytes.Reader
	r   io.ReadCloser
	out bytes.Buffer
	buf []byte
}

func (u *unpacker) unpack(b []byte) (string, error) {
	return u.unpackPrefix(b, MaxEntryText*4)
}

// errDamaged is a packed text that cannot be read.
var errDamaged = errors.New("index: an entry's text is damaged")

// unpackPrefix is the text's first n bytes at most (the last character
// can be cut), decompressing little more than that.
func (u *unpacker) unpackPrefix(b []byte, n int) (string, error) {
	if len(b) == 0 {
		return "", nil
	}
	switch b[0] {
	case packedPlain:
		return string(b[1:min(len(b), n+1)]), nil
	case packedZstd:
		first, k := binary.Uvarint(b[1:])
		if k <= 0 || first > uint64(len(b)-1-k) {
			return "", errDamaged
		}
		frames := b[1+k:]
		if n <= rankText {
			frames = frames[:first]
		}
		var err error
		u.buf, err = zstdDecoder().DecodeAll(frames, u.buf[:0])
		if err != nil {
			return "", fmt.Errorf("index: an entry's text: %w", err)
		}
		return string(u.buf[:min(len(u.buf), n)]), nil
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
