package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// jsonField is one member of a JSON object written by writeJSON.
type jsonField struct {
	name string
	// value is encoded whole, unless items is set.
	value any
	// items yields the elements of an array one at a time, so a long
	// array is never held encoded in memory whole.
	items func(yield func(any) error) error
}

// writeJSON writes an object of the given fields, indented with two spaces
// and with HTML characters left as they are, as json.Encoder with
// SetIndent("", "  ") would, but streaming arrays element by element.
func writeJSON(w io.Writer, fields ...jsonField) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf bytes.Buffer
	var indented []byte
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	encode := func(v any, prefix string) error {
		buf.Reset()
		if err := enc.Encode(v); err != nil {
			return err
		}
		// Indented here: json.Encoder's indenting walks the bytes with
		// its full scanner, half the time of a long listing.
		indented = appendIndented(indented[:0], bytes.TrimSuffix(buf.Bytes(), []byte("\n")), prefix, "  ")
		_, err := bw.Write(indented)
		return err
	}
	bw.WriteString("{\n")
	for i, f := range fields {
		name, _ := json.Marshal(f.name)
		bw.WriteString("  ")
		bw.Write(name)
		bw.WriteString(": ")
		if f.items == nil {
			if err := encode(f.value, "  "); err != nil {
				return err
			}
		} else {
			n := 0
			err := f.items(func(v any) error {
				if n == 0 {
					bw.WriteString("[\n")
				} else {
					bw.WriteString(",\n")
				}
				n++
				bw.WriteString("    ")
				return encode(v, "    ")
			})
			if err != nil {
				return err
			}
			if n == 0 {
				bw.WriteString("[]")
			} else {
				bw.WriteString("\n  ]")
			}
		}
		if i < len(fields)-1 {
			bw.WriteString(",")
		}
		bw.WriteString("\n")
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// appendIndented appends src, JSON as json.Marshal writes it, indented as
// json.Indent would: each element and member on a line of its own,
// prefix and depth times indent before it, ": " after a name, and an
// empty object or array as {} or [].
func appendIndented(dst, src []byte, prefix, indent string) []byte {
	newline := func(dst []byte, depth int) []byte {
		dst = append(dst, '\n')
		dst = append(dst, prefix...)
		for range depth {
			dst = append(dst, indent...)
		}
		return dst
	}
	open, depth := false, 0 // open: after { or [, its first element not yet begun
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if open && c != '}' && c != ']' {
			open = false
			depth++
			dst = newline(dst, depth)
		}
		switch c {
		case '"':
			// The string, escapes and all, to its closing quote.
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(src))
			dst = append(dst, src[i:j]...)
			i = j - 1
		case '{', '[':
			open = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			dst = newline(dst, depth)
		case ':':
			dst = append(dst, ':', ' ')
		case '}', ']':
			if open {
				open = false
			} else {
				depth--
				dst = newline(dst, depth)
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// plural is n and noun, with an s unless n is 1: "1 session", "2 sessions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// table is a tabwriter whose output is buffered: a tabwriter writes each
// cell on its own when flushed, and standard output is not buffered (a
// list of 10,000 sessions was 20,000 writes).
type table struct {
	*tabwriter.Writer
	buf *bufio.Writer
}

func newTable(w io.Writer, minwidth, tabwidth, padding int) *table {
	buf := bufio.NewWriterSize(w, 64<<10)
	return &table{tabwriter.NewWriter(buf, minwidth, tabwidth, padding, ' ', 0), buf}
}

// Flush writes out what the table holds.
func (t *table) Flush() error {
	if err := t.Writer.Flush(); err != nil {
		return err
	}
	return t.buf.Flush()
}
