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
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	encode := func(v any, prefix string) error {
		buf.Reset()
		enc.SetIndent(prefix, "  ")
		if err := enc.Encode(v); err != nil {
			return err
		}
		_, err := bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
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
