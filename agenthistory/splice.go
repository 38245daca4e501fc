package agenthistory

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/stead-dev/stead/session"
)

// bigAbove is the length from which a text or raw JSON value of a message
// is written into the message's encoding as it is encoded, instead of
// being held encoded with the rest (see writeMessage): a tool output or
// native record of hundreds of megabytes is never held encoded.
const bigAbove = 64 << 10

// bigValues are the long values of a value about to be encoded, each set
// aside for a placeholder, so that the value is encoded small and the long
// values are then written into its encoding (splice).
type bigValues struct {
	vals []bigValue
}

type bigValue struct {
	token []byte // the placeholder as it is encoded
	str   string // the value: a text,
	raw   []byte // or raw JSON
	isRaw bool
	at    int // where token is in the small encoding
}

// placeholder returns the next placeholder: a text no value holds (a
// value holding it is caught by splice, which then finds it twice).
func (b *bigValues) placeholder() string {
	return "\x00stead-big-" + strconv.Itoa(len(b.vals)) + "\x00"
}

// str sets aside the text *p points to when it is long.
func (b *bigValues) str(p **string) {
	if *p == nil || len(**p) <= bigAbove {
		return
	}
	ph := b.placeholder()
	b.vals = append(b.vals, bigValue{token: encodedToken(ph), str: **p})
	*p = &ph
}

// text sets aside the text *p when it is long.
func (b *bigValues) text(p *string) {
	if len(*p) <= bigAbove {
		return
	}
	ph := b.placeholder()
	b.vals = append(b.vals, bigValue{token: encodedToken(ph), str: *p})
	*p = ph
}

// raw sets aside the raw JSON *p when it is long. It reports false for a
// long value that is not valid JSON, which the encoder would refuse: the
// caller encodes the value whole instead, for the encoder's error.
func (b *bigValues) raw(p *json.RawMessage) bool {
	if len(*p) <= bigAbove {
		return true
	}
	if !json.Valid(*p) {
		return false
	}
	ph := b.placeholder()
	tok := encodedToken(ph)
	b.vals = append(b.vals, bigValue{token: tok, raw: *p, isRaw: true})
	*p = json.RawMessage(tok)
	return true
}

// encodedToken is the JSON string of ph, as the encoder writes it.
func encodedToken(ph string) []byte {
	b, _ := session.MarshalCompact(ph)
	return b
}

// splice writes small, the encoding of a value whose long values were set
// aside, to out with each long value encoded in its place, as the encoder
// would have written the value whole. It reports false, writing nothing,
// when a placeholder is not found exactly once in small.
func (b *bigValues) splice(out io.Writer, small []byte) (bool, error) {
	for i := range b.vals {
		v := &b.vals[i]
		v.at = bytes.Index(small, v.token)
		if v.at < 0 || bytes.Contains(small[v.at+1:], v.token) {
			return false, nil
		}
	}
	slices.SortFunc(b.vals, func(x, y bigValue) int { return x.at - y.at })
	var scratch bytes.Buffer
	enc := json.NewEncoder(&scratch)
	enc.SetEscapeHTML(false)
	prev := 0
	for _, v := range b.vals {
		if _, err := out.Write(small[prev:v.at]); err != nil {
			return true, err
		}
		var err error
		if v.isRaw {
			_, err = out.Write(v.raw) // checked, and compact: the encoder writes it as it is
		} else {
			err = writeString(out, v.str, enc, &scratch)
		}
		if err != nil {
			return true, err
		}
		prev = v.at + len(v.token)
	}
	_, err := out.Write(small[prev:])
	return true, err
}

// writeString writes s as a JSON string, as the encoder enc (writing to
// scratch) writes it, a piece at a time. Pieces end before a byte that
// starts a character, so that no character is cut: the encoder escapes a
// character, or an invalid byte, on its own.
func writeString(out io.Writer, s string, enc *json.Encoder, scratch *bytes.Buffer) error {
	const piece = 64 << 10
	if _, err := io.WriteString(out, `"`); err != nil {
		return err
	}
	for len(s) > 0 {
		n := min(len(s), piece)
		for n < len(s) && n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		if n == 0 { // no character starts in the piece: take it whole
			n = min(len(s), piece)
		}
		scratch.Reset()
		if err := enc.Encode(s[:n]); err != nil {
			return err
		}
		e := scratch.Bytes()
		if _, err := out.Write(e[1 : len(e)-2]); err != nil { // without its quotes and newline
			return err
		}
		s = s[n:]
	}
	_, err := io.WriteString(out, `"`)
	return err
}

// writeMessage writes the entries of one message to out as encodeMessage
// encodes them, the same bytes, with their long texts and raw values
// written as they are encoded (see bigAbove): memory holds the message's
// entries and a small encoding, never the message encoded.
func (c *msgCtx) writeMessage(out io.Writer, enc func(any) ([]byte, error), es []session.Entry, index int, first, all bool) error {
	m := c.message(es, index, first, all)
	var big bigValues
	ok := true
	for i := range m.Content {
		b := &m.Content[i]
		big.str(&b.Text)
		big.str(&b.Output)
		ok = ok && big.raw(&b.Input)
	}
	if m.Metadata != nil && m.Metadata.Stead != nil {
		x0 := m.Metadata.Stead
		for _, x := range append([]*entryExt{x0}, x0.Rest...) {
			big.text(&x.Thinking)
			big.text(&x.Error)
			big.str(&x.InputText)
			if x.Native != nil {
				ok = ok && big.raw(&x.Native.Record)
				big.str(&x.Native.Text)
			}
		}
	}
	if ok && len(big.vals) > 0 {
		if small, err := enc(m); err == nil {
			if done, err := big.splice(out, small); done || err != nil {
				return err
			}
		}
	}
	b, err := c.encodeMessage(enc, es, index, first, all)
	if err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
}
