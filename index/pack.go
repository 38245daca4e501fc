package index

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"unsafe"

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
//   - 'y': zstd with the index's dictionary (dict.go): a uvarint, the
//     dictionary's id, then as 'z'. Most entries are short, and zstd
//     alone hardly shrinks a short text: on the 10,000-session corpus's
//     2.0 million entries (1.35 GB of text) a 64 KB dictionary trained on
//     1 MB of them took the packed text from 663 to about 475 MB.
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
	packedDict    = 'y'
	packedDeflate = 'd'
)

// packMin is the shortest text worth compressing.
const packMin = 96

// packWindow is how far back a packed text's matches reach. An entry's
// text is packed on its own and is mostly far shorter; with zstd's
// default (8 MB) each encoder held a 16 MB history, the largest part of
// what they cost a cold build's peak memory.
const packWindow = 1 << 20

// packOptions are the options of an encoder packing texts at level,
// with a dictionary or without.
func packOptions(level zstd.EncoderLevel) []zstd.EOption {
	return []zstd.EOption{zstd.WithEncoderLevel(level), zstd.WithEncoderCRC(false),
		zstd.WithZeroFrames(true), zstd.WithSingleSegment(true), zstd.WithWindowSize(packWindow)}
}

// zstd's encoder and decoder are safe for concurrent use; made when first
// needed, since making them costs a process that never packs.
var (
	zstdEncoder = sync.OnceValue(func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil, packOptions(zstd.SpeedDefault)...)
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
// shorter (without a dictionary: see packer).
func packText(text string) []byte { return (*packer)(nil).pack(text) }

// packer packs texts with an index's zstd dictionary ('y': the
// dictionary's id, then as 'z'); a nil packer packs without one ('z').
type packer struct {
	id  uint32
	pre []byte // id as a uvarint
	// enc is made when first needed: making it costs a process that
	// opens the index to search it about 30 ms.
	enc func() *zstd.Encoder
}

func (p *packer) pack(text string) []byte {
	if len(text) >= packMin {
		enc, tag := zstdEncoder(), byte(packedZstd)
		var pre []byte
		if p != nil {
			enc, tag, pre = p.enc(), packedDict, p.pre
		}
		head, rest := text, ""
		if len(text) > rankText {
			head, rest = text[:rankText], text[rankText:]
		}
		at := 1 + len(pre) + binary.MaxVarintLen32 // where the first frame starts
		out := make([]byte, at, at+len(text)/2)
		out = enc.EncodeAll(readOnly(head), out)
		n := len(out) - at
		if rest != "" {
			out = enc.EncodeAll(readOnly(rest), out)
		}
		// The tag, the dictionary's id and the first frame's length go
		// before it.
		var lenBuf [binary.MaxVarintLen32]byte
		k := binary.PutUvarint(lenBuf[:], uint64(n))
		start := at - k
		copy(out[start:], lenBuf[:k])
		start -= len(pre)
		copy(out[start:], pre)
		out[start-1] = tag
		out = out[start-1:]
		if len(out) < len(text)+1 {
			return out
		}
	}
	return append([]byte{packedPlain}, text...)
}

// readOnly is s's bytes, not copied, for a reader that does not write to
// them (zstd's encoder): a cold build of the index copied every text it
// packed.
func readOnly(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// unpacker reads what packText wrote, text after text, reusing its
// buffers (and for deflate its inflater: each new one allocates a 32 KB
// window).
type unpacker struct {
	// dicts finds the index's dictionaries ('y'); nil reads no 'y'.
	dicts *dicts
	in    bytes.Reader
	r     io.ReadCloser
	out   bytes.Buffer
	buf   []byte
}

func (u *unpacker) unpack(b []byte) (string, error) {
	return u.unpackPrefix(b, MaxEntryText*4)
}

// unzstd is the first n bytes of zstd frames b holds after the first
// frame's length.
func (u *unpacker) unzstd(dec *zstd.Decoder, b []byte, n int) (string, error) {
	first, k := binary.Uvarint(b)
	if k <= 0 || first > uint64(len(b)-k) {
		return "", errDamaged
	}
	frames := b[k:]
	if n <= rankText {
		frames = frames[:first]
	}
	var err error
	u.buf, err = dec.DecodeAll(frames, u.buf[:0])
	if err != nil {
		return "", fmt.Errorf("index: an entry's text: %w", err)
	}
	return alias(u.buf[:min(len(u.buf), n)]), nil
}

// alias is b as a string, not copied: b must not change while it is used.
func alias(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// errDamaged is a packed text that cannot be read.
var errDamaged = errors.New("index: an entry's text is damaged")

// unpackPrefix is the text's first n bytes at most (the last character
// can be cut), decompressing little more than that.
func (u *unpacker) unpackPrefix(b []byte, n int) (string, error) {
	v, err := u.view(b, n)
	return strings.Clone(v), err
}

// view is unpackPrefix without its copy: the text is in u's buffer (or
// in b), and good until u unpacks another or b changes. Ranking a common
// word's 2,000 candidates copied 8 MB of text it only counted words in.
func (u *unpacker) view(b []byte, n int) (string, error) {
	if len(b) == 0 {
		return "", nil
	}
	switch b[0] {
	case packedPlain:
		return alias(b[1:min(len(b), n+1)]), nil
	case packedZstd:
		return u.unzstd(zstdDecoder(), b[1:], n)
	case packedDict:
		id, k := binary.Uvarint(b[1:])
		if k <= 0 || id > math.MaxUint32 {
			return "", errDamaged
		}
		dec, err := u.dicts.decoder(uint32(id))
		if err != nil {
			return "", err
		}
		return u.unzstd(dec, b[1+k:], n)
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
		return alias(u.out.Bytes()), nil
	}
	return "", fmt.Errorf("index: an entry's text is packed in an unknown way (%q)", b[0])
}
